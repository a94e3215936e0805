//! `SessionStore`: the SQLite-backed repository of sessions (seed 000,
//! "SessionStore").
//!
//! * `open` creates the state directory (0700) and file (0600), sets
//!   `busy_timeout` before anything else, switches to WAL, applies the
//!   numbered migrations, checks the key against the key-check value in
//!   `meta`, registers this handle as a live owner and runs the recovery pass.
//! * Every write is one `BEGIN IMMEDIATE` transaction that also appends its
//!   journal event; it commits only when the whole closure succeeds.
//! * Reads run in a short deferred transaction; none stays open across calls.
//! * The handle is `Send + Sync`: one connection behind a mutex.

mod check;
pub(crate) mod context_ext;
pub mod schema;
pub(crate) mod sessions;
pub(crate) mod tokens;
pub(crate) mod transcript;
mod types;

pub use check::CheckReport;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior};

pub use transcript::{ACTIVITY_GRANULARITY_MS, MAX_PAGE};
pub use types::*;

/// Largest page `get_transcript` returns (for callers paging a whole session).
pub fn transcript_max_page() -> u32 {
    transcript::MAX_PAGE
}

use crate::crypto::{self, DataKey};
use crate::error::{Error, Result};
use crate::keys::{self, KeySource};
use crate::paths;

/// Default `busy_timeout` in milliseconds.
pub const DEFAULT_BUSY_TIMEOUT_MS: u64 = 10_000;
/// `journal_size_limit` in bytes: the WAL is truncated to this after a checkpoint.
pub const JOURNAL_SIZE_LIMIT: i64 = 64 * 1024 * 1024;
/// `page_size` of new databases, bytes. An 8 KiB index leaf holds a record of
/// up to 2,030 bytes inline, so a 1 KiB transcript envelope needs no overflow
/// page, while a commit (transcript leaf + journal row + its two index
/// leaves) writes half the WAL bytes of 16 KiB pages. Measured with
/// `examples/append_one_profile` / `read_profile` (20,000 single 1 KiB
/// appends; read of 10,000): 4 KiB 2.2 s / 56 ms, 8 KiB 1.85 s / 39 ms,
/// 16 KiB 2.7 s / 37 ms.
pub const PAGE_SIZE: i64 = 8_192;
/// `wal_autocheckpoint` in pages (8,192 × 8 KiB = 64 MiB, the
/// `journal_size_limit`): fewer checkpoints, so fewer fsyncs and a page
/// rewritten by many commits is copied back to the database once
/// (20,000 single appends 1.85 s -> 1.73 s against the default 1,000).
pub const WAL_AUTOCHECKPOINT_PAGES: i64 = 8_192;
/// `cache_size` (negative = KiB): 16 MiB of page cache per connection.
pub const CACHE_SIZE_KIB: i64 = -16_384;
const KEY_CHECK_RECORD: &str = "meta:key-check";
const KEY_CHECK_PLAINTEXT: &[u8] = b"sessiondb key-check v1";

/// How to open a store.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Database file; `None` = the default path for `app` ([`paths::default_db_path`]).
    pub path: Option<PathBuf>,
    /// App name: state directory name and credential-store service.
    pub app: String,
    /// Where the data key comes from.
    pub key: KeySource,
    /// SQLite `busy_timeout` in milliseconds.
    pub busy_timeout_ms: u64,
    /// Run the recovery pass at open (default true).
    pub recover: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            path: None,
            app: paths::DEFAULT_APP.to_string(),
            key: KeySource::OsKeyring,
            busy_timeout_ms: DEFAULT_BUSY_TIMEOUT_MS,
            recover: true,
        }
    }
}

impl OpenOptions {
    /// Options for a database at `path` with the given key source.
    pub fn at(path: impl Into<PathBuf>, key: KeySource) -> Self {
        OpenOptions { path: Some(path.into()), key, ..Default::default() }
    }
}

/// Lock file proving this handle is alive to recovery passes in other
/// handles and processes. Released (and removed) on close.
struct OwnerLock {
    lock: paths::FileLock,
    path: PathBuf,
}

struct Open {
    conn: Connection,
    owner: OwnerLock,
}

