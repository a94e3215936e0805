//! Issue 33 item 1: a single append against the matched design floor, for
//! instruction counts (callgrind, `scripts/bench-append.sh`).
//!
//! `append_floor MODE N` opens a new database in a temporary
//! directory, creates one session and appends N entries of 1 KiB of text
//! (words, as a user turn is), each in its own transaction:
//! - `store`: `SessionStore::append_transcript` (the defaults: compression
//!   off, redaction off).
//! - `floor`: what the design needs of an append and nothing else, in plain
//!   rusqlite with the store's pragmas (`PAGE_SIZE` 1 KiB pages, WAL,
//!   `synchronous=NORMAL`, the same cache size, no checkpoint inside a
//!   commit, secure_delete) and cached statements: `BEGIN IMMEDIATE`; the
//!   content sealed with AES-256-GCM under a fresh random nonce and its
//!   record id as AAD (`crypto::seal`, as the store does); the entry row
//!   with its seq allocated in the statement; the seed's journal row (seed
//!   000, the `journal` DDL: event id, session seq, aggregate version, a
//!   small payload and envelope); the session's activity time; `COMMIT`.
//!
//! - `store-zstd`: `store` with `OpenOptions::compress` on.
//! - `store-read`, `floor-read`: then read every entry back (the store's
//!   `get_transcript` in pages of 1,000; the floor's one query in seq
//!   order, each content opened into a `String`, after a full checkpoint).
//!
//! The script subtracts the N = 0 run (open, create) and compares
//! instructions per append; N stays small enough (≤ 200) that the WAL
//! stays under the store's 4 MiB checkpoint threshold, so no checkpoint
//! runs in either.
#[path = "common/floor_db.rs"]
mod floor_db;
use sessiondb::*;

fn text(i: usize) -> String {
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"];
    let mut s = String::with_capacity(1100);
    let mut k = i;
    while s.len() < 1024 {
        s.push_str(words[k % words.len()]);
        s.push(' ');
        k = k * 7 + 3;
    }
    s.truncate(1024);
    s
}

fn store(dir: &std::path::Path, n: usize, compress: bool, read: bool) {
    let opts = OpenOptions { compress: Some(compress), ..OpenOptions::at(dir.join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[7; 32]).unwrap())) };
    let s = SessionStore::open(opts).unwrap();
    let a = s.create_session(None, None).unwrap();
    for i in 0..n {
        s.append_transcript(&a.id, Role::User, text(i)).unwrap();
    }
    if read {
        assert_eq!(read_all_store(&s, &a.id), n);
    }
}

/// Every entry, in pages of 1,000 (the store's page limit); the count.
#[inline(never)]
fn read_all_store(s: &SessionStore, sid: &str) -> usize {
    let (mut from, mut count) = (1, 0);
    loop {
        let page = s.get_transcript(sid, from, 1000).unwrap();
        let Some(last) = page.last() else { return count };
        from = last.seq + 1;
        count += page.len();
    }
}

