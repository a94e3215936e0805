//! Single 1 KiB appends (one transaction each) and a read of 10,000 entries,
//! in rounds, for comparing two builds side by side (issue 12).
//! Run: `cargo run --release -p sessiondb --example append_read_rounds -- ROUNDS`
//! (or one round under `valgrind --tool=callgrind`, then `callgrind_annotate --inclusive=yes`
//! for the instructions of `append_transcript` and `get_transcript`).
//! A second argument PAGE_SIZE (bytes) pre-creates the database file with that
//! page size (an empty WAL file, which the store initialises as new), to compare
//! page sizes with one build.
use sessiondb::*;
fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|v| v.parse().ok()).unwrap_or(3);
    let page: Option<u32> = std::env::args().nth(2).and_then(|v| v.parse().ok());
    let n = 10_000usize;
    for round in 0..rounds {
        let dir = tempfile::tempdir().unwrap();
        if let Some(page) = page {
            let c = rusqlite::Connection::open(dir.path().join("s.db")).unwrap();
            c.pragma_update(None, "page_size", page).unwrap();
            let _: String = c.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).unwrap();
        }
        let s = SessionStore::open(OpenOptions::at(dir.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap()))).unwrap();
        let id = s.create_session(None, None).unwrap().id;
        let body: String = (0..1024).map(|i| (b'a' + ((i * 7 + i / 26) % 26) as u8) as char).collect();
        let t = std::time::Instant::now();
        for _ in 0..n {
            s.append_transcript(&id, Role::User, body.clone()).unwrap();
        }
        let append = t.elapsed();
        let mut reads = Vec::new();
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let v = s.get_transcript(&id, 1, n as u32).unwrap();
            reads.push(t.elapsed());
            assert_eq!(v.len(), n);
        }
        reads.sort();
        println!(
            "round {round}: appends {:.0}/s, read of {n} entries median {:.1} ms ({:.0}/s)",
            n as f64 / append.as_secs_f64(),
            reads[2].as_secs_f64() * 1e3,
            n as f64 / reads[2].as_secs_f64()
        );
    }
}
