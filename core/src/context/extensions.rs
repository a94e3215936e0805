//! Appending context extensions: the store writes them (sealed, with their
//! journal event) and checks what it owns; the body rules of the
//! governance kinds are this module's, handed to the store
//! ([`check_extension`]), so the store never imports context.

use super::governance::{check_compaction_plan, ContextGovernance, KIND_COMPACTION};
use crate::error::Result;
use crate::store::{SessionStore, Writer};

/// The rules of a context extension's body that governance owns, checked
/// by the store in the write transaction before the extension is written
/// (`last_seq()`: the session's last transcript seq): a `compaction` plan's
/// seqs ([`check_compaction_plan`]), then the shape of every governance
/// kind ([`ContextGovernance::validate_body`]; other kinds pass).
///
/// # Errors
/// `InvalidInput` naming the kind, the seq or run.
pub(crate) fn check_extension(kind: &str, body: &str, last_seq: &dyn Fn() -> Result<u64>) -> Result<()> {
    if kind == KIND_COMPACTION {
        // Before the replay below, which walks every seq of a run.
        check_compaction_plan(body, last_seq()?)?;
    }
    ContextGovernance::validate_body(kind, body)
}

impl SessionStore {
    /// Append a context extension (pin, plan, artifact...): `kind` in
    /// plaintext, `body_json` JSON text (stored encrypted). Returns its number `n`.
    ///
    /// `n` counts from 1 in each session. Errors: `NotFound`, `InvalidInput`
    /// (`body_json` not JSON text).
    pub fn append_context_extension(&self, session_id: &str, kind: &str, body_json: &str) -> Result<u64> {
        let redacted = self.redact_text_on_write(body_json);
        let body_json = redacted.as_deref().unwrap_or(body_json);
        self.write_batch(|w| w.append_context_extension(session_id, kind, body_json))
    }
}

impl Writer<'_> {
    /// [`SessionStore::append_context_extension`] in this transaction.
    /// Errors: `NotFound`, `InvalidInput`.
    pub(crate) fn append_context_extension(&self, session_id: &str, kind: &str, body_json: &str) -> Result<u64> {
        self.append_extension_checked(session_id, kind, body_json, &check_extension)
    }
}
