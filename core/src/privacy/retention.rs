//! Retention (issue 30 item 4; DESIGN.md "Privacy": "Retention is a policy,
//! off by default, with a dry run; every deletion is a journal event, never
//! silent").
//!
//! A [`RetentionPolicy`] runs only when asked ([`SessionStore::prune`];
//! [`SessionStore::prune_plan`] is its dry run). Sessions are ranked by last
//! activity (`updated_at_ms`: the time of the latest entry), newest first;
//! the newest `keep_latest` are always kept, named sessions are kept unless
//! `keep_named` is off, and of the rest a session goes when it ranks past
//! `max_sessions` (reason `max_sessions`) or its last activity is older than
//! `max_age_days` (reason `max_age_days`). Each deletion re-checks, in its
//! own transaction, that the session's last activity is still the one the
//! plan saw (a session written to meanwhile is kept), journals a
//! `SessionDeleted` event `{"entries", "reason", "title", "updated_at_ms"}`
//! in the session's journal (which outlives it), and the deleted bytes are
//! scrubbed as by [`SessionStore::delete_session`].

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::SessionStore;

/// Milliseconds in a day.
const DAY_MS: i64 = 86_400_000;

/// What to keep. The default deletes nothing (both limits `None`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetentionPolicy {
    /// Delete sessions whose last activity is more than this many days
    /// (of 86,400 s) before now; `None`: no age limit.
    pub max_age_days: Option<u32>,
    /// Keep at most this many sessions (by last activity); `None`: no count limit.
    pub max_sessions: Option<u32>,
    /// Never delete a session that has a name (default true).
    pub keep_named: bool,
    /// Always keep the newest this many sessions, whatever the limits (default 1).
    pub keep_latest: u32,
}

impl Default for RetentionPolicy {
    fn default() -> Self {
        RetentionPolicy { max_age_days: None, max_sessions: None, keep_named: true, keep_latest: 1 }
    }
}

/// A session a retention policy deletes (or, in a dry run, would delete).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrunedSession {
    /// Session id.
    pub session_id: String,
    /// Its name, if any.
    ///
    /// Its name, if it has one (kept sessions aside, only unnamed ones go
    /// unless `keep_named` is off).
    pub title: Option<String>,
    /// `max_age_days` or `max_sessions`.
    pub reason: String,
    /// Its last activity, milliseconds since the Unix epoch.
    pub updated_at_ms: i64,
    /// Its transcript entries.
    pub entry_count: u64,
    /// Its last entry's seq when planned (0: none).
    ///
    /// Its last entry's seq when planned (0: none); `prune` keeps the
    /// session if it has moved.
    pub last_seq: u64,
}

impl SessionStore {
    /// What [`SessionStore::prune`] would delete at `now_ms` (milliseconds
    /// since the Unix epoch), oldest activity first; deletes nothing.
    /// Errors: `InvalidInput` (a `max_age_days` whose span overflows), the store's.
    pub fn prune_plan(&self, policy: &RetentionPolicy, now_ms: i64) -> Result<Vec<PrunedSession>> {
        let cutoff = match policy.max_age_days {
            Some(d) => Some(
                now_ms
                    .checked_sub(i64::from(d) * DAY_MS)
                    .ok_or_else(|| Error::invalid(format!("max_age_days {d} reaches before the earliest time")))?,
            ),
            None => None,
        };
        let mut out = Vec::new();
        for (rank, s) in self.list_sessions(None)?.into_iter().enumerate() {
            if rank < policy.keep_latest as usize || (policy.keep_named && s.name.is_some()) {
                continue;
            }
            let reason = if policy.max_sessions.is_some_and(|m| rank >= m as usize) {
                "max_sessions"
            } else if cutoff.is_some_and(|c| s.updated_at_ms < c) {
                "max_age_days"
            } else {
                continue;
            };
            let last_seq = self.read(|c, _| c.last_entry_seq(&s.id))?;
            out.push(PrunedSession { session_id: s.id, title: s.name, reason: reason.into(), updated_at_ms: s.updated_at_ms, entry_count: s.entry_count, last_seq });
        }
        out.reverse();
        Ok(out)
    }

