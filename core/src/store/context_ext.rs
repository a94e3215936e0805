//! Context extensions (seed 000 `appendContextExtension` /
//! `listContextExtensions`): pins, exclusions, compaction records. The
//! body is encrypted with AAD `ctxext:<sid>:<n>`; `kind` is plaintext.

use rusqlite::params;

use super::{now_ms, ContextExtensionRecord, SessionStore, Tx};
use crate::crypto;
use crate::error::{Error, Result};
use crate::journal;

fn ext_record(sid: &str, n: u64) -> String {
    format!("ctxext:{sid}:{n}")
}

pub(crate) fn append_in_tx(t: &Tx<'_>, session_id: &str, kind: &str, body_json: &str) -> Result<u64> {
    if kind.is_empty() || kind.len() > 64 || !kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.') {
        return Err(Error::invalid("context extension kind must be 1..=64 ASCII letters, digits, `_`, `-` or `.`"));
    }
    serde_json::from_str::<serde_json::Value>(body_json)
        .map_err(|_| Error::invalid("context extension body must be JSON text (nested at most 128 levels)"))?;
    crate::context::ContextGovernance::validate_body(kind, body_json)?;
    let n: i64 = t.tx.query_row("SELECT COUNT(*) FROM sessions WHERE id = ?1", [session_id], |r| r.get(0))?;
    if n == 0 {
        return Err(Error::not_found("session", session_id));
    }
    let next: i64 = t.tx.query_row(
        "SELECT COALESCE(MAX(n), 0) + 1 FROM context_extensions WHERE session_id = ?1",
        [session_id],
        |r| r.get(0),
    )?;
    let env = crypto::seal_str(t.key, &ext_record(session_id, next as u64), body_json);
    t.tx.execute(
        "INSERT INTO context_extensions (session_id, n, kind, body_enc, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![session_id, next, kind, env, now_ms()],
    )?;
    journal::record(t, session_id, "ContextExtensionAppended", serde_json::json!({ "n": next, "kind": kind }))?;
    Ok(next as u64)
}

impl SessionStore {
    /// Append a context extension; returns its per-session number `n` (from 1).
    /// `body_json` must be JSON text. Errors: `NotFound`, `InvalidInput`.
    pub fn append_context_extension(&self, session_id: &str, kind: &str, body_json: &str) -> Result<u64> {
        self.write(|t| append_in_tx(t, session_id, kind, body_json))
    }

    /// Every context extension of a session, in `n` order.
    /// Errors: `NotFound`, `AuthenticationFailed`.
    pub fn list_context_extensions(&self, session_id: &str) -> Result<Vec<ContextExtensionRecord>> {
        self.read(|c, key| {
            let n: i64 = c.query_row("SELECT COUNT(*) FROM sessions WHERE id = ?1", [session_id], |r| r.get(0))?;
            if n == 0 {
                return Err(Error::not_found("session", session_id));
            }
            let mut st = c.prepare_cached(
                "SELECT n, kind, body_enc, created_at FROM context_extensions WHERE session_id = ?1 ORDER BY n",
            )?;
            let mut rows = st.query([session_id])?;
            let mut out = Vec::new();
            while let Some(r) = rows.next()? {
                let n = super::column::<i64>(r, 0, &format!("ctxext:{session_id}"))? as u64;
                let rec = ext_record(session_id, n);
                out.push(ContextExtensionRecord {
                    session_id: session_id.to_string(),
                    n,
                    kind: super::column(r, 1, &rec)?,
                    body: super::open_column(key, r, 2, &rec)?
                        .ok_or_else(|| Error::corrupt(format!("record `{rec}` has no envelope")))?,
                    created_at_ms: super::column(r, 3, &rec)?,
                });
            }
            Ok(out)
        })
    }
}
