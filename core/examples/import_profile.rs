//! Profiling aid for `import_file` (`perf record`): imports one session file
//! into a fresh store in a temp dir and prints MB/s.
//! Run: `cargo run --profile profiling -p sessiondb --example import_profile -- FILE`.
use sessiondb::*;
fn main() {
    let path =
        std::path::PathBuf::from(std::env::args().nth(1).expect("usage: import_profile FILE"));
    let dir = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions::at(
        dir.path().join("s.db"),
        KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap()),
    ))
    .unwrap();
    let bytes = std::fs::metadata(&path).unwrap().len();
    let t = std::time::Instant::now();
    let r = sessiondb::portable::import_file(&s, &path, None).unwrap();
    let d = t.elapsed();
    let entries: u64 = r.sessions.iter().map(|s| s.entries).sum();
    eprintln!(
        "{entries} entries, {bytes} bytes in {d:?}: {:.1} MB/s",
        bytes as f64 / d.as_secs_f64() / 1e6
    );
}
