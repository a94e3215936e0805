//! `SessionJournal`: the idempotent event journal and the recovery pass
//! (seed 000, "SessionJournal" and "Recovery Pass").
//!
//! * Table: the seed's DDL verbatim ([`crate::backend::sqlite::schema::JOURNAL_DDL`]).
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

use serde::{Deserialize, Serialize};

use super::{open_required, validate_id, SessionStore, Tx};
use crate::backend::{EventRow, NewEventRow};
use crate::crypto;
use crate::error::{Error, Result};

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

/// An operation's terminal outcome (seed 000, "Idempotent Event Journal");
/// the names are `OperationOutcome::parse`'s.
///
/// How an operation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OperationOutcome {
    /// `OperationSucceeded`: the effect happened.
    Succeeded,
    /// `OperationFailed`.
    Failed,
    /// `OperationBlocked`: refused (policy, permission).
    Blocked,
    /// `OperationCancelled`.
    Cancelled,
    /// `OperationUnknownOutcome`: whether it happened is not known (what
    /// recovery records for an operation whose handle died).
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

/// A journal event to append (seed 000, "Idempotent Event Journal").
/// Python passes the fields to `journal_append` itself; Kotlin/Swift give
/// the payload as JSON text (`payloadJson`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewEvent {
    /// Idempotency key: appending the same id twice is a no-op.
    pub event_id: String,
    /// The aggregate (session) this event belongs to.
    pub session_id: String,
    /// `payload_kind`, e.g. `EffectDispatchCommitted` or a host-defined kind
    /// (1..=64 ASCII letters, digits, `_` or `.`).
    pub kind: String,
    /// Operation id for lifecycle events (required for them).
    pub operation_id: Option<String>,
    /// Any JSON value, stored encrypted (Kotlin/Swift: `payloadJson`, its
    /// JSON text, e.g. `{"tool":"bash"}`).
    ///
    /// JSON payload (stored encrypted).
    pub payload: serde_json::Value,
}

/// One journal event, decrypted.
///
/// A stored event, decrypted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEvent {
    /// Event id (the caller's idempotency key).
    pub event_id: String,
    /// Session (aggregate) id.
    pub session_id: String,
    /// Per-session seq, from 1, gapless.
    pub seq: u64,
    /// Store-wide commit order, from 1.
    pub aggregate_version: u64,
    /// Operation id, if the event belongs to one.
    ///
    /// Operation id (`None` when empty).
    pub operation_id: Option<String>,
    /// The event's kind.
    ///
    /// `payload_kind`.
    pub kind: String,
    /// The payload: the JSON value (Python: what `json.loads` gives;
    /// Kotlin/Swift: `payloadJson`, its JSON text).
    ///
    /// The decrypted payload.
    pub payload: serde_json::Value,
    /// RFC 3339 UTC timestamp with milliseconds.
    pub created_at: String,
}

/// What a journal append did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppendOutcome {
    /// The event's per-session seq (the original one for a duplicate).
    pub seq: u64,
    /// The event's store-wide aggregate_version.
    pub aggregate_version: u64,
    /// True if the event was already there (nothing was written).
    pub duplicate: bool,
}

