//! The search benchmark's core driver (scripts/bench-search.py runs it; a
//! benchmark that prints figures, not a timed test).
//!
//! Usage: search_bench DB KEY_FILE ROUNDS QUERY...
//!
//! Prints, one line each: `rebuild <seconds> <content bytes> <index bytes>
//! <documents> <CPU seconds>` (when SEARCH_BENCH_REBUILD=1; CPU: user +
//! system of every thread of the process during the rebuild), then for each query
//! `query <q> p50_ms <x> p99_ms <y> total <n>` over ROUNDS searches through
//! the core (`SessionStore::search`, the index warm), and `naive <q>
//! <seconds> <matching entries>` for the first query: decrypting every entry
//! of every session and scanning it (case-insensitive), today's only way.

use std::path::PathBuf;
use std::time::Instant;

use sessiondb::{DataKey, KeySource, OpenOptions, SearchOptions, SessionStore};

/// CPU seconds of the process, every thread (user + system).
fn cpu_s() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let f: Vec<&str> = s[s.rfind(')').expect("stat") + 2..].split_whitespace().collect();
    // Fields 14 and 15 of stat(5) (utime, stime), in clock ticks (100 per second on Linux).
    (f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()) as f64 / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (db, key_file, rounds) = (PathBuf::from(&args[1]), &args[2], args[3].parse::<usize>().unwrap());
    let queries = &args[4..];
    let key = DataKey::from_base64(&std::fs::read_to_string(key_file).unwrap()).unwrap();
    let store = SessionStore::open(OpenOptions::at(&db, KeySource::Bytes(key))).unwrap();
    if std::env::var("SEARCH_BENCH_REBUILD").as_deref() == Ok("1") {
        let (t, c) = (Instant::now(), cpu_s());
        let r = store.rebuild_search_index(&mut |_, _| {}).unwrap();
        println!("rebuild {:.3} {} {} {} {:.2}", t.elapsed().as_secs_f64(), r.content_bytes, r.index_bytes, r.documents, cpu_s() - c);
    }
    let opts = SearchOptions { limit: Some(20), ..Default::default() };
    for q in queries {
        // Warm: the first search catches up and opens the index.
        let total = store.search(q, &opts).unwrap().total;
        let mut ms: Vec<f64> = (0..rounds)
            .map(|_| {
                let t = Instant::now();
                store.search(q, &opts).unwrap();
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        ms.sort_by(f64::total_cmp);
        let pct = |p: f64| ms[((ms.len() as f64 - 1.0) * p).round() as usize];
        println!("query {q:?} p50_ms {:.2} p99_ms {:.2} total {total}", pct(0.5), pct(0.99));
    }
    if let Some(q) = queries.first() {
        let needle = q.to_lowercase();
        let t = Instant::now();
        let mut hits = 0u64;
        for s in store.list_sessions(None).unwrap() {
            let mut from = 1;
            loop {
                let page = store.get_transcript(&s.id, from, 1000).unwrap();
                for e in &page {
                    if e.content.to_lowercase().contains(&needle) {
                        hits += 1;
                    }
                }
                match page.last() {
                    Some(e) if page.len() == 1000 => from = e.seq + 1,
                    _ => break,
                }
            }
        }
        println!("naive {q:?} {:.3} {hits}", t.elapsed().as_secs_f64());
    }
}
