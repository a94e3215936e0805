//! `SessionJournal`: the idempotent event journal and the recovery pass
//! (seed 000, "SessionJournal" and "Recovery Pass").
//!
//! * Table: the seed's DDL verbatim ([`crate::store::schema::JOURNAL_DDL`]).
//! * `payload_json` is an `EncryptedField` envelope (AAD
//!   `journal:<event_id>:payload`) of the event's JSON payload;
//!   `envelope_json` is plaintext metadata `{"v":1,"owner":...}` (no user content).
//! * `append` allocates `(session_id, seq)` (max+1, never reused) and the
//!   store-wide `aggregate_version` (max+1, also the row's rowid) in the same transaction as the
//!   rows the event describes. The same `event_id` again is a no-op that
//!   returns the original seq; with another payload it is `Conflict`.
//! * Operations: `EffectDispatchCommitted` then exactly one terminal event.
//!   Open operations are also kept in `open_operations`, so the recovery pass
//!   costs O(open operations), not O(journal).

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::crypto;
use crate::error::{Error, Result};
use crate::store::{validate_id, SessionStore, Tx};

/// Lifecycle fact: an operation's effect was dispatched.
pub const EFFECT_DISPATCH_COMMITTED: &str = "EffectDispatchCommitted";
/// Terminal: the operation succeeded.
pub const OPERATION_SUCCEEDED: &str = "OperationSucceeded";
/// Terminal: the operation failed.
pub const OPERATION_FAILED: &str = "OperationFailed";
/// Terminal: the operation was blocked (e.g. by policy).
pub const OPERATION_BLOCKED: &str = "OperationBlocked";
/// Terminal: the operation was cancelled.
pub const OPERATION_CANCELLED: &str = "OperationCancelled";
/// Terminal: the outcome is unknown (appended by the recovery pass).
pub const OPERATION_UNKNOWN_OUTCOME: &str = "OperationUnknownOutcome";
/// Every terminal kind.
pub const TERMINAL_KINDS: [&str; 5] =
    [OPERATION_SUCCEEDED, OPERATION_FAILED, OPERATION_BLOCKED, OPERATION_CANCELLED, OPERATION_UNKNOWN_OUTCOME];

/// How an operation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OperationOutcome {
    /// `OperationSucceeded`
    Succeeded,
    /// `OperationFailed`
    Failed,
    /// `OperationBlocked`
    Blocked,
    /// `OperationCancelled`
    Cancelled,
    /// `OperationUnknownOutcome`
    UnknownOutcome,
}

impl OperationOutcome {
    /// Parse the lowercase name hosts use: `succeeded`, `failed`, `blocked`,
    /// `cancelled`, `unknown`. Errors: `InvalidInput`.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "succeeded" => OperationOutcome::Succeeded,
            "failed" => OperationOutcome::Failed,
            "blocked" => OperationOutcome::Blocked,
            "cancelled" => OperationOutcome::Cancelled,
            "unknown" => OperationOutcome::UnknownOutcome,
            _ => return Err(Error::invalid("outcome must be one of succeeded, failed, blocked, cancelled, unknown")),
        })
    }

    /// The journal `payload_kind`.
    pub fn kind(self) -> &'static str {
        match self {
            OperationOutcome::Succeeded => OPERATION_SUCCEEDED,
            OperationOutcome::Failed => OPERATION_FAILED,
            OperationOutcome::Blocked => OPERATION_BLOCKED,
            OperationOutcome::Cancelled => OPERATION_CANCELLED,
            OperationOutcome::UnknownOutcome => OPERATION_UNKNOWN_OUTCOME,
        }
    }
}

/// An event to append.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewEvent {
    /// Idempotency key: appending the same id twice is a no-op.
    pub event_id: String,
    /// The aggregate (session) this event belongs to.
    pub session_id: String,
    /// `payload_kind`, e.g. `EffectDispatchCommitted` or a host-defined kind.
    pub kind: String,
    /// Operation id for lifecycle events (required for them).
    pub operation_id: Option<String>,
    /// JSON payload (stored encrypted).
    pub payload: serde_json::Value,
}

/// A stored event, decrypted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEvent {
    /// Event id.
    pub event_id: String,
    /// Session (aggregate) id.
    pub session_id: String,
    /// Per-session seq, from 1, gapless.
    pub seq: u64,
    /// Store-wide commit order, from 1.
    pub aggregate_version: u64,
    /// Operation id (`None` when empty).
    pub operation_id: Option<String>,
    /// `payload_kind`.
    pub kind: String,
    /// The decrypted payload.
    pub payload: serde_json::Value,
    /// RFC 3339 UTC timestamp with milliseconds.
    pub created_at: String,
}

