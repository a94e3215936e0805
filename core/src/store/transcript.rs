//! Transcript entries: gapless per-session seq, encrypted content (AAD
//! `transcript:<sid>:<seq>:content`), paged reads.
//!
//! Per-entry metadata ([`EntryMeta`], schema v3): `model` and `provider` in
//! plaintext columns, the source's other fields sealed with record id
//! `transcript:<sid>:<seq>:meta`. Those columns come after `content_enc`
//! (see `schema::V3`), so only [`SessionStore::get_transcript_with_meta`]
//! selects them.
//!
//! Source: seed 000, "SessionStore" (`appendTranscript`, `getTranscript`)
//! and "Saved Transcript vs. Active Context": entries are never rewritten.

use std::borrow::Borrow;

use rusqlite::{params, OptionalExtension};

use super::{now_ms, ContentFormat, EntryMeta, NewEntry, Role, SessionStore, TranscriptEntry, Tx};
use crate::crypto;
use crate::error::{Error, Result};
use crate::journal;

/// `updated_at` advances on append only when it is at least this far behind
/// (milliseconds): "most recently active" ordering has 1-second resolution.
pub const ACTIVITY_GRANULARITY_MS: i64 = 1000;

/// Largest page `get_transcript` returns in one call.
pub const MAX_PAGE: u32 = 10_000;

fn content_record(sid: &str, seq: u64) -> String {
    format!("transcript:{sid}:{seq}:content")
}

/// The content envelope of entry `seq` of session `sid` (AAD record id
/// `transcript:<sid>:<seq>:content`).
pub(crate) fn seal_content(key: &crate::crypto::DataKey, sid: &str, seq: u64, content: &str) -> String {
    crypto::seal_str(key, &content_record(sid, seq), content)
}

/// Record id (AAD) of an entry's encrypted source metadata (`EntryMeta::extra`).
fn meta_record(sid: &str, seq: u64) -> String {
    format!("transcript:{sid}:{seq}:meta")
}

