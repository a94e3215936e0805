//! Group commit of concurrent appends (see [`append_grouped`]): the queue
//! of host appends waiting for a commit, the leader that writes a group in
//! one transaction, and the fallback that isolates a failing append
//! (moved out of `transcript.rs` as is, with the host append calls that
//! go through it).

use std::sync::{Arc, Condvar, Mutex};

use super::append_order::TurnOrder;
use super::transcript::append_in_tx;
use super::{lock, EntryMeta, NewEntry, Role, SessionStore, TranscriptEntry};
use crate::error::{Error, Result};

impl SessionStore {
    /// Append one entry; returns it with its seq.
    ///
    /// The seq is gapless per session. Errors: `NotFound` (session), `Busy`.
    pub fn append_transcript(&self, session_id: &str, role: Role, content: String) -> Result<TranscriptEntry> {
        let mut v = self.append_entries(session_id, vec![NewEntry::text(role, content)])?;
        Ok(v.pop().expect("one entry in, one out"))
    }

    /// Append several entries in one transaction (all or none), with one
    /// `TranscriptAppended` journal event. Errors: as `append_transcript`.
    ///
    /// Appends made at the same time from several threads (a host's thread
    /// pool, a Node addon's libuv workers) share one commit (group commit,
    /// README "Group commit"). Each still gets its own seqs, journal event
    /// and all-or-none outcome, and returns only once it is committed.
    pub fn append_entries(&self, session_id: &str, entries: Vec<NewEntry>) -> Result<Vec<TranscriptEntry>> {
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        append_grouped(self, session_id, entries, None, None)
    }

    /// [`Self::append_entries`] with per-entry metadata (model, provider,
    /// source fields; see [`EntryMeta`]), one per entry. Returns the entries
    /// as `append_entries` does.
    /// Errors: as `append_entries`; `InvalidInput` for a model or provider
    /// name over 256 bytes or with control characters.
    pub fn append_entries_with_meta(&self, session_id: &str, entries: Vec<(NewEntry, EntryMeta)>) -> Result<Vec<TranscriptEntry>> {
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        let (entries, metas): (Vec<NewEntry>, Vec<EntryMeta>) = entries.into_iter().unzip();
        append_grouped(self, session_id, entries, Some(metas), None)
    }

    /// Append entries in one transaction (all or none); returns them with
    /// their seqs, which are gapless. With an `idempotency_key` (1..=128
    /// characters without whitespace, control characters or `:`; it becomes
    /// the append's journal event id), a retry of a call that timed out or
    /// was cancelled stores the entries once and returns what the first call
    /// stored; the key used for other entries or another event is `Conflict`.
    ///
    /// [`Self::append_entries`] under an idempotency key (issue 29 item 2;
    /// `None` is `append_entries`); a retry returns the same seqs and times.
    /// Errors: as `append_entries`; `InvalidInput` also for a key that is
    /// not NFC or ends in `.dispatch`/`.terminal`; `Conflict` also for a key
    /// used in another session (nothing is written).
    pub fn append_entries_keyed(&self, session_id: &str, entries: Vec<NewEntry>, idempotency_key: Option<&str>) -> Result<Vec<TranscriptEntry>> {
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        append_grouped(self, session_id, entries, None, idempotency_key)
    }

    /// [`Self::append_entries_with_meta`] under an idempotency key, as
    /// [`Self::append_entries_keyed`] (the metadata is part of what must
    /// match). Errors: those of both.
    pub fn append_entries_with_meta_keyed(
        &self,
        session_id: &str,
        entries: Vec<(NewEntry, EntryMeta)>,
        idempotency_key: Option<&str>,
    ) -> Result<Vec<TranscriptEntry>> {
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        let (entries, metas): (Vec<NewEntry>, Vec<EntryMeta>) = entries.into_iter().unzip();
        append_grouped(self, session_id, entries, Some(metas), idempotency_key)
    }
}

/// One host append waiting for its commit.
pub(crate) struct PendingAppend {
    session_id: String,
    entries: Vec<NewEntry>,
    metas: Option<Vec<EntryMeta>>,
    /// Each entry's token count as stored (`counts`), or empty.
    counted: Vec<Option<u64>>,
    /// The caller's idempotency key (the journal event's id), if any.
    idempotency_key: Option<String>,
    /// Set by whichever thread committed it.
    done: Option<Result<Vec<TranscriptEntry>>>,
}

