//! Import of opencode sessions (issue 28 item 6): a `storage` directory, one
//! of its session files, opencode's data directory, or an `opencode.db`
//! database. The reader is [`crate::portable::opencode`] (format, sources,
//! what each record becomes); this file writes what it reads through the
//! same [`ImportSink`] as the line readers, so turns, token usage, title,
//! model, cwd, compactions and raw records are stored as for every format.
//!
//! Each opencode session becomes the store session of the same id
//! ([`super::sanitize_id`]). Its records are identified by name (turns by
//! message id and index, usage by the `step-finish` part id or the message
//! id: see [`super::identity`]), so importing again adds nothing, a grown
//! session adds only its new messages, and the same session arriving from
//! both the JSON tree and the database (opencode migrates one into the
//! other) is stored once. A progress record is kept per source and session
//! (`import-source:<keyed hash of "<canonical path>\0opencode-session\0<id>">`)
//! with `lines` = the records read and `bytes` = 0; it only guards against
//! two imports of one session at once, never decides what is new.
//!
//! The [`FileImport`] of a source holds every session read from it; its
//! [`FileImport::read`] sums the per-session reports (records, kinds,
//! skipped records). Turns not stored again are counted in
//! [`SessionImport::skipped_already_stored`] only, never in the report, so
//! that [`ReadReport::line_account`] keeps one place per record (a record
//! stored by an earlier import is still part of the session).

use super::sink::{ImportSink, ProgressTarget};
use super::{load_progress, source_index, FileImport, ImportStatus, SessionImport, PROGRESS_PREFIX};
use crate::portable::model::{ReadReport, SourceFormat};
use crate::portable::opencode::{list_session_files, read_session_from, session_file, OpencodeSource};
use crate::store::SessionStore;
use crate::{Error, Result};
use std::path::Path;

/// Import every session of `src` (or only session `only`), reported as one
/// [`FileImport`] of `path` (the path as given).
///
/// Errors: `InvalidInput` when `only` is not a session of `src`; `Io` and
/// `Database` reading the source; store errors (`Busy`, `Conflict` for a
/// session of that id not imported from opencode...).
pub(super) fn import_opencode(store: &SessionStore, path: &Path, src: &OpencodeSource, only: Option<&str>) -> Result<FileImport> {
    let sessions = match only {
        Some(id) => vec![(id.to_owned(), session_file(src, id)?.ok_or_else(|| Error::invalid("no such opencode session in this storage directory"))?)],
        None => list_session_files(src)?,
    };
    let mut out = FileImport { path: path.to_path_buf(), format: Some(SourceFormat::Opencode), status: ImportStatus::Imported, from_line: 1, sessions: Vec::new(), read: None, not_session: None };
    let mut total = ReadReport { format: Some(SourceFormat::Opencode), ..Default::default() };
    for (id, file) in sessions {
        let (stats, report) = import_one(store, src, &id, &file)?;
        merge(&mut total, report);
        out.sessions.push(stats);
    }
    if out.sessions.iter().all(|s| !s.created && s.entries == 0 && s.usage_records == 0 && s.context_extensions == 0) {
        out.status = ImportStatus::UpToDate;
    }
    out.read = Some(total);
    Ok(out)
}

/// Import session `id` of `src`, whose records are in `file` (its session
/// JSON file or the database).
fn import_one(store: &SessionStore, src: &OpencodeSource, id: &str, file: &Path) -> Result<(SessionImport, ReadReport)> {
    let canonical = std::fs::canonicalize(file).map_err(|e| Error::io("resolving an opencode source path", e))?;
    let canonical_s = canonical.to_string_lossy().into_owned();
    let index = source_index(store, &format!("{canonical_s}\0opencode-session\0{id}"));
    let key = format!("{PROGRESS_PREFIX}{index}");
    let mut prev = load_progress(store, &index)?;
    if let Some(p) = &prev {
        if let Err(Error::NotFound { .. }) = store.get_session(&p.session_id) {
            // The session was deleted since: imported again from the start.
            store.write_batch(|w| w.delete_meta(&key))?;
            prev = None;
        }
    }
    let mut sink = ImportSink {
        store,
        format: SourceFormat::Opencode,
        known_main: None,
        fallback: id.to_owned(),
        meta: Default::default(),
        title: None,
        models: Default::default(),
        targets: Vec::new(),
        last_ts: None,
        pending: Vec::new(),
        pending_entries: 0,
        pending_bytes: 0,
        progress: ProgressTarget { key, format: SourceFormat::Opencode, canonical: canonical.clone(), canonical_s, full_head: None },
        committed_lines: prev.as_ref().map_or(0, |p| p.lines),
        committed_bytes: 0,
        progress_recorded: prev.is_some(),
        writer: None,
        batch_limit: std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(super::BATCH_ENTRIES)),
        duplicates: Default::default(),
        occ: Default::default(),
        resume_bytes: 0,
        prefix_counted: false,
        ids: super::identity::RecordIds::new(store.key()),
    };
    let report = read_session_from(src, id, file, &mut sink)?;
    // Every record is read each time: a session that did not change has
    // as many records as recorded, and nothing pending.
    let lines = report.lines.max(prev.as_ref().map_or(0, |p| p.lines));
    let mut sessions = sink.finish(lines, 0)?;
    let stats = sessions.pop().unwrap_or_default();
    Ok((stats, report))
}

/// Add the counts of `r` to `total`.
pub(super) fn merge(total: &mut ReadReport, r: ReadReport) {
    total.lines += r.lines;
    for (k, n) in r.kinds {
        *total.kinds.entry(k).or_default() += n;
    }
    for (k, n) in r.not_imported {
        *total.not_imported.entry(k).or_default() += n;
    }
    for (k, n) in r.kept_raw {
        *total.kept_raw.entry(k).or_default() += n;
    }
    // Record numbers are per session: each session's start after the
    // records of the sessions before it, so they stay unique in the total.
    let base = total.lines - r.lines;
    total.skipped.extend(r.skipped.into_iter().map(|mut s| {
        s.line += base;
        s
    }));
}
