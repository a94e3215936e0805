//! `SessionStore`: the repository of sessions (seed 000, "SessionStore"):
//! the rules over a storage backend ([`crate::backend`]).
//!
//! * The store validates arguments, names records (the AAD of each
//!   envelope), seals and opens every envelope, keeps the journal
//!   ([`journal`]) and commits concurrent appends together (group commit);
//!   the backend only stores, finds and allocates rows.
//! * `open` takes a [`Location`]: a database file (the state directory
//!   (0700) and file (0600) are created, the SQLite backend connected with
//!   its own options) or a server URL (the PostgreSQL backend, with its
//!   own). Either way it applies the numbered migrations, checks the key
//!   against the key-check value in `meta`, registers this handle as a live
//!   owner ([`Backend::register_owner`]) and runs the recovery pass.
//! * Every write is one backend write transaction that also appends its
//!   journal event; it commits only when the whole closure succeeds.
//! * Reads run in one short read transaction; none stays open across calls.
//! * The handle is `Send + Sync`.

mod check;
mod counts;
mod entry_meta;
pub mod copy;
mod recovery_key;
pub(crate) mod context_ext;
mod append_order;
mod group_commit;
mod redaction;
mod history;
pub mod journal;
pub(crate) mod sessions;
pub(crate) mod tokens;
pub(crate) mod transcript;
mod types;
pub mod preview;
mod writer;

pub use append_order::AppendTurn;
pub use check::CheckReport;
pub use copy::{CopyConflict, CopyReport};
pub use crate::backend::Location;
pub(crate) use sessions::check_title;
pub(crate) use writer::Writer;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::backend::sqlite::{SqliteBackend, SqliteOptions, DEFAULT_BUSY_TIMEOUT_MS};
use crate::backend::{Backend, ReadTx, Sealed, WriteTx};

pub use transcript::{call_keys, entry_kind, entry_shape, ACTIVITY_GRANULARITY_MS, DEFAULT_PAGE, MAX_PAGE};
pub use types::*;

/// Largest page `get_transcript` returns (for callers paging a whole session).
pub fn transcript_max_page() -> u32 {
    transcript::MAX_PAGE
}

use crate::crypto::{self, DataKey};
use crate::error::{Error, Result};
use crate::keys::{self, KeySource};
use crate::paths;

const KEY_CHECK_RECORD: &str = "meta:key-check";
const KEY_CHECK_PLAINTEXT: &[u8] = b"sessiondb key-check v1";

