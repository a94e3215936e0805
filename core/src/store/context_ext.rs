//! Context extensions (seed 000 `appendContextExtension` /
//! `listContextExtensions`): pins, exclusions, compaction records. The
//! body is encrypted with AAD `ctxext:<sid>:<n>`; `kind` is plaintext.

use super::{journal, now_ms, open_required, ContextExtensionRecord, SessionStore, Tx};
use crate::crypto;
use crate::error::{Error, Result};

fn ext_record(sid: &str, n: u64) -> String {
    format!("ctxext:{sid}:{n}")
}

pub(crate) fn append_in_tx(t: &Tx<'_>, session_id: &str, kind: &str, body_json: &str) -> Result<u64> {
    if kind.is_empty() || kind.len() > 64 || !kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.') {
        return Err(Error::invalid("context extension kind must be 1..=64 ASCII letters, digits, `_`, `-` or `.`"));
    }
    serde_json::from_str::<serde_json::Value>(body_json)
        .map_err(|_| Error::invalid("context extension body must be JSON text (nested at most 128 levels)"))?;
    if !t.tx.session_exists(session_id)? {
        return Err(Error::not_found("session", session_id));
    }
    if kind == crate::context::KIND_COMPACTION {
        // Before the replay below, which walks every seq of a run.
        crate::context::governance::check_compaction_plan(body_json, t.tx.last_entry_seq(session_id)?)?;
    }
    crate::context::ContextGovernance::validate_body(kind, body_json)?;
    let next = t.tx.next_extension_n(session_id)?;
    let env = crypto::seal(t.key, &ext_record(session_id, next), body_json.as_bytes(), t.compress);
    t.tx.insert_extension(session_id, next, kind, &env, now_ms())?;
    journal::record(t, session_id, "ContextExtensionAppended", serde_json::json!({ "n": next, "kind": kind }))?;
    Ok(next)
}

impl SessionStore {
    /// Append a context extension; returns its per-session number `n` (from 1).
    /// `body_json` must be JSON text. Errors: `NotFound`, `InvalidInput`.
    pub fn append_context_extension(&self, session_id: &str, kind: &str, body_json: &str) -> Result<u64> {
        let redacted = self.redact_text_on_write(body_json);
        let body_json = redacted.as_deref().unwrap_or(body_json);
        self.write(|t| append_in_tx(t, session_id, kind, body_json))
    }

    /// Every context extension of a session, in `n` order.
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
