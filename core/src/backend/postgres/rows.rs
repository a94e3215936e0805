//! Every row-level SQL statement of the PostgreSQL backend: [`ReadTx`] and
//! [`WriteTx`] over one `postgres` transaction.
//!
//! Columns are typed by the server, so a plaintext column never holds a
//! value of another type ([`SessionRow::damaged`] stays empty) and an
//! envelope column is `BYTEA` or `TEXT` (never [`Sealed::NotBytes`]).

use std::cell::{RefCell, RefMut};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use postgres::types::ToSql;
use postgres::{Row, Statement, Transaction};

use crate::backend::{JournalChange, 
    EntryCopyRow, EventCopyRow, SessionCopyRow, TokenCopyRow,
    EntryMetaRow, EntryRow, EntryStatRow, EventRow, ExtensionRow, NewEntryRow, NewEventRow, NewSessionRow, NewTokenRow, OpenOperationRow, ReadTx,
    RecordId, RowCounts, Sealed, SessionQuery, SessionRow, TokenRow, WriteTx,
};
use crate::error::{Error, Result};

mod write;

/// One transaction of the PostgreSQL backend; `write` is true in a write
/// transaction (which also takes the session row locks that allocate seqs).
/// Every statement is prepared once per connection (`stmts`, the
/// connection's cache) and then executed in one round trip.
///
/// Or, with no transaction (`tx` is `None`), a speculative append ([`Spec`]):
/// the append's reads are answered from what this handle knows of the
/// session ([`Hints`]) and its writes are kept, to be sent as one
/// `sessiondb_append` call that checks those answers under the session's
/// row lock (see `schema::V5`).
pub(super) struct PgTx<'a> {
    tx: RefCell<Option<Transaction<'a>>>,
    stmts: RefCell<&'a mut HashMap<String, Statement>>,
    write: bool,
    /// Sessions whose `sessions` row this write transaction has locked.
    locked: RefCell<HashSet<String>>,
    /// In a write transaction of a handle with a lease: whose epoch every
    /// journal insert checks (the fence, see [`super::owners`]).
    pub(super) owner: Option<Owner<'a>>,
    /// Whether a statement of this transaction checked the fence.
    fence_checked: std::cell::Cell<bool>,
    /// The speculative append, when `tx` is `None`.
    spec: RefCell<Spec>,
    /// Where this handle keeps what it knows of sessions it wrote; `Some`
    /// in a write whose closure may run again (an append), which then
    /// learns from its locked sessions.
    hints: Option<&'a Hints>,
    /// What this write saw of each session it locked.
    learned: RefCell<HashMap<String, Seen>>,
}

/// What a write saw of a session: `(updated_at, last seq)`, each once known.
type Seen = (Option<i64>, Option<u64>);

/// What a handle knows of sessions it appended to, by session id:
/// `(updated_at, last seq)` as its last append committed them. Only a
/// guess for the next append (another writer may have written since):
/// `sessiondb_append` checks it under the row lock.
pub(super) type Hints = Mutex<HashMap<String, (i64, u64)>>;

/// At most this many sessions are kept in [`Hints`] (then it starts over).
pub(super) const MAX_HINTS: usize = 4096;

/// A speculative append: the session whose [`Hints`] answered its reads,
/// those answers, and the rows it would write.
#[derive(Default)]
pub(super) struct Spec {
    /// The session, once its `updated_at` was asked.
    pub(super) sid: Option<String>,
    /// The answers given: `(updated_at, last seq)`.
    pub(super) seen: (i64, u64),
    /// The entries, as `sessiondb_append`'s column arrays.
    pub(super) entries: EntryColumns,
    /// `updated_at` to store, if the append moved it.
    pub(super) new_updated_at: Option<i64>,
    /// The journal row.
    pub(super) event: Option<OwnedEvent>,
    /// The closure did something a speculative append cannot answer or
    /// keep: nothing is sent, and it runs again in a transaction.
    pub(super) aborted: bool,
}

