//! The session restoration boundary: opening a saved session restores its
//! knowledge and resets its authority.
//!
//! Source: seed 000, "Session Restoration Boundary" (ADR 0016), and
//! DESIGN.md, "Restore boundary".
//!
//! Restored from storage ([`SavedSessionState`]): the complete transcript,
//! the selected model and work mode, pinned turns and compaction history,
//! the other context extensions (where a host keeps its referenced-artifact
//! manifest, plans, and tool and verification history), cumulative token
//! usage, and the workspace binding.
//!
//! Always reset ([`Authority::fresh`]): permission profile `Manual`, no full
//! access, no sensitive-transfer authorization, no temporary approvals.
//! Authority is not a stored field at all: [`Authority`] implements
//! `Serialize` (to show it) but not `Deserialize`, its fields are private,
//! and the only constructor is [`Authority::fresh`]. Nothing a session
//! stores, not even a context extension that claims to be an authority
//! grant, can make [`open_saved_session`] return more.

use serde::Serialize;

use crate::context::governance::{ContextGovernance, GOVERNANCE_KINDS};
use crate::error::Result;
use crate::store::{ContextExtensionRecord, SessionRecord, SessionStore, TokenTotals, TranscriptEntry};

/// Entries decrypted per transcript page while restoring (well under the
/// store's per-call maximum).
pub const RESTORE_PAGE: u32 = 1000;

/// A permission profile of the host's agent runtime (seed 000, "Session
/// Restoration Boundary").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PermissionProfile {
    /// Every action asks first: the only profile a restored session starts with.
    Manual,
}

/// The authority of an opened session: always fresh (never stored).
///
/// The authority a session runs with. It exists only at run time: there is
/// no way to read one from storage (no `Deserialize`, private fields) and
/// the only constructor is [`Authority::fresh`].
///
/// A host that lets the user raise authority during a session does so in its
/// own runtime state, which sessiondb never stores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Authority {
    /// Always `manual`.
    permission_profile: PermissionProfile,
    /// Always false (Full Access is never restored).
    full_access: bool,
    /// Always false (sensitive-transfer authorization is never restored).
    sensitive_transfer: bool,
    /// Always empty (temporary approvals are never restored).
    temporary_approvals: Vec<String>,
}

impl Authority {
    /// The authority of every opened session: `Manual`, no full access, no
    /// sensitive-transfer grant, no temporary approvals.
    pub fn fresh() -> Self {
        Authority {
            permission_profile: PermissionProfile::Manual,
            full_access: false,
            sensitive_transfer: false,
            temporary_approvals: Vec::new(),
        }
    }

    /// Always [`PermissionProfile::Manual`] for a restored session.
    pub fn permission_profile(&self) -> PermissionProfile {
        self.permission_profile
    }

    /// Always `false` for a restored session (Full Access is never restored).
    pub fn full_access(&self) -> bool {
        self.full_access
    }

    /// Always `false` for a restored session (sensitive-transfer authorization is never restored).
    pub fn sensitive_transfer(&self) -> bool {
        self.sensitive_transfer
    }

    /// Always empty for a restored session (temporary approvals are never restored).
    pub fn temporary_approvals(&self) -> &[String] {
        &self.temporary_approvals
    }
}

/// A saved session's knowledge, as stored: metadata, the whole transcript,
/// token totals, governance and the other context extensions.
///
/// The knowledge state of a saved session, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SavedSessionState {
    /// Metadata (the workspace binding kept as stored, never rebound).
    ///
    /// Metadata: id, title, model, provider, work mode, workspace path
    /// (the binding is kept as stored, never rebound to the caller's directory).
    pub session: SessionRecord,
    /// The complete transcript, every entry verbatim, in seq order.
    pub transcript: Vec<TranscriptEntry>,
    /// Cumulative token usage (ledger sums, tokens).
    ///
    /// Cumulative token usage of the session (ledger sums, tokens).
    pub token_totals: TokenTotals,
    /// Pins, exclusions and compaction history, replayed.
    pub governance: ContextGovernance,
    /// Every context extension that is not governance (artifacts, plans,
    /// tool and verification history...), in `n` order.
    ///
    /// Every context extension that is not governance (artifact manifest,
    /// plans, tool and verification history...), in `n` order, as stored.
    pub other_extensions: Vec<ContextExtensionRecord>,
}

/// A saved session, opened: its knowledge and a fresh authority.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenedSession {
    /// Everything restored from storage.
    pub knowledge: SavedSessionState,
    /// Always fresh: manual permissions, no full access, no sensitive-transfer
    /// grant, no temporary approvals.
    ///
    /// Always [`Authority::fresh`].
    pub authority: Authority,
}

