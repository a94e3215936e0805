//! Profiling aid for bulk appends (`perf record`): N entries of 4 KiB in batches of 512.
//! Run: `cargo run --profile profiling -p sessiondb --example append_profile [-- N]` (release code with line tables for `perf record`).
use sessiondb::*;
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|v| v.parse().ok()).unwrap_or(20000);
    let dir = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions::at(dir.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap()))).unwrap();
    let id = s.create_session(None, None).unwrap().id;
    let body = "y".repeat(4096);
    let t = std::time::Instant::now();
    for chunk in (0..n).collect::<Vec<_>>().chunks(512) {
        s.append_entries(&id, chunk.iter().map(|_| NewEntry::text(Role::User, body.clone())).collect()).unwrap();
    }
    let d = t.elapsed();
    eprintln!("{n} x 4 KiB in {d:?}: {:.1} MB/s", (n * 4096) as f64 / d.as_secs_f64() / 1e6);
}