/// What `append` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppendOutcome {
    /// The event's seq (the original one for a duplicate).
    pub seq: u64,
    /// The event's aggregate_version.
    pub aggregate_version: u64,
    /// True if the event was already there (nothing was written).
    pub duplicate: bool,
}

/// What a recovery pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveryReport {
    /// Operations marked `OperationUnknownOutcome`, as `(session_id, operation_id)`.
    pub marked_unknown: Vec<(String, String)>,
    /// Open operations left alone because their owner is alive.
    pub skipped_live: u64,
    /// Operations that could not be marked, as `(session_id, operation_id, error kind)`;
    /// they stay open and the next pass tries again. Never fails the open.
    pub failed: Vec<(String, String, String)>,
}

/// Deepest nesting of a journal payload (serde_json reads at most 128 levels back).
pub const MAX_PAYLOAD_DEPTH: usize = 64;
/// Longest operation id: its lifecycle event ids add `.dispatch` / `.terminal`
/// and must stay within the 128-character id limit.
pub const MAX_OPERATION_ID_LEN: usize = 118;

fn validate_operation_id(op: &str) -> Result<()> {
    validate_id("operation", op)?;
    if op.len() > MAX_OPERATION_ID_LEN {
        return Err(Error::invalid(format!("operation id must be at most {MAX_OPERATION_ID_LEN} characters")));
    }
    Ok(())
}

fn json_depth(v: &serde_json::Value) -> usize {
    // Iterative, so a hostile payload cannot overflow the stack here.
    let mut max = 0;
    let mut stack = vec![(v, 1usize)];
    while let Some((v, d)) = stack.pop() {
        max = max.max(d);
        match v {
            serde_json::Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            serde_json::Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    max
}

fn record_id(event_id: &str) -> String {
    format!("journal:{event_id}:payload")
}

fn rfc3339_now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// Append an event inside an open write transaction (the one that also
/// writes the rows the event describes).
pub(crate) fn append_in_tx(t: &Tx<'_>, ev: &NewEvent) -> Result<AppendOutcome> {
    validate_id("event", &ev.event_id)?;
    validate_id("session", &ev.session_id)?;
    if ev.kind.is_empty() || ev.kind.len() > 64 || !ev.kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
        return Err(Error::invalid("event kind must be 1..=64 ASCII letters, digits, `_` or `.`"));
    }
    let op = ev.operation_id.as_deref().unwrap_or("");
    if !op.is_empty() {
        validate_operation_id(op)?;
    }
    // `<op>.dispatch` and `<op>.terminal` are the lifecycle helpers' ids (and the
    // recovery pass's): nothing else may take them.
    for (suffix, lifecycle) in [(".dispatch", &[EFFECT_DISPATCH_COMMITTED][..]), (".terminal", &TERMINAL_KINDS[..])] {
        if let Some(stem) = ev.event_id.strip_suffix(suffix) {
            if stem != op || !lifecycle.contains(&ev.kind.as_str()) {
                return Err(Error::invalid(format!(
                    "event ids ending in `{suffix}` are reserved for the lifecycle events of operation `<stem>`"
                )));
            }
        }
    }
    if json_depth(&ev.payload) > MAX_PAYLOAD_DEPTH {
        return Err(Error::invalid(format!("journal payloads may nest at most {MAX_PAYLOAD_DEPTH} levels")));
    }
    let payload_text = serde_json::to_string(&ev.payload).expect("a JSON value serializes");

    let existing = t
        .tx
        .query_row(
            "SELECT session_id, seq, aggregate_version, operation_id, payload_kind, payload_json FROM journal WHERE event_id = ?1",
            [&ev.event_id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                ))
            },
        )
        .optional()?;
    if let Some((sid, seq, ver, eop, kind, pj)) = existing {
        let stored = crypto::open_str(t.key, &record_id(&ev.event_id), &pj)?;
        let stored: serde_json::Value =
            serde_json::from_str(&stored).map_err(|_| Error::corrupt("journal payload is not JSON"))?;
        if sid == ev.session_id && kind == ev.kind && eop == op && stored == ev.payload {
            return Ok(AppendOutcome { seq: seq as u64, aggregate_version: ver as u64, duplicate: true });
        }
        return Err(Error::conflict(format!(
            "event `{}` already exists with a different session, kind, operation or payload",
            ev.event_id
        )));
    }

    // Lifecycle bookkeeping in the same transaction.
    if ev.kind == EFFECT_DISPATCH_COMMITTED {
        if op.is_empty() {
            return Err(Error::invalid("EffectDispatchCommitted needs an operation_id"));
        }
        let seen: Option<String> = t
            .tx
            .query_row(
                "SELECT payload_kind FROM journal WHERE operation_id = ?1 AND payload_kind = 'EffectDispatchCommitted' LIMIT 1",
                [op],
                |r| r.get(0),
            )
            .optional()?;
        if seen.is_some() {
            return Err(Error::conflict(format!("operation `{op}` was already dispatched")));
        }
        t.tx.execute(
            "INSERT INTO open_operations (operation_id, session_id, owner, dispatched_event_id) VALUES (?1, ?2, ?3, ?4)",
            params![op, ev.session_id, t.owner, ev.event_id],
        )?;
    } else if TERMINAL_KINDS.contains(&ev.kind.as_str()) {
        if op.is_empty() {
            return Err(Error::invalid(format!("{} needs an operation_id", ev.kind)));
        }
        let open_session: Option<String> = t
            .tx
            .query_row("SELECT session_id FROM open_operations WHERE operation_id = ?1", [op], |r| r.get(0))
            .optional()?;
        match open_session {
            Some(s) if s == ev.session_id => {
                t.tx.execute("DELETE FROM open_operations WHERE operation_id = ?1", [op])?;
            }
            Some(_) => return Err(Error::conflict(format!("operation `{op}` belongs to another session"))),
            None => {
                let seen: i64 = t.tx.query_row(
                    "SELECT COUNT(*) FROM journal WHERE operation_id = ?1 AND payload_kind IN
                       ('OperationSucceeded','OperationFailed','OperationBlocked','OperationCancelled','OperationUnknownOutcome')",
                    [op],
                    |r| r.get(0),
                )?;
                return Err(if seen > 0 {
                    Error::conflict(format!("operation `{op}` already has a terminal event"))
                } else {
                    Error::not_found("operation", op)
                });
            }
        }
    }

    insert_event(t, &ev.event_id, &ev.session_id, &ev.kind, op, &payload_text)
}

