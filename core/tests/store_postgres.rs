//! The store on the PostgreSQL backend (DESIGN.md "Backends"): the behaviour
//! suite and the conformance cases, plus what only a server shows: the
//! Citus key check on the catalog, no canary in a `pg_dump`, 8 client
//! processes appending with replayed event ids, two clients creating one
//! store, leases and fencing.
//!
//! Needs a server: run under `scripts/with-postgres.sh` (it exports
//! `SESSIONDB_TEST_PG_URL`, a superuser URL). Each test makes a database of
//! its own and drops it afterwards. Without the variable every test passes
//! after printing that it was skipped.
#![cfg(feature = "postgres")]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;

use sessiondb::*;

#[macro_use]
mod behaviour;

const URL_VAR: &str = "SESSIONDB_TEST_PG_URL";

fn key(b: u8) -> DataKey {
    DataKey::from_bytes(&[b; 32]).unwrap()
}

/// True (and says so) when no server is configured.
fn skip() -> bool {
    if std::env::var_os(URL_VAR).is_some() {
        return false;
    }
    eprintln!("skipped: {URL_VAR} is unset; run under scripts/with-postgres.sh to test the PostgreSQL backend");
    true
}

/// `url` with its database name replaced by `db`.
fn with_db(url: &str, db: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let (host, _) = base.rsplit_once('/').expect("a URL with a database");
    match query {
        Some(q) => format!("{host}/{db}?{q}"),
        None => format!("{host}/{db}"),
    }
}

/// A fresh database (dropped on drop) and a temp dir for workspace paths.
struct PgTemp {
    dir: tempfile::TempDir,
    admin: String,
    db: String,
}

impl PgTemp {
    fn path(&self) -> &std::path::Path {
        self.dir.path()
    }
}

impl Drop for PgTemp {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.db));
        }
    }
}

fn temp() -> (PgTemp, PathBuf) {
    let admin = std::env::var(URL_VAR).expect("SESSIONDB_TEST_PG_URL");
    let db = format!("sdb_{}", uuid_like());
    let mut c = postgres::Client::connect(&admin, postgres::NoTls).expect("connect to the test server");
    c.batch_execute(&format!("CREATE DATABASE \"{db}\"")).expect("create a test database");
    let url = with_db(&admin, &db);
    (PgTemp { dir: tempfile::tempdir().unwrap(), admin, db }, PathBuf::from(url))
}

fn uuid_like() -> String {
    use std::time::{SystemTime, UNIX_EPOCH};
    let n = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!("{:x}_{}_{}", n, std::process::id(), rand_u32())
}

fn rand_u32() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    N.fetch_add(1, Ordering::SeqCst)
}

fn open_at(url: &PathBuf, b: u8) -> SessionStore {
    SessionStore::open(OpenOptions::at(url, KeySource::Bytes(key(b)))).unwrap()
}

fn client(url: &PathBuf) -> postgres::Client {
    postgres::Client::connect(url.to_str().unwrap(), postgres::NoTls).unwrap()
}

// The behaviour suite and the conformance cases on PostgreSQL.
store_behaviour_suite!(temp, open_at, skip);

#[test]
fn every_primary_key_and_unique_constraint_leads_with_session_id() {
    if skip() {
        return;
    }
    let (_d, url) = temp();
    drop(open_at(&url, 1));
    let rows = client(&url)
        .query(
            "SELECT c.conrelid::regclass::text, c.conname, c.contype::text, a.attname::text
             FROM pg_constraint c
             JOIN pg_namespace n ON n.oid = c.connamespace AND n.nspname = 'public'
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
             WHERE c.contype IN ('p', 'u')
             ORDER BY 1, 2",
            &[],
        )
        .unwrap();
    // Unique indexes that are not constraints count too.
    let indexes = client(&url)
        .query(
            "SELECT i.indrelid::regclass::text, i.indexrelid::regclass::text, a.attname::text
             FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
             JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
             WHERE i.indisunique",
            &[],
        )
        .unwrap();
    let keys: Vec<(String, String, String, String)> = rows.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect();
    eprintln!("primary keys and unique constraints: {}", keys.len());
    for k in &keys {
        eprintln!("  {} {} ({}) leads with {}", k.0, k.1, k.2, k.3);
    }
    let bad: Vec<_> = keys.iter().filter(|k| k.3 != "session_id").collect();
    assert!(bad.is_empty(), "keys not led by session_id: {bad:?}");
    let bad_idx: Vec<(String, String, String)> =
        indexes.iter().map(|r| (r.get(0), r.get(1), r.get(2))).filter(|(_, _, c): &(String, String, String)| c != "session_id").collect();
    assert!(bad_idx.is_empty(), "unique indexes not led by session_id: {bad_idx:?}");
    let tables: i64 = client(&url)
        .query_one("SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'public'", &[])
        .unwrap()
        .get(0);
    let with_pk: i64 = client(&url)
        .query_one("SELECT COUNT(DISTINCT conrelid) FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public' AND contype = 'p'", &[])
        .unwrap()
        .get(0);
    assert_eq!(tables, with_pk, "every table has a primary key (Citus distributes by it)");
}