/// The encrypted session store. `Send + Sync`; share it behind an `Arc`.
pub struct SessionStore {
    state: Mutex<Option<Open>>,
    key: DataKey,
    path: PathBuf,
    key_backend: String,
    instance_id: String,
    envelope_json: String,
    pid: u32,
    busy_timeout_ms: u64,
    last_recovery: Mutex<crate::journal::RecoveryReport>,
    /// Appends waiting for a group commit (see `transcript::append_grouped`).
    appends: transcript::AppendGroup,
    /// Test hook: the size of every group commit of appends.
    #[cfg(test)]
    group_sizes: Mutex<Vec<usize>>,
}

impl std::fmt::Debug for SessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionStore").field("instance_id", &self.instance_id).finish_non_exhaustive()
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// What a write closure gets: the transaction and the store's key.
pub(crate) struct Tx<'a> {
    pub tx: &'a Transaction<'a>,
    pub key: &'a DataKey,
    pub owner: &'a str,
    /// Plaintext journal `envelope_json` of this handle: `{"v":1,"owner":...}`.
    pub envelope_json: &'a str,
}

impl SessionStore {
    /// Open (creating if needed) the default store for the default app with
    /// the OS keyring. Errors: see [`SessionStore::open`].
    pub fn open_default() -> Result<Self> {
        Self::open(OpenOptions::default())
    }

    /// Open a store.
    ///
    /// Errors: `Io` (directory or file), `Corrupt` (not a database, newer
    /// schema), `RecoveryLocked` (database exists, key missing: no key is
    /// written), `KeyMismatch`, `KeyStoreUnavailable`, `InvalidInput`.
    pub fn open(opts: OpenOptions) -> Result<Self> {
        let path = match &opts.path {
            Some(p) => p.clone(),
            None => paths::default_db_path(&opts.app)?,
        };
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if opts.path.is_none() || !dir.exists() {
            paths::ensure_private_dir(dir)?;
        }
        let started = Instant::now();
        let (conn, resolved) = open_database(&path, &opts).map_err(|e| waited(e, opts.busy_timeout_ms, started))?;
        paths::restrict_db_files(&path)?;

        let instance_id = uuid::Uuid::now_v7().simple().to_string();
        let owner = acquire_owner_lock(&path, &instance_id, opts.busy_timeout_ms)?;
        let store = SessionStore {
            state: Mutex::new(Some(Open { conn, owner })),
            key: resolved.key,
            path,
            key_backend: resolved.backend,
            envelope_json: serde_json::json!({ "v": 1, "owner": instance_id }).to_string(),
            instance_id,
            pid: std::process::id(),
            busy_timeout_ms: opts.busy_timeout_ms,
            last_recovery: Mutex::new(Default::default()),
            appends: Default::default(),
            #[cfg(test)]
            group_sizes: Mutex::new(Vec::new()),
        };
        if opts.recover {
            let report = store.recover()?;
            *lock(&store.last_recovery) = report;
        }
        Ok(store)
    }

    /// The database file path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// This handle's owner id (recorded on operations it dispatches).
    pub fn instance_id(&self) -> &str {
        &self.instance_id
    }

    /// Which key backend the data key came from.
    pub fn key_backend(&self) -> &str {
        &self.key_backend
    }

    /// The report of the recovery pass run at open.
    pub fn open_recovery_report(&self) -> crate::journal::RecoveryReport {
        lock(&self.last_recovery).clone()
    }

    /// Close the handle: the connection is closed (checkpointing the WAL)
    /// and the owner lock released. Later calls fail with `Closed`.
    /// Closing twice is a no-op.
    pub fn close(&self) {
        let taken = self.lock_state().take();
        if let Some(open) = taken {
            drop(open.conn);
            release_owner_lock(open.owner);
        }
    }

    /// True once [`close`](Self::close) ran.
    pub fn is_closed(&self) -> bool {
        self.lock_state().is_none()
    }

