//! Who gets a connection: the writer's turns, served in the order taken
//! ([`Turns`]), and the pool of read connections ([`ReadPool`]). Moved out
//! of mod.rs as they were.

use super::*;

/// Tickets for the writer connection, served in the order taken: a thread
/// that releases the writer and asks again at once (an import's writer
/// thread with its next batch ready) queues behind the threads already
/// waiting (an append), instead of taking the mutex back before they wake.
#[derive(Default)]
pub(super) struct Turns {
    state: Mutex<(u64, u64)>,
    next: Condvar,
}

/// A turn at the writer; the next ticket's when dropped.
pub(super) struct Turn<'a>(&'a Turns);

impl Turns {
    pub(super) fn wait(&self) -> Turn<'_> {
        let mut g = lock(&self.state);
        let ticket = g.0;
        g.0 += 1;
        while g.1 != ticket {
            g = self.next.wait(g).unwrap_or_else(|p| p.into_inner());
        }
        Turn(self)
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).1 += 1;
        self.0.next.notify_all();
    }
}

/// One read transaction on `conn`: deferred, so its snapshot is taken at
/// its first statement, after every commit that returned before.
pub(super) fn read_in(conn: &mut Connection, f: &mut dyn FnMut(&dyn ReadTx) -> Result<()>) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
    f(&rows::SqlTx(&tx))?;
    tx.finish()?;
    Ok(())
}

/// The read connections of one handle: at most [`READ_POOL_SIZE`], opened
/// when a read finds none free, each lent to one read at a time
/// ([`Reader`]) and given back when it ends, with its transaction ended
/// (so an idle connection holds no snapshot that could keep the WAL).
#[derive(Default)]
pub(super) struct ReadPool {
    pub(super) state: Mutex<PoolState>,
    /// Signalled when a connection comes back (or an open failed).
    freed: Condvar,
}

#[derive(Default)]
pub(super) struct PoolState {
    pub(super) idle: Vec<Connection>,
    /// Connections lent out or being opened.
    pub(super) out: usize,
    /// Set once the schema is migrated: before, reads use the writer.
    ready: bool,
    closed: bool,
    /// Pauses in force ([`ReadPool::pause`]): no connection is lent meanwhile.
    paused: usize,
}

/// New reads wait while this lives ([`ReadPool::pause`]).
pub(super) struct Paused<'a>(&'a ReadPool);

impl Drop for Paused<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).paused -= 1;
        self.0.freed.notify_all();
    }
}

/// A read connection lent to one read; back to the pool on drop.
pub(super) struct Reader<'a> {
    pool: &'a ReadPool,
    conn: Option<Connection>,
}

impl Reader<'_> {
    pub(super) fn conn(&mut self) -> &mut Connection {
        self.conn.as_mut().expect("a reader holds its connection until dropped")
    }
}

impl Drop for Reader<'_> {
    fn drop(&mut self) {
        let conn = self.conn.take();
        let mut g = lock(&self.pool.state);
        g.out -= 1;
        // A closed pool keeps nothing, nor a connection still inside a
        // transaction (its rollback failed after a panic or an error): it
        // would hold a snapshot that keeps the WAL. Those close (below,
        // outside the lock); the next read opens a fresh one.
        let keep = !g.closed && conn.as_ref().is_some_and(Connection::is_autocommit);
        let surplus = if keep { g.idle.extend(conn); None } else { conn };
        drop(g);
        self.pool.freed.notify_all();
        drop(surplus);
    }
}

impl ReadPool {
    pub(super) fn enable(&self) {
        lock(&self.state).ready = true;
    }

    pub(super) fn is_closed(&self) -> bool {
        lock(&self.state).closed
    }

    /// A free read connection (opening one if fewer than
    /// [`READ_POOL_SIZE`] exist, else waiting for one to come back);
    /// `None` before the schema is migrated. Errors: `Closed`, and those of
    /// opening a connection.
    pub(super) fn take(&self, path: &Path, busy_timeout_ms: u64) -> Result<Option<Reader<'_>>> {
        let mut g = lock(&self.state);
        loop {
            if g.closed {
                return Err(Error::Closed);
            }
            if !g.ready {
                return Ok(None);
            }
            if g.paused > 0 {
                g = self.freed.wait(g).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            if let Some(conn) = g.idle.pop() {
                g.out += 1;
                return Ok(Some(Reader { pool: self, conn: Some(conn) }));
            }
            if g.out < READ_POOL_SIZE {
                g.out += 1;
                drop(g);
                // From here the slot is ours: the reader gives it back on drop, also when opening fails.
                let mut reader = Reader { pool: self, conn: None };
                reader.conn = Some(open_reader(path, busy_timeout_ms)?);
                return Ok(Some(reader));
            }
            g = self.freed.wait(g).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Hold new reads back and wait for the reads in progress to end: while
    /// the returned guard lives, no read connection holds a snapshot (what a
    /// truncating checkpoint needs; this handle's readers in a tight loop
    /// otherwise always had one open, and the checkpoint timed out `Busy`).
    pub(super) fn pause(&self) -> Paused<'_> {
        let mut g = lock(&self.state);
        g.paused += 1;
        while g.out > 0 {
            g = self.freed.wait(g).unwrap_or_else(|p| p.into_inner());
        }
        Paused(self)
    }

    /// Refuse new reads (`Closed`), wait for the reads in progress and
    /// close every read connection.
    pub(super) fn close(&self) {
        let mut g = lock(&self.state);
        g.closed = true;
        let idle = std::mem::take(&mut g.idle);
        while g.out > 0 {
            g = self.freed.wait(g).unwrap_or_else(|p| p.into_inner());
        }
        drop(g);
        drop(idle);
    }
}

/// A read connection: `busy_timeout` first, `query_only` (it can never
/// write, so `secure_delete`, `foreign_keys` and the WAL settings, which
/// only writes and checkpoints use, are the writer's alone), the writer's
/// page cache size and `trusted_schema=OFF`. It never creates the file: the
/// writer opened and migrated it before any reader exists.
pub(super) fn open_reader(path: &Path, busy_timeout_ms: u64) -> Result<Connection> {
    let conn = super::open_file(path, false, busy_timeout_ms)?;
    conn.pragma_update(None, "query_only", "ON")?;
    conn.pragma_update(None, "cache_size", CACHE_SIZE_KIB)?;
    conn.pragma_update(None, "trusted_schema", "OFF")?;
    Ok(conn)
}
