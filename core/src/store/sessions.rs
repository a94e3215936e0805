//! Session rows: create, get, list (by workspace), rename, model, delete.
//!
//! `name_enc` (AAD `session:<id>:name`) and `workspace_enc` (AAD
//! `session:<id>:workspace`) are encrypted; `workspace_index` is the HMAC of
//! the canonical path (seed 000, "Workspace Binding Index").

use super::{journal, now_ms, open_sealed, validate_id, NewSession, SessionRecord, SessionStore, Tx, UnreadableField, WorkspaceFilter};
use crate::backend::{NewSessionRow, ReadTx, SessionQuery, SessionRow};
use crate::crypto::{self, DataKey};
use crate::error::{Error, Result};
use crate::paths;

fn name_record(id: &str) -> String {
    format!("session:{id}:name")
}
fn workspace_record(id: &str) -> String {
    format!("session:{id}:workspace")
}

/// A session row, decrypted. A damaged title or workspace envelope (not an
/// envelope, altered, another row's) leaves that field `None` and is listed
/// in `unreadable`, so one damaged row never hides the session or the others.
pub(crate) fn session_from_row(key: &DataKey, row: SessionRow) -> Result<SessionRecord> {
    let mut unreadable = Vec::new();
    let mut open = |sealed: &crate::backend::Sealed, field: &str, record: String| match open_sealed(key, sealed, &record) {
        Ok(v) => Ok(v),
        Err(e @ (Error::Corrupt { .. } | Error::AuthenticationFailed { .. })) => {
            unreadable.push(UnreadableField::new(field, &record, &e));
            Ok(None)
        }
        Err(e) => Err(e),
    };
    let name = open(&row.name, "name", name_record(&row.id))?;
    let workspace_path = open(&row.workspace, "workspace_path", workspace_record(&row.id))?;
    let record = format!("session:{}", row.id);
    unreadable.extend(row.damaged.iter().map(|(field, reason)| UnreadableField::new(field, &record, &Error::corrupt(reason.clone()))));
    Ok(SessionRecord {
        unreadable,
        name,
        workspace_path,
        model: row.model,
        provider: row.provider,
        work_mode: row.work_mode,
        created_at_ms: row.created_at,
        updated_at_ms: row.updated_at,
        entry_count: row.entry_count,
        forked_from: row.forked_from,
        forked_at_seq: row.forked_at_seq,
        id: row.id,
    })
}

pub(crate) fn load_session(c: &dyn ReadTx, key: &DataKey, id: &str) -> Result<SessionRecord> {
    match c.session(id)? {
        Some(row) => session_from_row(key, row),
        None => Err(Error::not_found("session", id)),
    }
}

pub(crate) fn check_label(what: &str, v: &Option<String>) -> Result<()> {
    if let Some(s) = v {
        if s.len() > 256 || s.chars().any(char::is_control) {
            return Err(Error::invalid(format!("{what} must be at most 256 bytes without control characters")));
        }
    }
    Ok(())
}

/// Longest title in bytes.
pub const MAX_TITLE_BYTES: usize = 1024;

pub(crate) fn check_title(name: &Option<String>) -> Result<()> {
    if let Some(t) = name {
        if t.is_empty() || t.len() > MAX_TITLE_BYTES || t.chars().any(char::is_control) {
            return Err(Error::invalid(format!(
                "a title must be 1..={MAX_TITLE_BYTES} bytes without control characters (use no title to clear it)"
            )));
        }
    }
    Ok(())
}

/// Canonical path and its HMAC index, for a workspace argument.
pub(crate) fn workspace_binding(key: &DataKey, path: &str) -> Result<(String, String)> {
    let cwd = std::env::current_dir().map_err(|e| Error::io("reading the current directory", e))?;
    let canonical = paths::canonical_workspace(path, &cwd)?;
    let index = crypto::workspace_index(key, &canonical);
    Ok((canonical, index))
}

/// `(canonical workspace path, HMAC index)` of a session bound to a workspace.
pub(crate) type WorkspaceBinding = (String, String);