const FLOOR_SCHEMA: &str = "
CREATE TABLE sessions (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE entries (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL, created_at INTEGER NOT NULL,
  content_enc BLOB NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
CREATE TABLE journal (
  event_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, seq INTEGER NOT NULL, aggregate_version INTEGER NOT NULL,
  operation_id TEXT NOT NULL DEFAULT '', payload_kind TEXT NOT NULL, payload_json TEXT NOT NULL,
  envelope_json TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE(session_id, seq));
";

/// What the floor reads back after its appends.
#[derive(Clone, Copy, PartialEq)]
enum FloorRead {
    None,
    /// `seq` and the content (`read_all_floor`).
    Content,
    /// The fields of an entry of the design's row: seq, role, creation
    /// time and content (`read_all_floor_entries`), as a store read
    /// returns them.
    Entries,
}

fn floor(dir: &std::path::Path, n: usize, read: FloorRead) {
    let key = DataKey::from_bytes(&[7; 32]).unwrap();
    let mut c = floor_db::open(&dir.join("f.db"));
    c.execute_batch(FLOOR_SCHEMA).unwrap();
    let sid = uuid::Uuid::now_v7().to_string();
    c.execute("INSERT INTO sessions (id, created_at, updated_at) VALUES (?1, 0, 0)", [&sid]).unwrap();
    for i in 0..n {
        let body = text(i);
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
        let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
        let seq: i64 = tx.prepare_cached("SELECT COALESCE(MAX(seq), 0) + 1 FROM entries WHERE session_id = ?1").unwrap().query_row([&sid], |r| r.get(0)).unwrap();
        let sealed = crypto::seal(&key, &format!("transcript:{sid}:{seq}:content"), body.as_bytes(), false);
        tx.prepare_cached("INSERT INTO entries (session_id, seq, role, created_at, content_enc) VALUES (?1, ?2, 'user', ?3, ?4)")
            .unwrap()
            .execute(rusqlite::params![sid, seq, now, sealed])
            .unwrap();
        let event_id = uuid::Uuid::now_v7().to_string();
        // The aggregate version is the row's rowid (an O(log n) seek, no
        // extra index), as the store does.
        let version: i64 = tx.prepare_cached("SELECT COALESCE(MAX(rowid), 0) + 1 FROM journal").unwrap().query_row([], |r| r.get(0)).unwrap();
        tx.prepare_cached(
            "INSERT INTO journal (rowid, event_id, session_id, seq, aggregate_version, payload_kind, payload_json, envelope_json, created_at)
             VALUES (?1, ?2, ?3, (SELECT COALESCE(MAX(seq), 0) + 1 FROM journal WHERE session_id = ?3), ?1, 'TranscriptAppended', ?4, '{}', ?5)",
        )
        .unwrap()
        .execute(rusqlite::params![version, event_id, sid, format!("{{\"seq\":{seq}}}"), now.to_string()])
        .unwrap();
        tx.prepare_cached("UPDATE sessions SET updated_at = ?2 WHERE id = ?1").unwrap().execute(rusqlite::params![sid, now]).unwrap();
        tx.commit().unwrap();
    }
    if read != FloorRead::None {
        // The store's checkpoint thread copies its WAL back as it grows;
        // the floor reads after a full checkpoint (an empty WAL: the
        // harder floor).
        let _: (i64, i64, i64) = c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap();
        match read {
            FloorRead::Entries => assert_eq!(read_all_floor_entries(&c, &key, &sid).len(), n),
            _ => assert_eq!(read_all_floor(&c, &key, &sid).len(), n),
        }
    }
}

/// Every entry in seq order, each opened (authenticated, decrypted) into a
/// `String`.
#[inline(never)]
fn read_all_floor(c: &rusqlite::Connection, key: &DataKey, sid: &str) -> Vec<String> {
    let mut q = c.prepare_cached("SELECT seq, content_enc FROM entries WHERE session_id = ?1 ORDER BY seq").unwrap();
    let mut rows = q.query([sid]).unwrap();
    let mut out = Vec::new();
    let mut aad = String::new();
    while let Some(r) = rows.next().unwrap() {
        let seq: i64 = r.get(0).unwrap();
        let sealed = r.get_ref(1).unwrap().as_blob().unwrap();
        let plain = crypto::open_any(key, content_aad(&mut aad, sid, seq), sealed).unwrap();
        out.push(String::from_utf8(plain.to_vec()).unwrap());
    }
    out
}

/// The content record id `transcript:<sid>:<seq>:content` in `buf`,
/// without `format!` (as the store builds its AADs).
fn content_aad<'a>(buf: &'a mut String, sid: &str, seq: i64) -> &'a str {
    buf.clear();
    buf.push_str("transcript:");
    buf.push_str(sid);
    buf.push(':');
    crypto::push_decimal(buf, seq as u64);
    buf.push_str(":content");
    buf
}

/// Every entry in seq order with its role (parsed, as the store checks
/// it), creation time and opened content.
#[inline(never)]
fn read_all_floor_entries(c: &rusqlite::Connection, key: &DataKey, sid: &str) -> Vec<(i64, Role, i64, String)> {
    let mut q = c.prepare_cached("SELECT seq, role, created_at, content_enc FROM entries WHERE session_id = ?1 ORDER BY seq").unwrap();
    let mut rows = q.query([sid]).unwrap();
    let mut out = Vec::new();
    let mut aad = String::new();
    while let Some(r) = rows.next().unwrap() {
        let seq: i64 = r.get(0).unwrap();
        let role = Role::parse(r.get_ref(1).unwrap().as_str().unwrap()).unwrap();
        let created_at: i64 = r.get(2).unwrap();
        let sealed = r.get_ref(3).unwrap().as_blob().unwrap();
        let plain = crypto::open_any(key, content_aad(&mut aad, sid, seq), sealed).unwrap();
        out.push((seq, role, created_at, String::from_utf8(plain.to_vec()).unwrap()));
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(2).and_then(|x| x.parse().ok()).unwrap_or(200);
    let d = tempfile::tempdir().unwrap();
    match args.get(1).map(String::as_str) {
        Some("store") => store(d.path(), n, false, false),
        Some("store-zstd") => store(d.path(), n, true, false),
        Some("store-read") => store(d.path(), n, false, true),
        Some("floor") => floor(d.path(), n, FloorRead::None),
        Some("floor-read") => floor(d.path(), n, FloorRead::Content),
        Some("floor-read-entries") => floor(d.path(), n, FloorRead::Entries),
        _ => panic!("usage: append_floor store|store-zstd|store-read|floor|floor-read|floor-read-entries N"),
    }
}
