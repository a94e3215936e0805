//! Checkpoints off the writer (issue 33 item 6): the writer connection
//! no longer copies the whole WAL back into the database after a commit.
//!
//! SQLite's automatic checkpoint runs inside the commit that crosses its
//! threshold, on the writer connection, while this handle's writer mutex
//! is held: an append behind that commit waited for a 64 MiB copy and two
//! fsyncs (340-628 ms during a 100 MB import, `read_pool_bench`). Here the
//! writer's automatic checkpoint is off; a WAL hook records how many
//! frames the WAL holds after each commit ([`take_wal_frames`]), and once
//! that passes [`PASSIVE_BYTES`] the commit wakes this handle's
//! [`Checkpointer`]: a thread with its own connection that runs
//! `wal_checkpoint(PASSIVE)`, which takes no lock a writer or reader needs,
//! so commits and reads go on while it copies.
//!
//! The WAL stays bounded. A PASSIVE checkpoint copies what it can, and
//! the writer restarts the WAL at its next commit once everything was
//! copied; while commits keep coming the thread lags behind by the frames
//! of the commits made during its copy, so the WAL may not restart. Once
//! it holds [`RESTART_BYTES`] (the `journal_size_limit`, the size at which
//! the writer checkpointed before), the writer runs a PASSIVE checkpoint
//! itself after its commit: only the frames the thread has not copied yet
//! are left, and no commit can add any meanwhile, so the next commit
//! restarts the WAL (unless a reader still reads from it). At
//! [`WRITER_CHECKPOINT_BYTES`] (a reader kept it from restarting, or the
//! thread could not run) the writer runs `wal_checkpoint(TRUNCATE)`, which
//! waits for readers and cuts the file to 0 bytes. The thread never runs
//! a checkpoint that waits: one that needs the write lock would poll for
//! it against a stream of commits (a measured 3.5 s and 8.2 s stall).
//! The deletion's truncating checkpoint (`scrub_deleted`) is unchanged: it
//! runs on the writer connection and waits (busy handler, retry) for a
//! checkpoint of this thread in progress.
//!
//! Durability is SQLite's own: a checkpoint only copies committed frames
//! (the WAL is synced first, the database after), whichever connection
//! runs it. The thread's connection is closed before the writer's, so the
//! writer's close, the last, checkpoints and removes the WAL as before.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use super::{lock, JOURNAL_SIZE_LIMIT};
use crate::error::Result;

/// WAL bytes (frames × page size) after a commit from which the thread
/// runs a PASSIVE checkpoint: 4 MiB. Smaller copies more often (a page
/// rewritten by many commits is copied more times, more fsyncs); larger
/// leaves more to copy when the WAL must be cut (`read_pool_bench`).
pub const PASSIVE_BYTES: u64 = 4 << 20;
/// Least time between two checkpoints of the thread: a stream of commits
/// above [`PASSIVE_BYTES`] gets at most one checkpoint (two fsyncs) per
/// interval.
pub const CHECKPOINT_INTERVAL: Duration = Duration::from_millis(10);
/// WAL bytes from which the writer runs a PASSIVE checkpoint itself after
/// its commit (what the thread has not copied yet), so that the next
/// commit restarts the WAL: the `journal_size_limit`, 64 MiB, the size of
/// the writer's automatic checkpoint before.
pub const RESTART_BYTES: u64 = JOURNAL_SIZE_LIMIT as u64;
/// WAL bytes from which the writer runs `wal_checkpoint(TRUNCATE)` after
/// its commit (waits for readers, cuts the WAL to 0 bytes).
pub const WRITER_CHECKPOINT_BYTES: u64 = 2 * RESTART_BYTES;

thread_local! {
    /// Frames in the WAL after the last commit of a writer connection on
    /// this thread (set by [`record_wal_frames`] inside that commit).
    static WAL_FRAMES: Cell<u32> = const { Cell::new(0) };
}

/// The writer connection's WAL hook: SQLite calls it inside each commit,
/// on the committing thread, with the frames now in the WAL. Installing it
/// replaces SQLite's automatic checkpoint (which is this same hook).
fn record_wal_frames(_: &rusqlite::hooks::Wal, frames: std::os::raw::c_int) -> rusqlite::Result<()> {
    WAL_FRAMES.with(|f| f.set(frames.max(0) as u32));
    Ok(())
}