/// How to open a store.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Where the store lives: a database file or a server URL (a path or
    /// string converts, see [`Location`]); `None` = the default database
    /// file for `app` ([`paths::default_db_path`]).
    pub path: Option<Location>,
    /// App name: state directory name and credential-store service.
    pub app: String,
    /// Where the data key comes from.
    pub key: KeySource,
    /// SQLite `busy_timeout` in milliseconds, at most
    /// [`MAX_BUSY_TIMEOUT_MS`](crate::backend::sqlite::MAX_BUSY_TIMEOUT_MS)
    /// (SQLite holds it in a C `int`); above it [`SessionStore::open`] is
    /// `InvalidInput`. A server store waits as long for a connection.
    pub busy_timeout_ms: u64,
    /// Run the recovery pass at open (default true).
    pub recover: bool,
    /// Compress contents of [`crypto::COMPRESS_MIN_BYTES`] or more with zstd
    /// before encryption (envelope `v` = 2). `Some(false)`: every new
    /// envelope is `v` = 1, so stored lengths follow plaintext lengths and
    /// reveal nothing about what repeats inside an entry (SECURITY.md, "Size
    /// oracle"). `None` (default): the backend's default,
    /// [`default_compress`]: off for a database file and for a PostgreSQL
    /// server alike (since issue 30; a file written before keeps its `v` = 2
    /// envelopes). Either way both versions are read.
    pub compress: Option<bool>,
    /// Owner lease on a server backend, milliseconds (default
    /// [`DEFAULT_LEASE_MS`]): renewed by the handle every third of it; once
    /// it has expired (server time), another handle's recovery pass takes
    /// over this handle's open operations and fences it out. Unused by SQLite,
    /// whose owners hold a file lock for their whole life.
    pub lease_ms: u64,
    /// With [`KeySource::OsKeyring`] and no credential store on this
    /// machine (no D-Bus session bus or no Secret Service on it; never a
    /// locked or denying one), create a new database's key in a key file
    /// under the user's config home (`~/.config/<app>/keys/`, see
    /// [`crate::keys`]) with a warning, instead of failing with
    /// `KeyStoreUnavailable` (default true). The environment variable
    /// `SESSIONDB_NO_KEY_FILE=1` turns it off too. Databases whose key is
    /// in a key file open with it either way.
    pub key_file_fallback: bool,
    /// With [`KeySource::OsKeyring`] and a **new** database: keep its key in
    /// this existing key file (`<key dir>/<id>.key`, the
    /// [`SessionStore::key_file_id`] of another store) instead of the
    /// keyring or a new file, so both databases share one key (`sessiondb
    /// copy` to a new destination). Ignored for a database that exists (its
    /// `meta` decides). Default `None`. Errors at open: `InvalidInput` when
    /// that key file does not exist.
    pub key_file_id: Option<String>,
    /// Secret redaction (issue 30 item 2; [`crate::privacy::redact`]):
    /// `Off` (default), `OnExport` (exports and `copy` redact unless told
    /// not to) or `OnWrite` (content, entry metadata and items, and context
    /// extensions are redacted before sealing). A per-handle setting, like
    /// [`Self::compress`].
    pub redact: crate::privacy::RedactPolicy,
    /// A gitleaks-format rule file that extends the built-in rules
    /// ([`crate::privacy::RuleSet::with_user_file`]); `None`: the built-in
    /// rules. Read at open; errors there are `Io` / `InvalidInput`.
    pub redact_rules: Option<PathBuf>,
    /// A retention policy applied at open, after the recovery pass (issue
    /// 30 item 4: "runs only when asked or on open when set"): every session
    /// it selects is deleted with a `SessionDeleted` journal event, listed
    /// by [`SessionStore::open_pruned`]. `None` (default): nothing is
    /// deleted at open.
    pub retention: Option<crate::privacy::RetentionPolicy>,
    /// Longest line of a session file that this handle's imports keep, in
    /// bytes (issue 30 item 5, "bounded input"): a longer line is read past
    /// without being kept (reported `too_long` with its line number), so an
    /// import's memory stays near this bound whatever the file. `None`:
    /// [`DEFAULT_MAX_LINE_BYTES`] (64 MiB). Errors at open:
    /// `InvalidInput` outside `1 ..= `[`MAX_IMPORT_LINE_BYTES`], checked
    /// before anything is opened or created.
    pub max_line_bytes: Option<u64>,
}

/// The largest [`OpenOptions::max_line_bytes`] accepted: 1 GiB (a line is
/// held whole while it is parsed, and its JSON value beside it).
pub const MAX_IMPORT_LINE_BYTES: u64 = 1 << 30;

/// The default longest line the readers keep, in bytes (64 MiB): longer
/// lines are skipped and reported (`SkipReason::TooLong`); the default of
/// [`OpenOptions::max_line_bytes`] and of `portable::ReadOptions`
/// (re-exported as `portable::DEFAULT_MAX_LINE_BYTES`).
pub const DEFAULT_MAX_LINE_BYTES: u64 = 64 * 1024 * 1024;

/// Default [`OpenOptions::lease_ms`]: 30 seconds (declared at the storage
/// seam, where a server backend's owner lease lives).
pub use crate::backend::DEFAULT_LEASE_MS;

/// Whether a store compresses when [`OpenOptions::compress`] is `None`:
/// `false` for both a database file and a server URL (DESIGN.md "Privacy":
/// the PostgreSQL backend does not compress unless asked; a database file
/// kept compression on only if length-hiding closed the size oracle, and
/// Padmé padding does not against an adaptive attacker: SECURITY.md "Size
/// oracle", measured by `core/tests/privacy.rs`). `server` is kept so that
/// a later default can differ by backend.
pub fn default_compress(server: bool) -> bool {
    let _ = server;
    false
}

