//! The PostgreSQL backend (DESIGN.md "Backends"), behind the cargo feature
//! `postgres`.
//!
//! * A pool of synchronous `postgres` connections (`r2d2`, [`POOL_SIZE`] per
//!   handle), each with its own cache of prepared statements (one round
//!   trip per statement instead of two). TLS by rustls whenever the URL's
//!   `sslmode` asks for it (`prefer`, the default, uses TLS when the server
//!   offers it; `require` insists; `disable` never). The server's
//!   certificate is always verified: against Mozilla's roots
//!   (`webpki-roots`), or against the PEM file named by the URL parameter
//!   `sslrootcert=PATH` (a private CA, a self-signed server).
//! * Every read is one `REPEATABLE READ READ ONLY` transaction (a consistent
//!   snapshot). Every write is one `READ COMMITTED` transaction that locks
//!   only the rows of the sessions it writes: each session's transcript
//!   seqs are allocated under its `sessions` row lock (`SELECT ... FOR
//!   UPDATE`) and its journal seqs under its `journal_heads` row lock
//!   (`INSERT ... ON CONFLICT DO UPDATE`), never from a SQL sequence, so
//!   they are gapless per session while writers of different sessions go
//!   in parallel. (Until schema 2 every write also locked one store-wide
//!   row, which made all writers of a server take turns: ~500 appends/s
//!   for 8 clients.) `aggregate_version` comes from the SQL sequence
//!   `journal_version`: unique store-wide, increasing with `seq` within a
//!   session, with gaps where a transaction rolled back; across sessions
//!   it orders allocation, not commit. A host-given event id is checked
//!   for store-wide uniqueness under a transaction advisory lock on its
//!   hash, so two writers of one id take turns and the second finds the
//!   first's event.
//! * Writers of several sessions in one transaction may deadlock with
//!   another such writer; the server breaks the cycle and the loser gets
//!   `Busy` (nothing written; retry).
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

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use postgres::{IsolationLevel, Statement};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{lock, Backend, ReadTx, StorageSizes, WriteTx};
use crate::error::{Error, Result};

/// One pooled connection and the statements prepared on it (keyed by
/// their SQL text; a fixed set, so the cache stays small).
pub(crate) struct PgConn {
    pub(crate) client: postgres::Client,
    stmts: HashMap<String, Statement>,
}

impl std::ops::Deref for PgConn {
    type Target = postgres::Client;
    fn deref(&self) -> &postgres::Client {
        &self.client
    }
}

impl std::ops::DerefMut for PgConn {
    fn deref_mut(&mut self) -> &mut postgres::Client {
        &mut self.client
    }
}

/// The connection manager: rustls for TLS, an empty statement cache per
/// new connection.
pub(crate) struct Manager {
    config: postgres::Config,
    tls: MakeRustlsConnect,
}

impl r2d2::ManageConnection for Manager {
    type Connection = PgConn;
    type Error = postgres::Error;

    fn connect(&self) -> std::result::Result<PgConn, postgres::Error> {
        Ok(PgConn { client: self.config.connect(self.tls.clone())?, stmts: HashMap::new() })
    }

    fn is_valid(&self, c: &mut PgConn) -> std::result::Result<(), postgres::Error> {
        c.client.simple_query("").map(|_| ())
    }

    fn has_broken(&self, c: &mut PgConn) -> bool {
        c.client.is_closed()
    }
}

/// A pool of connections.
pub(crate) type Pool = r2d2::Pool<Manager>;

/// Connections per handle (r2d2 `max_size`).
pub const POOL_SIZE: u32 = 4;
/// Default lease of an owner, milliseconds (the seam's [`super::DEFAULT_LEASE_MS`]).
pub use super::DEFAULT_LEASE_MS;

/// Largest connect timeout, milliseconds: the store's bound on its
/// `busy_timeout_ms` (about 24.8 days; a longer wait would overflow the
/// pool's deadline arithmetic).
pub const MAX_TIMEOUT_MS: u64 = i32::MAX as u64;