/// Validate a [`NewSession`] and resolve what its row needs: the id (a new
/// UUIDv7 when none is given), the workspace binding and the creation time.
/// Errors: `InvalidInput`.
pub(crate) fn prepare_session(key: &DataKey, new: &NewSession) -> Result<(String, Option<WorkspaceBinding>, i64)> {
    let id = new.id.clone().unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    validate_id("session", &id)?;
    check_title(&new.name)?;
    check_label("model", &new.model)?;
    check_label("provider", &new.provider)?;
    check_label("work mode", &new.work_mode)?;
    if let Some(parent) = &new.forked_from {
        validate_id("session", parent)?;
    }
    let binding = match &new.workspace_path {
        Some(p) => Some(workspace_binding(key, p)?),
        None => None,
    };
    Ok((id, binding, new.created_at_ms.unwrap_or_else(now_ms)))
}

/// Insert a validated session row and its `SessionCreated` event in `t`
/// (the body of [`SessionStore::create_session_with`], shared with imports
/// that create a session in the same transaction as its first rows).
/// Errors: `Conflict` if the id exists.
pub(crate) fn create_in_tx(t: &Tx<'_>, id: &str, new: &NewSession, binding: Option<&WorkspaceBinding>, created: i64) -> Result<SessionRecord> {
    let id = id.to_owned();
    if t.tx.session_exists(&id)? {
        return Err(Error::conflict(format!("session `{id}` already exists")));
    }
    let name_env = new.name.as_deref().map(|n| crypto::seal(t.key, &name_record(&id), n.as_bytes(), false));
    let (ws_env, ws_idx) = match binding {
        Some((canonical, idx)) => {
            (Some(crypto::seal(t.key, &workspace_record(&id), canonical.as_bytes(), false)), Some(idx.clone()))
        }
        None => (None, None),
    };
    t.tx.insert_session(&NewSessionRow {
        id: &id,
        name: name_env.as_deref(),
        workspace: ws_env.as_deref(),
        workspace_index: ws_idx.as_deref(),
        model: new.model.as_deref(),
        provider: new.provider.as_deref(),
        work_mode: new.work_mode.as_deref(),
        created_at: created,
        forked_from: new.forked_from.as_deref(),
        forked_at_seq: new.forked_at_seq,
    })?;
    journal::record(
        t,
        &id,
        "SessionCreated",
        serde_json::json!({ "model": new.model, "provider": new.provider, "bound": binding.is_some(),
                            "forked_from": new.forked_from, "forked_at_seq": new.forked_at_seq }),
    )?;
    load_session(t.tx, t.key, &id)
}

/// Set or clear the title (already checked) with its `SessionRenamed` event.
/// Errors: `NotFound`.
pub(crate) fn rename_in_tx(t: &Tx<'_>, id: &str, name: Option<&str>) -> Result<()> {
    let env = name.map(|n| crypto::seal(t.key, &name_record(id), n.as_bytes(), false));
    if !t.tx.set_session_name(id, env.as_deref())? {
        return Err(Error::not_found("session", id));
    }
    journal::record(t, id, "SessionRenamed", serde_json::json!({ "titled": name.is_some() }))?;
    Ok(())
}

/// Set model and provider (already checked) with a `SessionModelChanged` event.
/// Errors: `NotFound`.
pub(crate) fn set_model_in_tx(t: &Tx<'_>, id: &str, model: Option<&str>, provider: Option<&str>) -> Result<()> {
    if !t.tx.set_session_model(id, model, provider)? {
        return Err(Error::not_found("session", id));
    }
    journal::record(t, id, "SessionModelChanged", serde_json::json!({ "model": model, "provider": provider }))?;
    Ok(())
}

impl SessionStore {
    /// Create a session named `name` (`None` = untitled), bound to
    /// `workspace_path` (made canonical) if given.
    /// Errors: `InvalidInput` (bad path/name).
    pub fn create_session(&self, name: Option<String>, workspace_path: Option<String>) -> Result<SessionRecord> {
        self.create_session_with(NewSession { name, workspace_path, ..Default::default() })
    }

    /// Create a session with every field (imports, forks).
    /// Errors: `Conflict` if the id exists, `InvalidInput`.
    pub fn create_session_with(&self, new: NewSession) -> Result<SessionRecord> {
        let (id, binding, created) = prepare_session(self.key(), &new)?;
        self.write(|t| create_in_tx(t, &id, &new, binding.as_ref(), created))
    }

