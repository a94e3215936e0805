//! Export a stored session back to thClaws JSONL (issue 4 item 1; DESIGN.md
//! "Portable sessions"), through the neutral model ([`load_portable`]).

use std::io::Write;

use super::import::{EXPORT_PAGE, SOURCE_COMPACTION_KIND};
use super::model::{Block, Compaction, PortableSession, Role, SnapshotKind, SourceInfo, StateSnapshot, Turn};
use super::thclaws::ThclawsWriter;
use super::{WriteOptions, WriteReport};
use crate::store::{ContentFormat, EntryMeta, Role as StoreRole, SessionRecord, SessionStore, TranscriptEntry};
use crate::privacy::{RedactPolicy, RedactionReport, Redactor};
use crate::Result;
use serde_json::Value;

/// Rebuild a stored session in the neutral model: its entries as turns
/// (`Text` entries become one text block, `Blocks` entries their blocks; a
/// `Blocks` entry that is not a JSON array becomes one text block) with
/// their stored [`EntryMeta`] (`model`, `provider`, `extra`; an assistant
/// entry stored without a model or provider takes the session's), title,
/// model, provider, workspace (as `cwd`), creation time, and the latest
/// `plan_snapshot` / `goal_snapshot` / `provider_state` and every
/// `compaction` context extension.
///
/// Errors: `NotFound`, `AuthenticationFailed`, store errors.
pub fn load_portable(store: &SessionStore, session_id: &str) -> Result<PortableSession> {
    Ok(load_portable_redacting(store, session_id, false)?.0)
}

/// [`load_portable`], with every secret replaced by its marker when
/// `redact` (in the title, snapshots, compactions, each entry's content and
/// its `extra`, as the thClaws export redacts); returns the redaction counts
/// too. Errors: as [`load_portable`].
pub(crate) fn load_portable_redacting(store: &SessionStore, session_id: &str, redact: bool) -> Result<(PortableSession, RedactionReport)> {
    let (rec, mut s) = load_header(store, session_id)?;
    let mut rep = RedactionReport::default();
    let r = redact.then(|| store.redactor());
    if let Some(r) = r {
        redact_header(r, &mut s, &mut rep);
    }
    let mut from = 1;
    loop {
        let page = store.get_transcript_with_meta(session_id, from, EXPORT_PAGE)?;
        let Some((last, _)) = page.last() else { break };
        from = last.seq + 1;
        let n = page.len();
        for (mut e, mut meta) in page {
            if let Some(r) = r {
                crate::store::redact_entry(r, e.format, &mut e.content, Some(&mut meta), &mut rep);
            }
            s.turns.push(entry_turn(&rec, e, meta));
        }
        if n < EXPORT_PAGE as usize {
            break;
        }
    }
    Ok((s, rep))
}

/// A stored entry as a neutral turn (see [`load_portable`]).
fn entry_turn(rec: &SessionRecord, e: TranscriptEntry, meta: EntryMeta) -> Turn {
    let role = match e.role {
        StoreRole::User => Role::User,
        StoreRole::Assistant => Role::Assistant,
        StoreRole::System => Role::System,
        StoreRole::Tool => Role::Tool,
    };
    let blocks = match e.format {
        ContentFormat::Text => vec![Block::Text { text: e.content }],
        ContentFormat::Blocks => match serde_json::from_str::<Value>(&e.content) {
            Ok(Value::Array(a)) => {
                // The text now lives in `a`: free it before building blocks.
                drop(e.content);
                a.into_iter().map(Block::from_json).collect()
            }
            _ => vec![Block::Text { text: e.content }],
        },
    };
    let mut t = Turn::new(role, blocks, Some(e.created_at_ms), e.seq);
    t.model = meta.model;
    t.provider = meta.provider;
    t.extra = meta.extra;
    if role == Role::Assistant {
        // Entries written without metadata (before schema v3, or by a
        // host) are attributed to the session's model, as before.
        if t.model.is_none() {
            t.model = rec.model.clone();
        }
        if t.provider.is_none() {
            t.provider = rec.provider.clone();
        }
    }
    t
}

