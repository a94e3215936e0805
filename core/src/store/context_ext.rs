//! Context extensions (seed 000 `appendContextExtension` /
//! `listContextExtensions`): pins, exclusions, compaction records. The
//! body is encrypted with AAD `ctxext:<sid>:<n>`; `kind` is plaintext.
//! Appending (`SessionStore::append_context_extension`) is
//! `crate::context`'s, whose governance rules check each body.

use super::{journal, now_ms, open_required, ContextExtensionRecord, SessionStore, Tx};
use crate::crypto;
use crate::error::{Error, Result};

fn ext_record(sid: &str, n: u64) -> String {
    format!("ctxext:{sid}:{n}")
}

/// The rules a context extension's body must meet beyond being JSON text,
/// as `rules(kind, body, last_seq)` (`last_seq()` reads the session's last
/// transcript seq in the write transaction): context governance's
/// (`crate::context`), which stands above the store and hands them in.
pub(crate) type BodyRules<'a> = &'a dyn Fn(&str, &str, &dyn Fn() -> Result<u64>) -> Result<()>;

/// Append a context extension in `t`: the kind's syntax, JSON text, the
/// session's existence, then `rules`; the body sealed (record
/// `ctxext:<sid>:<n>`) with its `ContextExtensionAppended` event.
/// Errors: `InvalidInput`, `NotFound`, `rules`' own.
pub(crate) fn append_in_tx(t: &Tx<'_>, session_id: &str, kind: &str, body_json: &str, rules: BodyRules<'_>) -> Result<u64> {
    if kind.is_empty() || kind.len() > 64 || !kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.') {
        return Err(Error::invalid("context extension kind must be 1..=64 ASCII letters, digits, `_`, `-` or `.`"));
    }
    serde_json::from_str::<serde_json::Value>(body_json)
        .map_err(|_| Error::invalid("context extension body must be JSON text (nested at most 128 levels)"))?;
    if !t.tx.session_exists(session_id)? {
        return Err(Error::not_found("session", session_id));
    }
    rules(kind, body_json, &|| t.tx.last_entry_seq(session_id))?;
    let next = t.tx.next_extension_n(session_id)?;
    let env = crypto::seal(t.key, &ext_record(session_id, next), body_json.as_bytes(), t.compress);
    t.tx.insert_extension(session_id, next, kind, &env, now_ms())?;
    journal::record(t, session_id, "ContextExtensionAppended", serde_json::json!({ "n": next, "kind": kind }))?;
    Ok(next)
}

impl SessionStore {
    /// A session's context extensions, in `n` order.
    ///
    /// Errors: `NotFound`, `AuthenticationFailed`.
    pub fn list_context_extensions(&self, session_id: &str) -> Result<Vec<ContextExtensionRecord>> {
        self.read(|c, key| {
            if !c.session_exists(session_id)? {
                return Err(Error::not_found("session", session_id));
            }
            c.extensions(session_id)?
                .into_iter()
                .map(|row| {
                    Ok(ContextExtensionRecord {
                        session_id: session_id.to_string(),
                        body: open_required(key, &row.body, &ext_record(session_id, row.n))?,
                        n: row.n,
                        kind: row.kind,
                        created_at_ms: row.created_at,
                    })
                })
                .collect()
        })
    }
}
