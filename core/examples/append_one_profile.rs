//! Profiling aid for single appends (one transaction each), as bindings do.
//! Run: `cargo run --profile profiling -p sessiondb --example append_one_profile [-- N]` (release code with line tables for `perf record`).
use sessiondb::*;
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|v| v.parse().ok()).unwrap_or(10000);
    let dir = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions::at(dir.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap()))).unwrap();
    let id = s.create_session(None, None).unwrap().id;
    let body = "z".repeat(1024);
    let t = std::time::Instant::now();
    for _ in 0..n {
        s.append_transcript(&id, Role::User, body.clone()).unwrap();
    }
    eprintln!("{n} single appends in {:?}", t.elapsed());
}
