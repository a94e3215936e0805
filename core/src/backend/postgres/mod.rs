//! The PostgreSQL backend (DESIGN.md "Backends"), behind the cargo feature
//! `postgres`.
//!
//! * A pool of synchronous `postgres` connections (`r2d2`); TLS by rustls
//!   (Mozilla's roots from `webpki-roots`) whenever the URL's `sslmode`
//!   asks for it (`prefer`, the default, uses TLS when the server offers it;
//!   `require` insists; `disable` never).
//! * Every read is one `REPEATABLE READ READ ONLY` transaction (a consistent
//!   snapshot). Every write is one `READ COMMITTED` transaction that first
//!   locks the store-wide journal head (`journal_heads` row `''`): writers
//!   take turns as SQLite's `BEGIN IMMEDIATE` makes them, so
//!   `aggregate_version` is the store-wide commit order, gapless, and no two
//!   writers can deadlock. Inside it, each session's journal seq is
//!   allocated under that session's `journal_heads` row lock and its
//!   transcript seqs under its `sessions` row lock (`SELECT ... FOR
//!   UPDATE`), never from a SQL sequence.
//! * Owner liveness across machines ([`owners`]): a lease in the `owners`
//!   table, judged by the server's clock (`now()`), renewed by a background
//!   thread of the handle, with an epoch that fences an owner whose lease
//!   was judged expired: its later writes fail with `Conflict`.
//! * First open: the key-check value is created under a session-level
//!   advisory lock ([`schema::FIRST_OPEN_LOCK`]), so two clients creating a
//!   new store end with one key.

mod error;
pub mod owners;
mod rows;
pub mod schema;

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use postgres::IsolationLevel;
use r2d2_postgres::PostgresConnectionManager;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{lock, Backend, ReadTx, StorageSizes, WriteTx};
use crate::error::{Error, Result};

/// The connection manager: rustls for TLS.
type Manager = PostgresConnectionManager<MakeRustlsConnect>;
/// A pool of connections.
pub(crate) type Pool = r2d2::Pool<Manager>;

/// Connections per handle (r2d2 `max_size`).
pub const POOL_SIZE: u32 = 4;
/// Default lease of an owner, milliseconds ([`crate::store::DEFAULT_LEASE_MS`]).
pub const DEFAULT_LEASE_MS: u64 = crate::store::DEFAULT_LEASE_MS;

/// `url` with any password replaced by `***` (for `path()`, `stats()` and logs).
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let (auth, host) = match rest.split_once('@') {
        Some((a, h)) if !a.contains('/') => (a, h),
        _ => return url.to_string(),
    };
    match auth.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => format!("{scheme}://{auth}@{host}"),
    }
}

fn tls() -> MakeRustlsConnect {
    let roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring supports the default TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    MakeRustlsConnect::new(config)
}

/// An open PostgreSQL store: its pool and this handle's lease.
pub struct PgBackend {
    pool: Mutex<Option<Pool>>,
    url: String,
    instance_id: String,
    timeout_ms: u64,
    lease: Mutex<Option<owners::Lease>>,
    fenced: Arc<AtomicBool>,
    /// The process that connected: in a forked child the pooled sockets are
    /// the parent's, so every call there is `Closed`.
    pid: u32,
}

impl std::fmt::Debug for PgBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgBackend").field("url", &redact(&self.url)).field("instance_id", &self.instance_id).finish_non_exhaustive()
    }
}