/// Is `location` a server URL (`postgres://...` or `postgresql://...`)
/// rather than a database file path? (The rule of [`Location`]'s `From`.)
pub fn is_server_url(location: &str) -> bool {
    crate::backend::is_server_url(location)
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            path: None,
            app: paths::DEFAULT_APP.to_string(),
            key: KeySource::OsKeyring,
            busy_timeout_ms: DEFAULT_BUSY_TIMEOUT_MS,
            recover: true,
            compress: None,
            lease_ms: DEFAULT_LEASE_MS,
            key_file_fallback: true,
            key_file_id: None,
            redact: Default::default(),
            redact_rules: None,
            retention: None,
            max_line_bytes: None,
        }
    }
}

impl OpenOptions {
    /// Options for a store at `path` (a database file path, or a server
    /// URL: see [`Location`]) with the given key source.
    pub fn at(path: impl Into<Location>, key: KeySource) -> Self {
        OpenOptions { path: Some(path.into()), key, ..Default::default() }
    }

    /// Options from a host binding's open call (Node's options object,
    /// Kotlin/Swift's constructors): each setting left out (`None`) keeps
    /// its default: `path` the default path for `app`, `app`
    /// [`paths::DEFAULT_APP`], `busy_timeout_ms` [`DEFAULT_BUSY_TIMEOUT_MS`]
    /// (milliseconds), `recover` true.
    pub fn for_host(path: Option<PathBuf>, app: Option<String>, key: KeySource, busy_timeout_ms: Option<u64>, recover: Option<bool>) -> Self {
        let d = OpenOptions::default();
        OpenOptions {
            path: path.map(Location::from),
            app: app.unwrap_or(d.app),
            key,
            busy_timeout_ms: busy_timeout_ms.unwrap_or(d.busy_timeout_ms),
            recover: recover.unwrap_or(d.recover),
            compress: d.compress,
            lease_ms: d.lease_ms,
            key_file_fallback: d.key_file_fallback,
            key_file_id: d.key_file_id,
            redact: d.redact,
            redact_rules: d.redact_rules,
            retention: d.retention,
            max_line_bytes: d.max_line_bytes,
        }
    }

    /// These options with [`OpenOptions::compress`] set to `compress`
    /// (`None`: the backend's default, [`default_compress`]); for the
    /// hosts' `compress` open option.
    pub fn with_compress(mut self, compress: Option<bool>) -> Self {
        self.compress = compress;
        self
    }

    /// These options with the hosts' `redact` / `redact_rules` open options
    /// (issue 30 item 2): `redact` is `off`, `on-export` or `on-write`
    /// ([`crate::privacy::RedactPolicy::parse`]; `None` keeps `off`),
    /// `redact_rules` a gitleaks-format TOML file of extra rules.
    /// Errors: `InvalidInput` naming the accepted policies.
    pub fn with_redact(mut self, redact: Option<&str>, redact_rules: Option<PathBuf>) -> crate::error::Result<Self> {
        if let Some(p) = redact {
            self.redact = crate::privacy::RedactPolicy::parse(p)?;
        }
        self.redact_rules = redact_rules;
        Ok(self)
    }
}

