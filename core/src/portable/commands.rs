//! Seed 002's session commands over the store: `/load` and `--resume`
//! ([`resolve_session`]), `/sessions` ([`recent_sessions`]), the sidebar
//! ([`sidebar_sessions`]) and `/fork` ([`fork_session`], [`history_summary`]).

use super::import::EXPORT_PAGE;
use crate::store::{ContentFormat, NewEntry, NewSession, Role as StoreRole, SessionRecord, SessionStore, WorkspaceFilter};
use crate::{Error, Result};
use serde_json::Value;

/// Resolve a reference (id, unique id prefix or exact title) as
/// `/load` does (seed 002), preferring sessions of `workspace`.
///
/// `last` = the most recently active session bound to `workspace` (the current
/// directory when `None`); otherwise a full id, a unique id prefix or an exact
/// title ([`SessionStore::find_session`]); `--resume` resolves the same way.
///
/// Errors: `NotFound`; `Conflict` listing the candidate ids when a prefix
/// or title is ambiguous.
pub fn resolve_session(store: &SessionStore, reference: &str, workspace: Option<&str>) -> Result<SessionRecord> {
    if reference == "last" {
        let ws = match workspace {
            Some(w) => w.to_owned(),
            None => std::env::current_dir().map_err(|e| Error::io("reading the current directory", e))?.to_string_lossy().into_owned(),
        };
        return store
            .list_sessions_for_workspace(WorkspaceFilter::Current(ws), Some(1))?
            .into_iter()
            .next()
            .ok_or_else(|| Error::not_found("session", "last"));
    }
    store.find_session(reference)
}

/// The 20 most recently active sessions (seed 002 `/sessions`).
///
/// Errors: store errors.
pub fn recent_sessions(store: &SessionStore) -> Result<Vec<SessionRecord>> {
    store.list_sessions(Some(20))
}

/// Sidebar order (seed 002): the 10 most recent sessions, titled first.
///
/// Seed 002, "Sidebar": titled ones first, each group most recent first.
/// Errors: store errors.
pub fn sidebar_sessions(store: &SessionStore) -> Result<Vec<SessionRecord>> {
    let mut all = store.list_sessions(None)?;
    all.sort_by_key(|s| (s.name.is_none(), std::cmp::Reverse(s.updated_at_ms)));
    all.truncate(10);
    Ok(all)
}

/// Turns quoted in a generated fork summary (the most recent ones).
pub const FORK_SUMMARY_TURNS: usize = 20;

/// A deterministic summary of a session's history up to `at` (its title or id,
/// message count, and one line per turn for the last [`FORK_SUMMARY_TURNS`]
/// turns: `[role] text`, whitespace collapsed, cut at 240 characters on a
/// character boundary; block content contributes its text blocks).
pub fn history_summary(store: &SessionStore, src: &SessionRecord, at: u64) -> Result<String> {
    // Visible (not retracted) seqs up to `at`, from the planning columns: no content is decrypted here.
    let mut seqs = Vec::new();
    let mut from = 1;
    while from <= at {
        let page = store.entry_stats(&src.id, from, crate::store::transcript_max_page())?;
        let Some(last) = page.last().map(|x| x.seq) else { break };
        seqs.extend(page.iter().map(|x| x.seq).filter(|&q| q <= at));
        from = last + 1;
    }
    let quoted = &seqs[seqs.len().saturating_sub(FORK_SUMMARY_TURNS)..];
    let mut out = format!(
        "Summary of session {} ({} message(s), forked at seq {at}).",
        src.name.as_deref().unwrap_or(&src.id),
        seqs.len()
    );
    let Some(&first) = quoted.first() else { return Ok(out) };
    if seqs.len() > quoted.len() {
        out.push_str(&format!("\n[{} earlier message(s) not quoted]", seqs.len() - quoted.len()));
    }
    for e in store.get_transcript(&src.id, first, crate::store::transcript_max_page())?.into_iter().take_while(|e| e.seq <= at) {
        let text = match e.format {
            ContentFormat::Text => e.content,
            ContentFormat::Blocks => serde_json::from_str::<Vec<Value>>(&e.content)
                .map(|blocks| blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join(" "))
                .unwrap_or_default(),
        };
        let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push_str(&format!("\n[{}] {}", e.role.as_str(), crate::context::truncate_chars(&collapsed, 240)));
    }
    Ok(out)
}

/// Fork a session (seed 002 `/fork`): a new session with the same model,
/// provider and workspace, `forked_from`/`forked_at_seq` recorded, seeded
/// with `summary` (one `system` entry) or with a copy of the entries up to
/// and including `at_seq` (none = the last); with neither, with a summary
/// of the whole old history.
///
/// The summary of the whole history is [`history_summary`].
///
/// Errors: `NotFound`; `InvalidInput` when `at_seq` is beyond the last entry.
pub fn fork_session(store: &SessionStore, session_id: &str, at_seq: Option<u64>, summary: Option<String>) -> Result<SessionRecord> {
    let src = store.get_session(session_id)?;
    let last = store.last_seq(session_id)?;
    let at = at_seq.unwrap_or(last);
    if at > last {
        return Err(Error::invalid(format!("seq {at} is beyond the last entry ({last})")));
    }
    let fork = store.create_session_with(NewSession {
        id: None,
        name: None,
        workspace_path: src.workspace_path.clone(),
        model: src.model.clone(),
        provider: src.provider.clone(),
        work_mode: src.work_mode.clone(),
        created_at_ms: None,
        forked_from: Some(src.id.clone()),
        forked_at_seq: Some(at),
    })?;
    let summary = match (summary, at_seq) {
        (Some(s), _) => Some(s),
        // Seed 002 `/fork`: a new session seeded with a summary of the old history.
        (None, None) => Some(history_summary(store, &src, at)?),
        (None, Some(_)) => None,
    };
    match summary {
        Some(summary) => {
            store.append_entries(&fork.id, vec![NewEntry::text(StoreRole::System, summary)])?;
        }
        None => {
            let mut from = 1;
            while from <= at {
                let page = store.get_transcript_with_meta(session_id, from, EXPORT_PAGE.min((at - from + 1) as u32))?;
                let Some((last, _)) = page.last() else { break };
                from = last.seq + 1;
                let entries = page
                    .into_iter()
                    .map(|(e, meta)| {
                        let entry = NewEntry { role: e.role, content: e.content, format: e.format, created_at_ms: Some(e.created_at_ms), tokens: e.tokens, source_line: e.source_line };
                        (entry, meta)
                    })
                    .collect();
                store.append_entries_with_meta(&fork.id, entries)?;
            }
        }
    }
    store.get_session(&fork.id)
}

