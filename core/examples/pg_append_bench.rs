//! 8 concurrent clients appending 1 KiB transcript entries to a PostgreSQL
//! store (issue 13, "Performance"): appends/s and p50/p99 latency.
//! Each client is its own `SessionStore` (its own pool and lease) with its
//! own session. Run under `scripts/bench-postgres.sh` (it also runs the
//! `pgbench` floor), or: `SESSIONDB_TEST_PG_URL=postgres://... cargo run
//! --release -p sessiondb --features postgres --example pg_append_bench [CLIENTS] [APPENDS_PER_CLIENT]`.

use std::time::{Duration, Instant};

use sessiondb::{DataKey, KeySource, OpenOptions, Role, SessionStore};

fn main() {
    let url = std::env::var("SESSIONDB_TEST_PG_URL").expect("SESSIONDB_TEST_PG_URL");
    let mut args = std::env::args().skip(1);
    let clients: usize = args.next().map_or(8, |a| a.parse().expect("CLIENTS"));
    let per: usize = args.next().map_or(500, |a| a.parse().expect("APPENDS_PER_CLIENT"));
    let key = DataKey::from_bytes(&[3; 32]).expect("32 bytes");
    let open = || SessionStore::open(OpenOptions { compress: false, ..OpenOptions::at(&url, KeySource::Bytes(key.clone())) }).expect("open");
    drop(open());
    let content = "x".repeat(1024);
    let started = Instant::now();
    let handles: Vec<_> = (0..clients)
        .map(|_| {
            let s = open();
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
    let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
    println!(
        "sessiondb postgres: {clients} clients x {per} appends of 1 KiB: {:.0} appends/s, p50 {:.2} ms, p99 {:.2} ms",
        lat.len() as f64 / wall.as_secs_f64(),
        pct(0.50).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3
    );
}