/// The encrypted session store. `Send + Sync`; share it behind an `Arc`.
pub struct SessionStore {
    backend: Box<dyn Backend>,
    key: DataKey,
    /// Where it lives (a server URL without its password).
    location: Location,
    key_backend: String,
    /// The key file holding the data key (key backend `file`).
    key_file: Option<PathBuf>,
    instance_id: String,
    envelope_json: String,
    /// Seal contents with compression ([`OpenOptions::compress`]).
    compress: bool,
    /// [`OpenOptions::redact`].
    redact: crate::privacy::RedactPolicy,
    /// The rules of [`OpenOptions::redact_rules`] (read at open), or `None`
    /// for the built-in ones.
    redact_rules: Option<std::sync::Arc<crate::privacy::RuleSet>>,
    /// The redactor, made at the first use.
    redactor: std::sync::OnceLock<crate::privacy::Redactor>,
    /// Secrets redacted on write by this handle since open.
    redacted: Mutex<crate::privacy::RedactionReport>,
    /// What [`OpenOptions::retention`] deleted at open.
    open_pruned: Vec<crate::privacy::PrunedSession>,
    /// [`OpenOptions::max_line_bytes`] or its default, in bytes.
    max_line_bytes: u64,
    /// The process that opened it: a forked child's appends are `Closed`.
    pid: u32,
    last_recovery: Mutex<journal::RecoveryReport>,
    /// Appends waiting for a group commit (see `group_commit::append_grouped`).
    appends: group_commit::AppendGroup,
    /// The tokenizer encoding of each session's model, as this handle read
    /// it (see `counts::SessionStore::session_encoding`).
    encodings: counts::EncodingCache,
    /// Test hook: the size of every group commit of appends.
    #[cfg(test)]
    group_sizes: Mutex<Vec<usize>>,
    /// What the search index keeps on this handle, opened at the first
    /// search: held without its type, so the store names no module above it.
    search: SearchSlot,
    /// Where a server store's search index lives on this client (`None`:
    /// beside the database file).
    search_dir: Option<PathBuf>,
}

impl std::fmt::Debug for SessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionStore").field("instance_id", &self.instance_id).finish_non_exhaustive()
    }
}

/// The slot in which the search index keeps its open state on a handle
/// (`None` until the first search).
pub(crate) type SearchSlot = Mutex<Option<Box<dyn std::any::Any + Send>>>;

