//! Database + WAL bytes after importing FILE with compression on or off
//! (issue 12: "<= 1.4x with compression off"), for comparing builds.
//! Run: `cargo run --release -p sessiondb --example import_size -- FILE on|off [PAGE_SIZE]`
//! (PAGE_SIZE, bytes: pre-create the database file with that page size, an empty
//! WAL file that the store initialises as new).
use sessiondb::*;
fn main() {
    let mut args = std::env::args().skip(1);
    let file = std::path::PathBuf::from(args.next().expect("FILE"));
    let compress = args.next().as_deref() != Some("off");
    let page: Option<u32> = args.next().and_then(|v| v.parse().ok());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    if let Some(page) = page {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.pragma_update(None, "page_size", page).unwrap();
        let _: String = c.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).unwrap();
    }
    let s = SessionStore::open(OpenOptions { compress: Some(compress), ..OpenOptions::at(&db, KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap())) }).unwrap();
    let t = std::time::Instant::now();
    let r = sessiondb::portable::import_file(&s, &file, None).unwrap();
    let took = t.elapsed();
    // Closing checkpoints the WAL, as the CLI does at exit.
    s.close();
    let size = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let (db_bytes, wal_bytes) = (size(&db), size(&dir.path().join("s.db-wal")));
    let src = std::fs::metadata(&file).unwrap().len();
    let page_size: i64 = rusqlite::Connection::open(&db).unwrap().query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    println!(
        "page {page_size}, compress {}: {} entries, db {} + wal {} bytes over {} source bytes = {:.3}x, import {:.2} s",
        if compress { "on" } else { "off" },
        r.sessions.iter().map(|x| x.entries).sum::<u64>(),
        db_bytes,
        wal_bytes,
        src,
        (db_bytes + wal_bytes) as f64 / src as f64,
        took.as_secs_f64()
    );
}
