//! The SQLite backend: the embedded default (DESIGN.md "On-disk contract").
//!
//! * One writer connection per handle behind a mutex, opened with
//!   `busy_timeout` set before anything else, then WAL, `synchronous=NORMAL`,
//!   `journal_size_limit`, 1 KiB pages for new databases; every write is one
//!   `BEGIN IMMEDIATE` transaction on it. Threads take turns at it in the
//!   order they asked ([`Turns`]), so a thread that writes again at once
//!   (an import's next batch) does not pass one already waiting (an append).
//! * Checkpoints run on a thread of the handle with its own connection
//!   ([`checkpoint`]), not inside the writer's commits: an append does not
//!   wait for a 64 MiB copy (issue 33 item 6).
//! * Reads run on a small pool of read connections ([`ReadPool`], at most
//!   [`READ_POOL_SIZE`], opened on first use, `query_only`), each read one
//!   short deferred transaction on a connection no other thread holds
//!   meanwhile: WAL lets them read while the writer writes, so a read never
//!   waits for a write (issue 33 item 6). A read transaction begins after
//!   every commit that returned before the read was called, so it sees
//!   them. Until the schema is migrated (first open, key check), reads use
//!   the writer connection and no read connection exists.
//! * SQLite answers some requests `SQLITE_BUSY` without its busy handler;
//!   those are retried until the timeout really passed ([`retry_busy`]).
//! * First open: an exclusive lock on `<db>-init.lock` ([`init_lock_path`])
//!   makes creating the key, the file and the key-check value one critical
//!   section across processes (the store runs the key part under it).
//! * Owner liveness: each handle holds a lock on
//!   `<db>-owners/<instance>.lock` for its whole life ([`OwnerLock`]).
//! * A handle used in a forked child is `Closed`.

mod access;
mod checkpoint;
mod error;
mod rows;
pub mod schema;
mod writes;

use access::{read_in, ReadPool, Turns};

use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior};

use super::{Backend, ReadTx, StorageSizes, WriteTx};
use crate::error::{Error, Result};
use crate::paths;

/// Default `busy_timeout` in milliseconds.
pub const DEFAULT_BUSY_TIMEOUT_MS: u64 = 10_000;
/// Largest `busy_timeout`: `i32::MAX` milliseconds (about 24.8 days),
/// SQLite's `sqlite3_busy_timeout` takes a C `int`.
pub const MAX_BUSY_TIMEOUT_MS: u64 = i32::MAX as u64;

/// How a database file is opened: the SQLite backend's own options (the
/// store's `OpenOptions` hands them over).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqliteOptions {
    /// `busy_timeout` in milliseconds (at most [`MAX_BUSY_TIMEOUT_MS`]):
    /// how long a call waits for another writer, and for the first-open
    /// and owner locks.
    pub busy_timeout_ms: u64,
}

impl SqliteOptions {
    /// Options with this busy timeout (milliseconds).
    /// Errors: `InvalidInput` above [`MAX_BUSY_TIMEOUT_MS`].
    pub fn new(busy_timeout_ms: u64) -> Result<SqliteOptions> {
        if busy_timeout_ms > MAX_BUSY_TIMEOUT_MS {
            return Err(Error::invalid(format!(
                "busy_timeout_ms {busy_timeout_ms} is above {MAX_BUSY_TIMEOUT_MS} (SQLite's limit, about 24.8 days)"
            )));
        }
        Ok(SqliteOptions { busy_timeout_ms })
    }
}
/// `journal_size_limit` in bytes: the WAL is truncated to this after a checkpoint.
pub const JOURNAL_SIZE_LIMIT: i64 = 64 * 1024 * 1024;
/// `page_size` of new databases, bytes (schema version 4 on; older
/// databases keep theirs: SQLite changes a WAL database's page size only
/// by a `VACUUM` outside WAL mode, which rewrites the whole file, so it is
/// not offered). Two costs pull apart:
/// * a commit writes each page it changed to the WAL whole, and a single
///   append changes at least five (the entry's leaf, its body's leaf, the
///   journal row's leaf and its two index leaves, whose DDL the seed fixes),
///   so WAL bytes per append are about 5-9 pages;
/// * rows of one body each pack badly into small pages (a leaf is closed
///   when the next body does not fit), which body sets (schema 7) avoid for
///   entries written together.
///
/// Measured 2026-12-01 (`scripts/bench-storage.py` and
/// `core/examples/import_size.rs`, 200 MB generated Codex / Claude Code /
/// thClaws files; database + WAL bytes over source bytes; WAL per single
/// 1 KiB CLI append), schema 7: 1 KiB 0.585 / 0.560 / 0.549x (0.972 / 0.956
/// / 1.049x without compression), 9.3 KiB per append; 4 KiB 0.583 / 0.559 /
/// 0.553x (0.966 / 0.961 / 1.052x), 23.3 KiB. Schema 6 (a body row per
/// entry): 1 KiB 0.65 / 0.66 / 0.66x, 2 KiB 0.67 / 0.83 / 0.86x at 14.0 KiB,
/// 4 KiB 0.65 / 0.60 / 0.59x. 1 KiB is the only size under issue 12's
/// 12 KiB per append.
pub const PAGE_SIZE: i64 = 1_024;
/// The writer's `wal_autocheckpoint` before issue 33 item 6, in pages of
/// [`PAGE_SIZE`] (65,536 × 1 KiB = 64 MiB, the `journal_size_limit`); the
/// design floor of `core/benches/store.rs` still uses it. The writer now
/// has no automatic checkpoint: a thread of the handle copies the WAL back
/// from 4 MiB on, and the writer copies what is left at this size
/// ([`checkpoint`]).
pub const WAL_AUTOCHECKPOINT_PAGES: i64 = JOURNAL_SIZE_LIMIT / PAGE_SIZE;
/// `cache_size` (negative = KiB): 16 MiB of page cache per connection.
pub const CACHE_SIZE_KIB: i64 = -16_384;
/// Most read connections one handle keeps open ([`ReadPool`]): reads from
/// more threads than this wait for a free one (never for a write).
pub const READ_POOL_SIZE: usize = 4;

