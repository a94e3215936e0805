//! Copying one store into another, across backends (DESIGN.md "Backends":
//! `sessiondb copy --from A --to B`; issue 13 item 7).
//!
//! [`SessionStore::copy_to`] moves sealed rows through the storage seam as
//! they are: the same envelopes (same nonces, same bytes), the same record
//! ids (session ids, transcript seqs, extension numbers, event ids), so
//! nothing is decrypted or re-encrypted and a row copied SQLite → PostgreSQL
//! → SQLite is byte-identical to the original. What is copied, per session:
//! the session row (title and workspace envelopes, HMAC workspace index,
//! model, work mode, times, fork origin), every transcript entry (retracted
//! ones too) with its body and planning columns, the retractions, the token
//! ledger, the context extensions (governance: pins, exclusions, compaction
//! records), the journal events (payload envelopes and `envelope_json` as
//! they are; `aggregate_version` is the destination's own commit order) and
//! the operations still open in A (with A's owner). Store-wide: the import
//! bookkeeping in `meta` (`import-*` keys, keyed hashes under the same key).
//!
//! **Incremental and idempotent.** Every kind of row only grows (DESIGN.md:
//! rows are appended, never rewritten; a deletion is a journal event), so
//! for each session B's rows must be a prefix of A's: B's last journal event,
//! last transcript entry, extensions and token rows must equal A's at the
//! same positions. Then only what A has beyond them is copied. Running copy
//! twice adds nothing; after new appends to A, only those are copied. A
//! session deleted in A since the last copy (a `SessionDeleted` event among
//! the new events) is deleted in B, then A's current rows are copied.
//!
//! **Divergence.** When B holds for a session something A does not (B was
//! written since the last copy: an event, an entry, an extension or a token
//! row that A lacks or holds differently), that session is refused: it is
//! listed in [`CopyReport::conflicts`] with kind `Conflict` and left
//! untouched in B; the other sessions are copied. A damaged row in A is
//! listed with kind `Corrupt`. Merging two histories is not attempted:
//! copy in the other direction, or delete the session on one side.
//!
//! **Open operations.** An operation open in A is recorded open in B with
//! A's owner (B is a store in its own right: nothing is lost when A is
//! retired). B's recovery pass sees that owner as gone and marks the
//! operation `OperationUnknownOutcome`; that event is B's own, so the session
//! has diverged from then on. Copy while no operation is in flight.
//!
//! **Keys.** B must hold the same data key: A's key is checked against B's
//! key-check value before anything is written, else `KeyMismatch` and B is
//! unchanged.
//!
//! **Transactions.** Each session is copied in one write transaction of B
//! (a session longer than [`COPY_CHUNK`] entries writes its earlier entries
//! in transactions of that many first; a crash between leaves a prefix,
//! which the next run completes). A copy of a store that is being written
//! is consistent per session as of the moment that session is read; run it
//! again to catch up.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::{SessionStore, KEY_CHECK_PLAINTEXT, KEY_CHECK_RECORD};
use crate::backend::{EntryCopyRow, EventCopyRow, NewEventRow, NewTokenRow, ReadTx, Sealed, SessionCopyRow, TokenCopyRow, WriteTx};
use crate::crypto;
use crate::error::{Error, Result};
use super::journal::{EFFECT_DISPATCH_COMMITTED, TERMINAL_KINDS};

/// Transcript entries per write transaction when a session is longer.
pub const COPY_CHUNK: u32 = 2_000;

/// The journal kind that deletes a session (written by `delete_session`).
const SESSION_DELETED: &str = "SessionDeleted";