/// What a recovery pass did (seed 000, "Recovery Pass"). Python keeps the
/// operations as `(session_id, operation_id)` pairs and
/// `(session_id, operation_id, kind)` triples.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveryReport {
    /// Operations marked `OperationUnknownOutcome`.
    ///
    /// Operations marked `OperationUnknownOutcome`, as `(session_id, operation_id)`.
    pub marked_unknown: Vec<(String, String)>,
    /// Open operations left alone because their owner is alive.
    pub skipped_live: u64,
    /// Operations that could not be marked (retried by the next pass).
    ///
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

    if let Some(row) = t.tx.event(&ev.session_id, &ev.event_id)? {
        let stored = open_required(t.key, &row.payload, &record_id(&ev.event_id))?;
        let stored: serde_json::Value = serde_json::from_str(&stored)
            .map_err(|_| Error::corrupt(format!("record `{}`: journal payload is not JSON", record_id(&ev.event_id))))?;
        if row.session_id == ev.session_id && row.kind == ev.kind && row.operation_id == op && stored == ev.payload {
            return Ok(AppendOutcome { seq: row.seq, aggregate_version: row.aggregate_version, duplicate: true });
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
        if t.tx.operation_has_event(op, &[EFFECT_DISPATCH_COMMITTED])? {
            return Err(Error::conflict(format!("operation `{op}` was already dispatched")));
        }
        t.tx.open_operation(op, &ev.session_id, t.owner, &ev.event_id)?;
    } else if TERMINAL_KINDS.contains(&ev.kind.as_str()) {
        if op.is_empty() {
            return Err(Error::invalid(format!("{} needs an operation_id", ev.kind)));
        }
        match t.tx.open_operation_session(op)? {
            Some(s) if s == ev.session_id => t.tx.close_operation(op)?,
            Some(_) => return Err(Error::conflict(format!("operation `{op}` belongs to another session"))),
            None => {
                return Err(if t.tx.operation_has_event(op, &TERMINAL_KINDS)? {
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
    let payload = crypto::seal_str(t.key, &record_id(event_id), payload_text);
    let created_at = rfc3339_now();
    let (seq, aggregate_version) = t.tx.insert_event(&NewEventRow {
        event_id,
        session_id,
        kind,
        operation_id: op,
        payload: &payload,
        envelope: t.envelope_json,
        created_at: &created_at,
    })?;
    Ok(AppendOutcome { seq, aggregate_version, duplicate: false })
}

/// A journal row, its payload opened. Errors: `Corrupt`/`AuthenticationFailed` naming the record.
fn event_from_row(key: &crypto::DataKey, row: EventRow) -> Result<JournalEvent> {
    let rec = record_id(&row.event_id);
    let text = open_required(key, &row.payload, &rec)?;
    let payload = serde_json::from_str(&text).map_err(|_| Error::corrupt(format!("record `{rec}`: journal payload is not JSON")))?;
    Ok(JournalEvent {
        event_id: row.event_id,
        session_id: row.session_id,
        seq: row.seq,
        aggregate_version: row.aggregate_version,
        operation_id: if row.operation_id.is_empty() { None } else { Some(row.operation_id) },
        kind: row.kind,
        payload,
        created_at: row.created_at,
    })
}

/// The event an earlier write under idempotency key `key` recorded
/// (issue 29 item 2): `Some((first seq, time given to entries without
/// their own))` when `key` is that write's `kind` event (`TranscriptAppended`,
/// `TranscriptTailReplaced`) in `session_id` and it held the same change
/// (`digest`, see `transcript::append_digest`), `None` when the key is unused.
///
/// Errors: `InvalidInput` for a key that is not a valid event id (1..=128
/// characters, no whitespace, control characters or `:`, NFC) or ends in
/// `.dispatch`/`.terminal` (the lifecycle events' ids); `Conflict` when the
/// key names another event, another session's append, or an append of
/// other entries; `Corrupt`/`AuthenticationFailed` for an unreadable payload.
pub(crate) fn keyed_event(t: &Tx<'_>, session_id: &str, key: &str, kind: &str, digest: &str) -> Result<Option<(u64, i64)>> {
    // "idempotency key: an event id must be 1..=128 characters ..."
    validate_id("idempotency key: an event", key)?;
    if key.ends_with(".dispatch") || key.ends_with(".terminal") {
        return Err(Error::invalid("idempotency keys ending in `.dispatch` or `.terminal` are reserved for the journal's lifecycle events"));
    }
    let Some(row) = t.tx.event(session_id, key)? else { return Ok(None) };
    let conflict = || Error::conflict(format!("idempotency key `{key}` was already used for other entries or another event"));
    if row.session_id != session_id || row.kind != kind {
        return Err(conflict());
    }
    let stored = open_required(t.key, &row.payload, &record_id(key))?;
    let stored: serde_json::Value = serde_json::from_str(&stored)
        .map_err(|_| Error::corrupt(format!("record `{}`: journal payload is not JSON", record_id(key))))?;
    match (stored["digest"].as_str(), stored["from_seq"].as_u64(), stored["at"].as_i64()) {
        (Some(d), Some(first), Some(at)) if d == digest => Ok(Some((first, at))),
        _ => Err(conflict()),
    }
}

/// [`record`] under a caller's event id (an append's idempotency key,
/// checked by [`keyed_event`] in the same transaction).
pub(crate) fn record_keyed(t: &Tx<'_>, event_id: &str, session_id: &str, kind: &str, payload: serde_json::Value) -> Result<AppendOutcome> {
    insert_event(t, event_id, session_id, kind, "", &payload.to_string())
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

    /// Record an operation's terminal event (idempotent for the same outcome
    /// and payload). `NotFound`: never dispatched.
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

    /// Journal events of a session from `from_seq` (inclusive), at most `limit` (1..=10000).
    pub fn journal_events(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<JournalEvent>> {
        self.read(|c, key| c.events(session_id, from_seq, limit)?.into_iter().map(|row| event_from_row(key, row)).collect())
    }

    /// Operations dispatched without a terminal event.
    ///
    /// As `(session_id, operation_id, owner)`.
    pub fn open_operations(&self) -> Result<Vec<(String, String, String)>> {
        self.read(|c, _| Ok(c.open_operations()?.into_iter().map(|o| (o.session_id, o.operation_id, o.owner)).collect()))
    }

    /// Run the recovery pass (seed 000, "Recovery Pass"): mark every open
    /// operation whose owner is gone `OperationUnknownOutcome`.
    ///
    /// It appends `OperationUnknownOutcome` for every dispatched operation
    /// without a terminal event whose owning handle is gone; operations of a
    /// handle still open (in this or another live process) are left alone.
    /// Cost: O(open operations), independent of journal size. Runs at open.
    pub fn recover(&self) -> Result<RecoveryReport> {
        let open = self.read(|c, _| c.open_operations())?;
        let mut owners: Vec<&str> = open.iter().map(|o| o.owner.as_str()).filter(|o| *o != self.instance_id()).collect();
        owners.sort_unstable();
        owners.dedup();
        let mut report = RecoveryReport::default();
        for owner in owners {
            let ops: Vec<(String, String)> =
                open.iter().filter(|o| o.owner == owner).map(|o| (o.session_id.clone(), o.operation_id.clone())).collect();
            if self.backend().owner_is_alive(owner) {
                report.skipped_live += ops.len() as u64;
                continue;
            }
            for (session_id, op) in ops {
                let marked = self.write(|t| {
                    // Another recovery pass may have got there first.
                    if t.tx.open_operation_session(&op)?.is_none() {
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
        self.backend().sweep_owners();
        Ok(report)
    }
}
