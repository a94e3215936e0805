//! PostgreSQL figures of issue 13 ("Performance"), one run:
//! * 8 concurrent clients appending 1 KiB transcript entries: appends/s and
//!   p50/p99 latency. Each client is its own `SessionStore` (its own pool and
//!   lease) with its own session.
//! * One client: appends/s and reads/s (one 1 KiB entry per call, by seq),
//!   on PostgreSQL and on the SQLite backend (a file in a temp directory),
//!   measured in the same run.
//!
//! The last line is `bench-postgres: appends_per_s=<8-client rate>` for
//! `scripts/bench-postgres.sh`, which also runs the `pgbench` floor and
//! prints the ratio. Or: `SESSIONDB_TEST_PG_URL=postgres://... cargo run
//! --release -p sessiondb --features postgres --example pg_append_bench [CLIENTS] [APPENDS_PER_CLIENT]`.

use std::time::{Duration, Instant};

use sessiondb::{DataKey, KeySource, OpenOptions, Role, SessionStore};

fn pct(lat: &[Duration], p: f64) -> f64 {
    lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)].as_secs_f64() * 1e3
}

/// One client: `n` appends of `content`, then `n` reads of one entry each.
/// Returns (appends/s, reads/s).
fn single(s: &SessionStore, n: usize, content: &str) -> (f64, f64) {
    let id = s.create_session(None, None).expect("session").id;
    let t = Instant::now();
    for _ in 0..n {
        s.append_transcript(&id, Role::User, content.to_string()).expect("append");
    }
    let appends = n as f64 / t.elapsed().as_secs_f64();
    let t = Instant::now();
    for seq in 1..=n as u64 {
        let e = s.get_transcript(&id, seq, 1).expect("read");
        assert_eq!(e[0].content.len(), content.len());
    }
    (appends, n as f64 / t.elapsed().as_secs_f64())
}

fn main() {
    let url = std::env::var("SESSIONDB_TEST_PG_URL").expect("SESSIONDB_TEST_PG_URL");
    let mut args = std::env::args().skip(1);
    let clients: usize = args.next().map_or(8, |a| a.parse().expect("CLIENTS"));
    let per: usize = args.next().map_or(500, |a| a.parse().expect("APPENDS_PER_CLIENT"));
    let key = DataKey::from_bytes(&[3; 32]).expect("32 bytes");
    let open = || SessionStore::open(OpenOptions { compress: Some(false), ..OpenOptions::at(&url, KeySource::Bytes(key.clone())) }).expect("open");
    drop(open());
    let content = "x".repeat(1024);
    let stores: Vec<SessionStore> = (0..clients).map(|_| open()).collect();
    let started = Instant::now();
    let handles: Vec<_> = stores
        .into_iter()
        .map(|s| {
            let content = content.clone();
            std::thread::spawn(move || {
                let id = s.create_session(None, None).expect("session").id;
                let mut lat = Vec::with_capacity(per);
                for _ in 0..per {
                    let t = Instant::now();
                    s.append_transcript(&id, Role::User, content.clone()).expect("append");
                    lat.push(t.elapsed());
                }
                lat
            })
        })
        .collect();
    let mut lat: Vec<Duration> = handles.into_iter().flat_map(|h| h.join().expect("client")).collect();
    let wall = started.elapsed();
    lat.sort();
    let rate = lat.len() as f64 / wall.as_secs_f64();
    println!(
        "sessiondb postgres: {clients} clients x {per} appends of 1 KiB: {rate:.0} appends/s, p50 {:.2} ms, p99 {:.2} ms",
        pct(&lat, 0.50),
        pct(&lat, 0.99)
    );
    let n = per.max(200);
    let (pa, pr) = single(&open(), n, &content);
    let dir = std::env::temp_dir().join(format!("sessiondb-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let sqlite = SessionStore::open(OpenOptions { compress: Some(false), ..OpenOptions::at(dir.join("bench.db"), KeySource::Bytes(key.clone())) })
        .expect("open sqlite");
    let (sa, sr) = single(&sqlite, n, &content);
    drop(sqlite);
    let _ = std::fs::remove_dir_all(&dir);
    println!("one client, {n} x 1 KiB: postgres {pa:.0} appends/s, {pr:.0} reads/s; sqlite {sa:.0} appends/s, {sr:.0} reads/s");
    println!("one client, postgres / sqlite: appends {:.2}x, reads {:.2}x", pa / sa, pr / sr);
    println!("bench-postgres: appends_per_s={rate:.1}");
}