/// Redact an entry's content (as JSON when `format` is `Blocks`) and its
/// metadata (`extra` and the item) in place with `r`; counts go to `rep`.
pub(crate) fn redact_entry(r: &crate::privacy::Redactor, format: ContentFormat, content: &mut String, meta: Option<&mut EntryMeta>, rep: &mut crate::privacy::RedactionReport) {
    let redacted = match format {
        ContentFormat::Text => r.redact_str(content, rep),
        ContentFormat::Blocks => r.redact_json_text(content, rep),
    };
    if let Some(c) = redacted {
        *content = c;
    }
    if let Some(m) = meta {
        if !m.extra.is_empty() {
            let mut extra = serde_json::Value::Object(std::mem::take(&mut m.extra));
            r.redact_json(&mut extra, rep);
            if let serde_json::Value::Object(o) = extra {
                m.extra = o;
            }
        }
        if let Some(item) = m.item.as_mut() {
            if let Some(x) = r.redact_json_text(item, rep) {
                *item = x;
            }
        }
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// What a write closure gets: the backend's transaction and the store's key
/// (the unit of work that importers and the store's own writes share).
pub(crate) struct Tx<'a> {
    pub tx: &'a dyn WriteTx,
    pub key: &'a DataKey,
    pub owner: &'a str,
    /// Plaintext journal `envelope_json` of this handle: `{"v":1,"owner":...}`.
    pub envelope_json: &'a str,
    /// Compress sealed contents ([`OpenOptions::compress`]).
    pub compress: bool,
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
        if let Some(n) = opts.max_line_bytes {
            if !(1..=MAX_IMPORT_LINE_BYTES).contains(&n) {
                return Err(Error::invalid(format!("max_line_bytes must be 1..={MAX_IMPORT_LINE_BYTES} bytes, got {n}")));
            }
        }
        match opts.path.clone() {
            Some(Location::Server(url)) => Self::open_server(&url, &opts),
            Some(Location::File(path)) => Self::open_file(Some(path), &opts),
            None => Self::open_file(None, &opts),
        }
    }

    /// Open the database file at `given` (`None`: the default path for
    /// `opts.app`) with the SQLite backend, its options checked first.
    fn open_file(given: Option<PathBuf>, opts: &OpenOptions) -> Result<Self> {
        let sqlite = SqliteOptions::new(opts.busy_timeout_ms)?;
        let instance_id = uuid::Uuid::now_v7().simple().to_string();
        let default_path = given.is_none();
        let path = match given {
            Some(p) => p,
            None => paths::default_db_path(&opts.app)?,
        };
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if default_path || !dir.exists() {
            paths::ensure_private_dir(dir)?;
        }
        let started = std::time::Instant::now();
        let (backend, resolved) =
            open_database(&path, &sqlite, opts, &instance_id).map_err(|e| crate::backend::sqlite::waited(e, sqlite.busy_timeout_ms, started))?;
        paths::restrict_db_files(&path)?;
        let backend: Box<dyn Backend> = Box::new(backend);
        backend.register_owner()?;
        Self::assemble(backend, resolved, Location::File(path), instance_id, opts)
    }

    /// Open the store at a `postgres://` / `postgresql://` URL
    /// (DESIGN.md "Backends"; the cargo feature `postgres`) with the
    /// PostgreSQL backend and its options. The same key
    /// rules as a database file: an initialised store (its key-check value
    /// is in `meta`) is opened with the key it was created with
    /// (`RecoveryLocked` without one, `KeyMismatch` with another); a new
    /// one gets its key and key-check value under the server's first-open
    /// advisory lock, so two clients creating it at once end with one key.
    #[cfg(feature = "postgres")]
    fn open_server(url: &str, opts: &OpenOptions) -> Result<Self> {
        use crate::backend::postgres::{self as pg, PgBackend, PgOptions};
        let pg_opts = PgOptions::new(opts.busy_timeout_ms, opts.lease_ms)?;
        let instance_id = uuid::Uuid::now_v7().simple().to_string();
        let timeout = pg_opts.timeout_ms;
        let backend = PgBackend::connect(url, &pg_opts, &instance_id)?;
        backend.migrate()?;
        let has_key_check = |b: &PgBackend| -> Result<bool> {
            let b: &dyn Backend = b;
            Ok(!matches!(b.read(|r| r.meta("key_check"))?, Sealed::Absent))
        };
        let resolve = |b: &PgBackend| -> Result<keys::ResolvedKey> {
            let state = key_state(b, has_key_check(b)?)?;
            let resolved = keys::resolve_key(&opts.key, &opts.app, &state, keys::key_file_fallback_allowed(opts.key_file_fallback), timeout)?;
            verify_or_init_key_check(b as &dyn Backend, &resolved)?;
            Ok(resolved)
        };
        let resolved = if has_key_check(&backend)? {
            resolve(&backend)?
        } else {
            // Another client may have initialised it while we waited.
            backend.with_first_open_lock(|| resolve(&backend))?
        };
        let backend: Box<dyn Backend> = Box::new(backend);
        backend.register_owner()?;
        let opts = &OpenOptions { compress: Some(opts.compress.unwrap_or(default_compress(true))), ..opts.clone() };
        Self::assemble(backend, resolved, Location::Server(pg::redact(url)), instance_id, opts)
    }

    /// A build without the `postgres` feature refuses server URLs.
    #[cfg(not(feature = "postgres"))]
    fn open_server(_url: &str, _opts: &OpenOptions) -> Result<Self> {
        Err(Error::invalid("this build of sessiondb has no PostgreSQL backend (cargo feature `postgres`); open a database file instead"))
    }

    /// The store over an open, migrated, key-checked backend; runs the
    /// recovery pass when `opts.recover`.
    fn assemble(backend: Box<dyn Backend>, resolved: keys::ResolvedKey, location: Location, instance_id: String, opts: &OpenOptions) -> Result<Self> {
        // A server store's index lives with this client, under the state
        // directory, named by a keyed hash of the (password-free) URL.
        let search_dir = match &location {
            Location::Server(url) => {
                let state = paths::default_db_path(&opts.app)?;
                let state = state.parent().map(Path::to_path_buf).unwrap_or_default();
                let name = &crypto::keyed_hash(&resolved.key, "search-index-location", url.as_bytes())[..32];
                Some(state.join("search").join(name))
            }
            Location::File(_) => None,
        };
        let redact_rules = match &opts.redact_rules {
            Some(p) => Some(std::sync::Arc::new(crate::privacy::RuleSet::with_user_file(p)?)),
            None => None,
        };
        let store = SessionStore {
            redact: opts.redact,
            redact_rules,
            redactor: Default::default(),
            redacted: Default::default(),
            open_pruned: Vec::new(),
            search: Default::default(),
            search_dir,
            backend,
            key: resolved.key,
            location,
            key_backend: resolved.backend,
            key_file: resolved.key_file,
            envelope_json: serde_json::json!({ "v": 1, "owner": instance_id }).to_string(),
            instance_id,
            compress: opts.compress.unwrap_or(default_compress(false)),
            max_line_bytes: opts.max_line_bytes.unwrap_or(DEFAULT_MAX_LINE_BYTES),
            pid: std::process::id(),
            last_recovery: Mutex::new(Default::default()),
            appends: Default::default(),
            encodings: Default::default(),
            #[cfg(test)]
            group_sizes: Mutex::new(Vec::new()),
        };
        let mut store = store;
        if opts.recover {
            let report = store.recover()?;
            *lock(&store.last_recovery) = report;
        }
        if let Some(policy) = &opts.retention {
            store.open_pruned = store.prune(policy, now_ms())?;
        }
        Ok(store)
    }

    /// The database file path.
    ///
    /// For a server store: its URL without the password, as a path.
    pub fn path(&self) -> &Path {
        self.location.as_path()
    }

    /// Where the store lives: its database file, or its server URL without
    /// the password.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// This handle's owner id (recorded on the operations it dispatches).
    pub fn instance_id(&self) -> &str {
        &self.instance_id
    }

    /// Which key backend the data key came from.
    ///
    /// The credential store's name (`Secret Service (D-Bus)`...), `file` (a key
    /// file: [`key_file`](Self::key_file)), `host-provided key bytes`, or the
    /// key provider's `backend_name`.
    pub fn key_backend(&self) -> &str {
        &self.key_backend
    }

    /// The key file holding the data key, when [`key_backend`](Self::key_backend) is `file`.
    pub fn key_file(&self) -> Option<&Path> {
        self.key_file.as_deref()
    }

    /// The id of [`key_file`](Self::key_file) (its name without `.key`), for
    /// [`OpenOptions::key_file_id`].
    pub fn key_file_id(&self) -> Option<&str> {
        self.key_file.as_deref().and_then(|p| p.file_stem()).and_then(|s| s.to_str())
    }

    /// The sessions [`OpenOptions::retention`] deleted at open (empty
    /// without a policy), oldest activity first within each reason.
    pub fn open_pruned(&self) -> &[crate::privacy::PrunedSession] {
        &self.open_pruned
    }

    /// The report of the recovery pass run at open.
    pub fn open_recovery_report(&self) -> journal::RecoveryReport {
        lock(&self.last_recovery).clone()
    }

    /// Close the handle: the connection is closed (checkpointing the WAL)
    /// and the owner lock released. Later calls fail with `Closed`.
    /// Closing twice is a no-op.
    ///
    /// Under an [`AppendTurn`] (Node's `close()`, issued while appends are
    /// in flight), it waits for its turn and for every queued append to be
    /// committed, and holds later turns until the handle is closed: the
    /// appends issued before it are stored, those issued after it fail
    /// with `Closed`, however the host's pool ran them.
    pub fn close(&self) {
        let _turn = group_commit::drain_in_turn(self);
        self.backend.close();
    }

    /// True once `close()` ran.
    pub fn is_closed(&self) -> bool {
        self.backend.is_closed()
    }

    /// Run `f` in one write transaction; commit only if it returns `Ok`.
    pub(crate) fn write<T>(&self, f: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
        self.backend.write(|tx| {
            f(&Tx { tx, key: &self.key, owner: &self.instance_id, envelope_json: &self.envelope_json, compress: self.compress })
        })
    }

    /// [`Self::write`] for an `f` that may run more than once, each run
    /// starting afresh ([`Backend::write_retryable_dyn`]): the append path,
    /// which a server writes in one statement.
    pub(crate) fn write_retryable<T>(&self, mut f: impl FnMut(&Tx<'_>) -> Result<T>) -> Result<T> {
        self.backend.write_retryable(|tx| {
            f(&Tx { tx, key: &self.key, owner: &self.instance_id, envelope_json: &self.envelope_json, compress: self.compress })
        })
    }

    /// Run `f` in one short read transaction.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&dyn ReadTx, &DataKey) -> Result<T>) -> Result<T> {
        self.backend.read(|tx| f(tx, &self.key))
    }

    /// Test hook: hold the backend, as a long write would.
    #[cfg(test)]
    pub(crate) fn lock_state(&self) -> Box<dyn crate::backend::Guard + '_> {
        self.backend.hold()
    }

    /// The backend (recovery asks it about owner liveness).
    pub(crate) fn backend(&self) -> &dyn Backend {
        &*self.backend
    }

    /// Schema version, counts and file sizes.
    ///
    /// Figures for `doctor`, the key backend included.
    pub fn stats(&self) -> Result<StoreStats> {
        let (schema_version, n) = self.read(|c, _| Ok((c.schema_version()?, c.counts()?)))?;
        let sizes = self.backend.sizes();
        Ok(StoreStats {
            path: self.path().to_string_lossy().into_owned(),
            key_backend: self.key_backend.clone(),
            key_file: self.key_file.as_ref().map(|p| p.to_string_lossy().into_owned()),
            schema_version,
            sessions: n.sessions,
            transcript_entries: n.transcript_entries,
            journal_events: n.journal_events,
            open_operations: n.open_operations,
            db_bytes: sizes.db_bytes,
            wal_bytes: sizes.wal_bytes,
        })
    }

    /// Longest session-file line its imports keep, in bytes
    /// ([`OpenOptions::max_line_bytes`]).
    pub fn max_line_bytes(&self) -> u64 {
        self.max_line_bytes
    }

    pub(crate) fn key(&self) -> &DataKey {
        &self.key
    }

    pub(crate) fn search_slot(&self) -> &SearchSlot {
        &self.search
    }

    pub(crate) fn search_dir(&self) -> Option<&Path> {
        self.search_dir.as_deref()
    }

    /// Whether new contents are compressed ([`OpenOptions::compress`]).
    pub(crate) fn compress(&self) -> bool {
        self.compress
    }

}