/// How a server store is opened: the PostgreSQL backend's own options (the
/// store's `OpenOptions` hands them over).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PgOptions {
    /// How long to wait for a connection (connect and pool), milliseconds
    /// (at most [`MAX_TIMEOUT_MS`]), unless the URL sets `connect_timeout`.
    pub timeout_ms: u64,
    /// This handle's owner lease, milliseconds ([`DEFAULT_LEASE_MS`] by
    /// default): renewed every third of it.
    pub lease_ms: u64,
}

impl PgOptions {
    /// Options with this timeout and lease (milliseconds).
    /// Errors: `InvalidInput` for a timeout above [`MAX_TIMEOUT_MS`].
    pub fn new(timeout_ms: u64, lease_ms: u64) -> Result<PgOptions> {
        if timeout_ms > MAX_TIMEOUT_MS {
            return Err(Error::invalid(format!("busy_timeout_ms {timeout_ms} is above {MAX_TIMEOUT_MS} (about 24.8 days)")));
        }
        Ok(PgOptions { timeout_ms, lease_ms })
    }
}

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

/// The URL parameter naming a PEM file of CA certificates to trust
/// instead of Mozilla's roots (libpq's name for it).
pub const SSLROOTCERT_PARAM: &str = "sslrootcert";

/// `url` without its `sslrootcert=PATH` parameter (the `postgres` crate
/// refuses parameters it does not know), and that path, percent-decoded.
/// Errors: `InvalidInput` (the parameter given twice or empty).
fn split_root_cert(url: &str) -> Result<(String, Option<String>)> {
    let Some((base, query)) = url.split_once('?') else { return Ok((url.to_string(), None)) };
    let mut kept = Vec::new();
    let mut path = None;
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some((k, v)) if k == SSLROOTCERT_PARAM => {
                let v = percent_decode(v);
                if v.is_empty() || path.replace(v).is_some() {
                    return Err(Error::invalid("`sslrootcert` must name one PEM file of CA certificates"));
                }
            }
            _ => kept.push(pair),
        }
    }
    let url = if kept.is_empty() { base.to_string() } else { format!("{base}?{}", kept.join("&")) };
    Ok((url, path))
}

/// `%XX` sequences decoded (a path in a URL query); other bytes as they are.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Some(x) = std::str::from_utf8(&b[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(x);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The most bytes of an `sslrootcert` file read (16 MiB: Mozilla's whole
/// bundle is about 0.2 MiB), so a path naming `/dev/zero` or a huge file
/// cannot exhaust memory (issue 30 item 5).
pub const MAX_ROOT_CERT_BYTES: u64 = 16 << 20;

/// The trusted roots: the certificates of the PEM file `root_cert`, or
/// Mozilla's roots. At most [`MAX_ROOT_CERT_BYTES`] (and one more) are
/// read. Errors: `Io` (the file cannot be read), `InvalidInput` (not a
/// regular file, over the bound, no PEM certificate, or one rustls refuses).
fn roots(root_cert: Option<&str>) -> Result<rustls::RootCertStore> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::CertificateDer;
    use std::io::Read;
    let Some(path) = root_cert else { return Ok(rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() }) };
    let io = |e| Error::io("reading the `sslrootcert` file of CA certificates", e);
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(Error::invalid("the `sslrootcert` file is not a regular file (a FIFO or a device)"));
    }
    let mut pem = Vec::new();
    std::fs::File::open(path).and_then(|f| f.take(MAX_ROOT_CERT_BYTES + 1).read_to_end(&mut pem)).map_err(io)?;
    if pem.len() as u64 > MAX_ROOT_CERT_BYTES {
        return Err(Error::invalid(format!("the `sslrootcert` file is over {MAX_ROOT_CERT_BYTES} bytes")));
    }
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem)
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| Error::invalid("the `sslrootcert` file is not valid PEM"))?;
    if certs.is_empty() {
        return Err(Error::invalid("the `sslrootcert` file holds no PEM certificate (-----BEGIN CERTIFICATE-----)"));
    }
    let mut store = rustls::RootCertStore::empty();
    for c in certs {
        store.add(c).map_err(|e| Error::invalid(format!("the `sslrootcert` file holds a certificate rustls cannot use: {e}")))?;
    }
    Ok(store)
}