use super::lock;

/// A `Busy` error carries the configured timeout and how long the call
/// really waited (measured from `started`); other errors pass through.
pub(crate) fn waited(e: Error, timeout_ms: u64, started: Instant) -> Error {
    match e {
        Error::Busy { .. } => Error::Busy { timeout_ms, waited_ms: started.elapsed().as_millis() as u64 },
        other => other,
    }
}

/// Run `step` until it does not fail with `Busy` or `timeout_ms` has
/// really passed. SQLite answers some requests `SQLITE_BUSY` at once,
/// without calling its busy handler (switching to WAL, `BEGIN IMMEDIATE`
/// while another connection runs WAL recovery), so the busy timeout alone
/// does not make a caller wait; `step` must have no effect when it fails.
pub(crate) fn retry_busy<T>(timeout_ms: u64, mut step: impl FnMut() -> Result<T>) -> Result<T> {
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match step() {
            Err(Error::Busy { .. }) if (started.elapsed().as_millis() as u64) < timeout_ms => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(25));
            }
            Err(e) => return Err(waited(e, timeout_ms, started)),
            ok => return ok,
        }
    }
}

/// `BEGIN IMMEDIATE`, retried on an early `SQLITE_BUSY` until `timeout_ms`.
pub(crate) fn begin_immediate(conn: &mut Connection, timeout_ms: u64) -> Result<Transaction<'_>> {
    let conn: &Connection = conn;
    retry_busy(timeout_ms, || Ok(Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?))
}

/// The file whose lock makes a database's first open one critical section
/// across processes: `<db>-init.lock`, beside the database, never deleted.
pub(crate) fn init_lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push("-init.lock");
    PathBuf::from(name)
}

/// An open SQLite database (a writer connection and a pool of read
/// connections) and this handle's owner lock.
pub struct SqliteBackend {
    state: Mutex<Option<Open>>,
    readers: ReadPool,
    checkpointer: checkpoint::Checkpointer,
    /// Turns at the writer connection, first come first served.
    turns: Turns,
    /// The file's page size in bytes (WAL frames × this = WAL bytes).
    page_size: u64,
    path: PathBuf,
    pid: u32,
    busy_timeout_ms: u64,
    instance_id: String,
}

struct Open {
    conn: Connection,
    owner: Option<OwnerLock>,
}

impl std::fmt::Debug for SqliteBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteBackend").field("instance_id", &self.instance_id).finish_non_exhaustive()
    }
}

impl SqliteBackend {
    /// Connect to the database at `path` (creating the file), with the
    /// pragmas above. Nothing is migrated yet. Errors: `Io`, `Corrupt` (a
    /// database of another program), `Busy`.
    pub(crate) fn connect(path: &Path, opts: &SqliteOptions, instance_id: &str) -> Result<SqliteBackend> {
        let busy_timeout_ms = opts.busy_timeout_ms;
        let conn = open_connection(path, busy_timeout_ms)?;
        let page_size: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        Ok(SqliteBackend {
            state: Mutex::new(Some(Open { conn, owner: None })),
            readers: ReadPool::default(),
            checkpointer: checkpoint::Checkpointer::default(),
            turns: Turns::default(),
            page_size: page_size.max(512) as u64,
            path: path.to_path_buf(),
            pid: std::process::id(),
            busy_timeout_ms,
            instance_id: instance_id.to_string(),
        })
    }