/// Entry rows as column arrays (one element per entry).
#[derive(Default)]
pub(super) struct EntryColumns {
    pub(super) seq: Vec<i64>,
    pub(super) role: Vec<String>,
    pub(super) format: Vec<String>,
    pub(super) created_at: Vec<i64>,
    pub(super) tokens: Vec<Option<i64>>,
    pub(super) source_line: Vec<Option<i64>>,
    pub(super) model: Vec<Option<String>>,
    pub(super) provider: Vec<Option<String>>,
    pub(super) content_bytes: Vec<i64>,
    pub(super) kind: Vec<String>,
    pub(super) call_keys: Vec<String>,
    pub(super) counted_tokens: Vec<Option<i64>>,
    pub(super) content: Vec<Vec<u8>>,
    pub(super) meta: Vec<Option<Vec<u8>>>,
}

/// A journal row kept by a speculative append.
pub(super) struct OwnedEvent {
    pub(super) event_id: String,
    pub(super) operation_id: String,
    pub(super) kind: String,
    pub(super) payload: String,
    pub(super) envelope: String,
    pub(super) created_at: String,
}

/// The handle that writes, for the fence check.
pub(super) struct Owner<'a> {
    pub(super) instance_id: &'a str,
    pub(super) epoch: i64,
    pub(super) fenced: &'a AtomicBool,
}

const SESSION_COLUMNS: &str = "s.session_id, s.name_enc, s.workspace_enc, s.model, s.provider, s.work_mode, s.created_at, s.updated_at,
     (SELECT COALESCE(MAX(t.seq), 0) FROM transcript_entries t WHERE t.session_id = s.session_id)
       - (SELECT COUNT(*) FROM retractions r WHERE r.session_id = s.session_id),
     s.forked_from, s.forked_at_seq";
const ENTRY_COLUMNS: &str = "seq, role, format, content_enc, created_at, tokens, source_line";
const ENTRY_META_COLUMNS: &str = "seq, role, format, content_enc, created_at, tokens, source_line, model, provider, meta_enc";
/// Leaves out retracted entries of `transcript_entries t`.
const NOT_RETRACTED: &str = "NOT EXISTS (SELECT 1 FROM retractions x WHERE x.session_id = t.session_id AND x.seq = t.seq)";
const EVENT_COLUMNS: &str = "event_id, session_id, seq, aggregate_version, operation_id, payload_kind, payload_json, created_at";

fn u(v: i64) -> u64 {
    v.max(0) as u64
}

fn ou(v: Option<i64>) -> Option<u64> {
    v.map(u)
}

fn i(v: u64) -> i64 {
    v.min(i64::MAX as u64) as i64
}

fn sealed(v: Option<Vec<u8>>) -> Sealed {
    v.map_or(Sealed::Absent, Sealed::Bytes)
}

fn sealed_text(v: Option<String>) -> Sealed {
    v.map_or(Sealed::Absent, |s| Sealed::Bytes(s.into_bytes()))
}

fn session_row(r: &Row) -> Result<SessionRow> {
    Ok(SessionRow {
        id: r.try_get(0)?,
        name: sealed(r.try_get(1)?),
        workspace: sealed(r.try_get(2)?),
        model: r.try_get(3)?,
        provider: r.try_get(4)?,
        work_mode: r.try_get(5)?,
        created_at: r.try_get(6)?,
        updated_at: r.try_get(7)?,
        entry_count: u(r.try_get(8)?),
        forked_from: r.try_get(9)?,
        forked_at_seq: ou(r.try_get(10)?),
        damaged: Vec::new(),
    })
}

fn entry_row(r: &Row, base: usize, with_meta: bool) -> Result<EntryRow> {
    let meta = if with_meta {
        Some(EntryMetaRow { model: r.try_get(base + 7)?, provider: r.try_get(base + 8)?, extra: sealed(r.try_get(base + 9)?) })
    } else {
        None
    };
    Ok(EntryRow {
        seq: u(r.try_get(base)?),
        role: crate::backend::known_name(r.try_get::<_, &str>(base + 1)?),
        format: crate::backend::known_name(r.try_get::<_, &str>(base + 2)?),
        content: sealed(r.try_get(base + 3)?),
        created_at: r.try_get(base + 4)?,
        tokens: ou(r.try_get(base + 5)?),
        source_line: ou(r.try_get(base + 6)?),
        meta,
    })
}