/// The store's group-commit state: appends waiting to be written, and
/// whether a thread is writing a group now.
#[derive(Default)]
pub(crate) struct AppendGroup {
    pub(super) state: Mutex<GroupState>,
    written: Condvar,
    /// The order appends under an [`AppendTurn`] join `state.queue` in.
    pub(super) order: Arc<TurnOrder>,
}

#[derive(Default)]
pub(super) struct GroupState {
    pub(super) queue: Vec<Arc<Mutex<PendingAppend>>>,
    pub(super) leading: bool,
}

/// Group commit of concurrent appends.
///
/// An append joins the store's queue. If no thread is writing a group, it
/// becomes the leader: it takes every append queued so far and commits them
/// in one `BEGIN IMMEDIATE` transaction (one failing append, e.g. to a
/// deleted session, fails alone: see [`write_group`]); then it wakes the
/// waiters. Otherwise it waits: the next
/// leader takes it, or it becomes the next leader. An append is acknowledged
/// only after the commit that holds it, and each keeps its own seqs and
/// `TranscriptAppended` event, so durability and the journal are as with one
/// commit per append, while a commit of k appends writes the B-tree pages
/// they share once instead of k times. A lone thread never waits: its group
/// is its own append.
fn append_grouped(
    store: &SessionStore,
    session_id: &str,
    mut entries: Vec<NewEntry>,
    mut metas: Option<Vec<EntryMeta>>,
    idempotency_key: Option<&str>,
) -> Result<Vec<TranscriptEntry>> {
    // A forked child must not touch the group state: a parent thread may have
    // been leading a group (or holding its lock) at the fork.
    if std::process::id() != store.pid {
        return Err(Error::Closed);
    }
    // Redaction on write (issue 30 item 2) happens here, before any sealing,
    // outside the group's lock.
    if store.redact_policy() == crate::privacy::RedactPolicy::OnWrite {
        for (i, e) in entries.iter_mut().enumerate() {
            store.redact_on_write(e, metas.as_mut().map(|m| &mut m[i]));
        }
    }
    // Token counts (issue 33 item 7), in the caller's thread: concurrent
    // appenders count in parallel, outside the group's lock.
    let counted = store.counts_for_storage(session_id, &entries);
    let me = Arc::new(Mutex::new(PendingAppend {
        session_id: session_id.to_owned(),
        entries,
        metas,
        counted,
        idempotency_key: idempotency_key.map(str::to_owned),
        done: None,
    }));
    let g = &store.appends;
    // Under a turn (a host's append issued in order, run on a pool), join
    // the queue only after the earlier turns' appends; then let the next
    // turn go at once, before this append's commit.
    let turn = super::append_order::my_turn(&g.order);
    let mut st = lock(&g.state);
    st.queue.push(Arc::clone(&me));
    drop(turn);
    loop {
        if let Some(r) = lock(&me).done.take() {
            return r;
        }
        if !st.leading {
            st.leading = true;
            let group = std::mem::take(&mut st.queue);
            drop(st);
            // A panic while writing must not leave `leading` set (every later
            // append would wait forever) nor the group's appends unanswered.
            let wrote = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| write_group(store, &group)));
            if wrote.is_err() {
                for req in &group {
                    let mut p = lock(req);
                    if p.done.is_none() {
                        p.done = Some(Err(Error::Database("internal panic while writing this append (please report it); it was not stored".into())));
                    }
                }
            }
            st = lock(&g.state);
            st.leading = false;
            g.written.notify_all();
            if let Err(panic) = wrote {
                drop(st);
                std::panic::resume_unwind(panic);
            }
            continue;
        }
        st = g.written.wait(st).unwrap_or_else(|p| p.into_inner());
    }
}

