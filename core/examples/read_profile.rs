//! Profiling aid for the transcript read path: appends N 1 KiB entries one
//! commit each (like the bench), then times `get_transcript` against a raw
//! select+decrypt of the same rows in the same file.
//! Run: `cargo run --profile profiling -p sessiondb --example read_profile [-- N]` (release code with line tables for `perf record`).
use sessiondb::*;
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|v| v.parse().ok()).unwrap_or(10000);
    let dir = tempfile::tempdir().unwrap();
    let key = DataKey::from_bytes(&[1; 32]).unwrap();
    let s = SessionStore::open(OpenOptions::at(dir.path().join("s.db"), KeySource::Bytes(key.clone()))).unwrap();
    let id = s.create_session(None, None).unwrap().id;
    let body = "x".repeat(1024);
    for _ in 0..n {
        s.append_transcript(&id, Role::User, body.clone()).unwrap();
    }
    let c = rusqlite::Connection::open(dir.path().join("s.db")).unwrap();
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let v = s.get_transcript(&id, 1, n as u32).unwrap();
        let ours = t.elapsed();
        let t = std::time::Instant::now();
        let mut st = c.prepare_cached("SELECT seq, content_enc FROM transcript_entries WHERE session_id = ?1 ORDER BY seq").unwrap();
        let mut rows = st.query([&id]).unwrap();
        let mut total = 0;
        while let Some(r) = rows.next().unwrap() {
            let seq: i64 = r.get(0).unwrap();
            let env: String = r.get(1).unwrap();
            total += sessiondb::crypto::open_str(&key, &format!("transcript:{id}:{seq}:content"), &env).unwrap().len();
        }
        let raw = t.elapsed();
        eprintln!("get_transcript {} in {:?}; raw select+decrypt on the same file {} bytes in {:?}", v.len(), ours, total, raw);
    }
}