#[test]
fn a_pg_dump_holds_no_planted_canary() {
    if skip() {
        return;
    }
    let (d, url) = temp();
    let s = open_at(&url, 1);
    let ws = d.path().join("CANARY-path-pqtwz");
    std::fs::create_dir_all(&ws).unwrap();
    let a = s.create_session(Some("CANARY-title-kvrmx".into()), Some(ws.to_string_lossy().into())).unwrap();
    s.append_transcript(&a.id, Role::User, "CANARY-message-jhqsy ".repeat(40)).unwrap();
    s.append_transcript(&a.id, Role::Assistant, "CANARY-short-wxkpz".into()).unwrap();
    s.append_context_extension(&a.id, "artifact_manifest", r#"{"files":["CANARY-ext-zrtmq"]}"#).unwrap();
    s.journal_append(NewEvent {
        event_id: "ev-1".into(),
        session_id: a.id.clone(),
        kind: "Note".into(),
        operation_id: None,
        payload: serde_json::json!({"secret": "CANARY-payload-yvnkh"}),
    })
    .unwrap();
    s.append_entries_with_meta(
        &a.id,
        vec![(NewEntry::text(Role::User, "x"), EntryMeta { model: None, provider: None, extra: serde_json::from_str(r#"{"k":"CANARY-meta-qmzxw"}"#).unwrap(), item: None })],
    )
    .unwrap();
    let out = Command::new("pg_dump").arg("--no-owner").arg("-d").arg(url.to_str().unwrap()).output().expect("pg_dump runs");
    assert!(out.status.success(), "pg_dump: {}", String::from_utf8_lossy(&out.stderr));
    let dump = String::from_utf8_lossy(&out.stdout);
    // The canaries' marks use letters outside 0-9a-f: a hex-encoded
    // ciphertext in the dump cannot contain one by chance (the marks were
    // hex digits until a dump's random bytea held `4411`).
    assert!(dump.contains(&a.id), "the dump holds the session id (so it holds the rows)");
    for canary in ["CANARY", "canary", "pqtwz", "kvrmx", "jhqsy", "wxkpz", "zrtmq", "yvnkh", "qmzxw"] {
        assert!(!dump.contains(canary), "the dump holds `{canary}`");
    }
    eprintln!("pg_dump: {} bytes, no canary", dump.len());
}

#[test]
fn two_clients_creating_one_store_end_with_one_key() {
    if skip() {
        return;
    }
    let (_d, url) = temp();
    let url = Arc::new(url);
    let hs: Vec<_> = (0..6u8)
        .map(|i| {
            let url = url.clone();
            // Threads 0-2 bring key 1, threads 3-5 key 2.
            std::thread::spawn(move || SessionStore::open(OpenOptions::at(&*url, KeySource::Bytes(key(1 + i / 3)))).map(|s| s.instance_id().to_string()))
        })
        .collect();
    let results: Vec<_> = hs.into_iter().map(|h| h.join().unwrap()).collect();
    let ok = results.iter().filter(|r| r.is_ok()).count();
    let mismatch = results.iter().filter(|r| matches!(r, Err(e) if e.kind() == ErrorKind::KeyMismatch)).count();
    assert_eq!((ok, mismatch), (3, 3), "{results:?}");
    let migrations: Vec<i32> =
        client(&url).query("SELECT version FROM sessiondb_migrations ORDER BY version", &[]).unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(migrations, (1..=sessiondb::backend::postgres::schema::LATEST_VERSION).collect::<Vec<_>>(), "each migration applied once");
    assert_eq!(migrations.len(), 7);
    let checks: i64 = client(&url).query_one("SELECT COUNT(*) FROM meta WHERE key = 'key_check'", &[]).unwrap().get(0);
    assert_eq!(checks, 1);
}

#[test]
fn an_empty_store_without_a_key_is_initialised_but_an_initialised_one_is_recovery_locked() {
    if skip() {
        return;
    }
    let (_d, url) = temp();
    drop(open_at(&url, 1));
    let e = SessionStore::open(OpenOptions::at(&url, KeySource::Provider(Arc::new(NoKey)))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RecoveryLocked, "{e}");
    assert_eq!(SessionStore::open(OpenOptions::at(&url, KeySource::Bytes(key(2)))).unwrap_err().kind(), ErrorKind::KeyMismatch);
}

struct NoKey;
impl KeyProvider for NoKey {
    fn get_key(&self) -> Result<Option<Vec<u8>>> {
        Ok(None)
    }
    fn set_key(&self, _key: &[u8]) -> Result<()> {
        panic!("no key may be written for an initialised store")
    }
}

#[test]
fn a_server_url_is_redacted_in_path_and_a_bad_url_is_invalid_input() {
    if skip() {
        return;
    }
    let (_d, url) = temp();
    let with_password = url.to_str().unwrap().replacen("postgres@", "postgres:hunter2@", 1);
    let s = SessionStore::open(OpenOptions::at(&with_password, KeySource::Bytes(key(1)))).unwrap();
    assert!(!s.path().to_string_lossy().contains("hunter2"));
    assert!(!s.stats().unwrap().path.contains("hunter2"));
    let bad = SessionStore::open(OpenOptions::at("postgres://[::1", KeySource::Bytes(key(1)))).unwrap_err();
    assert_eq!(bad.kind(), ErrorKind::InvalidInput, "{bad}");
    let down = SessionStore::open(OpenOptions { busy_timeout_ms: 2000, ..OpenOptions::at("postgres://postgres@127.0.0.1:1/x?sslmode=disable", KeySource::Bytes(key(1))) })
        .unwrap_err();
    assert_eq!(down.kind(), ErrorKind::Io, "{down}");
}

/// Events per worker per session in the concurrent test.
const EVENTS: u64 = 40;
const WORKERS: usize = 8;
const SESSIONS: usize = 3;
const ENTRIES: u64 = 15;

/// The child side of the concurrent test: runs only with SESSIONDB_PG_WORKER set.
#[test]
fn worker_entry() {
    let Ok(w) = std::env::var("SESSIONDB_PG_WORKER") else { return };
    let w: u64 = w.parse().unwrap();
    let url = PathBuf::from(std::env::var("SESSIONDB_PG_WORKER_URL").unwrap());
    let s = open_at(&url, 1);
    let mut conflicts = 0;
    for n in 0..EVENTS {
        for si in 0..SESSIONS {
            // Every worker appends the same shared ids (in its own order: replays
            // racing with the first append) and one id of its own.
            let m = (n + w * 7) % EVENTS;
            let shared = NewEvent {
                event_id: format!("shared-{si}-{m}"),
                session_id: format!("s{si}"),
                kind: "Note".into(),
                operation_id: None,
                payload: serde_json::json!({ "n": m }),
            };
            s.journal_append(shared.clone()).unwrap();
            s.journal_append(NewEvent { event_id: format!("own-{w}-{si}-{n}"), ..shared.clone() }).unwrap();
            if n % 10 == 0 {
                let e = s.journal_append(NewEvent { payload: serde_json::json!({ "n": -1 }), ..shared }).unwrap_err();
                assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
                conflicts += 1;
            }
        }
        if n < ENTRIES {
            s.append_transcript("t0", Role::User, format!("w{w} n{n}")).unwrap();
        }
    }
    println!("worker {w} done, {conflicts} conflicts");
}

#[test]
fn eight_processes_append_with_replayed_event_ids_gapless_and_once() {
    if skip() {
        return;
    }
    let (_d, url) = temp();
    let s = open_at(&url, 1);
    s.create_session_with(NewSession { id: Some("t0".into()), ..Default::default() }).unwrap();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..WORKERS)
        .map(|w| {
            Command::new(&exe)
                .args(["--exact", "worker_entry", "--nocapture", "--test-threads=1"])
                .env("SESSIONDB_PG_WORKER", w.to_string())
                .env("SESSIONDB_PG_WORKER_URL", &url)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "worker failed: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("done, 12 conflicts"), "{}", String::from_utf8_lossy(&out.stdout));
    }
    for si in 0..SESSIONS {
        let ev = s.journal_events(&format!("s{si}"), 1, 100_000).unwrap();
        let expected = EVENTS as usize + WORKERS * EVENTS as usize;
        assert_eq!(ev.len(), expected, "each acknowledged event once in s{si}");
        assert_eq!(ev.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=expected as u64).collect::<Vec<_>>(), "gapless seqs in s{si}");
        let mut ids: Vec<_> = ev.iter().map(|e| e.event_id.clone()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), expected, "no duplicate event id");
        assert!(ev.iter().all(|e| e.payload["n"] != -1), "no conflicting payload was stored");
    }
    let t = s.get_transcript("t0", 1, 10_000).unwrap();
    assert_eq!(t.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=WORKERS as u64 * ENTRIES).collect::<Vec<_>>());
    // aggregate_version: unique store-wide and increasing with seq in every
    // session (a rolled-back conflict may leave a gap; no store-wide lock).
    let rows = client(&url).query("SELECT session_id, seq, aggregate_version FROM journal ORDER BY session_id, seq", &[]).unwrap();
    let all: Vec<(String, i64, i64)> = rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
    let mut versions: Vec<i64> = all.iter().map(|r| r.2).collect();
    versions.sort();
    versions.dedup();
    assert_eq!(versions.len(), all.len(), "aggregate_version unique store-wide");
    for w in all.windows(2) {
        if w[0].0 == w[1].0 {
            assert!(w[1].2 > w[0].2, "aggregate_version increases with seq in {}: {:?} then {:?}", w[0].0, w[0], w[1]);
        }
    }
}

/// `url` with `sslmode=disable` replaced by `mode` and, when given, the
/// `sslrootcert` parameter.
fn tls_url(url: &std::path::Path, mode: &str, ca: Option<&str>) -> PathBuf {
    let u = url.to_str().unwrap().replace("sslmode=disable", &format!("sslmode={mode}"));
    PathBuf::from(match ca {
        Some(ca) => format!("{u}&sslrootcert={ca}"),
        None => u,
    })
}

#[test]
fn tls_with_the_servers_ca_is_encrypted_and_a_wrong_ca_is_refused_with_a_typed_error() {
    if skip() {
        return;
    }
    let (Ok(ca), Ok(other)) = (std::env::var("SESSIONDB_TEST_PG_CA"), std::env::var("SESSIONDB_TEST_PG_OTHER_CA")) else {
        eprintln!("skipped: SESSIONDB_TEST_PG_CA unset (scripts/with-postgres.sh turns TLS on when openssl is installed)");
        return;
    };
    let (_d, url) = temp();
    // sslmode=require with the CA that signed the server's certificate.
    let s = open_at(&tls_url(&url, "require", Some(&ca)), 1);
    let a = s.create_session(Some("over tls".into()), None).unwrap();
    s.append_transcript(&a.id, Role::User, "hello".into()).unwrap();
    assert_eq!(s.get_transcript(&a.id, 1, 10).unwrap()[0].content, "hello");
    // Every connection of the store is encrypted: the server says so for
    // each of them (pg_stat_ssl joined to the backends of this database).
    let db = url.to_str().unwrap().rsplit_once('/').unwrap().1.split('?').next().unwrap().to_string();
    let rows = client(&url)
        .query(
            "SELECT s.ssl, s.version FROM pg_stat_ssl s JOIN pg_stat_activity a ON a.pid = s.pid
             WHERE a.datname = $1 AND a.application_name = 'sessiondb'",
            &[&db],
        )
        .unwrap();
    assert!(!rows.is_empty(), "the store's connections are listed");
    for r in &rows {
        let (ssl, version): (bool, Option<String>) = (r.get(0), r.get(1));
        assert!(ssl, "a store connection without TLS");
        assert!(version.as_deref().is_some_and(|v| v.starts_with("TLSv1.")), "{version:?}");
    }
    drop(s);
    // sslmode=require with another CA: refused before anything is sent, typed.
    let e = SessionStore::open(OpenOptions::at(tls_url(&url, "require", Some(&other)), KeySource::Bytes(key(1)))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    let text = e.to_string();
    assert!(text.contains("over TLS") && text.contains("sslrootcert"), "{text}");
    // Without sslrootcert the server's private CA is not among Mozilla's roots: refused too.
    let e = SessionStore::open(OpenOptions::at(tls_url(&url, "require", None), KeySource::Bytes(key(1)))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    assert!(e.to_string().contains("over TLS"), "{e}");
    // A sslrootcert that is not a PEM file of certificates: InvalidInput, naming it.
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "not a certificate").unwrap();
    let e = SessionStore::open(OpenOptions::at(tls_url(&url, "require", Some(junk.to_str().unwrap())), KeySource::Bytes(key(1)))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    assert!(e.to_string().contains("sslrootcert"), "{e}");
    // A missing file: Io.
    let e = SessionStore::open(OpenOptions::at(tls_url(&url, "require", Some("/nonexistent/ca.pem")), KeySource::Bytes(key(1)))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    // Nothing of the refused opens was stored: the one session is intact.
    let s = open_at(&tls_url(&url, "require", Some(&ca)), 1);
    assert_eq!(s.list_sessions(None).unwrap().len(), 1);
}

#[test]
fn an_expired_lease_is_recovered_and_its_owner_is_fenced() {
    if skip() {
        return;
    }
    let (_d, url) = temp();
    // The stale owner renews every 20 s; the live one every 100 ms.
    let stale = SessionStore::open(OpenOptions { lease_ms: 60_000, ..OpenOptions::at(&url, KeySource::Bytes(key(1))) }).unwrap();
    stale.dispatch_operation("s1", "op-stale", serde_json::json!({})).unwrap();
    let live = SessionStore::open(OpenOptions { lease_ms: 300, ..OpenOptions::at(&url, KeySource::Bytes(key(1))) }).unwrap();
    live.dispatch_operation("s1", "op-live", serde_json::json!({})).unwrap();
    // A lease renewed by its thread stays alive past its length.
    std::thread::sleep(std::time::Duration::from_millis(700));
    let third = open_at(&url, 1);
    assert_eq!(third.open_recovery_report().skipped_live, 2);
    // The stale owner stops renewing (as a paused process would): its lease
    // runs out by the server's clock.
    client(&url)
        .execute("UPDATE owners SET lease_expires_at = now() - interval '1 second' WHERE instance_id = $1", &[&stale.instance_id()])
        .unwrap();
    let r = third.recover().unwrap();
    assert_eq!(r.marked_unknown, vec![("s1".to_string(), "op-stale".to_string())]);
    assert_eq!(r.skipped_live, 1);
    // The stale owner comes back: a typed error, never a second terminal event.
    let e = stale.complete_operation("s1", "op-stale", OperationOutcome::Succeeded, serde_json::json!({})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
    assert_eq!(stale.create_session(None, None).unwrap_err().kind(), ErrorKind::Conflict, "a fenced handle writes nothing");
    let terminals: Vec<_> = third.journal_events("s1", 1, 100).unwrap().into_iter().filter(|e| e.operation_id.as_deref() == Some("op-stale") && e.kind != "EffectDispatchCommitted").collect();
    assert_eq!(terminals.len(), 1);
    assert_eq!(terminals[0].kind, "OperationUnknownOutcome");
    // The live owner still completes its own.
    live.complete_operation("s1", "op-live", OperationOutcome::Succeeded, serde_json::json!({})).unwrap();
}

#[test]
fn handles_recovering_one_gone_owner_at_once_mark_each_operation_once_and_report_no_failure() {
    if skip() {
        return;
    }
    let (_d, url) = temp();
    let gone = open_at(&url, 1);
    for i in 0..12 {
        gone.dispatch_operation(&format!("s{}", i % 3), &format!("op-{i}"), serde_json::json!({ "i": i })).unwrap();
    }
    // Closing deletes its owner row: the owner is gone, its operations open.
    drop(gone);
    let url = Arc::new(url);
    let barrier = Arc::new(std::sync::Barrier::new(4));
    let hs: Vec<_> = (0..4)
        .map(|_| {
            let (url, barrier) = (url.clone(), barrier.clone());
            std::thread::spawn(move || {
                let s = SessionStore::open(OpenOptions { recover: false, ..OpenOptions::at(&*url, KeySource::Bytes(key(1))) }).unwrap();
                barrier.wait();
                let r = s.recover().unwrap();
                (r.marked_unknown, r.failed)
            })
        })
        .collect();
    let mut marked = Vec::new();
    for h in hs {
        let (m, failed) = h.join().unwrap();
        assert!(failed.is_empty(), "a recovery pass that lost the race reports nothing failed: {failed:?}");
        marked.extend(m);
    }
    marked.sort();
    let mut expected: Vec<(String, String)> = (0..12).map(|i| (format!("s{}", i % 3), format!("op-{i}"))).collect();
    expected.sort();
    assert_eq!(marked, expected, "each operation marked once, by one of the passes");
    let s = open_at(&url, 1);
    for si in 0..3 {
        let ev = s.journal_events(&format!("s{si}"), 1, 100).unwrap();
        assert_eq!(ev.iter().filter(|e| e.kind == "OperationUnknownOutcome").count(), 4);
        assert_eq!(ev.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=8).collect::<Vec<_>>());
    }
    assert!(s.open_operations().unwrap().is_empty());
}

/// PostgreSQL migration 3 moves version 1-2's import records
/// (`import-rec:<sid>:<64 hex>` rows of `meta`) into `import_records`
/// without the key, and an import of the same file afterwards stores
/// nothing twice (as SQLite's migration 5).
#[test]
fn migration_3_moves_import_records_out_of_meta() {
    if skip() {
        return;
    }
    let (_d, url) = temp();
    let dir = tempfile::tempdir().unwrap();
    let sid = "sess-00000000000000dd";
    let turn = |role: &str, text: &str, ts: i64| serde_json::json!({"type": role, "content": [{"type": "text", "text": text}], "timestamp": ts}).to_string();
    let body = format!(
        "{}\n{}\n{}\n",
        format!(r#"{{"type":"header","id":"{sid}","model":"m","cwd":"/tmp/p","created_at":1700000000}}"#),
        turn("user", "one", 1),
        turn("assistant", "two", 2)
    );
    let file = dir.path().join("a.jsonl");
    std::fs::write(&file, &body).unwrap();
    let open = || SessionStore::open(OpenOptions::at(&url, KeySource::Bytes(key(1)))).unwrap();
    {
        let s = open();
        assert_eq!(portable::import_file(&s, &file, Some(portable::SourceFormat::Thclaws)).unwrap().sessions[0].entries, 2);
    }
    let mut c = client(&url);
    let ids: Vec<Vec<u8>> = c.query("SELECT record_id FROM import_records WHERE session_id = $1", &[&sid]).unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(ids.len(), 2);
    // Back to version 2's form.
    for id in &ids {
        let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
        c.execute("INSERT INTO meta (session_id, key, value) VALUES ('', $1, '1')", &[&format!("import-rec:{sid}:{hex}{}", "cd".repeat(16))]).unwrap();
    }
    c.batch_execute("DROP TABLE import_records; DELETE FROM sessiondb_migrations WHERE version >= 3;").unwrap();
    let s = open();
    let moved: Vec<(String, Vec<u8>)> =
        c.query("SELECT session_id, record_id FROM import_records ORDER BY record_id", &[]).unwrap().iter().map(|r| (r.get(0), r.get(1))).collect();
    let mut want: Vec<(String, Vec<u8>)> = ids.iter().map(|id| (sid.to_string(), id.clone())).collect();
    want.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(moved, want);
    let left: i64 = c.query_one("SELECT COUNT(*) FROM meta WHERE key LIKE 'import-rec:%'", &[]).unwrap().get(0);
    assert_eq!(left, 0);
    let copy = dir.path().join("b.jsonl");
    std::fs::write(&copy, &body).unwrap();
    let r = portable::import_file(&s, &copy, Some(portable::SourceFormat::Thclaws)).unwrap();
    assert_eq!((r.sessions[0].entries, r.sessions[0].skipped_already_stored), (0, 2));
}

/// Issue 30 "No size oracle": the PostgreSQL backend stores a 4 KiB body
/// uncompressed (envelope `v` = 1) unless asked; `compress: Some(true)`
/// still compresses (`v` = 2), `Some(false)` does not.
#[test]
fn the_server_does_not_compress_by_default_and_compresses_when_asked() {
    if skip() {
        return;
    }
    let body = "tool output line, repeated\n".repeat(152)[..4096].to_string();
    let mut got = Vec::new();
    for compress in [None, Some(true), Some(false)] {
        let (_d, url) = temp();
        let s = SessionStore::open(OpenOptions { compress, ..OpenOptions::at(&url, KeySource::Bytes(key(1))) }).unwrap();
        let a = s.create_session(None, None).unwrap();
        s.append_transcript(&a.id, Role::Tool, body.clone()).unwrap();
        assert_eq!(s.get_transcript(&a.id, 1, 1).unwrap()[0].content, body);
        let env: Vec<u8> = client(&url).query_one("SELECT content_enc FROM transcript_entries WHERE session_id = $1", &[&a.id]).unwrap().get(0);
        got.push(env[0]);
        drop(s);
    }
    assert_eq!(got, vec![1, 2, 1]);
}

/// Issue 33 item 5: an append to a session this handle appended to last is
/// one statement (`sessiondb_append`, in autocommit), read from the
/// server's statement log (`log_statement=all` on this handle's connections
/// only). When another handle appended in between, the call writes nothing
/// and the append is made again in a transaction (gapless, one event per
/// entry); a handle whose epoch was taken over is fenced on that path too.
#[test]
fn an_append_to_a_session_this_handle_wrote_last_is_one_statement() {
    if skip() {
        return;
    }
    let Some(log) = std::env::var_os("SESSIONDB_TEST_PG_LOG") else {
        eprintln!("skipped: SESSIONDB_TEST_PG_LOG is unset; run under scripts/with-postgres.sh");
        return;
    };
    let (_d, url) = temp();
    let u = url.to_str().unwrap();
    let logged = PathBuf::from(format!("{u}{}options=-c%20log_statement%3Dall", if u.contains('?') { '&' } else { '?' }));
    // A lease of an hour: its renewal never logs during the test.
    let a = SessionStore::open(OpenOptions { lease_ms: 3_600_000, ..OpenOptions::at(&logged, KeySource::Bytes(key(1))) }).unwrap();
    let b = open_at(&url, 1);
    let sid = a.create_session(None, None).unwrap().id;
    // The statements `a` sends while `f` runs (one log line each; a
    // statement's further lines and its parameters do not start with `LOG:`).
    let statements = |f: &dyn Fn()| -> Vec<String> {
        let before = std::fs::metadata(&log).unwrap().len() as usize;
        f();
        let text = std::fs::read(&log).unwrap();
        String::from_utf8_lossy(&text[before..])
            .lines()
            .filter_map(|l| l.split_once("LOG:  ").map(|(_, s)| s.to_string()))
            .filter(|s| s.starts_with("execute") || s.starts_with("statement:"))
            .collect()
    };
    // The first append learns the session, in a transaction.
    let first = statements(&|| assert_eq!(a.append_transcript(&sid, Role::User, "one".into()).unwrap().seq, 1));
    assert!(first.len() >= 6 && first.iter().any(|s| s.contains("FOR UPDATE")), "{first:#?}");
    for (n, text) in [(2, "two"), (3, "three"), (4, "four")] {
        let sent = statements(&|| assert_eq!(a.append_transcript(&sid, Role::User, text.into()).unwrap().seq, n));
        assert_eq!(sent.len(), 1, "{sent:#?}");
        assert!(sent[0].contains("FROM sessiondb_append("), "{sent:#?}");
    }
    // Another handle appends: `a`'s guess is stale, its call writes nothing
    // and the append goes in a transaction after `b`'s.
    assert_eq!(b.append_transcript(&sid, Role::User, "other".into()).unwrap().seq, 5);
    let sent = statements(&|| assert_eq!(a.append_transcript(&sid, Role::User, "six".into()).unwrap().seq, 6));
    assert!(sent[0].contains("FROM sessiondb_append("), "{sent:#?}");
    assert!(sent[1..].iter().any(|s| s.contains("FOR UPDATE")) && sent.last().unwrap().contains("COMMIT"), "{sent:#?}");
    let sent = statements(&|| assert_eq!(a.append_transcript(&sid, Role::User, "seven".into()).unwrap().seq, 7));
    assert_eq!(sent.len(), 1, "{sent:#?}");
    let texts: Vec<String> = b.get_transcript(&sid, 1, 100).unwrap().into_iter().map(|e| e.content).collect();
    assert_eq!(texts, ["one", "two", "three", "four", "other", "six", "seven"]);
    let events = b.journal_events(&sid, 1, 100).unwrap();
    let appended: Vec<u64> = events.iter().filter(|e| e.kind == "TranscriptAppended").map(|e| e.payload["from_seq"].as_u64().unwrap()).collect();
    assert_eq!(appended, (1..=7).collect::<Vec<_>>(), "one TranscriptAppended event per append");
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=events.len() as u64).collect::<Vec<_>>());
    // Fenced: another handle took `a`'s epoch; the one-statement append
    // writes nothing and says `Conflict`, as every later write.
    client(&url).execute("UPDATE owners SET epoch = epoch + 1 WHERE instance_id = $1", &[&a.instance_id()]).unwrap();
    assert_eq!(a.append_transcript(&sid, Role::User, "fenced".into()).unwrap_err().kind(), ErrorKind::Conflict);
    assert_eq!(a.append_transcript(&sid, Role::User, "fenced".into()).unwrap_err().kind(), ErrorKind::Conflict);
    assert_eq!(b.get_transcript(&sid, 1, 100).unwrap().len(), 7);
    assert!(b.check_records().unwrap().damaged.is_empty());
}

/// `sessiondb_append` (schema 5; schema 6 added `e_counted_tokens`) writes only when the caller's view of the
/// session holds, and a call sent again after a lost reply writes nothing
/// twice: `ok`, then `committed` for the same call, `stale` for another
/// call with the old view, `missing` for no such session.
#[test]
fn sessiondb_append_writes_only_on_the_view_it_was_given_and_once() {
    if skip() {
        return;
    }
    let (_d, url) = temp();
    let s = open_at(&url, 1);
    let sid = s.create_session(None, None).unwrap().id;
    drop(s);
    let mut c = client(&url);
    let updated_at: i64 = c.query_one("SELECT updated_at FROM sessions WHERE session_id = $1", &[&sid]).unwrap().get(0);
    let call = |c: &mut postgres::Client, sid: &str, seen_last: i64, event_id: &str| -> (String, Option<i64>) {
        let r = c
            .query_one(
                "SELECT status, cur_last_seq FROM sessiondb_append($1, $2, $3::BIGINT, NULL,
                   ARRAY[$3::BIGINT + 1], ARRAY['user'], ARRAY['text'], ARRAY[1::BIGINT], ARRAY[NULL::BIGINT], ARRAY[NULL::BIGINT],
                   ARRAY[NULL::TEXT], ARRAY[NULL::TEXT], ARRAY[1::BIGINT], ARRAY['text'], ARRAY[''], ARRAY['\\x00'::BYTEA], ARRAY[NULL::BYTEA],
                   $4, '', 'TranscriptAppended', '{}', '{}', 'now', FALSE, '', 0, ARRAY[NULL::BIGINT])",
                &[&sid, &updated_at, &seen_last, &event_id],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!(call(&mut c, &sid, 0, "e1").0, "ok");
    assert_eq!(call(&mut c, &sid, 0, "e1"), ("committed".to_string(), Some(1)));
    assert_eq!(call(&mut c, &sid, 0, "e2"), ("stale".to_string(), Some(1)));
    assert_eq!(call(&mut c, &sid, 1, "e2").0, "ok");
    assert_eq!(call(&mut c, "no-such-session", 0, "e3").0, "missing");
    let seqs: Vec<i64> = c.query("SELECT seq FROM transcript_entries WHERE session_id = $1 ORDER BY seq", &[&sid]).unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(seqs, [1, 2]);
    let events: Vec<String> = c.query("SELECT event_id FROM journal WHERE event_id LIKE 'e_' ORDER BY seq", &[]).unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(events, ["e1", "e2"]);
    let journal: Vec<i64> = c.query("SELECT seq FROM journal WHERE session_id = $1 ORDER BY seq", &[&sid]).unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(journal, (1..=journal.len() as i64).collect::<Vec<_>>(), "journal seqs gapless");
}

/// Schema 7: `sessiondb_append` writes an append of one entry with
/// `INSERT .. VALUES`, of several through `unnest`: both store every
/// column as given (NULLs included), with gapless seqs and one journal row
/// per call.
#[test]
fn sessiondb_append_stores_every_column_of_one_entry_and_of_several() {
    if skip() {
        return;
    }
    let (_d, url) = temp();
    let s = open_at(&url, 1);
    let sid = s.create_session(None, None).unwrap().id;
    drop(s);
    let mut c = client(&url);
    let u: i64 = c.query_one("SELECT updated_at FROM sessions WHERE session_id = $1", &[&sid]).unwrap().get(0);
    let call = |c: &mut postgres::Client, seen: i64, seen_last: i64, n: i64, event_id: &str| -> String {
        c.query_one(
            "SELECT status FROM sessiondb_append($1, $2::BIGINT, $3::BIGINT, $2::BIGINT + 1,
               ARRAY(SELECT $3::BIGINT + g FROM generate_series(1, $4::BIGINT) g),
               ARRAY(SELECT 'role' || g FROM generate_series(1, $4::BIGINT) g),
               ARRAY(SELECT 'fmt' || g FROM generate_series(1, $4::BIGINT) g),
               ARRAY(SELECT 100 + g FROM generate_series(1, $4::BIGINT) g),
               ARRAY(SELECT CASE WHEN g = 1 THEN NULL ELSE 200 + g END FROM generate_series(1, $4::BIGINT) g),
               ARRAY(SELECT 300 + g FROM generate_series(1, $4::BIGINT) g),
               ARRAY(SELECT 'model' || g FROM generate_series(1, $4::BIGINT) g),
               ARRAY(SELECT CASE WHEN g = 1 THEN NULL ELSE 'prov' || g END FROM generate_series(1, $4::BIGINT) g),
               ARRAY(SELECT 400 + g FROM generate_series(1, $4::BIGINT) g),
               ARRAY(SELECT 'kind' || g FROM generate_series(1, $4::BIGINT) g),
               ARRAY(SELECT 'keys' || g FROM generate_series(1, $4::BIGINT) g),
               ARRAY(SELECT decode(lpad(to_hex(g), 2, '0'), 'hex') FROM generate_series(1, $4::BIGINT) g),
               ARRAY(SELECT CASE WHEN g = 1 THEN NULL ELSE decode('ff', 'hex') END FROM generate_series(1, $4::BIGINT) g),
               $5, '', 'TranscriptAppended', '{}', '{}', 'now', FALSE, '', 0,
               ARRAY(SELECT 500 + g FROM generate_series(1, $4::BIGINT) g))",
            &[&sid, &seen, &seen_last, &n, &event_id],
        )
        .unwrap()
        .get(0)
    };
    assert_eq!(call(&mut c, u, 0, 1, "e1"), "ok");
    assert_eq!(call(&mut c, u + 1, 1, 2, "e2"), "ok");
    assert_eq!(call(&mut c, u + 2, 3, 1, "e3"), "ok");
    assert_eq!(call(&mut c, u + 2, 3, 1, "e3"), "committed");
    let rows: Vec<String> = c
        .query(
            "SELECT concat_ws('|', seq, role, format, created_at, coalesce(tokens::text, '-'), source_line, model, coalesce(provider, '-'),
                    content_bytes, kind, call_keys, encode(content_enc, 'hex'), coalesce(encode(meta_enc, 'hex'), '-'), counted_tokens)
             FROM transcript_entries WHERE session_id = $1 ORDER BY seq",
            &[&sid],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        rows,
        [
            "1|role1|fmt1|101|-|301|model1|-|401|kind1|keys1|01|-|501",
            "2|role1|fmt1|101|-|301|model1|-|401|kind1|keys1|01|-|501",
            "3|role2|fmt2|102|202|302|model2|prov2|402|kind2|keys2|02|ff|502",
            "4|role1|fmt1|101|-|301|model1|-|401|kind1|keys1|01|-|501",
        ]
    );
    let journal: Vec<(i64, String)> =
        c.query("SELECT seq, event_id FROM journal WHERE session_id = $1 AND event_id LIKE 'e_' ORDER BY seq", &[&sid]).unwrap().iter().map(|r| (r.get(0), r.get(1))).collect();
    let first = journal[0].0;
    assert_eq!(journal, [(first, "e1".to_string()), (first + 1, "e2".to_string()), (first + 2, "e3".to_string())]);
    let updated: i64 = c.query_one("SELECT updated_at FROM sessions WHERE session_id = $1", &[&sid]).unwrap().get(0);
    assert_eq!(updated, u + 3);
    // A database of schema 6 (its function, no record of 7) is migrated at
    // open, and appends go on from where they were.
    let body = |c: &mut postgres::Client| -> String { c.query_one("SELECT prosrc FROM pg_proc WHERE proname = 'sessiondb_append'", &[]).unwrap().get(0) };
    assert!(body(&mut c).contains("cardinality(e_seq) = 1"));
    let v6 = sessiondb::backend::postgres::schema::MIGRATIONS.iter().find(|m| m.version == 6).unwrap();
    c.batch_execute(v6.sql).unwrap();
    c.batch_execute("DELETE FROM sessiondb_migrations WHERE version >= 7").unwrap();
    assert!(!body(&mut c).contains("cardinality"));
    let s = open_at(&url, 1);
    assert!(body(&mut c).contains("cardinality(e_seq) = 1"));
    let versions: Vec<i32> = c.query("SELECT version FROM sessiondb_migrations ORDER BY version", &[]).unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(versions, (1..=7).collect::<Vec<_>>());
    assert_eq!(s.append_transcript(&sid, Role::User, "five".into()).unwrap().seq, 5);
    assert_eq!(s.append_transcript(&sid, Role::User, "six".into()).unwrap().seq, 6);
}

/// Issue 33 item 7 on PostgreSQL: `counted_tokens` holds the count of the
/// session model's encoding (`tokens × 4 + code`) from a first append (a
/// transaction), a second one (the one-statement `sessiondb_append` path),
/// `append_entries` and an import; NULL for a host count.
#[test]
fn write_time_counts_are_stored_exactly() {
    if skip() {
        return;
    }
    const CJK: &str = "日本語のテキストと中文文本, 한국어 텍스트";
    const MIXED: &str = "١٢٣ مرحبا بالعالم שלום עולם Привет, мир!";
    let (d, url) = temp();
    let s = open_at(&url, 1);
    let id = s.create_session_with(NewSession { model: Some("gpt-4o".into()), ..Default::default() }).unwrap().id;
    s.append_transcript(&id, Role::User, CJK.into()).unwrap();
    s.append_transcript(&id, Role::Assistant, MIXED.into()).unwrap();
    s.append_entries(&id, vec![NewEntry::text(Role::User, "hello world"), NewEntry { tokens: Some(7), ..NewEntry::text(Role::User, CJK) }]).unwrap();
    s.set_session_model(&id, Some("gpt-4".into()), None).unwrap();
    s.append_transcript(&id, Role::User, CJK.into()).unwrap();
    let stored = |sid: &str| -> Vec<Option<i64>> {
        client(&url).query("SELECT counted_tokens FROM transcript_entries WHERE session_id = $1 ORDER BY seq", &[&sid]).unwrap().iter().map(|r| r.get(0)).collect()
    };
    assert_eq!(stored(&id), [Some(15 * 4 + 1), Some(14 * 4 + 1), Some(2 * 4 + 1), None, Some(21 * 4 + 2)]);
    let file = d.path().join("t.jsonl");
    let lines = [
        serde_json::json!({"type": "header", "id": "imp-1", "model": "openai/gpt-4o", "cwd": "/w", "created_at": 1778930901}),
        serde_json::json!({"type": "user", "content": [{"type": "text", "text": CJK}], "timestamp": 1778930902}),
        serde_json::json!({"type": "assistant", "content": [{"type": "text", "text": MIXED}], "timestamp": 1778930903}),
    ];
    std::fs::write(&file, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
    let sid = portable::import_file(&s, &file, None).unwrap().sessions[0].session_id.clone();
    let expected: Vec<Option<i64>> = s
        .get_transcript(&sid, 1, 10)
        .unwrap()
        .iter()
        .map(|e| Some(sessiondb::context::count_tokens("gpt-4o", &e.content, None).tokens as i64 * 4 + 1))
        .collect();
    assert_eq!(expected.len(), 2);
    assert_eq!(stored(&sid), expected);
}