/// The session's record and its neutral model without turns: title, model,
/// provider, workspace, creation time, snapshots and compactions (what
/// [`load_portable`] reads besides the transcript).
fn load_header(store: &SessionStore, session_id: &str) -> Result<(SessionRecord, PortableSession)> {
    let rec = store.get_session(session_id)?;
    let mut s = PortableSession {
        id: rec.id.clone(),
        title: rec.name.clone(),
        model: rec.model.clone(),
        provider: rec.provider.clone(),
        cwd: rec.workspace_path.clone(),
        created_at_ms: Some(rec.created_at_ms),
        source: SourceInfo { format: None, ..Default::default() },
        ..Default::default()
    };
    for x in store.list_context_extensions(session_id)? {
        let Ok(body) = serde_json::from_str::<Value>(&x.body) else { continue };
        match x.kind.as_str() {
            // Every snapshot in order (issue 14 item 3); the latest wins in
            // `plan` / `goal`. One stored before issue 14 has no `at_seq` (0).
            "plan_snapshot" | "goal_snapshot" => {
                let (kind, field) = if x.kind == "plan_snapshot" { (SnapshotKind::Plan, "plan") } else { (SnapshotKind::Goal, "goal") };
                let value = body.get(field).cloned().unwrap_or(Value::Null);
                s.snapshots.push(StateSnapshot {
                    kind,
                    at_turn: body.get("at_seq").and_then(Value::as_u64).unwrap_or(0) as usize,
                    value: value.clone(),
                    timestamp_ms: body.get("timestamp_ms").and_then(Value::as_i64),
                });
                match kind {
                    SnapshotKind::Plan => s.plan = Some(value),
                    SnapshotKind::Goal => s.goal = Some(value),
                }
            }
            // The source's own text of the working directory wins over the
            // canonical workspace (lowercased for a Windows path, issue 28 item 5).
            "import_source" => {
                if let Some(cwd) = body.get("cwd").and_then(Value::as_str).filter(|c| !c.is_empty()) {
                    s.cwd = Some(cwd.to_owned());
                }
            }
            "provider_state" => s.provider_state = Some(body.get("provider_session_id").and_then(Value::as_str).map(str::to_owned)),
            SOURCE_COMPACTION_KIND => {
                let messages = body
                    .get("messages")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .map(|m| {
                                let role = m.get("role").and_then(Value::as_str).and_then(Role::parse).unwrap_or(Role::User);
                                let blocks = m.get("content").and_then(Value::as_array).map(|b| b.iter().cloned().map(Block::from_json).collect()).unwrap_or_default();
                                Turn::new(role, blocks, None, 0)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                s.compactions.push(Compaction {
                    at_turn: body.get("at_seq").and_then(Value::as_u64).unwrap_or(0) as usize,
                    source_line: body.get("source_line").and_then(Value::as_u64).unwrap_or(0),
                    timestamp_ms: body.get("timestamp_ms").and_then(Value::as_i64),
                    summary: body.get("summary").and_then(Value::as_str).map(str::to_owned),
                    replaces_count: body.get("replaces_count").and_then(Value::as_u64),
                    messages,
                    raw: body.get("raw").cloned().filter(|r| !r.is_null()),
                })
            }
            _ => {}
        }
    }
    s.compactions.sort_by_key(|c| c.at_turn);
    // Stable: snapshots at one place keep their stored order.
    s.snapshots.sort_by_key(|x| x.at_turn);
    Ok((rec, s))
}

/// Export a stored session as thClaws JSONL (the format real thClaws reads)
/// to `out`. Every line deserializes with thClaws' own types (issue 14;
/// DESIGN.md "Portable sessions"; checked by [`super::thclaws_check`]):
/// blocks thClaws does not define are converted or written as text
/// ([`super::thclaws_blocks`]) and empty turns are left out, as with
/// [`WriteOptions::only_thclaws_blocks`].
/// Errors: as [`load_portable`], and `Io` from `out`.
///
/// Redaction (issue 30 item 2): with the store's policy `OnExport` or
/// `OnWrite` every secret is replaced by its marker; with `Off` (the
/// default) the export is exact. [`export_thclaws_redacting`] chooses.
pub fn export_thclaws<W: Write>(store: &SessionStore, session_id: &str, out: W) -> Result<WriteReport> {
    export_thclaws_with(store, session_id, out, &WriteOptions::default())
}

/// [`export_thclaws`] with redaction chosen by the caller (`redact`: true
/// replaces every secret by its marker, whatever the store's policy; false
/// exports exactly, the CLI's `--no-redact`); returns what was written and
/// how many secrets of each rule were replaced. Errors: as [`export_thclaws`].
pub fn export_thclaws_redacting<W: Write>(store: &SessionStore, session_id: &str, out: W, redact: bool) -> Result<(WriteReport, RedactionReport)> {
    export_inner(store, session_id, out, &WriteOptions::default(), redact)
}

/// Does the store's policy redact exports by default?
pub fn policy_redacts_exports(store: &SessionStore) -> bool {
    store.redact_policy() != RedactPolicy::Off
}

/// Redact the header's title, snapshots and compactions in place.
fn redact_header(r: &Redactor, s: &mut PortableSession, rep: &mut RedactionReport) {
    if let Some(t) = s.title.as_mut() {
        if let Some(x) = r.redact_str(t, rep) {
            *t = x;
        }
    }
    for v in s.plan.iter_mut().chain(s.goal.iter_mut()).chain(s.snapshots.iter_mut().map(|x| &mut x.value)) {
        r.redact_json(v, rep);
    }
    for c in &mut s.compactions {
        if let Some(x) = c.summary.as_deref().and_then(|t| r.redact_str(t, rep)) {
            c.summary = Some(x);
        }
        if let Some(raw) = c.raw.as_mut() {
            r.redact_json(raw, rep);
        }
        for t in &mut c.messages {
            for b in &mut t.blocks {
                redact_block(r, b, rep);
            }
        }
    }
}

/// Redact one block's strings in place.
fn redact_block(r: &Redactor, b: &mut Block, rep: &mut RedactionReport) {
    let mut v = b.to_json();
    if r.redact_json(&mut v, rep) {
        *b = Block::from_json(v);
    }
}

/// [`export_thclaws`] into a string: the whole JSONL text (every host's
/// `export_thclaws`). Errors: as [`export_thclaws`]; `Corrupt` if the text
/// were not UTF-8 (it always is: every line is serialized JSON).
pub fn export_thclaws_text(store: &SessionStore, session_id: &str) -> Result<String> {
    let mut out = Vec::new();
    export_thclaws(store, session_id, &mut out)?;
    String::from_utf8(out).map_err(|_| crate::Error::corrupt("export produced invalid UTF-8"))
}

/// [`export_thclaws`] into the file at `path`, streamed through a buffer;
/// returns what was written. The export is written to a temporary file
/// beside `path` (`.<name>.sessiondb-export-<pid>-<n>.tmp`, mode 0600 on
/// Unix: it is plaintext) and renamed over `path` once complete, so a
/// failed export leaves an existing file as it was and no temporary file
/// behind; an existing `path` is replaced (a symlink itself, not its
/// target). Errors: as [`export_thclaws`], `Io` creating, writing or
/// renaming the file.
pub fn export_thclaws_to_file(store: &SessionStore, session_id: &str, path: &std::path::Path) -> Result<WriteReport> {
    write_file_atomically(path, |out| export_thclaws(store, session_id, out))
}

/// Write the file at `path` through `write`, as [`export_thclaws_to_file`]
/// describes: a private temporary file beside it (0600 on Unix), synced and
/// renamed over `path` once `write` succeeded, removed when it failed.
/// Errors: `write`'s, `Io` creating, writing or renaming the file.
pub(crate) fn write_file_atomically<T>(path: &std::path::Path, write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<T>) -> Result<T> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = path.with_file_name(format!(".{name}.sessiondb-export-{}-{n}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(&tmp).map_err(|e| crate::Error::io("creating the export file", e))?;
    let written = (|| {
        let mut out = std::io::BufWriter::new(file);
        let report = write(&mut out)?;
        let file = out.into_inner().map_err(|e| crate::Error::io("writing the export file", e.into_error()))?;
        file.sync_all().map_err(|e| crate::Error::io("writing the export file", e))?;
        std::fs::rename(&tmp, path).map_err(|e| crate::Error::io("replacing the export file", e))?;
        Ok(report)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// [`export_thclaws`] with writer options. A store export always writes
/// thClaws' shapes: `only_thclaws_blocks` is treated as set (since issue 14;
/// the raw writer [`super::write_thclaws`] keeps unknown blocks verbatim for
/// in-memory round trips).
/// Errors: as [`export_thclaws`].
///
/// Streams (issue 12 item 3): entries are read in pages of at most
/// [`EXPORT_PAGE`] entries and about [`EXPORT_PAGE_BYTES`] of content
/// (planned from the stored content lengths, so a page holds one entry when
/// that entry alone is larger), each written before the next page is read.
/// Peak memory is about a page of entries plus its JSON lines: for a
/// session of 50,000 entries with tool outputs of 5 MB, about 2x the largest
/// entry plus the page budget, never the session.
pub fn export_thclaws_with<W: Write>(store: &SessionStore, session_id: &str, out: W, opts: &WriteOptions) -> Result<WriteReport> {
    Ok(export_inner(store, session_id, out, opts, policy_redacts_exports(store))?.0)
}

fn export_inner<W: Write>(store: &SessionStore, session_id: &str, out: W, opts: &WriteOptions, redact: bool) -> Result<(WriteReport, RedactionReport)> {
    let mut opts = opts.clone();
    opts.only_thclaws_blocks = true;
    let (rec, mut header) = load_header(store, session_id)?;
    let mut rep = RedactionReport::default();
    let r = redact.then(|| store.redactor());
    if let Some(r) = r {
        redact_header(r, &mut header, &mut rep);
    }
    let mut w = ThclawsWriter::start(&header, out, &opts)?;
    let mut from = 1;
    loop {
        // How many entries from `from` fit the byte budget (at least one).
        let stats = store.entry_stats(session_id, from, EXPORT_PAGE)?;
        let Some(first) = stats.first() else { break };
        let mut bytes = 0u64;
        let mut take = 0u32;
        for st in &stats {
            bytes += st.content_bytes.unwrap_or(0);
            if take > 0 && bytes > EXPORT_PAGE_BYTES {
                break;
            }
            take += 1;
        }
        let page = store.get_transcript_with_meta(session_id, first.seq, take)?;
        let Some((last, _)) = page.last() else { break };
        from = last.seq + 1;
        for (mut e, mut meta) in page {
            if let Some(r) = r {
                crate::store::redact_entry(r, e.format, &mut e.content, Some(&mut meta), &mut rep);
            }
            w.turn_owned(entry_turn(&rec, e, meta))?;
        }
    }
    Ok((w.finish()?, rep))
}

/// Content bytes an export page holds at most (unless one entry is larger).
pub const EXPORT_PAGE_BYTES: u64 = 1 << 20;

