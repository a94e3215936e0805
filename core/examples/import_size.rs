//! Database + WAL bytes after importing FILE with compression on or off
//! (issue 12: "<= 1.4x with compression off"), for comparing builds.
//! Run: `cargo run --release -p sessiondb --example import_size -- FILE on|off`.
use sessiondb::*;
fn main() {
    let mut args = std::env::args().skip(1);
    let file = std::path::PathBuf::from(args.next().expect("FILE"));
    let compress = args.next().as_deref() != Some("off");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let s = SessionStore::open(OpenOptions { compress, ..OpenOptions::at(&db, KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap())) }).unwrap();
    let t = std::time::Instant::now();
    let r = sessiondb::portable::import_file(&s, &file, None).unwrap();
    let took = t.elapsed();
    // Closing checkpoints the WAL, as the CLI does at exit.
    s.close();
    let size = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let (db_bytes, wal_bytes) = (size(&db), size(&dir.path().join("s.db-wal")));
    let src = std::fs::metadata(&file).unwrap().len();
    println!(
        "compress {}: {} entries, db {} + wal {} bytes over {} source bytes = {:.3}x, import {:.2} s",
        if compress { "on" } else { "off" },
        r.sessions.iter().map(|x| x.entries).sum::<u64>(),
        db_bytes,
        wal_bytes,
        src,
        (db_bytes + wal_bytes) as f64 / src as f64,
        took.as_secs_f64()
    );
}