fn event_row(r: &Row) -> Result<EventRow> {
    Ok(EventRow {
        event_id: r.try_get(0)?,
        session_id: r.try_get(1)?,
        seq: u(r.try_get(2)?),
        aggregate_version: u(r.try_get(3)?),
        operation_id: r.try_get(4)?,
        kind: r.try_get(5)?,
        payload: sealed_text(r.try_get(6)?),
        created_at: r.try_get(7)?,
    })
}

impl<'a> PgTx<'a> {
    /// A transaction; `hints`: see [`PgTx::hints`].
    pub(super) fn new(tx: Transaction<'a>, stmts: &'a mut HashMap<String, Statement>, write: bool, hints: Option<&'a Hints>) -> PgTx<'a> {
        PgTx::with(Some(tx), stmts, write, hints)
    }

    /// A speculative append answered from `hints` (no transaction).
    pub(super) fn speculative(stmts: &'a mut HashMap<String, Statement>, hints: &'a Hints) -> PgTx<'a> {
        PgTx::with(None, stmts, true, Some(hints))
    }

    fn with(tx: Option<Transaction<'a>>, stmts: &'a mut HashMap<String, Statement>, write: bool, hints: Option<&'a Hints>) -> PgTx<'a> {
        PgTx {
            tx: RefCell::new(tx),
            stmts: RefCell::new(stmts),
            write,
            locked: RefCell::new(HashSet::new()),
            owner: None,
            fence_checked: std::cell::Cell::new(false),
            spec: RefCell::new(Spec::default()),
            hints,
            learned: RefCell::new(HashMap::new()),
        }
    }

    /// Commit the transaction (none in a speculative append: nothing to do).
    pub(super) fn commit(self) -> Result<()> {
        if let Some(tx) = self.tx.into_inner() {
            tx.commit()?;
        }
        Ok(())
    }

    /// The speculative append's state (after its closure ran).
    pub(super) fn into_spec(self) -> Spec {
        self.spec.into_inner()
    }

    /// What this write learned of the sessions it locked, for [`Hints`]:
    /// `(session, updated_at, last seq)` where both are known.
    pub(super) fn learned(&self) -> Vec<(String, i64, u64)> {
        self.learned.borrow().iter().filter_map(|(k, v)| Some((k.clone(), v.0?, v.1?))).collect()
    }
}

impl<'a> PgTx<'a> {
    /// The transaction. In a speculative append there is none: whatever
    /// needed one aborts the speculation (the closure runs again in a
    /// transaction) and gets an error meanwhile.
    fn t(&self) -> Result<RefMut<'_, Transaction<'a>>> {
        let tx = self.tx.borrow_mut();
        if tx.is_none() {
            return Err(self.abort());
        }
        Ok(RefMut::map(tx, |t| t.as_mut().expect("checked")))
    }

    /// Give up the speculative append (see [`Spec::aborted`]); the error the
    /// closure sees meanwhile (its outcome is discarded).
    fn abort(&self) -> Error {
        self.spec.borrow_mut().aborted = true;
        Error::Database("speculative append given up; it runs again in a transaction".into())
    }

    /// In a speculative append: the session it writes, when `id` is that one.
    fn spec_for(&self, id: &str) -> Option<Result<RefMut<'_, Spec>>> {
        if self.tx.borrow().is_some() {
            return None;
        }
        let spec = self.spec.borrow_mut();
        Some(if spec.sid.as_deref() == Some(id) && !spec.aborted { Ok(spec) } else { drop(spec); Err(self.abort()) })
    }

    /// In a write that learns ([`PgTx::hints`]): note what it saw of a locked session.
    fn learn(&self, id: &str, updated_at: Option<i64>, last: Option<u64>) {
        if self.hints.is_none() || !self.locked.borrow().contains(id) {
            return;
        }
        let mut l = self.learned.borrow_mut();
        let e = l.entry(id.to_string()).or_default();
        e.0 = updated_at.or(e.0);
        e.1 = last.or(e.1);
    }

