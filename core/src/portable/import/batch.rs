//! The import's batches: the writes the sink asks for, grouped into one
//! transaction each and applied on the writer thread (or the reading one).
//! Moved out of `import.rs` as is (issue 31 item 4).

use super::{parse_progress, stored_line_count, CONCURRENT_IMPORT, LINES_PREFIX};
use crate::backend::RecordId;
use crate::portable::model::Usage;
use crate::store::{EntryMeta, NewEntry, SessionStore, TokenUsage};
use crate::{Error, Result};
use serde_json::Value;
/// One write the reader asked for, not yet committed, with the source line
/// it came from (commits take every pending write at or below a safe point).
pub(super) struct PendingWrite {
    pub(super) line: u64,
    pub(super) target: usize,
    pub(super) op: Op,
}

pub(super) enum Op {
    Entry { entry: NewEntry, meta: EntryMeta, seq: u64, tool_calls: u64, tool_results: u64, record: Option<RecordId> },
    /// A usage figure and the records it makes held.
    Usage(Usage, Vec<RecordId>),
    Ext { kind: &'static str, body: String, record: Option<RecordId> },
    Rename(Option<String>),
}

/// One transaction's worth of import writes, prepared on the reading thread.
pub(super) struct Batch {
    pub(super) writes: Vec<BatchWrite>,
}

pub(super) enum BatchWrite {
    /// The progress record must still say `expected` lines (`None`: absent),
    /// else another import of the file got ahead: `Conflict`, roll back.
    CheckProgress { key: String, expected: Option<u64> },
    /// Entries with consecutive seqs from `first_seq` (`encodings`: the
    /// tokenizer of each one's session model, `None` for none). [`seal_batch`]
    /// redacts them (policy `on-write`), seals their content for those seqs
    /// (`sealed`) and counts it (`counted`: one token count per entry as
    /// stored, see `store::transcript::append_rows_in_tx`); both are empty
    /// before.
    Entries {
        sid: String,
        first_seq: u64,
        entries: Vec<NewEntry>,
        metas: Vec<EntryMeta>,
        encodings: Vec<Option<crate::context::Encoding>>,
        sealed: Vec<crate::store::transcript::SealedRow>,
        counted: Vec<Option<u64>>,
    },
    Usage { sid: String, usages: Vec<TokenUsage>, times: Vec<Option<i64>> },
    Ext { sid: String, kind: &'static str, body: String },
    Rename { sid: String, title: Option<String> },
    Model { sid: String, model: Option<String>, provider: Option<String> },
    /// Lines of the source file now in session `sid` (`import-lines:<sid>`
    /// in `meta`, a plain count): a later import of the same file from
    /// another path skips them.
    Lines { sid: String, lines: u64 },
    /// The progress record (sealed, under `key` in `meta`) and its `SessionImported` event.
    Progress { sid: String, key: String, record: String, event: Value },
    /// Source records now in session `sid`: one `import_records` row each.
    Records { sid: String, ids: Vec<RecordId> },
}

impl Batch {
    /// Transcript entries the batch appends.
    pub(super) fn entries(&self) -> usize {
        self.writes.iter().map(|w| if let BatchWrite::Entries { entries, .. } = w { entries.len() } else { 0 }).sum()
    }
}

/// The CPU work of a batch's entries before they are written (issue 33
/// item 3: the import's sealing stage, a thread between the reader and the
/// writer): redaction on write (issue 30 item 2), then each content sealed
/// for its seq with its metadata, its kind and call keys made (the whole
/// row but its insert, `store::transcript::SealedRow`), and its tokens
/// counted with its session's encoding (issue 33 item 7). Infallible; run
/// once per batch, before [`apply_batch`].
///
/// `split`: when the entries hold at least [`COUNT_SPLIT_BYTES`] to count,
/// a scoped helper thread counts the first half of them (by bytes) while
/// this one counts the rest and seals (counting is ~10× the cost of
/// sealing a byte, so one thread would hold the pipeline back); the counts
/// are the same either way.
pub(super) fn seal_batch(store: &SessionStore, batch: &mut Batch, split: bool) {
    use crate::context::tokens::count_for_storage;
    for w in &mut batch.writes {
        if let BatchWrite::Entries { sid, first_seq, entries, metas, encodings, sealed, counted } = w {
            for (entry, meta) in entries.iter_mut().zip(metas.iter_mut()) {
                store.redact_on_write(entry, Some(meta));
            }
            let count = |e: &NewEntry, enc: &Option<crate::context::Encoding>| count_for_storage(*enc, &e.content, e.tokens);
            let to_count = |e: &NewEntry, enc: &Option<crate::context::Encoding>| if enc.is_some() && e.tokens.is_none() { e.content.len() } else { 0 };
            let total: usize = entries.iter().zip(encodings.iter()).map(|(e, enc)| to_count(e, enc)).sum();
            // The first `mid` entries hold about half of the bytes to count.
            let mid = if split && total >= COUNT_SPLIT_BYTES {
                let mut acc = 0;
                entries.iter().zip(encodings.iter()).position(|(e, enc)| {
                    acc += to_count(e, enc);
                    acc >= total / 2
                }).map_or(0, |i| i + 1)
            } else {
                0
            };
            let (entries, metas, encodings) = (&*entries, &*metas, &*encodings);
            let seal_all = |sealed: &mut Vec<crate::store::transcript::SealedRow>| {
                let mut calls_by = None;
                sealed.clear();
                sealed.extend(entries.iter().zip(metas).enumerate().map(|(i, (e, m))| store.seal_entry_row(&mut calls_by, sid, *first_seq + i as u64, e, m)));
            };
            counted.clear();
            if mid == 0 {
                seal_all(sealed);
                counted.extend(entries.iter().zip(encodings).map(|(e, enc)| count(e, enc)));
            } else {
                std::thread::scope(|scope| {
                    let first = scope.spawn(|| entries[..mid].iter().zip(&encodings[..mid]).map(|(e, enc)| count(e, enc)).collect::<Vec<_>>());
                    let rest: Vec<Option<u64>> = entries[mid..].iter().zip(&encodings[mid..]).map(|(e, enc)| count(e, enc)).collect();
                    seal_all(sealed);
                    match first.join() {
                        Ok(c) => counted.extend(c),
                        // The helper's panic is this thread's, as the count's own would be.
                        Err(p) => std::panic::resume_unwind(p),
                    }
                    counted.extend(rest);
                });
            }
        }
    }
}

/// Bytes of content to count in one batch from which [`seal_batch`]
/// splits the counting over two threads (below it, a thread's start costs
/// more than it saves).
const COUNT_SPLIT_BYTES: usize = 64 << 10;

/// Write one batch in one transaction.
pub(super) fn apply_batch(store: &SessionStore, batch: Batch) -> Result<()> {
    store.write_batch(|t| {
        for w in &batch.writes {
            match w {
                BatchWrite::CheckProgress { key, expected } => {
                    let stored = match t.sealed_meta(key)? {
                        Some(text) => Some(parse_progress(&text)?.lines),
                        None => None,
                    };
                    if stored != *expected {
                        return Err(Error::conflict(CONCURRENT_IMPORT));
                    }
                }
                BatchWrite::Entries { sid, first_seq, entries, metas, sealed, counted, .. } => {
                    t.append_sealed_rows(sid, entries, metas, *first_seq, sealed, counted)?;
                }
                BatchWrite::Usage { sid, usages, times } => t.record_token_usage(sid, usages, times)?,
                BatchWrite::Ext { sid, kind, body } => {
                    t.append_context_extension(sid, kind, body)?;
                }
                BatchWrite::Rename { sid, title } => t.rename_session(sid, title.as_deref())?,
                BatchWrite::Model { sid, model, provider } => t.set_session_model(sid, model.as_deref(), provider.as_deref())?,
                BatchWrite::Lines { sid, lines } => {
                    // The count only grows: a shorter copy of the file never lowers it.
                    let key = format!("{LINES_PREFIX}{sid}");
                    let stored = stored_line_count(&t.meta(&key)?);
                    t.put_meta(&key, &stored.max(*lines).to_string(), true)?;
                }
                BatchWrite::Progress { sid, key, record, event } => {
                    t.put_meta(key, record, true)?;
                    t.record_event(sid, "SessionImported", event.clone())?;
                }
                BatchWrite::Records { sid, ids } => t.insert_import_records(sid, ids)?,
            }
        }
        Ok(())
    })
}

/// About how many bytes an entry and its metadata add to a batch.
pub(super) fn entry_bytes(e: &NewEntry, m: &EntryMeta) -> usize {
    e.content.len() + m.extra.values().map(json_size).sum::<usize>()
}

/// About how many bytes `v` takes as JSON (strings and numbers counted,
/// punctuation roughly): enough to bound a batch without serializing it.
pub(super) fn json_size(v: &Value) -> usize {
    match v {
        Value::Null | Value::Bool(_) | Value::Number(_) => 8,
        Value::String(s) => s.len() + 2,
        Value::Array(a) => 2 + a.iter().map(json_size).sum::<usize>(),
        Value::Object(m) => 2 + m.iter().map(|(k, v)| k.len() + 4 + json_size(v)).sum::<usize>(),
    }
}