/// Open a saved session (seed 000, "Session Restoration Boundary"): its
/// knowledge (transcript, model, work mode, workspace, token totals,
/// governance, other extensions) and a fresh authority. Reads only.
///
/// It reads the metadata, the whole transcript (paged, [`RESTORE_PAGE`] entries
/// per read), the token totals and the context extensions, and pairs them with
/// [`Authority::fresh`]; nothing is written.
///
/// # Errors
/// `NotFound` (session), `AuthenticationFailed` (a stored value was altered
/// or moved), `Corrupt` (a governance extension body has the wrong shape),
/// `Busy`, `Closed`.
pub fn open_saved_session(store: &SessionStore, session_id: &str) -> Result<OpenedSession> {
    let session = store.get_session(session_id)?;
    let mut transcript: Vec<TranscriptEntry> = Vec::new();
    loop {
        let from = transcript.last().map_or(1, |e| e.seq + 1);
        let page = store.get_transcript(session_id, from, RESTORE_PAGE)?;
        let done = page.len() < RESTORE_PAGE as usize;
        transcript.extend(page);
        if done {
            break;
        }
    }
    let token_totals = store.token_totals(session_id)?;
    let extensions = store.list_context_extensions(session_id)?;
    let governance = ContextGovernance::replay(&extensions)?;
    let other_extensions = extensions.into_iter().filter(|r| !GOVERNANCE_KINDS.contains(&r.kind.as_str())).collect();
    Ok(OpenedSession {
        knowledge: SavedSessionState { session, transcript, token_totals, governance, other_extensions },
        authority: Authority::fresh(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{record_turn_decision, TurnState, KIND_PIN};
    use crate::store::test_support::temp_store;
    use crate::store::{NewEntry, NewSession, Role, TokenUsage};

    #[test]
    fn fresh_authority_is_manual_with_nothing_granted() {
        let a = Authority::fresh();
        assert_eq!(a.permission_profile(), PermissionProfile::Manual);
        assert!(!a.full_access());
        assert!(!a.sensitive_transfer());
        assert!(a.temporary_approvals().is_empty());
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            serde_json::json!({"permission_profile": "manual", "full_access": false, "sensitive_transfer": false, "temporary_approvals": []})
        );
    }

    #[test]
    fn opening_restores_knowledge_and_resets_authority() {
        let (_dir, store) = temp_store();
        let s = store
            .create_session_with(NewSession {
                name: Some("refactor".into()),
                model: Some("gpt-4o".into()),
                work_mode: Some("build".into()),
                workspace_path: Some("/".into()),
                ..NewSession::default()
            })
            .unwrap();
        let entries = (0..2_345u32)
            .map(|i| NewEntry::text(if i % 2 == 0 { Role::User } else { Role::Assistant }, format!("turn {i}")))
            .collect();
        store.append_entries(&s.id, entries).unwrap();
        store.record_tokens(&s.id, TokenUsage { input: 1200, output: 300, cached: 100, model: None, provider: None }).unwrap();
        record_turn_decision(&store, &s.id, KIND_PIN, &[7]).unwrap();
        // A host (or an attacker with the API) stores something that looks like a grant.
        store
            .append_context_extension(&s.id, "authority", r#"{"permission_profile":"full_access","full_access":true,"sensitive_transfer":true,"temporary_approvals":["rm -rf"]}"#)
            .unwrap();
        store.append_context_extension(&s.id, "plan", r#"{"steps":["a","b"]}"#).unwrap();

        let opened = open_saved_session(&store, &s.id).unwrap();
        assert_eq!(opened.authority, Authority::fresh());
        let k = &opened.knowledge;
        assert_eq!(k.session.model.as_deref(), Some("gpt-4o"));
        assert_eq!(k.session.work_mode.as_deref(), Some("build"));
        assert_eq!(k.session.workspace_path.as_deref(), Some("/"));
        assert_eq!(k.transcript.len(), 2_345);
        assert_eq!(k.transcript.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=2_345).collect::<Vec<u64>>());
        assert_eq!(k.transcript[2_344].content, "turn 2344");
        assert_eq!(k.token_totals, TokenTotals { input: 1200, output: 300, cached: 100 });
        assert_eq!(k.governance.state_of(7), TurnState::Verbatim);
        assert!(k.governance.pinned.contains(&7));
        assert_eq!(k.other_extensions.iter().map(|r| r.kind.as_str()).collect::<Vec<_>>(), vec!["authority", "plan"]);
    }

    #[test]
    fn opening_a_missing_session_is_not_found() {
        let (_dir, store) = temp_store();
        assert_eq!(open_saved_session(&store, "nope").unwrap_err().kind(), crate::ErrorKind::NotFound);
    }
}