    fn lock_state(&self) -> MutexGuard<'_, Option<Open>> {
        // A panic while holding the lock cannot leave SQLite half-written (the
        // transaction rolls back on drop), so a poisoned lock is still usable.
        lock(&self.state)
    }

    fn with_open<T>(&self, f: impl FnOnce(&mut Open) -> Result<T>) -> Result<T> {
        if std::process::id() != self.pid {
            return Err(Error::Closed);
        }
        let started = Instant::now();
        let mut guard = self.lock_state();
        let open = guard.as_mut().ok_or(Error::Closed)?;
        f(open).map_err(|e| waited(e, self.busy_timeout_ms, started))
    }

    /// Run `f` in one `BEGIN IMMEDIATE` transaction; commit only if it returns `Ok`.
    pub(crate) fn write<T>(&self, f: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
        self.with_open(|open| {
            let tx = begin_immediate(&mut open.conn, self.busy_timeout_ms)?;
            let out = f(&Tx { tx: &tx, key: &self.key, owner: &self.instance_id, envelope_json: &self.envelope_json })?;
            tx.commit()?;
            Ok(out)
        })
    }

    /// Run `f` in one short deferred (read) transaction.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Connection, &DataKey) -> Result<T>) -> Result<T> {
        self.with_open(|open| {
            let tx = open.conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
            let out = f(&tx, &self.key)?;
            tx.finish()?;
            Ok(out)
        })
    }

    /// Figures for `doctor`: schema version, counts, file sizes, key backend.
    pub fn stats(&self) -> Result<StoreStats> {
        let (schema_version, sessions, transcript_entries, journal_events, open_operations) = self.read(|c, _| {
            let count = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n as u64);
            Ok((
                schema::current_version(c)?,
                count("SELECT COUNT(*) FROM sessions")?,
                count("SELECT COUNT(*) FROM transcript_entries")?,
                count("SELECT COUNT(*) FROM journal")?,
                count("SELECT COUNT(*) FROM open_operations")?,
            ))
        })?;
        let size = |suffix: &str| {
            let mut p = self.path.as_os_str().to_os_string();
            p.push(suffix);
            std::fs::metadata(PathBuf::from(p)).map(|m| m.len()).unwrap_or(0)
        };
        Ok(StoreStats {
            path: self.path.to_string_lossy().into_owned(),
            key_backend: self.key_backend.clone(),
            schema_version,
            sessions,
            transcript_entries,
            journal_events,
            open_operations,
            db_bytes: size(""),
            wal_bytes: size("-wal"),
        })
    }

    pub(crate) fn key(&self) -> &DataKey {
        &self.key
    }

    pub(crate) fn owner_lock_dir(&self) -> PathBuf {
        owner_lock_dir(&self.path)
    }
}

impl Drop for SessionStore {
    fn drop(&mut self) {
        if std::process::id() == self.pid {
            self.close();
        }
    }
}

/// Column `idx` of a row of record `record_id`. A value of a type this
/// schema never writes there (a damaged row) is `Corrupt` naming the
/// record, never an untyped `Database` error.
pub(crate) fn column<T: rusqlite::types::FromSql>(r: &rusqlite::Row<'_>, idx: usize, record_id: &str) -> Result<T> {
    r.get(idx).map_err(|e| match e {
        rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::IntegralValueOutOfRange(..) => {
            Error::corrupt(format!("record `{record_id}`: column {idx} holds a value of a type this schema never writes there"))
        }
        other => other.into(),
    })
}

/// Decrypt the envelope in column `idx` (TEXT or BLOB; NULL = `None`) for
/// `record_id`. Errors: `Corrupt` (not an envelope, a number where an
/// envelope belongs), `AuthenticationFailed` (altered or moved), each
/// naming the record.
pub(crate) fn open_column(key: &DataKey, r: &rusqlite::Row<'_>, idx: usize, record_id: &str) -> Result<Option<String>> {
    use rusqlite::types::ValueRef;
    match r.get_ref(idx)? {
        ValueRef::Null => Ok(None),
        ValueRef::Text(b) | ValueRef::Blob(b) => crypto::open_bytes(key, record_id, b).map(Some),
        other => Err(Error::corrupt(format!(
            "record `{record_id}` holds a {} value, not an EncryptedField envelope",
            other.data_type()
        ))),
    }
}

/// Lock `m`, also after a panic in another holder: a panic cannot leave
/// SQLite half-written (its transaction rolls back on drop) nor the group
/// commit state inconsistent (see `transcript::append_grouped`).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

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