impl PgBackend {
    /// Connect to the server at `url` (one connection is made now, so a
    /// wrong URL or a server that is down fails here), waiting at most
    /// `timeout_ms` for a connection. Nothing is migrated yet.
    /// Errors: `InvalidInput` (not a valid URL), `Io` (unreachable, refused, TLS).
    pub(crate) fn connect(url: &str, timeout_ms: u64, instance_id: &str) -> Result<PgBackend> {
        let mut config: postgres::Config =
            url.parse().map_err(|_| Error::invalid("not a valid PostgreSQL URL (postgres://user[:password]@host[:port]/database[?options])"))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_millis(timeout_ms.max(1)));
        }
        if config.get_application_name().is_none() {
            config.application_name("sessiondb");
        }
        // A writer that stops half-way (a frozen client) holds the writer
        // lock; the server ends such a transaction after this long.
        let manager = PostgresConnectionManager::new(config, tls());
        let pool = r2d2::Pool::builder()
            .max_size(POOL_SIZE)
            .min_idle(Some(0))
            .connection_timeout(Duration::from_millis(timeout_ms.max(1)))
            .test_on_check_out(false)
            .build_unchecked(manager);
        // Fail now, with the server's own reason, when it cannot be reached.
        let first = pool.get()?;
        drop(first);
        Ok(PgBackend {
            pool: Mutex::new(Some(pool)),
            url: url.to_string(),
            instance_id: instance_id.to_string(),
            timeout_ms,
            lease: Mutex::new(None),
            fenced: Arc::new(AtomicBool::new(false)),
            pid: std::process::id(),
        })
    }

    fn pool(&self) -> Result<Pool> {
        if std::process::id() != self.pid {
            return Err(Error::Closed);
        }
        lock(&self.pool).clone().ok_or(Error::Closed)
    }

    /// A pooled connection; `Io` when the server cannot be reached in time.
    fn conn(&self) -> Result<r2d2::PooledConnection<Manager>> {
        Ok(self.pool()?.get()?)
    }

    /// Run `body` in a transaction on a pooled connection. A connection
    /// found closed when the transaction begins (the server restarted, an
    /// idle connection was cut), before anything was sent but `BEGIN`, is
    /// dropped and a fresh one is taken: the next call after a restart
    /// reconnects instead of failing.
    fn with_tx(&self, level: IsolationLevel, read_only: bool, body: impl FnOnce(postgres::Transaction<'_>) -> Result<()>) -> Result<()> {
        let mut attempts = 0;
        loop {
            let mut c = self.conn()?;
            let e = match c.build_transaction().isolation_level(level).read_only(read_only).start() {
                Ok(tx) => return body(tx),
                Err(e) => e,
            };
            attempts += 1;
            if !(e.is_closed() || c.is_closed()) || attempts > POOL_SIZE {
                return Err(e.into());
            }
        }
    }

    /// Apply every numbered migration ([`schema::migrate`]).
    pub(crate) fn migrate(&self) -> Result<i32> {
        schema::migrate(&mut *self.conn()?)
    }

    /// Run `f` while holding the first-open advisory lock (a session-level
    /// lock on a connection of its own, released when `f` returns).
    pub(crate) fn with_first_open_lock<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let mut c = self.conn()?;
        c.execute("SELECT pg_advisory_lock($1)", &[&schema::FIRST_OPEN_LOCK])?;
        let out = f();
        let unlocked = c.execute("SELECT pg_advisory_unlock($1)", &[&schema::FIRST_OPEN_LOCK]);
        let out = out?;
        unlocked?;
        Ok(out)
    }

    /// Register this handle as a live owner with a lease of `lease_ms`,
    /// renewed by a background thread ([`owners::Lease`]).
    pub(crate) fn register_owner(&self, lease_ms: u64) -> Result<()> {
        let lease = owners::Lease::start(self.pool()?, &self.instance_id, lease_ms, self.fenced.clone())?;
        *lock(&self.lease) = Some(lease);
        Ok(())
    }

    /// The epoch this handle holds, once registered.
    fn epoch(&self) -> Option<i64> {
        lock(&self.lease).as_ref().map(|l| l.epoch)
    }
}

impl Backend for PgBackend {
    fn read_dyn(&self, f: &mut dyn FnMut(&dyn ReadTx) -> Result<()>) -> Result<()> {
        self.with_tx(IsolationLevel::RepeatableRead, true, |tx| {
            let t = rows::PgTx { tx: RefCell::new(tx), write: false };
            f(&t)?;
            t.tx.into_inner().commit()?;
            Ok(())
        })
    }

    fn write_dyn(&self, f: &mut dyn FnMut(&dyn WriteTx) -> Result<()>) -> Result<()> {
        if self.fenced.load(Ordering::SeqCst) {
            return Err(owners::fenced_error());
        }
        let epoch = self.epoch();
        self.with_tx(IsolationLevel::ReadCommitted, false, |mut tx| {
            // The store-wide writer lock (see the module docs).
            tx.execute("SELECT last_seq FROM journal_heads WHERE session_id = '' FOR UPDATE", &[])?;
            if let Some(epoch) = epoch {
                owners::check_epoch(&mut tx, &self.instance_id, epoch, &self.fenced)?;
            }
            let t = rows::PgTx { tx: RefCell::new(tx), write: true };
            f(&t)?;
            t.tx.into_inner().commit()?;
            Ok(())
        })
    }

    fn close(&self) {
        let lease = lock(&self.lease).take();
        if let Some(lease) = lease {
            lease.release();
        }
        lock(&self.pool).take();
    }

    fn is_closed(&self) -> bool {
        lock(&self.pool).is_none()
    }

    fn owner_is_alive(&self, instance_id: &str) -> bool {
        match self.conn() {
            Ok(mut c) => owners::is_alive_or_fence(&mut *c, instance_id),
            // Unreachable server: nothing can be judged gone.
            Err(_) => true,
        }
    }

    fn sweep_owners(&self) {
        if let Ok(mut c) = self.conn() {
            owners::sweep(&mut *c, self.timeout_ms);
        }
    }

    fn sizes(&self) -> StorageSizes {
        let db = self
            .conn()
            .and_then(|mut c| Ok(c.query_one("SELECT pg_database_size(current_database())", &[])?.get::<_, i64>(0)))
            .unwrap_or(0);
        StorageSizes { db_bytes: db.max(0) as u64, wal_bytes: 0 }
    }

    #[cfg(test)]
    fn hold(&self) -> Box<dyn super::Guard + '_> {
        Box::new(lock(&self.pool))
    }
}

impl Drop for PgBackend {
    fn drop(&mut self) {
        if std::process::id() == self.pid {
            self.close();
        } else {
            // A forked child: closing would end the parent's connections
            // (each sends Terminate on its socket) and delete its lease.
            std::mem::forget(lock(&self.pool).take());
            std::mem::forget(lock(&self.lease).take());
        }
    }
}