    /// One session.
    ///
    /// Errors: `NotFound`; `AuthenticationFailed` or `Corrupt` naming the
    /// record when one of its fields cannot be read (listings instead flag such
    /// a session in [`SessionRecord::unreadable`]).
    pub fn get_session(&self, id: &str) -> Result<SessionRecord> {
        let s = self.read(|c, key| load_session(c, key, id))?;
        match s.unreadable.first() {
            None => Ok(s),
            Some(u) if u.kind == crate::error::ErrorKind::AuthenticationFailed.name() => {
                Err(Error::AuthenticationFailed { record: u.record_id.clone() })
            }
            Some(u) => Err(Error::corrupt(format!("record `{}` ({}) cannot be read", u.record_id, u.field))),
        }
    }

    /// Every session, most recently active first, at most `limit` (none = all).
    pub fn list_sessions(&self, limit: Option<u32>) -> Result<Vec<SessionRecord>> {
        self.list_sessions_for_workspace(WorkspaceFilter::All, limit)
    }

    /// Sessions by workspace, most recently active first, at most `limit`.
    /// `scope`: "current" (bound to `path`), "other" (bound to another
    /// workspace than `path`), "unbound", "all". Only the page is decrypted
    /// (the HMAC workspace index selects it).
    ///
    /// [`list_sessions_for_workspace`](Self::list_sessions_for_workspace) with
    /// the filter given as the scope names hosts use
    /// ([`WorkspaceFilter::from_scope`]: `current`/`other` with `path`,
    /// `unbound`, `all`). Errors: `InvalidInput` (a bad scope or path).
    pub fn list_sessions_in_scope(&self, scope: &str, path: Option<String>, limit: Option<u32>) -> Result<Vec<SessionRecord>> {
        self.list_sessions_for_workspace(WorkspaceFilter::from_scope(scope, path)?, limit)
    }

    /// Sessions selected by `filter`, most recently active first, at most
    /// `limit`. Uses the HMAC index: no row outside the page is decrypted.
    /// Errors: `InvalidInput` for a bad path.
    pub fn list_sessions_for_workspace(&self, filter: WorkspaceFilter, limit: Option<u32>) -> Result<Vec<SessionRecord>> {
        let index = match &filter {
            WorkspaceFilter::Current(p) | WorkspaceFilter::Other(p) => Some(workspace_binding(self.key(), p)?.1),
            WorkspaceFilter::All | WorkspaceFilter::Unbound => None,
        };
        let query = match (&filter, index.as_deref()) {
            (WorkspaceFilter::Current(_), Some(i)) => SessionQuery::Index(i),
            (WorkspaceFilter::Other(_), Some(i)) => SessionQuery::OtherThan(i),
            (WorkspaceFilter::Unbound, _) => SessionQuery::Unbound,
            _ => SessionQuery::All,
        };
        self.read(|c, key| c.sessions(query, limit)?.into_iter().map(|row| session_from_row(key, row)).collect())
    }

    /// Set (a string) or clear (none) a session's title.
    ///
    /// One `SessionRenamed` journal event (the title itself is not in the
    /// journal). Errors: `NotFound`.
    pub fn rename_session(&self, id: &str, name: Option<String>) -> Result<SessionRecord> {
        check_title(&name)?;
        self.write(|t| {
            rename_in_tx(t, id, name.as_deref())?;
            load_session(t.tx, t.key, id)
        })
    }

    /// Change a session's model and provider; the id stays (seed 002 `/model`).
    ///
    /// Errors: `NotFound`.
    pub fn set_session_model(&self, id: &str, model: Option<String>, provider: Option<String>) -> Result<SessionRecord> {
        check_label("model", &model)?;
        check_label("provider", &provider)?;
        self.forget_session_encoding(id);
        self.write(|t| {
            set_model_in_tx(t, id, model.as_deref(), provider.as_deref())?;
            load_session(t.tx, t.key, id)
        })
    }

    /// Set a session's work mode (host-defined, e.g. `plan`, `build`).
    ///
    /// Errors: `NotFound`.
    pub fn set_work_mode(&self, id: &str, work_mode: Option<String>) -> Result<SessionRecord> {
        check_label("work mode", &work_mode)?;
        self.write(|t| {
            if !t.tx.set_session_work_mode(id, work_mode.as_deref())? {
                return Err(Error::not_found("session", id));
            }
            journal::record(t, id, "SessionWorkModeChanged", serde_json::json!({ "work_mode": work_mode }))?;
            load_session(t.tx, t.key, id)
        })
    }

