//! Profiling aid for the transcript read path (`valgrind --tool=callgrind`):
//! appends N 1 KiB entries, then reads them back once.
use sessiondb::*;
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|v| v.parse().ok()).unwrap_or(2000);
    let dir = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions::at(dir.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap()))).unwrap();
    let id = s.create_session(None, None).unwrap().id;
    let body = "x".repeat(1024);
    s.append_entries(&id, (0..n).map(|_| NewEntry::text(Role::User, body.clone())).collect()).unwrap();
    let t = std::time::Instant::now();
    let v = s.get_transcript(&id, 1, n as u32).unwrap();
    eprintln!("read {} in {:?}", v.len(), t.elapsed());
}
