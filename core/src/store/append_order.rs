//! Appends land in the order they were issued, when they are issued on one
//! thread and run on several ([`AppendTurn`]).
//!
//! A host that runs each call on a thread pool (Node's `appendTranscript`
//! runs on the libuv pool's four threads) issues appends in one order and
//! runs them in another: two pool threads race into the group-commit queue,
//! and 10,000 appends issued without awaiting each other stored 425 to
//! 2,967 of them out of call order (node/bench/bench.mjs, issue 33 item 2;
//! issue 29 item 2: "calls issued in order by one task land in that
//! order"). A turn is a ticket taken where the call is issued, in call
//! order; the append that runs under it joins the queue only when every
//! earlier ticket has joined it or been given up. It waits for the earlier
//! appends to be *queued*, not committed, so appends in flight still share
//! group commits.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::{Arc, Condvar, Mutex};

use super::{lock, SessionStore};

/// The tickets of one store: the next to join the append queue, and those
/// given up (dropped without appending) before their turn came.
#[derive(Default)]
pub(crate) struct TurnOrder {
    state: Mutex<Tickets>,
    turn_came: Condvar,
}

#[derive(Default)]
struct Tickets {
    /// The next ticket [`SessionStore::append_turn`] hands out.
    issued: u64,
    /// The ticket whose append may join the queue now.
    next: u64,
    /// Tickets after `next` already given up.
    given_up: BTreeSet<u64>,
}

impl TurnOrder {
    fn take(self: &Arc<Self>) -> AppendTurn {
        let mut t = lock(&self.state);
        let ticket = t.issued;
        t.issued += 1;
        AppendTurn { order: Arc::clone(self), ticket }
    }

    /// Block until `ticket`'s turn.
    fn wait_for(&self, ticket: u64) {
        let mut t = lock(&self.state);
        while t.next != ticket {
            t = self.turn_came.wait(t).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// `ticket` is queued or given up: the next one not given up may go.
    fn done(&self, ticket: u64) {
        let mut t = lock(&self.state);
        if t.next != ticket {
            t.given_up.insert(ticket);
            return;
        }
        t.next += 1;
        loop {
            let next = t.next;
            if !t.given_up.remove(&next) {
                break;
            }
            t.next += 1;
        }
        drop(t);
        self.turn_came.notify_all();
    }
}

/// A place in a store's append order, taken where a call is issued
/// ([`SessionStore::append_turn`]) and used where it runs
/// ([`AppendTurn::run`]), on any thread.
///
/// The first group-committed append (`append_transcript`, `append_entries`
/// and their `_with_meta` / `_keyed` forms) made by the store inside `run`
/// joins the store's commit queue after the appends of every earlier turn
/// and before those of every later one, so it gets its seqs and its journal
/// event in turn order. [`SessionStore::hold_turn`] inside `run` (before a
/// write other than an append: a retraction, a rename, a journal event...)
/// and [`SessionStore::close`] wait for the turn and for the earlier
/// appends' commit, and hold later turns until the write is done (the
/// handle closed). A turn whose `run` makes no such call, or which
/// is dropped unrun (a host task cancelled before it started), gives its
/// place up when it ends. Turns must be run in an order that lets every
/// earlier one reach its append: a FIFO pool (libuv's) does, a pool that
/// could run a later turn while an earlier one waits for a free thread
/// forever does not.
#[must_use = "a turn holds up every later turn's append until it is run or dropped"]
pub struct AppendTurn {
    order: Arc<TurnOrder>,
    ticket: u64,
}

thread_local! {
    /// The turn [`AppendTurn::run`] made current on this thread.
    static CURRENT: RefCell<Option<AppendTurn>> = const { RefCell::new(None) };
}

impl AppendTurn {
    /// Run `f` with this turn current on this thread: the first
    /// group-committed append of the turn's store inside `f` uses it. The
    /// turn ends when that append has joined the queue, or when `f`
    /// returns or unwinds.
    pub fn run<R>(self, f: impl FnOnce() -> R) -> R {
        struct Restore(Option<AppendTurn>);
        impl Drop for Restore {
            fn drop(&mut self) {
                // Dropping the turn left unused gives its place up.
                let _unused = CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), self.0.take()));
            }
        }
        let outer = CURRENT.with(|c| c.borrow_mut().replace(self));
        let _restore = Restore(outer);
        f()
    }
}