/// Connect, migrate and check the key (DESIGN.md "Keys").
///
/// An initialised database (its key-check value is stored) is opened
/// without a lock. Otherwise the rest runs under the exclusive first-open
/// lock ([`init_lock_path`]): read the key or create it, create the file,
/// migrate and write the key-check value, so two processes opening a new
/// database at once end with one key; the second reads the first's key.
/// A file that does not exist is created only once a key is in hand.
fn open_database(path: &Path, opts: &OpenOptions) -> Result<(Connection, keys::ResolvedKey)> {
    let timeout = opts.busy_timeout_ms;
    let finish = |mut conn: Connection, has_data: bool| -> Result<(Connection, keys::ResolvedKey)> {
        let resolved = keys::resolve_key(&opts.key, &opts.app, has_data, timeout)?;
        schema::migrate_within(&mut conn, timeout)?;
        verify_or_init_key_check(&mut conn, &resolved.key, &resolved.backend, timeout)?;
        Ok((conn, resolved))
    };
    let exists = || std::fs::metadata(path).map(|m| m.len() > 0).unwrap_or(false);
    if exists() {
        let conn = open_connection(path, timeout)?;
        if has_key_check(&conn)? {
            return finish(conn, true);
        }
    }
    let first_open = paths::FileLock::acquire(&init_lock_path(path), timeout, "locking the database's first-open lock")?;
    if exists() {
        let conn = open_connection(path, timeout)?;
        if has_key_check(&conn)? {
            // Another process initialised it while we waited: nothing left to
            // create, so the rest (a key-store read) need not hold the lock.
            drop(first_open);
            return finish(conn, true);
        }
        finish(conn, false)
    } else {
        // No file until the key is in hand: a missing or locked key store creates nothing.
        let resolved = keys::resolve_key(&opts.key, &opts.app, false, timeout)?;
        let mut conn = open_connection(path, timeout)?;
        schema::migrate_within(&mut conn, timeout)?;
        verify_or_init_key_check(&mut conn, &resolved.key, &resolved.backend, timeout)?;
        Ok((conn, resolved))
    }
}

fn open_connection(path: &Path, busy_timeout_ms: u64) -> Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| match Error::from(e) {
        Error::Io { source, .. } => Error::io("opening the database file", source),
        other => other,
    })?;
    // busy_timeout first: every later statement may meet another writer.
    conn.busy_timeout(Duration::from_millis(busy_timeout_ms))?;
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
    conn.pragma_update(None, "wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "trusted_schema", "OFF")?;
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

fn verify_or_init_key_check(conn: &mut Connection, key: &DataKey, backend: &str, timeout_ms: u64) -> Result<()> {
    let verify = |json: &str| -> Result<()> {
        let field = crypto::EncryptedField::from_json(json)?;
        match crypto::decrypt_field(key, KEY_CHECK_RECORD, &field) {
            Ok(p) if &p[..] == KEY_CHECK_PLAINTEXT => Ok(()),
            _ => Err(Error::KeyMismatch { backend: backend.to_string() }),
        }
    };
    // The common case reads only, so opening never waits for another writer.
    let stored: Option<String> =
        conn.query_row("SELECT value FROM meta WHERE key='key_check'", [], |r| r.get(0)).optional()?;
    if let Some(json) = stored {
        return verify(&json);
    }
    let tx = begin_immediate(conn, timeout_ms)?;
    let stored: Option<String> =
        tx.query_row("SELECT value FROM meta WHERE key='key_check'", [], |r| r.get(0)).optional()?;
    match stored {
        // Another process initialised it while we waited for the lock.
        Some(json) => verify(&json)?,
        None => {
            let field = crypto::encrypt_field(key, KEY_CHECK_RECORD, KEY_CHECK_PLAINTEXT);
            tx.execute("INSERT INTO meta (key, value) VALUES ('key_check', ?1)", [field.to_json()])?;
            tx.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('created_at', ?1)",
                [now_ms().to_string()],
            )?;
        }
    }
    tx.commit()?;
    Ok(())
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
pub(crate) mod test_support {
    use super::*;

    /// A fresh store in a temp dir with a fixed key.
    pub fn temp_store() -> (tempfile::TempDir, SessionStore) {
        let dir = tempfile::tempdir().expect("tempdir");
        let key = DataKey::from_bytes(&[42u8; 32]).expect("32 bytes");
        let store = SessionStore::open(OpenOptions::at(dir.path().join("sessions.db"), KeySource::Bytes(key)))
            .expect("open temp store");
        (dir, store)
    }
}