    /// Apply `policy` at `now_ms`: delete what [`SessionStore::prune_plan`]
    /// lists, each only if it has had no activity since the plan was made,
    /// each with a `SessionDeleted` journal event naming the reason, then
    /// scrub the deleted bytes. Returns the sessions deleted, oldest first.
    /// Errors: those of `prune_plan`; `Busy`/`Closed`; `Busy` from the
    /// scrub after the deletions committed (see `delete_session`).
    pub fn prune(&self, policy: &RetentionPolicy, now_ms: i64) -> Result<Vec<PrunedSession>> {
        let mut deleted = Vec::new();
        for p in self.prune_plan(policy, now_ms)? {
            let payload = serde_json::json!({ "reason": p.reason, "title": p.title, "updated_at_ms": p.updated_at_ms });
            if self.delete_session_if_unchanged(&p.session_id, p.updated_at_ms, p.last_seq, payload)?.is_some() {
                deleted.push(p);
            }
        }
        if !deleted.is_empty() {
            self.scrub_deleted()?;
        }
        Ok(deleted)
    }
}

/// Delete sessions by a retention policy (issue 30; SECURITY.md
/// "Deletion"): those whose last activity is more than `max_age_days`
/// days old, or that rank past the newest `max_sessions`; the newest
/// `keep_latest` and (with `keep_named`) named sessions are kept, and so
/// is a session written to meanwhile. Each deletion is a `SessionDeleted`
/// journal event `{entries, reason, title, updated_at_ms}`. `dry_run`:
/// list what would go, delete nothing. No limit: nothing. Oldest first.
///
/// The hosts' `prune` (bridge/api.rs): [`SessionStore::prune`] at the current
/// time, or with `dry_run` [`SessionStore::prune_plan`], under the policy of
/// the other arguments ([`RetentionPolicy`]'s fields). Errors: as `prune`.
pub fn prune_sessions(
    store: &SessionStore,
    max_age_days: Option<u32>,
    max_sessions: Option<u32>,
    keep_named: bool,
    keep_latest: u32,
    dry_run: bool,
) -> Result<Vec<PrunedSession>> {
    let policy = RetentionPolicy { max_age_days, max_sessions, keep_named, keep_latest };
    let now = crate::store::now_ms();
    if dry_run {
        store.prune_plan(&policy, now)
    } else {
        store.prune(&policy, now)
    }
}

#[cfg(test)]
mod tests {
    use crate::store::test_support::temp_store;
    use crate::{NewEntry, Role};

    /// A session written to after the plan was made is kept: the deleting
    /// transaction sees its last seq moved (its `updated_at` did not: the
    /// append came within the activity clock's one-second step).
    #[test]
    fn a_session_written_to_after_the_plan_is_kept() {
        let (_d, s) = temp_store();
        let a = s.create_session(None, None).unwrap();
        let _newest = s.create_session(None, None).unwrap();
        let now = a.created_at_ms + 40 * super::DAY_MS;
        let policy = super::RetentionPolicy { max_age_days: Some(30), ..Default::default() };
        let plan = s.prune_plan(&policy, now).unwrap();
        assert_eq!(plan.iter().map(|p| p.session_id.as_str()).collect::<Vec<_>>(), [a.id.as_str()]);
        let entry = s.append_entries(&a.id, vec![NewEntry { created_at_ms: Some(a.updated_at_ms), ..NewEntry::text(Role::User, "late") }]).unwrap();
        assert_eq!(s.get_session(&a.id).unwrap().updated_at_ms, plan[0].updated_at_ms, "same activity time");
        assert_eq!(s.delete_session_if_unchanged(&a.id, plan[0].updated_at_ms, plan[0].last_seq, serde_json::json!({})).unwrap(), None);
        assert_eq!(s.get_transcript(&a.id, 1, 10).unwrap(), entry);
        // Planned again, it goes.
        let p = s.prune_plan(&policy, now).unwrap().remove(0);
        assert_eq!((p.last_seq, p.entry_count), (1, 1));
        assert_eq!(s.delete_session_if_unchanged(&a.id, p.updated_at_ms, p.last_seq, serde_json::json!({})).unwrap(), Some(1));
    }
}