/// Decrypt the envelope `sealed` of `record_id` (`Absent` = `None`).
/// Errors: `Corrupt` (not an envelope, a number where an envelope
/// belongs), `AuthenticationFailed` (altered or moved), each naming the record.
pub(crate) fn open_sealed(key: &DataKey, sealed: &Sealed, record_id: &str) -> Result<Option<String>> {
    match sealed {
        Sealed::Absent => Ok(None),
        Sealed::Bytes(b) => crypto::open_bytes(key, record_id, b).map(Some),
        Sealed::NotBytes(ty) => {
            Err(Error::corrupt(format!("record `{record_id}` holds a {ty} value, not an EncryptedField envelope")))
        }
    }
}

/// [`open_sealed`] for a field that must be present.
pub(crate) fn open_required(key: &DataKey, sealed: &Sealed, record_id: &str) -> Result<String> {
    open_sealed(key, sealed, record_id)?.ok_or_else(|| Error::corrupt(format!("record `{record_id}` has no envelope")))
}

/// Lock a mutex, also after a panic in another holder (see [`crate::backend::lock`]).
pub(crate) use crate::backend::lock;

/// Connect, migrate and check the key (DESIGN.md "Keys").
///
/// An initialised database (its key-check value is stored) is opened
/// without a lock. Otherwise the rest runs under the backend's exclusive
/// first-open lock: read the key or create it, create the file, migrate and
/// write the key-check value, so two processes opening a new database at
/// once end with one key; the second reads the first's. A file that does
/// not exist is created only once a key is in hand.
fn open_database(path: &Path, sqlite: &SqliteOptions, opts: &OpenOptions, instance_id: &str) -> Result<(SqliteBackend, keys::ResolvedKey)> {
    let timeout = sqlite.busy_timeout_ms;
    let connect = || SqliteBackend::connect(path, sqlite, instance_id);
    let fallback = keys::key_file_fallback_allowed(opts.key_file_fallback);
    let init = |b: SqliteBackend, resolved: keys::ResolvedKey| -> Result<(SqliteBackend, keys::ResolvedKey)> {
        b.migrate()?;
        verify_or_init_key_check(&b as &dyn Backend, &resolved)?;
        Ok((b, resolved))
    };
    let finish = |b: SqliteBackend, has_data: bool| {
        let state = if has_data { key_state(&b, true)? } else { keys::DbKeyState { has_data: false, key_file_id: opts.key_file_id.clone() } };
        init(b, keys::resolve_key(&opts.key, &opts.app, &state, fallback, timeout)?)
    };
    let exists = || std::fs::metadata(path).map(|m| m.len() > 0).unwrap_or(false);
    if exists() {
        let b = connect()?;
        if b.has_key_check()? {
            return finish(b, true);
        }
    }
    let first_open = SqliteBackend::lock_first_open(path, sqlite)?;
    if exists() {
        let b = connect()?;
        if b.has_key_check()? {
            // Another process initialised it while we waited: nothing left to
            // create, so the rest (a key-store read) need not hold the lock.
            drop(first_open);
            return finish(b, true);
        }
        finish(b, false)
    } else {
        // No file until the key is in hand: a missing or locked key store creates nothing.
        let resolved = keys::resolve_key(&opts.key, &opts.app, &keys::DbKeyState { has_data: false, key_file_id: opts.key_file_id.clone() }, fallback, timeout)?;
        init(connect()?, resolved)
    }
}