#[cfg(test)]
thread_local! {
    /// Test hook: fail the write right after the first row insert.
    pub(crate) static FAIL_AFTER_FIRST_INSERT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Append `entries` to a session in `t` with gapless seqs and one
/// `TranscriptAppended` journal event; `metas`, when given, holds one
/// [`EntryMeta`] per entry (same order; an empty `extra` stores no
/// `meta_enc`). Returns the seq of the first entry and
/// the time (ms) given to entries without `created_at_ms` (`(0, 0)` when
/// `entries` is empty, and nothing is written). Entries and metadata are
/// only borrowed. Errors: `NotFound` (session); `InvalidInput` (metadata
/// count or a bad model/provider name).
///
/// `sealed`, when given, is `(first seq, envelopes)`: each entry's content
/// already sealed by [`seal_content`] for the seq it was expected to get
/// (work done off the writing thread). They are used only when the session's
/// next seq is that first seq; otherwise (another writer appended in
/// between) the content is sealed again for the seqs it actually gets.
pub(crate) fn append_rows_in_tx<E: Borrow<NewEntry>, M: Borrow<EntryMeta>>(
    t: &Tx<'_>,
    session_id: &str,
    entries: &[E],
    metas: Option<&[M]>,
    sealed: Option<(u64, &[String])>,
) -> Result<(u64, i64)> {
    if entries.is_empty() {
        return Ok((0, 0));
    }
    if let Some(m) = metas {
        if m.len() != entries.len() {
            return Err(Error::invalid("one EntryMeta per entry is required"));
        }
        for x in m {
            super::sessions::check_label("model", &x.borrow().model)?;
            super::sessions::check_label("provider", &x.borrow().provider)?;
        }
    }
    let updated_at: i64 = t
        .tx
        .prepare_cached("SELECT updated_at FROM sessions WHERE id = ?1")?
        .query_row([session_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::not_found("session", session_id))?;
    // Seqs are gapless from 1, so the entry count of a session is its last seq.
    let last: i64 = t
        .tx
        .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM transcript_entries WHERE session_id = ?1")?
        .query_row([session_id], |r| r.get(0))?;
    let sealed = sealed.filter(|(first, env)| *first == last as u64 + 1 && env.len() == entries.len()).map(|(_, env)| env);
    let now = now_ms();
    let mut seq = last;
    let mut latest = 0i64;
    {
        let mut ins = t.tx.prepare_cached(
            "INSERT INTO transcript_entries (session_id, seq, role, format, content_enc, created_at, tokens, source_line, model, provider, meta_enc)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?;
        for (i, e) in entries.iter().enumerate() {
            let e = e.borrow();
            seq += 1;
            let created = e.created_at_ms.unwrap_or(now);
            latest = latest.max(created);
            let env = match sealed {
                Some(env) => std::borrow::Cow::Borrowed(env[i].as_str()),
                None => std::borrow::Cow::Owned(seal_content(t.key, session_id, seq as u64, &e.content)),
            };
            let meta = metas.map(|m| m[i].borrow());
            let meta_env = meta.filter(|m| !m.extra.is_empty()).map(|m| {
                let json = serde_json::to_string(&m.extra).expect("a JSON map serializes");
                crypto::seal_str(t.key, &meta_record(session_id, seq as u64), &json)
            });
            ins.execute(params![
                session_id,
                seq,
                e.role.as_str(),
                e.format.as_str(),
                env,
                created,
                e.tokens.map(|v| v as i64),
                e.source_line.map(|v| v as i64),
                meta.and_then(|m| m.model.as_deref()),
                meta.and_then(|m| m.provider.as_deref()),
                meta_env
            ])?;
            #[cfg(test)]
            if FAIL_AFTER_FIRST_INSERT.with(|f| f.get()) {
                return Err(Error::Database("injected failure after the first insert".into()));
            }
        }
    }
    // The activity clock (`updated_at`, which orders listings) moves in steps
    // of at least ACTIVITY_GRANULARITY_MS, so most appends leave the session
    // row and its two indexes untouched and write fewer pages.
    // Entries carrying their own time (imports) move the clock to that time, not to now.
    if latest - updated_at >= ACTIVITY_GRANULARITY_MS {
        t.tx.prepare_cached("UPDATE sessions SET updated_at = ?2 WHERE id = ?1")?.execute(params![session_id, latest])?;
    }
    let first = last as u64 + 1;
    journal::record(t, session_id, "TranscriptAppended", serde_json::json!({ "from_seq": first, "count": entries.len() }))?;
    Ok((first, now))
}

/// [`append_rows_in_tx`], returning the stored entries.
pub(crate) fn append_in_tx(t: &Tx<'_>, session_id: &str, entries: &[NewEntry], metas: Option<&[EntryMeta]>) -> Result<Vec<TranscriptEntry>> {
    let (first, now) = append_rows_in_tx(t, session_id, entries, metas, None)?;
    Ok(entries
        .iter()
        .enumerate()
        .map(|(i, e)| TranscriptEntry {
            session_id: session_id.to_string(),
            seq: first + i as u64,
            role: e.role,
            format: e.format,
            content: e.content.clone(),
            created_at_ms: e.created_at_ms.unwrap_or(now),
            tokens: e.tokens,
            source_line: e.source_line,
        })
        .collect())
}

impl SessionStore {
    /// Append one entry; returns it with its gapless per-session seq.
    /// Errors: `NotFound` (session), `Busy`.
    pub fn append_transcript(&self, session_id: &str, role: Role, content: String) -> Result<TranscriptEntry> {
        let mut v = self.append_entries(session_id, vec![NewEntry::text(role, content)])?;
        Ok(v.pop().expect("one entry in, one out"))
    }

    /// Append several entries in one transaction (all or none), with one
    /// `TranscriptAppended` journal event. Errors: as `append_transcript`.
    pub fn append_entries(&self, session_id: &str, entries: Vec<NewEntry>) -> Result<Vec<TranscriptEntry>> {
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        self.write(|t| append_in_tx(t, session_id, &entries, None))
    }

    /// [`Self::append_entries`] with per-entry metadata (model, provider,
    /// source fields; see [`EntryMeta`]), one per entry. Returns the entries
    /// as `append_entries` does.
    /// Errors: as `append_entries`; `InvalidInput` for a model or provider
    /// name over 256 bytes or with control characters.
    pub fn append_entries_with_meta(&self, session_id: &str, entries: Vec<(NewEntry, EntryMeta)>) -> Result<Vec<TranscriptEntry>> {
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        let (entries, metas): (Vec<NewEntry>, Vec<EntryMeta>) = entries.into_iter().unzip();
        self.write(|t| append_in_tx(t, session_id, &entries, Some(&metas)))
    }

    /// Up to `limit` entries with `seq >= from_seq`, in seq order. Page
    /// through a large session with `from_seq = last.seq + 1`; at most
    /// [`MAX_PAGE`] entries are decrypted per call.
    /// Errors: `NotFound` (session), `AuthenticationFailed`, `InvalidInput` (limit 0 or above MAX_PAGE).
    pub fn get_transcript(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<TranscriptEntry>> {
        self.read_entries(
            session_id,
            from_seq,
            limit,
            "SELECT seq, role, format, content_enc, created_at, tokens, source_line FROM transcript_entries
             WHERE session_id = ?1 AND seq >= ?2 ORDER BY seq LIMIT ?3",
            |_, _, e| Ok(e),
        )
    }

    /// [`Self::get_transcript`] with each entry's [`EntryMeta`] (all `None` /
    /// empty for entries written without). Slower on large entries than
    /// `get_transcript`: the metadata columns sit after the content (see
    /// `schema::V3`). Errors: as `get_transcript`; `Corrupt` when decrypted
    /// metadata is not a JSON object.
    pub fn get_transcript_with_meta(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<(TranscriptEntry, EntryMeta)>> {
        // model, provider and meta_enc follow content_enc in the record (added
        // by migration v3): only this read selects them, not get_transcript.
        self.read_entries(
            session_id,
            from_seq,
            limit,
            "SELECT seq, role, format, content_enc, created_at, tokens, source_line, model, provider, meta_enc FROM transcript_entries
             WHERE session_id = ?1 AND seq >= ?2 ORDER BY seq LIMIT ?3",
            |r, key, e| {
                let extra = match r.get::<_, Option<String>>(9)? {
                    None => serde_json::Map::new(),
                    Some(env) => {
                        let json = crypto::open_str(key, &meta_record(session_id, e.seq), &env)?;
                        match serde_json::from_str(&json) {
                            Ok(serde_json::Value::Object(m)) => m,
                            _ => return Err(Error::corrupt("transcript entry metadata is not a JSON object")),
                        }
                    }
                };
                let meta = EntryMeta { model: r.get(7)?, provider: r.get(8)?, extra };
                Ok((e, meta))
            },
        )
    }

    /// Run `sql` (selecting the seven entry columns first, then any others
    /// `f` reads) over one page and map each decrypted entry through `f`.
    fn read_entries<T>(
        &self,
        session_id: &str,
        from_seq: u64,
        limit: u32,
        sql: &str,
        mut f: impl FnMut(&rusqlite::Row<'_>, &crypto::DataKey, TranscriptEntry) -> Result<T>,
    ) -> Result<Vec<T>> {
        if limit == 0 || limit > MAX_PAGE {
            return Err(Error::invalid(format!("limit must be 1..={MAX_PAGE}")));
        }
        self.read(|c, key| {
            let exists: i64 = c.query_row("SELECT COUNT(*) FROM sessions WHERE id = ?1", [session_id], |r| r.get(0))?;
            if exists == 0 {
                return Err(Error::not_found("session", session_id));
            }
            let mut st = c.prepare_cached(sql)?;
            let mut rows = st.query(params![session_id, from_seq.min(i64::MAX as u64) as i64, limit as i64])?;
            let mut out = Vec::new();
            while let Some(r) = rows.next()? {
                let seq = r.get::<_, i64>(0)? as u64;
                let role: String = r.get(1)?;
                let format: String = r.get(2)?;
                let env: String = r.get(3)?;
                let entry = TranscriptEntry {
                    session_id: session_id.to_string(),
                    seq,
                    role: Role::parse(&role).map_err(|_| Error::corrupt("unknown role in transcript"))?,
                    format: ContentFormat::parse(&format).map_err(|_| Error::corrupt("unknown content format"))?,
                    content: crypto::open_str(key, &content_record(session_id, seq), &env)?,
                    created_at_ms: r.get(4)?,
                    tokens: r.get::<_, Option<i64>>(5)?.map(|v| v as u64),
                    source_line: r.get::<_, Option<i64>>(6)?.map(|v| v as u64),
                };
                out.push(f(r, key, entry)?);
            }
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_support::temp_store;

    #[test]
    fn presealed_content_is_used_only_for_the_seqs_it_was_sealed_for() {
        let (_d, s) = temp_store();
        let a = s.create_session(None, None).unwrap();
        let entries = vec![NewEntry::text(Role::User, "one"), NewEntry::text(Role::User, "two")];
        let sealed: Vec<String> = ["one", "two"].iter().enumerate().map(|(i, c)| seal_content(s.key(), &a.id, 1 + i as u64, c)).collect();
        // Expected seqs 1 and 2, and they are free: the envelopes are stored as given.
        let (first, _) = s.write(|t| append_rows_in_tx(t, &a.id, &entries, None::<&[EntryMeta]>, Some((1, &sealed)))).unwrap();
        assert_eq!(first, 1);
        let stored: Vec<String> = s
            .read(|c, _| {
                let mut st = c.prepare("SELECT content_enc FROM transcript_entries WHERE session_id = ?1 ORDER BY seq")?;
                let rows = st.query_map([&a.id], |r| r.get(0))?.collect::<rusqlite::Result<Vec<String>>>()?;
                Ok(rows)
            })
            .unwrap();
        assert_eq!(stored, sealed);
        // Sealed for seqs 3 and 4, but another writer took seq 3 first: the
        // content is sealed again for 4 and 5, and reads back.
        let sealed: Vec<String> = ["three", "four"].iter().enumerate().map(|(i, c)| seal_content(s.key(), &a.id, 3 + i as u64, c)).collect();
        s.append_transcript(&a.id, Role::Assistant, "interloper".into()).unwrap();
        let entries = vec![NewEntry::text(Role::User, "three"), NewEntry::text(Role::User, "four")];
        let (first, _) = s.write(|t| append_rows_in_tx(t, &a.id, &entries, None::<&[EntryMeta]>, Some((3, &sealed)))).unwrap();
        assert_eq!(first, 4);
        let got: Vec<(u64, String)> = s.get_transcript(&a.id, 1, 10).unwrap().into_iter().map(|e| (e.seq, e.content)).collect();
        assert_eq!(got, vec![(1, "one".into()), (2, "two".into()), (3, "interloper".into()), (4, "three".into()), (5, "four".into())]);
    }

    #[test]
    fn a_write_failing_after_the_first_insert_leaves_no_rows_and_no_lock() {
        let (_d, s) = temp_store();
        let a = s.create_session(None, None).unwrap();
        s.append_transcript(&a.id, Role::User, "kept".into()).unwrap();
        let journal_before = s.journal_events(&a.id, 1, 100).unwrap().len();
        FAIL_AFTER_FIRST_INSERT.with(|f| f.set(true));
        let e = s.append_entries(&a.id, vec![NewEntry::text(Role::User, "a"), NewEntry::text(Role::User, "b")]).unwrap_err();
        FAIL_AFTER_FIRST_INSERT.with(|f| f.set(false));
        assert_eq!(e.kind(), crate::ErrorKind::Database);
        let t = s.get_transcript(&a.id, 1, 100).unwrap();
        assert_eq!(t.iter().map(|e| e.content.as_str()).collect::<Vec<_>>(), vec!["kept"]);
        assert_eq!(s.get_session(&a.id).unwrap().entry_count, 1);
        assert_eq!(s.journal_events(&a.id, 1, 100).unwrap().len(), journal_before);
        // No write lock held: another connection can write immediately.
        let other = rusqlite::Connection::open(s.path()).unwrap();
        other.busy_timeout(std::time::Duration::from_millis(0)).unwrap();
        other.execute_batch("BEGIN IMMEDIATE; COMMIT;").unwrap();
        // And the next append gets seq 2 (no gap).
        assert_eq!(s.append_transcript(&a.id, Role::User, "next".into()).unwrap().seq, 2);
    }
}