/// [`SessionStore::close`] under a turn of `store`: wait for the turn (every
/// earlier turn's append is queued), then until no append is queued or
/// being written. Returns the turn, which the caller drops once closed, so
/// later turns' appends find the handle closed. `None`, at once, without a
/// turn of this store (or in a forked child, which must not touch the
/// group state).
pub(super) fn drain_in_turn(store: &SessionStore) -> Option<super::AppendTurn> {
    if std::process::id() != store.pid {
        return None;
    }
    let g = &store.appends;
    let turn = super::append_order::my_turn(&g.order)?;
    let mut st = lock(&g.state);
    // A queued append leads as soon as no one is writing (an append that
    // queues while a group is written waits for the `written` signal that
    // ends it), so this loop ends when the last group is written.
    while st.leading || !st.queue.is_empty() {
        st = g.written.wait(st).unwrap_or_else(|p| p.into_inner());
    }
    Some(turn)
}

/// Commit `group` in one transaction and give each append its outcome. If
/// any append of a group of several fails (a deleted session...), nothing of
/// that transaction is kept and each append is written again in its own
/// transaction, so only the failing one fails. (Savepoints would isolate
/// them in one pass, but SQLite then copies every page an append touches
/// into its statement journal: measured, that cost what grouping saved.)
fn write_group(store: &SessionStore, group: &[Arc<Mutex<PendingAppend>>]) {
    #[cfg(test)]
    lock(&store.group_sizes).push(group.len());
    match commit_appends(store, group) {
        Ok(results) if group.len() == 1 || results.iter().all(|r| r.is_ok()) => {
            for (req, r) in group.iter().zip(results) {
                lock(req).done = Some(r);
            }
        }
        Ok(_) => {
            for req in group {
                let r = commit_appends(store, std::slice::from_ref(req)).and_then(|mut v| v.pop().expect("one result per append"));
                lock(req).done = Some(r);
            }
        }
        Err(e) => {
            for req in group {
                lock(req).done = Some(Err(copy_error(&e)));
            }
        }
    }
}

/// Append every request of `group` in one transaction, committed only when
/// all succeed (the results stop at the first failure). `Err` when the
/// transaction itself failed (begin, commit, closed store): nothing written.
fn commit_appends(store: &SessionStore, group: &[Arc<Mutex<PendingAppend>>]) -> Result<Vec<Result<Vec<TranscriptEntry>>>> {
    let mut results = Vec::with_capacity(group.len());
    let body = |t: &super::Tx<'_>, results: &mut Vec<Result<Vec<TranscriptEntry>>>| {
        for req in group {
            let p = lock(req);
            let r = append_in_tx(t, &p.session_id, &p.entries, p.metas.as_deref(), &p.counted, p.idempotency_key.as_deref());
            let failed = r.is_err();
            results.push(r);
            if failed {
                // An error from the closure rolls all of it back.
                return Err(Error::conflict("an append of this group failed; the group was rolled back"));
            }
        }
        Ok(())
    };
    // A lone append may run twice (a server first tries it as one
    // statement, see `Backend::write_retryable_dyn`): each run starts with
    // no results. A group is one transaction.
    let written = if group.len() == 1 {
        store.write_retryable(|t| {
            results.clear();
            body(t, &mut results)
        })
    } else {
        store.write(|t| body(t, &mut results))
    };
    match written {
        Ok(()) => Ok(results),
        // One append failed: every result so far, the failing one last.
        Err(_) if results.last().is_some_and(|r| r.is_err()) => Ok(results),
        Err(e) => Err(e),
    }
}

/// The failure of a group's commit, for each append of it: `Busy` stays
/// `Busy`, `Closed` stays `Closed` (the host may retry or reopen), `Io`
/// stays `Io` (a full disk says so), `Conflict` stays `Conflict` (a
/// server handle whose owner lease was taken over: fenced, nothing written);
/// anything else is a database error naming the original.
fn copy_error(e: &Error) -> Error {
    match e {
        Error::Busy { timeout_ms, waited_ms } => Error::Busy { timeout_ms: *timeout_ms, waited_ms: *waited_ms },
        Error::Closed => Error::Closed,
        Error::Conflict { reason } => Error::Conflict { reason: reason.clone() },
        // A full disk (or another OS failure) stays `Io` with its errno.
        Error::Io { step, source } => Error::Io {
            step,
            source: match source.raw_os_error() {
                Some(code) => std::io::Error::from_raw_os_error(code),
                None => std::io::Error::new(source.kind(), source.to_string()),
            },
        },
        other => Error::Database(format!("the commit of this append failed: {other}")),
    }
}