/// What an initialised database says of its key before the key is read:
/// its `meta` `key_file` id (its key is in that key file).
/// Errors: `Corrupt` for a `key_file` value that is not text.
fn key_state(backend: &(dyn Backend + 'static), has_data: bool) -> Result<keys::DbKeyState> {
    let key_file_id = match backend.read(|r| r.meta(keys::KEY_FILE_META))? {
        Sealed::Absent => None,
        Sealed::Bytes(b) => Some(String::from_utf8(b).map_err(|_| Error::corrupt("the `key_file` meta value is not text"))?),
        Sealed::NotBytes(ty) => return Err(Error::corrupt(format!("the `key_file` meta value is a {ty}, not text"))),
    };
    Ok(keys::DbKeyState { has_data, key_file_id })
}

/// Check the resolved key against the stored key-check value, or store one
/// (a new database), with the id of the key file it created (`meta`
/// `key_file`) in the same transaction. Errors: `KeyMismatch`; `Corrupt`
/// for a stored value that is no envelope.
fn verify_or_init_key_check(backend: &(dyn Backend + 'static), resolved: &keys::ResolvedKey) -> Result<()> {
    let (key, key_backend) = (&resolved.key, &resolved.backend);
    let verify = |stored: Sealed| -> Result<bool> {
        let bytes = match stored {
            Sealed::Absent => return Ok(false),
            Sealed::Bytes(b) => b,
            Sealed::NotBytes(ty) => return Err(Error::corrupt(format!("the key-check value is a {ty}, not an envelope"))),
        };
        let json = std::str::from_utf8(&bytes).map_err(|_| Error::corrupt("the key-check value is not text"))?;
        let field = crypto::EncryptedField::from_json(json)
            .map_err(|_| Error::corrupt(format!("record `{KEY_CHECK_RECORD}` (the key-check value) is not an EncryptedField envelope")))?;
        match crypto::decrypt_field(key, KEY_CHECK_RECORD, &field) {
            Ok(p) if &p[..] == KEY_CHECK_PLAINTEXT => Ok(true),
            _ => Err(Error::KeyMismatch { backend: key_backend.to_string() }),
        }
    };
    // The common case reads only, so opening never waits for another writer.
    if verify(backend.read(|r| r.meta("key_check"))?)? {
        return Ok(());
    }
    backend.write(|w| {
        // Another process may have initialised it while we waited for the lock.
        if verify(w.meta("key_check")?)? {
            return Ok(());
        }
        let field = crypto::encrypt_field(key, KEY_CHECK_RECORD, KEY_CHECK_PLAINTEXT);
        w.put_meta("key_check", &field.to_json(), false)?;
        if let Some(id) = &resolved.new_key_file_id {
            w.put_meta(keys::KEY_FILE_META, id, false)?;
        }
        w.put_meta("created_at", &now_ms().to_string(), false)
    })
}

#[cfg(test)]
pub(crate) mod test_support;