    /// `sql` prepared on this connection (once; then from its cache).
    fn stmt(&self, sql: &str) -> Result<Statement> {
        if let Some(st) = self.stmts.borrow().get(sql) {
            if self.tx.borrow().is_none() {
                return Err(self.abort());
            }
            return Ok(st.clone());
        }
        let st = self.t()?.prepare(sql)?;
        self.stmts.borrow_mut().insert(sql.to_string(), st.clone());
        Ok(st)
    }

    fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>> {
        let st = self.stmt(sql)?;
        Ok(self.t()?.query(&st, params)?)
    }

    fn exec(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64> {
        let st = self.stmt(sql)?;
        Ok(self.t()?.execute(&st, params)?)
    }

    fn one(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Row> {
        let st = self.stmt(sql)?;
        Ok(self.t()?.query_one(&st, params)?)
    }

    /// In a write transaction: lock the session's row (`FOR UPDATE`, once
    /// per transaction), so transcript seqs and extension numbers are
    /// allocated by one writer at a time. Returns its `updated_at` when
    /// this call took the lock. No-op in a read transaction.
    fn lock_session(&self, session_id: &str) -> Result<Option<Option<i64>>> {
        if !self.write || self.locked.borrow().contains(session_id) {
            return Ok(None);
        }
        let rows = self.query("SELECT updated_at FROM sessions WHERE session_id = $1 FOR UPDATE", &[&session_id])?;
        let updated_at: Option<i64> = rows.first().map(|r| r.get(0));
        if updated_at.is_some() {
            self.locked.borrow_mut().insert(session_id.to_string());
            self.learn(session_id, updated_at, None);
        }
        Ok(Some(updated_at))
    }

    /// Before the commit of a write transaction in which no journal insert
    /// checked the fence: fail with the fence error if this handle's epoch
    /// is no longer the stored one (its lease was taken over). A plain
    /// read, not `FOR SHARE`: an owner frozen inside a transaction must not
    /// block the recovery pass that fences it. A write racing the fence
    /// cannot add a second terminal event either way: a terminal event's
    /// id is `<operation>.terminal`, and writers of one event id take turns
    /// ([`ReadTx::event`], [`ReadTx::open_operation_session`]).
    pub(super) fn check_fence_before_commit(&self) -> Result<()> {
        let Some(o) = &self.owner else { return Ok(()) };
        if self.fence_checked.get() {
            return Ok(());
        }
        let held = !self
            .query("SELECT 1 FROM owners WHERE session_id = '' AND instance_id = $1 AND epoch = $2", &[&o.instance_id, &o.epoch])?
            .is_empty();
        super::owners::fence_unless(held, o.fenced)
    }
}

impl ReadTx for PgTx<'_> {
    fn session(&self, id: &str) -> Result<Option<SessionRow>> {
        let rows = self.query(&format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.session_id = $1"), &[&id])?;
        rows.first().map(session_row).transpose()
    }

    fn sessions(&self, query: SessionQuery<'_>, limit: Option<u32>) -> Result<Vec<SessionRow>> {
        let limit: Option<i64> = limit.map(i64::from);
        let recent = "ORDER BY s.updated_at DESC, s.session_id DESC LIMIT $2";
        let (cond, arg, order) = match query {
            SessionQuery::All => ("$1::text IS NULL OR TRUE", None, recent),
            SessionQuery::Unbound => ("s.workspace_index IS NULL AND $1::text IS NULL", None, recent),
            SessionQuery::Index(x) => ("s.workspace_index = $1", Some(x), recent),
            SessionQuery::OtherThan(x) => ("s.workspace_index IS NOT NULL AND s.workspace_index <> $1", Some(x), recent),
            SessionQuery::IdPrefix(p) => ("starts_with(s.session_id, $1)", Some(p), "ORDER BY s.session_id LIMIT $2"),
            SessionQuery::Titled => ("s.name_enc IS NOT NULL AND $1::text IS NULL", None, recent),
        };
        let rows = self.query(&format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE {cond} {order}"), &[&arg, &limit])?;
        rows.iter().map(session_row).collect()
    }

    fn session_exists(&self, id: &str) -> Result<bool> {
        Ok(!self.query("SELECT 1 FROM sessions WHERE session_id = $1", &[&id])?.is_empty())
    }

    fn session_updated_at(&self, id: &str) -> Result<Option<i64>> {
        // A speculative append starts here: the session's hint answers, or
        // the closure runs again in a transaction.
        if self.tx.borrow().is_none() {
            let mut spec = self.spec.borrow_mut();
            if spec.sid.is_none() && !spec.aborted {
                if let Some(&seen) = self.hints.and_then(|h| super::lock(h).get(id).copied()).as_ref() {
                    spec.sid = Some(id.to_string());
                    spec.seen = seen;
                    return Ok(Some(seen.0));
                }
            }
            drop(spec);
            return Err(self.abort());
        }
        // In a write transaction this is the first read of an append: it
        // takes the session's row lock too (one round trip for both).
        if let Some(locked) = self.lock_session(id)? {
            return Ok(locked);
        }
        Ok(self.query("SELECT updated_at FROM sessions WHERE session_id = $1", &[&id])?.first().map(|r| r.get(0)))
    }

    fn entries(&self, session_id: &str, from_seq: u64, limit: u32, with_meta: bool) -> Result<Vec<EntryRow>> {
        let cols = if with_meta { ENTRY_META_COLUMNS } else { ENTRY_COLUMNS };
        let rows = self.query(
            &format!("SELECT {cols} FROM transcript_entries t WHERE session_id = $1 AND seq >= $2 AND {NOT_RETRACTED} ORDER BY seq LIMIT $3"),
            &[&session_id, &i(from_seq), &i64::from(limit)],
        )?;
        rows.iter().map(|r| entry_row(r, 0, with_meta)).collect()
    }

    fn entries_tail(&self, session_id: &str, limit: u32, with_meta: bool) -> Result<Vec<EntryRow>> {
        let cols = if with_meta { ENTRY_META_COLUMNS } else { ENTRY_COLUMNS };
        let rows = self.query(
            &format!("SELECT {cols} FROM transcript_entries t WHERE session_id = $1 AND {NOT_RETRACTED} ORDER BY seq DESC LIMIT $2"),
            &[&session_id, &i64::from(limit)],
        )?;
        let mut v: Vec<EntryRow> = rows.iter().map(|r| entry_row(r, 0, with_meta)).collect::<Result<_>>()?;
        v.reverse();
        Ok(v)
    }

    fn is_retracted(&self, session_id: &str, seq: u64) -> Result<bool> {
        Ok(!self.query("SELECT 1 FROM retractions WHERE session_id = $1 AND seq = $2", &[&session_id, &i(seq)])?.is_empty())
    }

    fn entry_stats(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<EntryStatRow>> {
        let rows = self.query(
            &format!("SELECT seq, role, format, tokens, content_bytes, kind, call_keys, counted_tokens FROM transcript_entries t
             WHERE session_id = $1 AND seq >= $2 AND {NOT_RETRACTED} ORDER BY seq LIMIT $3"),
            &[&session_id, &i(from_seq), &i64::from(limit)],
        )?;
        rows.iter()
            .map(|r| {
                Ok(EntryStatRow {
                    seq: u(r.try_get(0)?),
                    role: r.try_get(1)?,
                    format: r.try_get(2)?,
                    tokens: ou(r.try_get(3)?),
                    content_bytes: ou(r.try_get(4)?),
                    kind: r.try_get(5)?,
                    call_keys: r.try_get(6)?,
                    counted_tokens: ou(r.try_get(7)?),
                })
            })
            .collect()
    }

    fn last_entry_seq(&self, session_id: &str) -> Result<u64> {
        if let Some(spec) = self.spec_for(session_id) {
            let spec = spec?;
            return Ok(spec.seen.1 + spec.entries.seq.len() as u64);
        }
        self.lock_session(session_id)?;
        let last = u(self.one("SELECT COALESCE(MAX(seq), 0) FROM transcript_entries WHERE session_id = $1", &[&session_id])?.get(0));
        self.learn(session_id, None, Some(last));
        Ok(last)
    }

    fn event(&self, session_id: &str, event_id: &str) -> Result<Option<EventRow>> {
        // In a write transaction, writers of one event id take turns (a
        // transaction advisory lock on its hash, in the two-key space that
        // the one-key locks of `schema` do not share): the second one's
        // lookup, a new statement, sees the first one's committed event.
        if self.write {
            self.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", &[&super::schema::EVENT_ID_LOCK_SPACE, &event_id])?;
        }
        // The row of this session first; else one of another session, so the
        // store's rule (an event id names one event store-wide) holds here too.
        let rows = self.query(
            &format!("SELECT {EVENT_COLUMNS} FROM journal WHERE event_id = $2 ORDER BY (session_id = $1) DESC LIMIT 1"),
            &[&session_id, &event_id],
        )?;
        rows.first().map(event_row).transpose()
    }

    fn events(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<EventRow>> {
        let rows = self.query(
            &format!("SELECT {EVENT_COLUMNS} FROM journal WHERE session_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3"),
            &[&session_id, &i(from_seq), &i64::from(limit)],
        )?;
        rows.iter().map(event_row).collect()
    }

    fn operation_has_event(&self, operation_id: &str, kinds: &[&str]) -> Result<bool> {
        let kinds: Vec<&str> = kinds.to_vec();
        Ok(!self
            .query("SELECT 1 FROM journal WHERE operation_id = $1 AND payload_kind = ANY($2) LIMIT 1", &[&operation_id, &kinds])?
            .is_empty())
    }

    fn open_operation_session(&self, operation_id: &str) -> Result<Option<String>> {
        // In a write transaction: take the lock of the operation's terminal
        // event id (`<operation>.terminal`, see `ReadTx::event`) first, so a
        // recovery pass and the owner completing it, or two recovery
        // passes, take turns in one lock order, and the later one sees the
        // operation closed instead of racing for its terminal event.
        if self.write {
            let terminal = format!("{operation_id}.terminal");
            self.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", &[&super::schema::EVENT_ID_LOCK_SPACE, &terminal])?;
        }
        Ok(self.query("SELECT session_id FROM open_operations WHERE operation_id = $1 LIMIT 1", &[&operation_id])?.first().map(|r| r.get(0)))
    }

    fn open_operations(&self) -> Result<Vec<OpenOperationRow>> {
        let rows = self.query("SELECT session_id, operation_id, owner FROM open_operations ORDER BY operation_id", &[])?;
        Ok(rows.iter().map(|r| OpenOperationRow { session_id: r.get(0), operation_id: r.get(1), owner: r.get(2) }).collect())
    }

    fn token_rows(&self, session_id: &str) -> Result<Vec<TokenRow>> {
        let rows = self.query("SELECT input, output, cached, id FROM token_ledger WHERE session_id = $1 ORDER BY id", &[&session_id])?;
        Ok(rows.iter().map(|r| TokenRow { input: r.get(0), output: r.get(1), cached: r.get(2), row_id: r.get(3) }).collect())
    }

    fn extensions(&self, session_id: &str) -> Result<Vec<ExtensionRow>> {
        let rows = self.query("SELECT n, kind, body_enc, created_at FROM context_extensions WHERE session_id = $1 ORDER BY n", &[&session_id])?;
        rows.iter()
            .map(|r| Ok(ExtensionRow { n: u(r.try_get(0)?), kind: r.try_get(1)?, body: sealed(r.try_get(2)?), created_at: r.try_get(3)? }))
            .collect()
    }

    fn meta(&self, key: &str) -> Result<Sealed> {
        let rows = self.query("SELECT value FROM meta WHERE session_id = '' AND key = $1", &[&key])?;
        Ok(sealed_text(rows.first().map(|r| r.get(0))))
    }

    fn counts(&self) -> Result<RowCounts> {
        let r = self.one(
            "SELECT (SELECT COUNT(*) FROM sessions), (SELECT COUNT(*) FROM transcript_entries),
                    (SELECT COUNT(*) FROM journal), (SELECT COUNT(*) FROM open_operations)",
            &[],
        )?;
        Ok(RowCounts {
            sessions: u(r.get(0)),
            transcript_entries: u(r.get(1)),
            journal_events: u(r.get(2)),
            open_operations: u(r.get(3)),
        })
    }

    fn schema_version(&self) -> Result<u32> {
        Ok(super::schema::current_version(&mut *self.t()?)?.max(0) as u32)
    }

    fn scan_sessions(&self, f: &mut dyn FnMut(&str, Result<SessionRow>) -> Result<()>) -> Result<()> {
        for r in self.query(&format!("SELECT {SESSION_COLUMNS} FROM sessions s ORDER BY s.session_id"), &[])? {
            let id: String = r.get(0);
            f(&id, session_row(&r))?;
        }
        Ok(())
    }

    fn scan_entries(&self, f: &mut dyn FnMut(&str, u64, Result<EntryRow>) -> Result<()>) -> Result<()> {
        for r in self.query(&format!("SELECT session_id, {ENTRY_META_COLUMNS} FROM transcript_entries ORDER BY session_id, seq"), &[])? {
            let sid: String = r.get(0);
            let seq = u(r.get(1));
            f(&sid, seq, entry_row(&r, 1, true))?;
        }
        Ok(())
    }

    fn scan_extensions(&self, f: &mut dyn FnMut(&str, u64, Result<ExtensionRow>) -> Result<()>) -> Result<()> {
        for r in self.query("SELECT session_id, n, kind, body_enc, created_at FROM context_extensions ORDER BY session_id, n", &[])? {
            let sid: String = r.get(0);
            let n = u(r.get(1));
            let row = (|| Ok(ExtensionRow { n, kind: r.try_get(2)?, body: sealed(r.try_get(3)?), created_at: r.try_get(4)? }))();
            f(&sid, n, row)?;
        }
        Ok(())
    }

    fn scan_tokens(&self, f: &mut dyn FnMut(&str, i64, Result<TokenRow>) -> Result<()>) -> Result<()> {
        for r in self.query("SELECT session_id, id, input, output, cached FROM token_ledger ORDER BY id", &[])? {
            let sid: String = r.get(0);
            let row_id: i64 = r.get(1);
            f(&sid, row_id, Ok(TokenRow { row_id, input: r.get(2), output: r.get(3), cached: r.get(4) }))?;
        }
        Ok(())
    }

    fn scan_event_payloads(&self, f: &mut dyn FnMut(&str, Sealed) -> Result<()>) -> Result<()> {
        for r in self.query("SELECT event_id, payload_json FROM journal ORDER BY aggregate_version", &[])? {
            let id: String = r.get(0);
            f(&id, sealed_text(r.get(1)))?;
        }
        Ok(())
    }

    fn scan_meta(&self, prefix: &str, f: &mut dyn FnMut(&str, Sealed) -> Result<()>) -> Result<()> {
        for r in self.query("SELECT key, value FROM meta WHERE session_id = '' AND starts_with(key, $1) ORDER BY key", &[&prefix])? {
            let key: String = r.get(0);
            f(&key, sealed_text(r.get(1)))?;
        }
        Ok(())
    }

    fn import_records(&self, session_id: &str, f: &mut dyn FnMut(RecordId) -> Result<()>) -> Result<()> {
        for r in self.query("SELECT record_id FROM import_records WHERE session_id = $1 ORDER BY record_id", &[&session_id])? {
            let b: Vec<u8> = r.get(0);
            f(RecordId::try_from(b.as_slice())
                .map_err(|_| Error::corrupt(format!("an import record of session `{session_id}` is not 16 bytes")))?)?;
        }
        Ok(())
    }

    fn copy_session_ids(&self) -> Result<Vec<String>> {
        let rows = self.query("SELECT session_id FROM sessions UNION SELECT session_id FROM journal ORDER BY 1", &[])?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn session_copy(&self, id: &str) -> Result<Option<SessionCopyRow>> {
        let rows = self.query(
            "SELECT session_id, name_enc, workspace_enc, workspace_index, model, provider, work_mode, created_at, updated_at, forked_from, forked_at_seq
             FROM sessions WHERE session_id = $1",
            &[&id],
        )?;
        rows.first()
            .map(|r| {
                Ok(SessionCopyRow {
                    id: r.try_get(0)?,
                    name: sealed(r.try_get(1)?),
                    workspace: sealed(r.try_get(2)?),
                    workspace_index: r.try_get(3)?,
                    model: r.try_get(4)?,
                    provider: r.try_get(5)?,
                    work_mode: r.try_get(6)?,
                    created_at: r.try_get(7)?,
                    updated_at: r.try_get(8)?,
                    forked_from: r.try_get(9)?,
                    forked_at_seq: ou(r.try_get(10)?),
                })
            })
            .transpose()
    }

    fn entry_copies(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<EntryCopyRow>> {
        let rows = self.query(
            "SELECT seq, role, format, created_at, tokens, source_line, model, provider, content_bytes, kind, call_keys, content_enc, meta_enc, counted_tokens
             FROM transcript_entries WHERE session_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3",
            &[&session_id, &i(from_seq), &i64::from(limit)],
        )?;
        rows.iter()
            .map(|r| {
                Ok(EntryCopyRow {
                    seq: u(r.try_get(0)?),
                    role: r.try_get(1)?,
                    format: r.try_get(2)?,
                    created_at: r.try_get(3)?,
                    tokens: ou(r.try_get(4)?),
                    source_line: ou(r.try_get(5)?),
                    model: r.try_get(6)?,
                    provider: r.try_get(7)?,
                    content_bytes: ou(r.try_get(8)?),
                    kind: r.try_get(9)?,
                    call_keys: r.try_get(10)?,
                    content: sealed(r.try_get(11)?),
                    meta: sealed(r.try_get(12)?),
                    counted_tokens: ou(r.try_get(13)?),
                })
            })
            .collect()
    }

    fn retracted_seqs(&self, session_id: &str) -> Result<Vec<u64>> {
        let rows = self.query("SELECT seq FROM retractions WHERE session_id = $1 ORDER BY seq", &[&session_id])?;
        Ok(rows.iter().map(|r| u(r.get(0))).collect())
    }

    fn token_copies(&self, session_id: &str) -> Result<Vec<TokenCopyRow>> {
        let rows = self.query(
            "SELECT model, provider, input, output, cached, created_at FROM token_ledger WHERE session_id = $1 ORDER BY id",
            &[&session_id],
        )?;
        rows.iter()
            .map(|r| {
                Ok(TokenCopyRow {
                    model: r.try_get(0)?,
                    provider: r.try_get(1)?,
                    input: r.try_get(2)?,
                    output: r.try_get(3)?,
                    cached: r.try_get(4)?,
                    created_at: r.try_get(5)?,
                })
            })
            .collect()
    }

    fn event_copies(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<EventCopyRow>> {
        let rows = self.query(
            &format!("SELECT {EVENT_COLUMNS}, envelope_json FROM journal WHERE session_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3"),
            &[&session_id, &i(from_seq), &i64::from(limit)],
        )?;
        rows.iter().map(|r| Ok(EventCopyRow { event: event_row(r)?, envelope: r.try_get(8)? })).collect()
    }

    fn last_event_seq(&self, session_id: &str) -> Result<u64> {
        Ok(u(self.one("SELECT COALESCE(MAX(seq), 0) FROM journal WHERE session_id = $1", &[&session_id])?.get(0)))
    }

    fn journal_changes(&self, after: u64, limit: u32) -> Result<Vec<JournalChange>> {
        let rows = self.query(
            "SELECT aggregate_version, session_id, payload_kind FROM journal WHERE aggregate_version > $1 ORDER BY aggregate_version LIMIT $2",
            &[&(after.min(i64::MAX as u64) as i64), &(limit as i64)],
        )?;
        Ok(rows.iter().map(|r| JournalChange { position: u(r.get(0)), session_id: r.get(1), kind: r.get(2) }).collect())
    }

    fn journal_position(&self) -> Result<u64> {
        Ok(u(self.one("SELECT COALESCE(MAX(aggregate_version), 0) FROM journal", &[])?.get(0)))
    }

    fn journal_reorder_window(&self) -> u64 {
        // aggregate_version comes from a sequence: concurrent transactions
        // may commit out of order.
        256
    }
}