impl std::fmt::Debug for AppendTurn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppendTurn").field("ticket", &self.ticket).finish_non_exhaustive()
    }
}

impl Drop for AppendTurn {
    fn drop(&mut self) {
        self.order.done(self.ticket);
    }
}

impl SessionStore {
    /// A place in this store's append order, after every turn taken before
    /// (see [`AppendTurn`]): a host that issues calls on one thread and
    /// runs them on a pool takes one per append as it is issued, so appends
    /// issued without awaiting each other land in call order. Cheap (a
    /// counter under a lock); no error.
    pub fn append_turn(&self) -> AppendTurn {
        self.appends.order.take()
    }

    /// Under an [`AppendTurn`] of this store (inside [`AppendTurn::run`]):
    /// wait for the turn and for every earlier turn's append to commit, and
    /// return the turn, which holds later turns until it is dropped; so a
    /// host's write other than an append (a retraction, a rename, a journal
    /// event...) sees every append issued before it and none issued after.
    /// `None` at once without a turn of this store. No error.
    pub fn hold_turn(&self) -> Option<AppendTurn> {
        super::group_commit::drain_in_turn(self)
    }
}

/// The current turn of this thread if it belongs to `order`, waited for:
/// it is this append's turn when this returns. Dropping the result lets the
/// next turn go, so drop it once the append is queued.
pub(super) fn my_turn(order: &Arc<TurnOrder>) -> Option<AppendTurn> {
    let turn = CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        match &*c {
            Some(t) if Arc::ptr_eq(&t.order, order) => c.take(),
            _ => None,
        }
    })?;
    turn.order.wait_for(turn.ticket);
    Some(turn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    fn order() -> Arc<TurnOrder> {
        Arc::new(TurnOrder::default())
    }

    #[test]
    fn turns_pass_in_ticket_order_and_given_up_ones_are_skipped() {
        let o = order();
        let turns: Vec<AppendTurn> = (0..5).map(|_| o.take()).collect();
        assert_eq!(turns.iter().map(|t| t.ticket).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
        let mut it = turns.into_iter();
        let (t0, t1, t2, t3, t4) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
        // 2 and 3 are given up before 0 and 1 are done: the turn stays at 0.
        drop(t2);
        drop(t3);
        assert_eq!(lock(&o.state).next, 0);
        assert_eq!(lock(&o.state).given_up.iter().copied().collect::<Vec<_>>(), [2, 3]);
        drop(t0);
        assert_eq!(lock(&o.state).next, 1);
        // 1 done: 2 and 3 were given up, so 4 is next.
        drop(t1);
        assert_eq!(lock(&o.state).next, 4);
        assert!(lock(&o.state).given_up.is_empty());
        drop(t4);
        assert_eq!(lock(&o.state).next, 5);
    }

    #[test]
    fn a_later_turn_waits_until_the_earlier_one_is_done() {
        let o = order();
        let (t0, t1) = (o.take(), o.take());
        let passed = Arc::new(AtomicU64::new(0));
        let waiter = {
            let (o, passed) = (Arc::clone(&o), Arc::clone(&passed));
            std::thread::spawn(move || {
                let ticket = t1.ticket;
                t1.run(|| {
                    let mine = my_turn(&o).expect("t1 is current and of this order");
                    assert_eq!(mine.ticket, ticket);
                    passed.store(1, Ordering::SeqCst);
                })
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(passed.load(Ordering::SeqCst), 0, "t1 went before t0 was done");
        drop(t0);
        waiter.join().unwrap();
        assert_eq!(passed.load(Ordering::SeqCst), 1);
        assert_eq!(lock(&o.state).next, 2);
    }

    #[test]
    fn run_gives_an_unused_turn_up_and_restores_the_outer_one_even_on_panic() {
        let (a, b) = (order(), order());
        let (a0, b0) = (a.take(), b.take());
        a0.run(|| {
            // A turn of another store is not this store's.
            assert!(my_turn(&b).is_none());
            let r = std::panic::catch_unwind(|| b0.run(|| panic!("inside the inner run")));
            assert!(r.is_err());
            // b0 ended with its run; a0 is current again.
            assert_eq!(lock(&b.state).next, 1);
            let mine = my_turn(&a).expect("the outer turn is current again");
            assert_eq!(mine.ticket, 0);
        });
        assert_eq!(lock(&a.state).next, 1);
        assert!(CURRENT.with(|c| c.borrow().is_none()));
    }
}