    /// Take the exclusive first-open lock of the database at `path`
    /// ([`init_lock_path`]), waiting at most `timeout_ms`.
    /// Errors: `Io`, `Busy`.
    pub(crate) fn lock_first_open(path: &Path, opts: &SqliteOptions) -> Result<paths::FileLock> {
        paths::FileLock::acquire(&init_lock_path(path), opts.busy_timeout_ms, "locking the database's first-open lock")
    }

    /// Does the database hold a key-check value (is it initialised)?
    pub(crate) fn has_key_check(&self) -> Result<bool> {
        self.with_conn(|c| has_key_check(c))
    }

    /// Apply every numbered migration ([`schema::migrate`]); from then on
    /// reads use the read connections.
    pub(crate) fn migrate(&self) -> Result<u32> {
        let timeout = self.busy_timeout_ms;
        let version = self.with_conn(|c| schema::migrate_within(c, timeout))?;
        self.readers.enable();
        Ok(version)
    }

    /// Run `f` on the connection; `Busy` errors carry the real wait.
    fn with_conn<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        if std::process::id() != self.pid {
            return Err(Error::Closed);
        }
        let started = Instant::now();
        let _turn = self.turns.wait();
        let mut guard = lock(&self.state);
        let open = guard.as_mut().ok_or(Error::Closed)?;
        f(&mut open.conn).map_err(|e| waited(e, self.busy_timeout_ms, started))
    }

}

impl Backend for SqliteBackend {
    /// Take this handle's owner lock (see [`acquire_owner_lock`]).
    fn register_owner(&self) -> Result<()> {
        let owner = acquire_owner_lock(&self.path, &self.instance_id, self.busy_timeout_ms)?;
        let mut g = lock(&self.state);
        match g.as_mut() {
            Some(open) => {
                open.owner = Some(owner);
                Ok(())
            }
            None => Err(Error::Closed),
        }
    }

    /// On a read connection of the pool (the writer's until the schema is
    /// migrated): never behind a write of this handle.
    fn read_dyn(&self, f: &mut dyn FnMut(&dyn ReadTx) -> Result<()>) -> Result<()> {
        if std::process::id() != self.pid {
            return Err(Error::Closed);
        }
        let started = Instant::now();
        match self.readers.take(&self.path, self.busy_timeout_ms) {
            Ok(Some(mut reader)) => {
                read_in(reader.conn(), f).map_err(|e| waited(e, self.busy_timeout_ms, started))
            }
            Ok(None) => self.with_conn(|conn| read_in(conn, f)),
            Err(e) => Err(waited(e, self.busy_timeout_ms, started)),
        }
    }

    /// One `BEGIN IMMEDIATE` transaction on the writer; after its commit,
    /// the WAL's size decides whether the checkpoint thread runs, and
    /// whether the writer checkpoints what is left (past
    /// [`checkpoint::RESTART_BYTES`]) or cuts the WAL (past
    /// [`checkpoint::WRITER_CHECKPOINT_BYTES`]); see [`checkpoint`].
    fn write_dyn(&self, f: &mut dyn FnMut(&dyn WriteTx) -> Result<()>) -> Result<()> {
        let timeout = self.busy_timeout_ms;
        self.with_conn(|conn| {
            checkpoint::take_wal_frames();
            let tx = begin_immediate(conn, timeout)?;
            f(&rows::SqlTx(&tx))?;
            tx.commit()?;
            let wal_bytes = u64::from(checkpoint::take_wal_frames()) * self.page_size;
            self.checkpointer.after_commit(wal_bytes, &self.path, timeout);
            // Committed already: a checkpoint that finds another one
            // running (SQLITE_BUSY) is tried again after a later commit.
            if wal_bytes >= checkpoint::WRITER_CHECKPOINT_BYTES {
                let _ = checkpoint::checkpoint(conn, "TRUNCATE");
            } else if wal_bytes >= checkpoint::RESTART_BYTES {
                let _ = checkpoint::checkpoint(conn, "PASSIVE");
            }
            Ok(())
        })
    }