    /// Delete a session with its transcript, tokens and context extensions
    /// (its journal stays).
    ///
    /// The journal (the record of what happened; its payloads hold no user
    /// content) gains a `SessionDeleted` event. Once it returns `Ok`, no byte
    /// of the deleted envelopes (title, workspace, contents, entry metadata,
    /// context extensions) is left in the database file, its WAL or its shm
    /// (SQLite `secure_delete` and a truncating checkpoint), nor any of its
    /// postings in this store's search index files when an index exists (its
    /// segments are rewritten without them; issue 30, DESIGN.md "Privacy").
    ///
    /// Errors: `NotFound`; `Busy` when the deletion committed but another
    /// handle's read outlasted the busy timeout, so the WAL could not be
    /// checkpointed yet (its old frames go at the next full checkpoint); `Io`
    /// when the search index folder cannot be written (the deletion is
    /// committed; a damaged index is erased instead, never an error).
    pub fn delete_session(&self, id: &str) -> Result<()> {
        self.write(|t| {
            let Some(entries) = t.tx.delete_session(id)? else {
                return Err(Error::not_found("session", id));
            };
            journal::record(t, id, "SessionDeleted", serde_json::json!({ "entries": entries }))?;
            Ok(())
        })?;
        self.scrub_deleted()
    }

    /// Delete `id` as [`SessionStore::delete_session`] does, with `payload`
    /// as its `SessionDeleted` event, only if its last activity is still
    /// `seen_updated_at_ms` and its last entry seq `seen_last_seq` (checked
    /// in the deleting transaction: a session that gained an entry since is
    /// kept). `Ok(None)`: kept (or gone); `Ok(Some(entries))`: deleted. The
    /// caller scrubs ([`Self::scrub_deleted`]).
    pub(crate) fn delete_session_if_unchanged(&self, id: &str, seen_updated_at_ms: i64, seen_last_seq: u64, mut payload: serde_json::Value) -> Result<Option<u64>> {
        self.write(|t| {
            if t.tx.session_updated_at(id)? != Some(seen_updated_at_ms) || t.tx.last_entry_seq(id)? != seen_last_seq {
                return Ok(None);
            }
            let Some(entries) = t.tx.delete_session(id)? else {
                return Ok(None);
            };
            payload["entries"] = serde_json::json!(entries);
            journal::record(t, id, "SessionDeleted", payload)?;
            Ok(Some(entries))
        })
    }

    /// After deletions committed: leave none of their bytes in the
    /// backend's files nor in the search index's (see
    /// [`SessionStore::delete_session`]). Both are attempted; the first
    /// error is returned.
    pub(crate) fn scrub_deleted(&self) -> Result<()> {
        let index = self.scrub_search_index();
        let files = self.backend.scrub_deleted();
        files.and(index)
    }

    /// Resolve a full id, a unique id prefix or an exact title.
    ///
    /// Errors: `NotFound`; `Conflict` listing the candidates when a prefix or
    /// title matches more than one session.
    pub fn find_session(&self, id_prefix_or_title: &str) -> Result<SessionRecord> {
        let needle = id_prefix_or_title;
        if needle.is_empty() {
            return Err(Error::invalid("empty session reference"));
        }
        self.read(|c, key| {
            if let Ok(s) = load_session(c, key, needle) {
                return Ok(s);
            }
            let mut hits: Vec<SessionRecord> = c
                .sessions(SessionQuery::IdPrefix(needle), Some(11))?
                .into_iter()
                .map(|row| session_from_row(key, row))
                .collect::<Result<_>>()?;
            if hits.len() == 1 {
                return Ok(hits.remove(0));
            }
            if hits.len() > 1 {
                let ids: Vec<_> = hits.iter().map(|s| s.id.as_str()).collect();
                return Err(Error::conflict(format!("ambiguous session prefix; candidates: {}", ids.join(", "))));
            }
            // Exact title: titles are encrypted, so decrypt names (newest first).
            let mut titled = Vec::new();
            for row in c.sessions(SessionQuery::Titled, None)? {
                let s = session_from_row(key, row)?;
                if s.name.as_deref() == Some(needle) {
                    titled.push(s);
                }
            }
            match titled.len() {
                // The reference may be a title (user content): only echo it when it is id-shaped.
                0 => Err(Error::not_found("session", if validate_id("session", needle).is_ok() { needle } else { "<title>" })),
                1 => Ok(titled.remove(0)),
                _ => {
                    let ids: Vec<_> = titled.iter().map(|s| s.id.as_str()).collect();
                    Err(Error::conflict(format!("several sessions have that title; candidates: {}", ids.join(", "))))
                }
            }
        })
    }
}