fn tls(roots: rustls::RootCertStore) -> MakeRustlsConnect {
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
    lease_ms: u64,
    lease: Mutex<Option<owners::Lease>>,
    fenced: Arc<AtomicBool>,
    /// The process that connected: in a forked child the pooled sockets are
    /// the parent's, so every call there is `Closed`.
    pid: u32,
    /// What this handle knows of the sessions it appended to, for
    /// one-statement appends ([`Backend::write_retryable_dyn`]).
    hints: rows::Hints,
}

impl std::fmt::Debug for PgBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgBackend").field("url", &redact(&self.url)).field("instance_id", &self.instance_id).finish_non_exhaustive()
    }
}

impl PgBackend {
    /// Connect to the server at `url` (one connection is made now, so a
    /// wrong URL, a server that is down or a certificate that is not
    /// trusted fails here, with the reason), waiting at most `timeout_ms`
    /// for a connection. Nothing is migrated yet. `url` may carry
    /// `sslrootcert=PATH` (see the module docs).
    /// Errors: `InvalidInput` (not a valid URL, a bad `sslrootcert` file),
    /// `Io` (unreachable, refused, TLS refused: the step names it).
    pub(crate) fn connect(url: &str, opts: &PgOptions, instance_id: &str) -> Result<PgBackend> {
        let timeout_ms = opts.timeout_ms;
        let (pg_url, root_cert) = split_root_cert(url)?;
        let mut config: postgres::Config =
            pg_url.parse().map_err(|_| Error::invalid("not a valid PostgreSQL URL (postgres://user[:password]@host[:port]/database[?options])"))?;
        // `postgres://` and `postgres://@/` parse, then fail to connect as a
        // `Database` error ("invalid configuration"): it is the URL that is wrong.
        if config.get_hosts().is_empty() {
            return Err(Error::invalid("the PostgreSQL URL names no host (postgres://user[:password]@host[:port]/database[?options])"));
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_millis(timeout_ms.max(1)));
        }
        if config.get_application_name().is_none() {
            config.application_name("sessiondb");
        }
        let manager = Manager { config, tls: tls(roots(root_cert.as_deref())?) };
        // Fail now, with the server's own reason, when it cannot be reached
        // (through the pool, a refused connection would be retried until
        // the timeout and reported without its reason).
        drop(r2d2::ManageConnection::connect(&manager)?);
        let pool = r2d2::Pool::builder()
            .max_size(POOL_SIZE)
            .min_idle(Some(0))
            .connection_timeout(Duration::from_millis(timeout_ms.max(1)))
            .test_on_check_out(false)
            .build_unchecked(manager);
        Ok(PgBackend {
            pool: Mutex::new(Some(pool)),
            url: url.to_string(),
            instance_id: instance_id.to_string(),
            timeout_ms,
            lease_ms: opts.lease_ms,
            lease: Mutex::new(None),
            fenced: Arc::new(AtomicBool::new(false)),
            pid: std::process::id(),
            hints: Mutex::new(HashMap::new()),
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
    fn with_tx(
        &self,
        level: IsolationLevel,
        read_only: bool,
        body: impl FnOnce(postgres::Transaction<'_>, &mut HashMap<String, Statement>) -> Result<()>,
    ) -> Result<()> {
        let mut attempts = 0;
        loop {
            let mut c = self.conn()?;
            let PgConn { client, stmts } = &mut *c;
            let e = match client.build_transaction().isolation_level(level).read_only(read_only).start() {
                Ok(tx) => return body(tx, stmts),
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
        schema::migrate(&mut self.conn()?.client)
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

    /// The epoch this handle holds, once registered.
    fn epoch(&self) -> Option<i64> {
        lock(&self.lease).as_ref().map(|l| l.epoch)
    }

    /// One write transaction running `f`; `learn`: keep what it saw of the
    /// sessions it locked in [`rows::Hints`] once committed.
    fn write_tx(&self, f: &mut dyn FnMut(&dyn WriteTx) -> Result<()>, learn: bool) -> Result<()> {
        if self.fenced.load(Ordering::SeqCst) {
            return Err(owners::fenced_error());
        }
        let epoch = self.epoch();
        let mut learned = Vec::new();
        self.with_tx(IsolationLevel::ReadCommitted, false, |tx, stmts| {
            let mut t = rows::PgTx::new(tx, stmts, true, learn.then_some(&self.hints));
            // The fence is checked by the statement that inserts a journal
            // event (one round trip fewer per write); a write without an
            // event checks it before its commit.
            if let Some(epoch) = epoch {
                t.owner = Some(rows::Owner { instance_id: &self.instance_id, epoch, fenced: &self.fenced });
            }
            f(&t)?;
            t.check_fence_before_commit()?;
            learned = t.learned();
            t.commit()
        })?;
        if !learned.is_empty() {
            let mut h = lock(&self.hints);
            for (sid, updated_at, last) in learned {
                if h.len() >= rows::MAX_HINTS {
                    h.clear();
                }
                h.insert(sid, (updated_at, last));
            }
        }
        Ok(())
    }

    /// Send a speculative append as one `sessiondb_append` call in
    /// autocommit. A connection found closed is replaced and the call sent
    /// again (as at `BEGIN` in [`Self::with_tx`]): if the first one was
    /// committed after all, the second finds its event id and answers
    /// `committed`, so nothing is written twice.
    /// Errors: `Conflict` (fenced), those of the statement.
    fn append_one_statement(&self, spec: &rows::Spec) -> Result<Appended> {
        const SQL: &str = "SELECT status, cur_updated_at, cur_last_seq FROM sessiondb_append(
            $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27)";
        let (sid, ev) = (spec.sid.as_deref().expect("a session"), spec.event.as_ref().expect("an event"));
        let (instance, epoch, fence) = match self.epoch() {
            Some(e) => (self.instance_id.as_str(), e, true),
            None => ("", 0, false),
        };
        let c = &spec.entries;
        let seen_last = spec.seen.1.min(i64::MAX as u64) as i64;
        let params: [&(dyn postgres::types::ToSql + Sync); 27] = [
            &sid,
            &spec.seen.0,
            &seen_last,
            &spec.new_updated_at,
            &c.seq,
            &c.role,
            &c.format,
            &c.created_at,
            &c.tokens,
            &c.source_line,
            &c.model,
            &c.provider,
            &c.content_bytes,
            &c.kind,
            &c.call_keys,
            &c.content,
            &c.meta,
            &ev.event_id,
            &ev.operation_id,
            &ev.kind,
            &ev.payload,
            &ev.envelope,
            &ev.created_at,
            &fence,
            &instance,
            &epoch,
            &c.counted_tokens,
        ];
        let mut attempts = 0;
        let row = loop {
            let mut c = self.conn()?;
            let PgConn { client, stmts } = &mut *c;
            let sent = match stmts.get(SQL) {
                Some(st) => Ok(st.clone()),
                None => client.prepare(SQL).inspect(|st| {
                    stmts.insert(SQL.to_string(), st.clone());
                }),
            }
            .and_then(|st| client.query_one(&st, &params));
            match sent {
                Ok(row) => break row,
                Err(e) => {
                    attempts += 1;
                    if !(e.is_closed() || client.is_closed()) || attempts > POOL_SIZE {
                        return Err(e.into());
                    }
                }
            }
        };
        let status: &str = row.try_get(0)?;
        match status {
            "ok" => {
                let last = spec.seen.1 + c.seq.len() as u64;
                let mut h = lock(&self.hints);
                h.insert(sid.to_string(), (spec.new_updated_at.unwrap_or(spec.seen.0), last));
                Ok(Appended::Done)
            }
            "committed" => {
                lock(&self.hints).remove(sid);
                Ok(Appended::Done)
            }
            "fenced" => owners::fence_unless(false, &self.fenced).map(|()| Appended::Done),
            // `stale`, `missing`: nothing written.
            _ => Ok(Appended::Retry),
        }
    }
}

/// The outcome of [`PgBackend::append_one_statement`].
enum Appended {
    /// Committed.
    Done,
    /// Nothing written: the closure runs again in a transaction.
    Retry,
}

impl Backend for PgBackend {
    /// Register this handle as a live owner with the lease of its options
    /// ([`PgOptions::lease_ms`]), renewed by a background thread ([`owners::Lease`]).
    fn register_owner(&self) -> Result<()> {
        let lease = owners::Lease::start(self.pool()?, &self.instance_id, self.lease_ms, self.fenced.clone())?;
        *lock(&self.lease) = Some(lease);
        Ok(())
    }

    fn read_dyn(&self, f: &mut dyn FnMut(&dyn ReadTx) -> Result<()>) -> Result<()> {
        self.with_tx(IsolationLevel::RepeatableRead, true, |tx, stmts| {
            let t = rows::PgTx::new(tx, stmts, false, None);
            f(&t)?;
            t.commit()
        })
    }

    fn write_dyn(&self, f: &mut dyn FnMut(&dyn WriteTx) -> Result<()>) -> Result<()> {
        self.write_tx(f, false)
    }

    /// An append (`f` may run more than once): first without a transaction,
    /// answered from what this handle knows of the session
    /// ([`rows::Hints`]: its `updated_at` and last seq as this handle's last
    /// append to it committed them), its rows sent as one `sessiondb_append`
    /// call in autocommit, which writes them only if those answers still
    /// hold under the session's row lock (`schema::V5`). One round trip
    /// instead of six. When the handle knows nothing of the session, or
    /// another writer changed it since, or the closure does anything else,
    /// nothing was written and `f` runs again in a transaction
    /// ([`Backend::write_dyn`]), from which the handle learns the session.
    fn write_retryable_dyn(&self, f: &mut dyn FnMut(&dyn WriteTx) -> Result<()>) -> Result<()> {
        if self.fenced.load(Ordering::SeqCst) {
            return Err(owners::fenced_error());
        }
        let mut none = HashMap::new();
        let t = rows::PgTx::speculative(&mut none, &self.hints);
        let out = f(&t);
        let spec = t.into_spec();
        if !spec.aborted {
            out?;
            let (Some(sid), Some(_)) = (&spec.sid, &spec.event) else {
                // Nothing asked of the server, nothing to write.
                if spec.sid.is_none() {
                    return Ok(());
                }
                return self.write_tx(f, true);
            };
            match self.append_one_statement(&spec)? {
                Appended::Done => return Ok(()),
                Appended::Retry => {
                    super::lock(&self.hints).remove(sid);
                }
            }
        }
        self.write_tx(f, true)
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
            Ok(mut c) => owners::is_alive_or_fence(&mut c.client, instance_id),
            // Unreachable server: nothing can be judged gone.
            Err(_) => true,
        }
    }

    fn sweep_owners(&self) {
        if let Ok(mut c) = self.conn() {
            owners::sweep(&mut c.client, self.timeout_ms);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sslrootcert_is_taken_out_of_the_url_and_percent_decoded() {
        let (url, ca) = split_root_cert("postgres://u@h:5/db?sslmode=require&sslrootcert=%2Fetc%2Fca%20x.pem&application_name=a").unwrap();
        assert_eq!(url, "postgres://u@h:5/db?sslmode=require&application_name=a");
        assert_eq!(ca.as_deref(), Some("/etc/ca x.pem"));
        let (url, ca) = split_root_cert("postgres://u@h/db?sslrootcert=/a.pem").unwrap();
        assert_eq!((url.as_str(), ca.as_deref()), ("postgres://u@h/db", Some("/a.pem")));
        assert_eq!(split_root_cert("postgres://u@h/db").unwrap(), ("postgres://u@h/db".to_string(), None));
        assert_eq!(split_root_cert("postgres://u@h/db?sslrootcert=/a&sslrootcert=/b").unwrap_err().kind(), crate::ErrorKind::InvalidInput);
        assert_eq!(split_root_cert("postgres://u@h/db?sslrootcert=").unwrap_err().kind(), crate::ErrorKind::InvalidInput);
        // A lone or malformed escape is kept as it is.
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("a%zz%41"), "a%zzA");
    }
}