/// What `copy_to` added to the destination per kind of row (counts), and
/// the sessions it refused.
///
/// What [`SessionStore::copy_to`] did: counts of rows added to the
/// destination, per kind, and the sessions it refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyReport {
    /// Sessions examined in the source.
    ///
    /// Sessions examined in the source (every session with a row or a journal event).
    pub sessions_seen: u64,
    /// Session rows created in the destination.
    pub sessions_created: u64,
    /// Session rows of the destination overwritten with the source's.
    ///
    /// Session rows of the destination overwritten with the source's (renamed, new model, new activity...).
    pub sessions_updated: u64,
    /// Sessions deleted in the destination (deleted in the source).
    ///
    /// Sessions deleted in the destination because they were deleted in the source.
    pub sessions_deleted: u64,
    /// Transcript entries added (retracted ones included).
    pub entries: u64,
    /// Retractions added.
    pub retractions: u64,
    /// Token-ledger rows added.
    pub tokens: u64,
    /// Context extensions added.
    ///
    /// Context extensions added (pins, exclusions, compactions, ...).
    pub extensions: u64,
    /// Journal events added.
    pub events: u64,
    /// Operations recorded open in the destination.
    ///
    /// Operations recorded open in the destination (open in the source, with its owner).
    pub open_operations: u64,
    /// Import bookkeeping rows added.
    ///
    /// Import bookkeeping rows added: `meta` keys `import-*` and record
    /// identities (`import_records`).
    pub import_records: u64,
    /// Sessions refused, left unchanged in the destination.
    pub conflicts: Vec<CopyConflict>,
}

impl CopyReport {
    /// Rows added, all kinds together (0 for a copy that found nothing new).
    pub fn rows_added(&self) -> u64 {
        self.sessions_created
            + self.sessions_updated
            + self.sessions_deleted
            + self.entries
            + self.retractions
            + self.tokens
            + self.extensions
            + self.events
            + self.open_operations
            + self.import_records
    }
}

/// A session `copy_to` refused: `kind` is `Conflict` (the destination holds
/// rows the source does not) or `Corrupt` (a damaged row in the source).
///
/// A session that [`SessionStore::copy_to`] refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyConflict {
    /// The session id.
    pub session_id: String,
    /// `Conflict` or `Corrupt`.
    ///
    /// The error kind name: `Conflict` (the destination holds rows the
    /// source does not) or `Corrupt` (a damaged row in the source).
    pub kind: String,
    /// Why, without user content.
    ///
    /// Why, without user content (seqs, event ids, counts).
    pub reason: String,
}

/// What B holds of one session, read before anything is written.
struct DestState {
    row: Option<SessionCopyRow>,
    head: u64,
    head_event: Option<EventCopyRow>,
    last_entry: Option<EntryCopyRow>,
    extensions: Vec<(u64, String, Sealed, i64)>,
    tokens: Vec<TokenCopyRow>,
    retracted: BTreeSet<u64>,
}

fn read_dest(r: &dyn ReadTx, sid: &str) -> Result<DestState> {
    let head = r.last_event_seq(sid)?;
    let last_seq = r.last_entry_seq(sid)?;
    Ok(DestState {
        row: r.session_copy(sid)?,
        head,
        head_event: if head > 0 { r.event_copies(sid, head, 1)?.pop() } else { None },
        last_entry: if last_seq > 0 { r.entry_copies(sid, last_seq, 1)?.pop() } else { None },
        extensions: r.extensions(sid)?.into_iter().map(|e| (e.n, e.kind, e.body, e.created_at)).collect(),
        tokens: r.token_copies(sid)?,
        retracted: r.retracted_seqs(sid)?.into_iter().collect(),
    })
}

/// The source's rows of one session beyond what the destination holds.
struct SourceDelta {
    row: Option<SessionCopyRow>,
    events: Vec<EventCopyRow>,
    entries: Vec<EntryCopyRow>,
    extensions: Vec<(u64, String, Sealed, i64)>,
    tokens: Vec<TokenCopyRow>,
    retracted: Vec<u64>,
}

fn conflict(reason: String) -> Error {
    Error::Conflict { reason }
}