/// Turn the connection's automatic checkpoint off and record WAL frames
/// instead (read them with [`take_wal_frames`] after a commit).
pub(super) fn install_wal_hook(conn: &Connection) -> Result<()> {
    conn.pragma_update(None, "wal_autocheckpoint", 0)?;
    conn.wal_hook(Some(record_wal_frames));
    Ok(())
}

/// Frames in the WAL after the last commit made on this thread (0 when
/// none since the last call).
pub(super) fn take_wal_frames() -> u32 {
    WAL_FRAMES.with(|f| f.replace(0))
}

/// A handle's checkpoint thread, started by the first commit that asks for
/// a checkpoint and stopped by [`Checkpointer::close`].
#[derive(Default)]
pub(super) struct Checkpointer {
    shared: Arc<Shared>,
    pub(super) thread: Mutex<Option<JoinHandle<()>>>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// A commit asked for a checkpoint not yet run.
    wanted: bool,
    closed: bool,
    /// The thread stopped (its connection could not be opened).
    failed: bool,
}

impl Checkpointer {
    /// After a commit that left `wal_bytes` in the WAL (frames × page
    /// size): wake the thread (starting it on first use) when `wal_bytes`
    /// reaches [`PASSIVE_BYTES`]. Nothing when the thread cannot run
    /// (closed, failed to start or to open its connection): the writer's
    /// own checkpoints bound the WAL then.
    pub(super) fn after_commit(&self, wal_bytes: u64, path: &Path, busy_timeout_ms: u64) {
        if wal_bytes < PASSIVE_BYTES {
            return;
        }
        let mut g = lock(&self.shared.state);
        if g.closed || g.failed {
            return;
        }
        g.wanted = true;
        drop(g);
        self.shared.wake.notify_one();
        let mut t = lock(&self.thread);
        if t.is_none() {
            let shared = Arc::clone(&self.shared);
            let path = path.to_path_buf();
            match std::thread::Builder::new()
                .name("sessiondb-checkpoint".into())
                .spawn(move || run(&shared, &path, busy_timeout_ms))
            {
                Ok(h) => *t = Some(h),
                Err(_) => lock(&self.shared.state).failed = true,
            }
        }
    }

    /// Stop the thread (a checkpoint in progress finishes first) and close
    /// its connection. Later commits find it closed.
    pub(super) fn close(&self) {
        lock(&self.shared.state).closed = true;
        self.shared.wake.notify_all();
        if let Some(h) = lock(&self.thread).take() {
            let _ = h.join();
        }
    }

    /// In a forked child: the thread is the parent's; forget it unjoined.
    pub(super) fn forget(&mut self) {
        if let Some(h) = self.thread.get_mut().unwrap_or_else(|p| p.into_inner()).take() {
            std::mem::forget(h);
        }
    }
}

/// The thread: wait for a request, checkpoint, pause [`CHECKPOINT_INTERVAL`].
fn run(shared: &Shared, path: &PathBuf, busy_timeout_ms: u64) {
    let conn = match open_checkpointer(path, busy_timeout_ms) {
        Ok(c) => c,
        Err(_) => {
            lock(&shared.state).failed = true;
            return;
        }
    };
    loop {
        {
            let mut g = lock(&shared.state);
            while !g.wanted && !g.closed {
                g = shared.wake.wait(g).unwrap_or_else(|p| p.into_inner());
            }
            if g.closed {
                return;
            }
            g.wanted = false;
        }
        // Busy (another connection checkpoints): the next commit asks again.
        let _ = checkpoint(&conn, "PASSIVE");
        let g = lock(&shared.state);
        if !g.closed {
            let _ = shared.wake.wait_timeout(g, CHECKPOINT_INTERVAL);
        }
    }
}

/// `PRAGMA wal_checkpoint(<mode>)` on `conn`: `(busy, log frames,
/// checkpointed frames)` as SQLite reports them.
pub(super) fn checkpoint(conn: &Connection, mode: &str) -> Result<(i64, i64, i64)> {
    Ok(conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?)
}

/// The checkpoint connection: `busy_timeout` first, `synchronous=NORMAL`
/// as the writer (a checkpoint syncs the WAL, then the database), the
/// writer's `journal_size_limit`. It never creates the file.
fn open_checkpointer(path: &Path, busy_timeout_ms: u64) -> Result<Connection> {
    let conn = super::open_file(path, false, busy_timeout_ms)?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "journal_size_limit", JOURNAL_SIZE_LIMIT)?;
    conn.pragma_update(None, "trusted_schema", "OFF")?;
    Ok(conn)
}