/// Insert one event row: allocate `(session_id, seq)` and `aggregate_version`
/// and encrypt the payload. The caller has validated ids and checked for a
/// duplicate `event_id`.
fn insert_event(t: &Tx<'_>, event_id: &str, session_id: &str, kind: &str, op: &str, payload_text: &str) -> Result<AppendOutcome> {
    let seq: i64 = t
        .tx
        .prepare_cached("SELECT COALESCE(MAX(seq), 0) + 1 FROM journal WHERE session_id = ?1")?
        .query_row([session_id], |r| r.get(0))?;
    // aggregate_version doubles as the row's rowid, so the next one is an
    // O(log n) seek on the table itself and needs no extra index.
    let version: i64 = t
        .tx
        .prepare_cached("SELECT COALESCE(MAX(rowid), 0) + 1 FROM journal")?
        .query_row([], |r| r.get(0))?;
    let payload_env = crypto::seal_str(t.key, &record_id(event_id), payload_text);
    t.tx.prepare_cached(
        "INSERT INTO journal (rowid, event_id, session_id, seq, aggregate_version, operation_id, payload_kind, payload_json, envelope_json, created_at)
         VALUES (?4, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![event_id, session_id, seq, version, op, kind, payload_env, t.envelope_json, rfc3339_now()])?;
    Ok(AppendOutcome { seq: seq as u64, aggregate_version: version as u64, duplicate: false })
}

/// Append a store-generated event describing a state change of
/// `session_id` (a fresh uuid v7 event id, so no duplicate check). `kind`
/// is one of the store's own kinds, never a lifecycle kind.
pub(crate) fn record(t: &Tx<'_>, session_id: &str, kind: &str, payload: serde_json::Value) -> Result<AppendOutcome> {
    debug_assert!(kind != EFFECT_DISPATCH_COMMITTED && !TERMINAL_KINDS.contains(&kind));
    let event_id = uuid::Uuid::now_v7().simple().to_string();
    insert_event(t, &event_id, session_id, kind, "", &payload.to_string())
}

impl SessionStore {
    /// Append one event (idempotent by `event_id`).
    ///
    /// Errors: `Conflict` (same id, other content; second dispatch or
    /// terminal of one operation), `NotFound` (terminal for an operation
    /// never dispatched), `InvalidInput` (bad ids/kind, lifecycle event
    /// without operation id).
    pub fn journal_append(&self, ev: NewEvent) -> Result<AppendOutcome> {
        self.write(|t| append_in_tx(t, &ev))
    }

    /// Record that an operation's effect was dispatched (owned by this handle).
    pub fn dispatch_operation(&self, session_id: &str, operation_id: &str, payload: serde_json::Value) -> Result<AppendOutcome> {
        self.journal_append(NewEvent {
            event_id: format!("{operation_id}.dispatch"),
            session_id: session_id.to_string(),
            kind: EFFECT_DISPATCH_COMMITTED.to_string(),
            operation_id: Some(operation_id.to_string()),
            payload,
        })
    }

    /// Record an operation's terminal event. Idempotent for the same outcome and payload.
    pub fn complete_operation(
        &self,
        session_id: &str,
        operation_id: &str,
        outcome: OperationOutcome,
        payload: serde_json::Value,
    ) -> Result<AppendOutcome> {
        self.journal_append(NewEvent {
            event_id: format!("{operation_id}.terminal"),
            session_id: session_id.to_string(),
            kind: outcome.kind().to_string(),
            operation_id: Some(operation_id.to_string()),
            payload,
        })
    }

    /// Events of a session from `from_seq` (inclusive), at most `limit`.
    pub fn journal_events(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<JournalEvent>> {
        self.read(|c, key| {
            let mut st = c.prepare_cached(
                "SELECT event_id, session_id, seq, aggregate_version, operation_id, payload_kind, payload_json, created_at
                 FROM journal WHERE session_id = ?1 AND seq >= ?2 ORDER BY seq LIMIT ?3",
            )?;
            let mut rows = st.query(params![session_id, from_seq.min(i64::MAX as u64) as i64, limit as i64])?;
            let mut out = Vec::new();
            while let Some(r) = rows.next()? {
                let event_id: String = crate::store::column(r, 0, &format!("journal:{session_id}"))?;
                let rec = record_id(&event_id);
                let col = |i: usize| crate::store::column::<String>(r, i, &rec);
                let text = crate::store::open_column(key, r, 6, &rec)?
                    .ok_or_else(|| Error::corrupt(format!("record `{rec}` has no envelope")))?;
                let payload = serde_json::from_str(&text)
                    .map_err(|_| Error::corrupt(format!("record `{rec}`: journal payload is not JSON")))?;
                let op = col(4)?;
                out.push(JournalEvent {
                    session_id: col(1)?,
                    seq: crate::store::column::<i64>(r, 2, &rec)? as u64,
                    aggregate_version: crate::store::column::<i64>(r, 3, &rec)? as u64,
                    operation_id: if op.is_empty() { None } else { Some(op) },
                    kind: col(5)?,
                    payload,
                    created_at: col(7)?,
                    event_id,
                });
            }
            Ok(out)
        })
    }

    /// Open operations (dispatched, no terminal event) as `(session_id, operation_id, owner)`.
    pub fn open_operations(&self) -> Result<Vec<(String, String, String)>> {
        self.read(|c, _| {
            let mut st = c.prepare("SELECT session_id, operation_id, owner FROM open_operations ORDER BY operation_id")?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    /// The recovery pass (seed 000, "Recovery Pass"): append
    /// `OperationUnknownOutcome` for every dispatched operation without a
    /// terminal event whose owning handle is gone. Operations of a handle
    /// still open (in this or another live process) are left alone. Cost:
    /// O(open operations), independent of journal size. Runs at open.
    pub fn recover(&self) -> Result<RecoveryReport> {
        let owners: Vec<String> = self.read(|c, _| {
            let mut st = c.prepare("SELECT DISTINCT owner FROM open_operations WHERE owner <> ?1")?;
            let rows = st.query_map([self.instance_id()], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })?;
        let lock_dir = self.owner_lock_dir();
        let mut report = RecoveryReport::default();
        for owner in owners {
            let ops: Vec<(String, String)> = self.read(|c, _| {
                let mut st =
                    c.prepare("SELECT session_id, operation_id FROM open_operations WHERE owner = ?1 ORDER BY operation_id")?;
                let rows = st.query_map([&owner], |r| Ok((r.get(0)?, r.get(1)?)))?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            })?;
            if crate::store::owner_is_alive(&lock_dir, &owner) {
                report.skipped_live += ops.len() as u64;
                continue;
            }
            for (session_id, op) in ops {
                let marked = self.write(|t| {
                    // Another recovery pass may have got there first.
                    let still_open: i64 =
                        t.tx.query_row("SELECT COUNT(*) FROM open_operations WHERE operation_id = ?1", [&op], |r| r.get(0))?;
                    if still_open == 0 {
                        return Ok(false);
                    }
                    append_in_tx(
                        t,
                        &NewEvent {
                            event_id: format!("{op}.terminal"),
                            session_id: session_id.clone(),
                            kind: OPERATION_UNKNOWN_OUTCOME.to_string(),
                            operation_id: Some(op.clone()),
                            payload: serde_json::json!({ "reason": "owner process ended before a terminal event", "recovered_by": self.instance_id() }),
                        },
                    )?;
                    Ok(true)
                });
                match marked {
                    Ok(true) => report.marked_unknown.push((session_id, op)),
                    Ok(false) => {}
                    Err(e @ (Error::Closed | Error::Busy { .. })) => return Err(e),
                    Err(e) => report.failed.push((session_id, op, e.kind().name().to_string())),
                }
            }
        }
        crate::store::sweep_stale_owner_locks(&lock_dir, self.instance_id());
        Ok(report)
    }
}