    fn close(&self) {
        // The read connections first (waiting for reads in progress), so
        // that the writer is the last connection: closing it checkpoints
        // the WAL and removes it.
        self.readers.close();
        self.checkpointer.close();
        let taken = lock(&self.state).take();
        if let Some(open) = taken {
            // Closing the connection checkpoints the WAL; then the owner
            // lock goes (its file first, so a pass that sees none is right).
            drop(open.conn);
            if let Some(owner) = open.owner {
                release_owner_lock(owner);
            }
        }
    }

    fn is_closed(&self) -> bool {
        // `close` marks the pool first; no wait for a write in progress.
        self.readers.is_closed()
    }

    fn owner_is_alive(&self, instance_id: &str) -> bool {
        owner_is_alive(&owner_lock_dir(&self.path), instance_id)
    }

    fn sweep_owners(&self) {
        sweep_stale_owner_locks(&owner_lock_dir(&self.path), &self.instance_id);
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`: the zeroed pages (secure_delete)
    /// replace the old ones in the file and the WAL, whose older frames
    /// still hold the deleted bytes, is cut to 0 bytes. A reader of another
    /// handle that stays past the busy timeout keeps the WAL: then `Busy`
    /// (the deletion itself is committed; the bytes go at the next full
    /// checkpoint, at the latest when the last handle closes). This handle's
    /// own reads are held back meanwhile (the reads in progress end first:
    /// [`access::ReadPool::pause`]), so none of them keeps the WAL.
    fn scrub_deleted(&self) -> Result<()> {
        let timeout = self.busy_timeout_ms;
        let _reads_held = self.readers.pause();
        self.with_conn(|conn| {
            retry_busy(timeout, || {
                let (blocked, _, _): (i64, i64, i64) =
                    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
                if blocked != 0 {
                    return Err(Error::Busy { timeout_ms: timeout, waited_ms: 0 });
                }
                Ok(())
            })
        })
    }

    fn sizes(&self) -> StorageSizes {
        let size = |suffix: &str| {
            let mut p = self.path.as_os_str().to_os_string();
            p.push(suffix);
            std::fs::metadata(PathBuf::from(p)).map(|m| m.len()).unwrap_or(0)
        };
        StorageSizes { db_bytes: size(""), wal_bytes: size("-wal") }
    }

    #[cfg(test)]
    fn hold(&self) -> Box<dyn super::Guard + '_> {
        Box::new(lock(&self.state))
    }
}

impl Drop for SqliteBackend {
    fn drop(&mut self) {
        if std::process::id() == self.pid {
            self.close();
        } else {
            // A forked child: the read connections are the parent's (one
            // may be in use by a parent thread that the child does not
            // have); leave them alone rather than closing them here.
            let pool = self.readers.state.get_mut().unwrap_or_else(|p| p.into_inner());
            std::mem::forget(std::mem::take(&mut pool.idle));
            self.checkpointer.forget();
        }
    }
}

/// A read-write connection to `path` (created when `create`), with
/// `busy_timeout` set first: every later statement may meet another
/// writer. The writer's, the readers' and the checkpointer's opening.
fn open_file(path: &Path, create: bool, busy_timeout_ms: u64) -> Result<Connection> {
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let conn = Connection::open_with_flags(path, flags).map_err(|e| match Error::from(e) {
        Error::Io { source, .. } => Error::io("opening the database file", source),
        other => other,
    })?;
    conn.busy_timeout(Duration::from_millis(busy_timeout_ms))?;
    Ok(conn)
}

fn open_connection(path: &Path, busy_timeout_ms: u64) -> Result<Connection> {
    let conn = open_file(path, true, busy_timeout_ms)?;
    retry_busy(busy_timeout_ms, || refuse_foreign_database(&conn))?;
    // Takes effect only on a new, empty database (before its first write).
    conn.pragma_update(None, "page_size", PAGE_SIZE)?;
    // Switching to WAL needs an exclusive lock and answers SQLITE_BUSY
    // without calling the busy handler.
    let mode: String =
        retry_busy(busy_timeout_ms, || Ok(conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Error::Database(format!("could not switch to WAL mode (got `{mode}`)")));
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "journal_size_limit", JOURNAL_SIZE_LIMIT)?;
    conn.pragma_update(None, "cache_size", CACHE_SIZE_KIB)?;
    // No automatic checkpoint inside a commit: the checkpoint thread copies
    // the WAL back (see `checkpoint`), whatever the file's page size.
    checkpoint::install_wal_hook(&conn)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "trusted_schema", "OFF")?;
    // Deleted cells and freed pages are overwritten with zeros (in the WAL
    // frame that frees them, then in the file at checkpoint): with
    // `scrub_deleted`'s checkpoint, a deleted session leaves no byte behind.
    // (OFF only in the measurement build of `scripts/bench-secure-delete.sh`.)
    conn.pragma_update(None, "secure_delete", if cfg!(feature = "bench-no-secure-delete") { "OFF" } else { "ON" })?;
    Ok(conn)
}

/// A database at schema version 0 that already has tables was written by
/// something else: refuse it (and leave it untouched) rather than adding our
/// tables to it.
fn refuse_foreign_database(conn: &Connection) -> Result<()> {
    // One statement, so one snapshot: read in two, another process's
    // migration 1 could commit in between (tables present, version 0 read).
    let (version, tables): (i64, i64) = conn.query_row(
        "SELECT (SELECT user_version FROM pragma_user_version()),
                (SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%')",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if version == 0 && tables > 0 {
        return Err(Error::corrupt(
            "this file is an SQLite database of another program, not a sessiondb database; it was left untouched",
        ));
    }
    Ok(())
}

fn has_key_check(conn: &Connection) -> Result<bool> {
    let tx = conn.unchecked_transaction()?;
    let meta: Option<String> = tx
        .query_row("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'", [], |r| r.get(0))
        .optional()?;
    if meta.is_none() {
        return Ok(false);
    }
    let n: i64 = tx.query_row("SELECT COUNT(*) FROM meta WHERE key='key_check'", [], |r| r.get(0))?;
    Ok(n > 0)
}

/// Lock file proving a handle is alive to recovery passes in other
/// handles and processes. Released (and removed) on close.
struct OwnerLock {
    lock: paths::FileLock,
    path: PathBuf,
}

pub(crate) fn owner_lock_dir(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push("-owners");
    PathBuf::from(name)
}

/// Create and lock `<db>-owners/<instance_id>.lock`.
///
/// The lock is taken on the file that is at that path afterwards: a sweep
/// in another handle may lock and unlink a file between our open and our
/// lock (it cannot tell a handle still opening from a dead one), so after
/// locking we check that the path still names our file, and start over if
/// not. Errors: `Io`; `Busy` if the file stayed locked past `timeout_ms`.
fn acquire_owner_lock(db: &Path, instance_id: &str, timeout_ms: u64) -> Result<OwnerLock> {
    let dir = owner_lock_dir(db);
    let path = dir.join(format!("{instance_id}.lock"));
    loop {
        paths::ensure_private_dir(&dir)?;
        let lock = paths::FileLock::acquire(&path, timeout_ms, "creating the owner lock file")?;
        if paths::is_same_file(&lock.file, &path) {
            return Ok(OwnerLock { lock, path });
        }
    }
}

fn release_owner_lock(owner: OwnerLock) {
    // Remove first, then unlock (on drop): a recovery pass that sees no file
    // treats the owner as gone, which is now true.
    let _ = std::fs::remove_file(&owner.path);
    drop(owner.lock);
}

/// Is the owner `instance_id` of the store at `db` still alive?
/// Alive = its lock file exists and is locked by someone. A file nobody
/// holds belongs to a handle that ended without closing (or one still
/// opening, which has dispatched nothing yet): it is removed, but only while
/// we hold its lock and only if the path still names the file we locked,
/// so a live holder's file is never deleted.
pub(crate) fn owner_is_alive(lock_dir: &Path, instance_id: &str) -> bool {
    if instance_id.is_empty() || instance_id.contains(['/', '\\', '.']) {
        return false;
    }
    let path = lock_dir.join(format!("{instance_id}.lock"));
    let file = match std::fs::OpenOptions::new().write(true).open(&path) {
        Ok(f) => f,
        // Only a missing file proves the owner is gone; a file we may not open
        // (permissions) could belong to a live owner, so it counts as alive.
        Err(e) => return e.kind() != std::io::ErrorKind::NotFound,
    };
    match file.try_lock() {
        Ok(()) => {
            if paths::is_same_file(&file, &path) {
                let _ = std::fs::remove_file(&path);
            }
            let _ = file.unlock();
            false
        }
        Err(std::fs::TryLockError::WouldBlock) => true,
        Err(std::fs::TryLockError::Error(_)) => true,
    }
}

/// Remove lock files left by handles that ended without closing (killed
/// processes); locked files (live handles) and our own are kept.
pub(crate) fn sweep_stale_owner_locks(lock_dir: &Path, own_id: &str) {
    let Ok(entries) = std::fs::read_dir(lock_dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".lock")) else { continue };
        if id != own_id {
            owner_is_alive(lock_dir, id);
        }
    }
}

#[cfg(test)]
mod tests;