fn same_event(a: &EventCopyRow, b: &EventCopyRow) -> bool {
    let (x, y) = (&a.event, &b.event);
    x.event_id == y.event_id
        && x.seq == y.seq
        && x.kind == y.kind
        && x.operation_id == y.operation_id
        && x.payload == y.payload
        && x.created_at == y.created_at
        && a.envelope == b.envelope
}

fn bytes<'a>(s: &'a Sealed, record: &dyn Fn() -> String) -> Result<&'a [u8]> {
    match s {
        Sealed::Bytes(b) => Ok(b),
        Sealed::Absent => Err(Error::corrupt(format!("record `{}` has no envelope", record()))),
        Sealed::NotBytes(ty) => Err(Error::corrupt(format!("record `{}` holds a {ty} value, not an EncryptedField envelope", record()))),
    }
}

fn check_session_row(row: &SessionCopyRow) -> Result<()> {
    for (s, field) in [(&row.name, "name"), (&row.workspace, "workspace")] {
        if let Sealed::NotBytes(ty) = s {
            return Err(Error::corrupt(format!("record `session:{}:{field}` holds a {ty} value, not an EncryptedField envelope", row.id)));
        }
    }
    Ok(())
}

impl SessionStore {
    /// Copy this store into `dest` (another store: a file or a PostgreSQL
    /// URL), incrementally, moving ciphertext as it is: the rows added per
    /// kind and the sessions refused (`conflicts`). `KeyMismatch`: dest has
    /// another data key; nothing is written.
    ///
    /// What is copied and the rules: the module documentation of
    /// `sessiondb::store::copy`.
    ///
    /// Both stores stay open and usable; `dest` may be another backend
    /// (SQLite ↔ PostgreSQL). A refused session ([`CopyReport::conflicts`]:
    /// kind `Conflict` when B holds rows for the session that A does not,
    /// `Corrupt` for a damaged row in A) is left unchanged in B; the others
    /// are copied. Sessions deleted in B because A deleted them
    /// ([`CopyReport::sessions_deleted`] > 0) are scrubbed from B's files
    /// and search index as [`SessionStore::delete_session`] does, before
    /// this returns.
    ///
    /// Errors: `KeyMismatch` when this store's data key does not open
    /// `dest` (its key-check value), checked before anything is written;
    /// `Closed`, `Busy`, `Io`, `Database` from either backend (what was
    /// committed before stays: each session is its own transaction, and a
    /// new run completes it); `Busy` from B's scrub after everything
    /// committed (its old WAL frames go at the next full checkpoint).
    pub fn copy_to(&self, dest: &SessionStore) -> Result<CopyReport> {
        self.check_copy_key(dest)?;
        let mut report = CopyReport::default();
        let ids = self.read(|r, _| r.copy_session_ids())?;
        let open: HashMap<String, (String, String)> =
            self.read(|r, _| r.open_operations())?.into_iter().map(|o| (o.operation_id, (o.session_id, o.owner))).collect();
        for sid in ids {
            report.sessions_seen += 1;
            match self.copy_session(dest, &sid, &open, &mut report).and_then(|()| self.copy_import_records(dest, &sid)) {
                Ok(n) => report.import_records += n,
                Err(e @ (Error::Conflict { .. } | Error::Corrupt { .. } | Error::AuthenticationFailed { .. })) => {
                    let reason = match &e {
                        Error::Conflict { reason } | Error::Corrupt { reason } => reason.clone(),
                        other => other.to_string(),
                    };
                    report.conflicts.push(CopyConflict { session_id: sid, kind: e.kind().name().to_string(), reason });
                }
                Err(e) => return Err(e),
            }
        }
        report.import_records += self.copy_import_meta(dest)?;
        if report.sessions_deleted > 0 {
            // Sessions deleted in A were deleted in B: leave nothing of them
            // in B's files either (as `delete_session` does).
            dest.scrub_deleted()?;
        }
        Ok(report)
    }

    /// `KeyMismatch` unless this store's key opens `dest`'s key-check value.
    fn check_copy_key(&self, dest: &SessionStore) -> Result<()> {
        let mismatch = || Error::KeyMismatch { backend: "the source store (copy refused: the destination has another data key)".into() };
        let stored = dest.read(|r, _| r.meta("key_check"))?;
        let Sealed::Bytes(b) = stored else { return Err(mismatch()) };
        let field = std::str::from_utf8(&b).ok().and_then(|j| crypto::EncryptedField::from_json(j).ok()).ok_or_else(mismatch)?;
        match crypto::decrypt_field(self.key(), KEY_CHECK_RECORD, &field) {
            Ok(p) if &p[..] == KEY_CHECK_PLAINTEXT => Ok(()),
            _ => Err(mismatch()),
        }
    }

    /// Copy one session (see the module documentation). `Conflict` or
    /// `Corrupt` refuse it before anything of it is written to B.
    fn copy_session(&self, dest: &SessionStore, sid: &str, open: &HashMap<String, (String, String)>, report: &mut CopyReport) -> Result<()> {
        let b = dest.read(|r, _| read_dest(r, sid))?;
        // The journal: B's events must be a prefix of A's.
        let (a_head, a_at_b_head, first_new, a_has_row) = self.read(|r, _| {
            let head = r.last_event_seq(sid)?;
            let at = if b.head > 0 { r.event_copies(sid, b.head, 1)?.pop() } else { None };
            let first = r.event_copies(sid, b.head + 1, u32::MAX)?;
            Ok((head, at, first, r.session_exists(sid)?))
        })?;
        if b.head > a_head {
            return Err(conflict(format!(
                "the destination's journal has {} event(s) for this session that the source does not (seqs {}..={}): it was written since the last copy",
                b.head - a_head,
                a_head + 1,
                b.head
            )));
        }
        if let (Some(be), true) = (&b.head_event, b.head > 0) {
            if !a_at_b_head.as_ref().is_some_and(|ae| same_event(ae, be)) {
                return Err(conflict(format!("journal event at seq {} differs between source and destination", b.head)));
            }
        }
        let deleted = first_new.iter().any(|e| e.event.kind == SESSION_DELETED);
        // Event ids name one event store-wide: one already in B elsewhere is a conflict.
        dest.read(|r, _| {
            for e in &first_new {
                if r.event(sid, &e.event.event_id)?.is_some() {
                    return Err(conflict(format!("event `{}` already exists in the destination in another session", e.event.event_id)));
                }
            }
            Ok(())
        })?;
        // The rows: B's must be a prefix of A's (unless the session was deleted since).
        let b_last_seq = if deleted { 0 } else { b.last_entry.as_ref().map_or(0, |e| e.seq) };
        if !deleted {
            self.read(|r, _| {
                if let Some(be) = &b.last_entry {
                    match r.entry_copies(sid, be.seq, 1)?.pop() {
                        Some(ae) if ae == *be => {}
                        Some(_) => return Err(conflict(format!("transcript entry {} differs between source and destination", be.seq))),
                        None => return Err(conflict(format!("the destination has transcript entries up to seq {} that the source does not", be.seq))),
                    }
                }
                let a_ext: Vec<_> = r.extensions(sid)?.into_iter().map(|e| (e.n, e.kind, e.body, e.created_at)).collect();
                if b.extensions.len() > a_ext.len() || a_ext[..b.extensions.len()] != b.extensions[..] {
                    return Err(conflict("the destination's context extensions are not a prefix of the source's".into()));
                }
                let a_tok = r.token_copies(sid)?;
                if b.tokens.len() > a_tok.len() || a_tok[..b.tokens.len()] != b.tokens[..] {
                    return Err(conflict("the destination's token rows are not a prefix of the source's".into()));
                }
                Ok(())
            })?;
            if b.row.is_some() && !a_has_row {
                return Err(conflict("the session exists in the destination but not in the source".into()));
            }
        }

        // Long sessions: earlier entries first, in their own transactions.
        let mut next_seq = b_last_seq + 1;
        let mut pending_delete = deleted;
        loop {
            let chunk = self.read(|r, _| r.entry_copies(sid, next_seq, COPY_CHUNK + 1))?;
            if chunk.len() <= COPY_CHUNK as usize {
                break;
            }
            let chunk = &chunk[..COPY_CHUNK as usize];
            dest.backend.write(|w| {
                if pending_delete {
                    delete_in(w, sid, report)?;
                }
                w.insert_entry_copies(sid, chunk)
            })?;
            if pending_delete {
                pending_delete = false;
                // The deletion is committed: B now holds nothing of the session.
            }
            report.entries += chunk.len() as u64;
            next_seq = chunk[chunk.len() - 1].seq + 1;
        }

        // The rest in one snapshot of A and one transaction of B.
        let b_ext_n = if deleted { 0 } else { b.extensions.last().map_or(0, |e| e.0) };
        let b_tok = if deleted { 0 } else { b.tokens.len() };
        let delta = self.read(|r, _| {
            Ok(SourceDelta {
                row: r.session_copy(sid)?,
                events: r.event_copies(sid, b.head + 1, u32::MAX)?,
                entries: r.entry_copies(sid, next_seq, u32::MAX)?,
                extensions: r.extensions(sid)?.into_iter().filter(|e| e.n > b_ext_n).map(|e| (e.n, e.kind, e.body, e.created_at)).collect(),
                tokens: r.token_copies(sid)?.into_iter().skip(b_tok).collect(),
                retracted: r.retracted_seqs(sid)?.into_iter().filter(|s| deleted || !b.retracted.contains(s)).collect(),
            })
        })?;
        if delta.events.iter().any(|e| e.event.kind == SESSION_DELETED) != deleted {
            return Err(conflict("the session was deleted in the source while it was being copied; run copy again".into()));
        }
        if let Some(row) = &delta.row {
            check_session_row(row)?;
        }
        for e in &delta.entries {
            bytes(&e.content, &|| format!("transcript:{sid}:{}:content", e.seq))?;
            if let Sealed::NotBytes(_) = e.meta {
                bytes(&e.meta, &|| format!("transcript:{sid}:{}:meta", e.seq))?;
            }
        }
        let mut added = CopyReport::default();
        dest.backend.write(|w| {
            let mut n = CopyReport::default();
            let mut b_row = b.row.clone();
            if pending_delete {
                delete_in(w, sid, &mut n)?;
            }
            if deleted {
                b_row = None;
            }
            w.insert_entry_copies(sid, &delta.entries)?;
            n.entries += delta.entries.len() as u64;
            for (num, kind, body, created_at) in &delta.extensions {
                w.insert_extension(sid, *num, kind, bytes(body, &|| format!("ctxext:{sid}:{num}"))?, *created_at)?;
            }
            n.extensions += delta.extensions.len() as u64;
            let tokens = delta
                .tokens
                .iter()
                .map(|t| {
                    let u = |v: i64| u64::try_from(v).map_err(|_| Error::corrupt(format!("record `tokens:{sid}`: negative count")));
                    Ok(NewTokenRow {
                        model: t.model.as_deref(),
                        provider: t.provider.as_deref(),
                        input: u(t.input)?,
                        output: u(t.output)?,
                        cached: u(t.cached)?,
                        created_at: t.created_at,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            w.insert_tokens(sid, &tokens)?;
            n.tokens += tokens.len() as u64;
            for seq in &delta.retracted {
                if w.retract_entry(sid, *seq)? {
                    n.retractions += 1;
                }
            }
            for e in &delta.events {
                let ev = &e.event;
                let payload = std::str::from_utf8(bytes(&ev.payload, &|| format!("journal:{}:payload", ev.event_id))?)
                    .map_err(|_| Error::corrupt(format!("record `journal:{}:payload` is not text", ev.event_id)))?;
                let (seq, _) = w.insert_event(&NewEventRow {
                    event_id: &ev.event_id,
                    session_id: sid,
                    kind: &ev.kind,
                    operation_id: &ev.operation_id,
                    payload,
                    envelope: &e.envelope,
                    created_at: &ev.created_at,
                })?;
                if seq != ev.seq {
                    return Err(conflict(format!("journal event `{}` is seq {} in the source but would be seq {seq} in the destination", ev.event_id, ev.seq)));
                }
                n.events += 1;
                if ev.kind == EFFECT_DISPATCH_COMMITTED {
                    if let Some((op_sid, owner)) = open.get(&ev.operation_id).filter(|(s, _)| s == sid) {
                        w.open_operation(&ev.operation_id, op_sid, owner, &ev.event_id)?;
                        n.open_operations += 1;
                    }
                } else if TERMINAL_KINDS.contains(&ev.kind.as_str()) && !ev.operation_id.is_empty() {
                    w.close_operation(&ev.operation_id)?;
                }
            }
            match (&delta.row, &b_row) {
                (Some(a), None) => {
                    w.put_session_copy(a)?;
                    n.sessions_created += 1;
                }
                (Some(a), Some(bb)) if a != bb => {
                    w.put_session_copy(a)?;
                    n.sessions_updated += 1;
                }
                _ => {}
            }
            added = n;
            Ok(())
        })?;
        report.sessions_created += added.sessions_created;
        report.sessions_updated += added.sessions_updated;
        report.sessions_deleted += added.sessions_deleted;
        report.entries += added.entries;
        report.extensions += added.extensions;
        report.tokens += added.tokens;
        report.retractions += added.retractions;
        report.events += added.events;
        report.open_operations += added.open_operations;
        Ok(())
    }

    /// Copy the import record identities of session `sid`
    /// (`import_records`, schema 5) that B lacks; the number added.
    fn copy_import_records(&self, dest: &SessionStore, sid: &str) -> Result<u64> {
        let mut ids = Vec::new();
        self.read(|r, _| {
            r.import_records(sid, &mut |id| {
                ids.push(id);
                Ok(())
            })
        })?;
        if ids.is_empty() {
            return Ok(0);
        }
        let mut have = BTreeSet::new();
        dest.read(|r, _| {
            r.import_records(sid, &mut |id| {
                have.insert(id);
                Ok(())
            })
        })?;
        ids.retain(|id| !have.contains(id));
        if !ids.is_empty() {
            dest.backend.write(|w| w.insert_import_records(sid, &ids))?;
        }
        Ok(ids.len() as u64)
    }

    /// Copy the import bookkeeping (`meta` keys `import-*`) that B lacks;
    /// the number of keys added.
    fn copy_import_meta(&self, dest: &SessionStore) -> Result<u64> {
        let mut rows: Vec<(String, Vec<u8>)> = Vec::new();
        self.read(|r, _| {
            r.scan_meta("import-", &mut |k, v| {
                if let Sealed::Bytes(b) = v {
                    rows.push((k.to_string(), b));
                }
                Ok(())
            })
        })?;
        let mut have: BTreeSet<String> = BTreeSet::new();
        dest.read(|r, _| {
            r.scan_meta("import-", &mut |k, _| {
                have.insert(k.to_string());
                Ok(())
            })
        })?;
        let missing: Vec<_> = rows.into_iter().filter(|(k, _)| !have.contains(k)).collect();
        if missing.is_empty() {
            return Ok(0);
        }
        dest.backend.write(|w| {
            for (k, v) in &missing {
                let v = std::str::from_utf8(v).map_err(|_| Error::corrupt(format!("meta `{k}` is not text")))?;
                w.put_meta(k, v, false)?;
            }
            Ok(())
        })?;
        Ok(missing.len() as u64)
    }
}

/// Delete B's rows of a session (it was deleted in A), counting it.
fn delete_in(w: &dyn WriteTx, sid: &str, report: &mut CopyReport) -> Result<()> {
    if w.delete_session(sid)?.is_some() {
        report.sessions_deleted += 1;
    }
    Ok(())
}
