//! Reads beside reads and beside writes (issue 33 item 6): prints figures,
//! asserts nothing.
//!
//! (a) Read scaling: `get_transcript` of 50 entries (1 KiB text each, at a
//!     random offset of a 5,000-entry session) from 1 thread, then from 4
//!     threads, for SECS seconds each, in ROUNDS interleaved rounds; the
//!     ratio 4 threads / 1 thread. Beside it, in the same run, the floor:
//!     the same rows read with raw rusqlite (one connection per thread, the
//!     stored envelopes, no decryption) from 1 and from 4 threads, which
//!     shows what the machine's cores allow.
//! (b) Reads and appends beside an import: a generated thClaws file of MB
//!     megabytes is imported by one thread while another reads (the same
//!     `get_transcript` of 50 entries, back to back) and a third appends
//!     1 KiB texts to another session (one every 2 ms); the worst and the
//!     99th-percentile latency of each, and the import's time.
//!     Beside them, the floor: a thread that only sleeps 2 ms at a time,
//!     and how late it wakes (the scheduling delay any call meets).
//! (c) The same with a raw connection beside it running a PASSIVE
//!     checkpoint every 20 ms: before the store had its own checkpoint
//!     thread, this showed how much of an append's wait was the writer's
//!     autocheckpoint copying a 64 MiB WAL inside a commit.
//! Run: `cargo build --release -p sessiondb --example read_pool_bench`, then
//! `target/release/examples/read_pool_bench [MB] [SECS] [ROUNDS] [THREADS] [PARTS]`
//! (defaults 100, 2, 3, 4, `abc`; ROUNDS 0 skips (a), PARTS `b` runs (b) only). To compare with a build without the read pool,
//! build the same file against that commit's core and run both binaries.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sessiondb::*;

const ENTRIES: u64 = 5_000;
const PAGE: u32 = 50;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const WORDS: [&str; 24] = [
    "the", "store", "reads", "while", "an", "import", "writes", "pages", "of", "sealed", "entries", "into", "its", "log",
    "session", "context", "window", "tokens", "agent", "cargo", "test", "warning", "unused", "variable",
];

fn words(rng: &mut Rng, n: usize) -> String {
    let mut s = String::with_capacity(n * 7);
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(WORDS[(rng.next() % WORDS.len() as u64) as usize]);
    }
    s
}

/// A thClaws session file of about `bytes` bytes (user, assistant and tool turns).
fn generate(path: &std::path::Path, bytes: u64, id: &str) {
    use std::io::Write;
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let t0 = 1_760_000_000u64;
    let mut size = 0u64;
    let header = serde_json::json!({"type": "header", "id": id, "model": "anthropic/claude-sonnet-4", "cwd": "/work/p", "created_at": t0});
    writeln!(f, "{header}").unwrap();
    let mut i = 0u64;
    while size < bytes {
        let line = match i % 3 {
            0 => serde_json::json!({"type": "user", "content": [{"type": "text", "text": words(&mut rng, 60)}], "timestamp": t0 + i}),
            1 => serde_json::json!({"type": "assistant", "content": [{"type": "text", "text": words(&mut rng, 150)},
                    {"type": "tool_use", "id": format!("t{i}"), "name": "bash", "input": {"command": format!("cargo test -p x{i}")}}], "timestamp": t0 + i}),
            _ => serde_json::json!({"type": "user", "content": [{"type": "tool_result", "tool_use_id": format!("t{}", i - 1), "content": words(&mut rng, 400)}], "timestamp": t0 + i}),
        };
        let s = line.to_string();
        size += s.len() as u64 + 1;
        writeln!(f, "{s}").unwrap();
        i += 1;
    }
    f.flush().unwrap();
}

fn open(db: &std::path::Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(db, KeySource::Bytes(DataKey::from_bytes(&[7; 32]).unwrap()))).unwrap()
}

/// CPU seconds this process has used (user + system, Linux `/proc/self/stat`; 0 elsewhere).
fn cpu_secs() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    let Some(rest) = stat.rsplit_once(") ").map(|(_, r)| r) else { return 0.0 };
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime) of proc(5), counted from after the name: 11 and 12.
    let ticks: f64 = f.get(11).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) + f.get(12).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    ticks / 100.0
}

/// Reads done by `threads` threads in `secs` seconds, each read by `read`,
/// per second, and the cores the process used meanwhile (CPU s / wall s).
fn throughput<R: Fn(&mut Rng) + Sync>(threads: usize, secs: f64, read: &R) -> (f64, f64) {
    let stop = AtomicBool::new(false);
    let done = AtomicU64::new(0);
    let cpu = cpu_secs();
    let t = Instant::now();
    std::thread::scope(|sc| {
        for k in 0..threads {
            let (stop, done) = (&stop, &done);
            sc.spawn(move || {
                let mut rng = Rng(0x1234_5678 + k as u64 * 7919);
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    read(&mut rng);
                    n += 1;
                }
                done.fetch_add(n, Ordering::Relaxed);
            });
        }
        std::thread::sleep(Duration::from_secs_f64(secs));
        stop.store(true, Ordering::Relaxed);
    });
    let wall = t.elapsed().as_secs_f64();
    (done.load(Ordering::Relaxed) as f64 / wall, (cpu_secs() - cpu) / wall)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_secs_f64() * 1e3
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mb: u64 = args.next().and_then(|v| v.parse().ok()).unwrap_or(100);
    let secs: f64 = args.next().and_then(|v| v.parse().ok()).unwrap_or(2.0);
    let rounds: usize = args.next().and_then(|v| v.parse().ok()).unwrap_or(3);
    let threads: usize = args.next().and_then(|v| v.parse().ok()).unwrap_or(4);
    let parts: String = args.next().unwrap_or_else(|| "abc".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    println!("read_pool_bench: {cores} cores, {threads} threads, {secs} s per measure, {rounds} rounds, import of {mb} MB");

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let s = Arc::new(open(&db));
    let sid = s.create_session(None, None).unwrap().id;
    let body: String = (0..1024).map(|i| (b'a' + ((i * 7 + i / 26) % 26) as u8) as char).collect();
    for chunk in 0..ENTRIES / 500 {
        let v = (0..500).map(|i| NewEntry::text(Role::User, format!("{chunk}:{i} {body}"))).collect();
        s.append_entries(&sid, v).unwrap();
    }

    // (a) read scaling, the store and the raw floor, interleaved.
    let store_read = |rng: &mut Rng| {
        let from = 1 + rng.next() % (ENTRIES - PAGE as u64);
        let v = s.get_transcript(&sid, from, PAGE).unwrap();
        assert_eq!(v.len(), PAGE as usize);
    };
    let raw_conns: Vec<std::sync::Mutex<rusqlite::Connection>> = (0..threads.max(1))
        .map(|_| {
            let c = rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX).unwrap();
            c.busy_timeout(Duration::from_secs(10)).unwrap();
            c.pragma_update(None, "cache_size", -16_384).unwrap();
            c.pragma_update(None, "query_only", "ON").unwrap();
            std::sync::Mutex::new(c)
        })
        .collect();
    let next_conn = AtomicU64::new(0);
    thread_local! { static SLOT: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) }; }
    let raw_read = |rng: &mut Rng| {
        // One connection per thread (slots handed out in order, reset per measure).
        let slot = SLOT.with(|c| match c.get() {
            Some(i) => i,
            None => {
                let i = next_conn.fetch_add(1, Ordering::Relaxed) as usize % raw_conns.len();
                c.set(Some(i));
                i
            }
        });
        let c = raw_conns[slot].lock().unwrap();
        let from = 1 + rng.next() % (ENTRIES - PAGE as u64);
        let tx = c.unchecked_transaction().unwrap();
        let mut st = tx
            .prepare_cached(
                "SELECT t.seq, t.role, b.content_enc FROM transcript_entries t JOIN entry_bodies b ON b.id = t.body_id
                 WHERE t.session_id = ?1 AND t.seq >= ?2 ORDER BY t.seq LIMIT ?3",
            )
            .unwrap();
        let n = st
            .query_map(rusqlite::params![sid, from as i64, PAGE as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<Vec<u8>>>(2)?)))
            .unwrap()
            .count();
        drop(st);
        tx.finish().unwrap();
        assert_eq!(n, PAGE as usize);
    };
    let (mut s1, mut s4, mut r1, mut r4, mut c1, mut c4) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    // ROUNDS 0: no (a), only the import measures.
    for round in 0..rounds {
        let (a, ca) = throughput(1, secs, &store_read);
        let (b, cb) = throughput(threads, secs, &store_read);
        let (c, _) = throughput(1, secs, &raw_read);
        let (d, _) = throughput(threads, secs, &raw_read);
        println!(
            "round {round}: store 1 thread {a:.0} reads/s ({ca:.2} cores busy), {threads} threads {b:.0} reads/s ({cb:.2} cores) ({:.2}x); raw rusqlite 1 thread {c:.0}/s, {threads} threads {d:.0}/s ({:.2}x)",
            b / a,
            d / c
        );
        s1.push(a);
        s4.push(b);
        r1.push(c);
        r4.push(d);
        c1.push(ca);
        c4.push(cb);
    }
    if rounds > 0 {
        let (a, b, c, d) = (median(s1), median(s4), median(r1), median(r4));
        println!(
            "(a) medians: store {threads}/1 threads {:.2}x ({a:.0} -> {b:.0} reads/s of {PAGE} entries; {:.2} -> {:.2} cores busy); floor raw rusqlite {threads}/1 threads {:.2}x ({c:.0} -> {d:.0}/s); store scaling / floor scaling {:.2}",
            b / a,
            median(c1),
            median(c4),
            d / c,
            (b / a) / (d / c)
        );
    }
    drop(raw_conns);

    // (b) reads and appends beside an import; then (c) the same with a
    // checkpointer beside it (a raw connection running a PASSIVE checkpoint
    // every 20 ms, so the writer's own autocheckpoint rarely has a 64 MiB WAL
    // to copy inside a commit): what of the append's wait is the checkpoint.
    for (k, outside_checkpoints) in [(0, false), (1, true)] {
        if !parts.contains(if outside_checkpoints { 'c' } else { 'b' }) {
            continue;
        }
        let src = dir.path().join(format!("import{k}.jsonl"));
        generate(&src, mb * 1_000_000, &format!("bench-import-{k}"));
        let src_bytes = std::fs::metadata(&src).unwrap().len();
        let other = s.create_session(None, None).unwrap().id;
        let importing = AtomicBool::new(true);
        let (mut reads, mut appends) = std::thread::scope(|sc| {
            let imp = sc.spawn(|| {
                let t = Instant::now();
                let r = sessiondb::portable::import_file(&s, &src, None).unwrap();
                let took = t.elapsed();
                importing.store(false, Ordering::Relaxed);
                (took, r.sessions.iter().map(|x| x.entries).sum::<u64>())
            });
            if outside_checkpoints {
                sc.spawn(|| {
                    let c = rusqlite::Connection::open(&db).unwrap();
                    c.busy_timeout(Duration::from_secs(10)).unwrap();
                    while importing.load(Ordering::Relaxed) {
                        let _: (i64, i64, i64) = c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap();
                        std::thread::sleep(Duration::from_millis(20));
                    }
                });
            }
            let reader = sc.spawn(|| {
                let mut rng = Rng(99);
                let mut lat = Vec::new();
                while importing.load(Ordering::Relaxed) {
                    let t = Instant::now();
                    store_read(&mut rng);
                    lat.push(t.elapsed());
                }
                lat
            });
            // The floor: a thread that only sleeps 2 ms at a time, and how
            // late it wakes up (the machine's scheduling delay, which any
            // read or append meets too).
            let sleeper = sc.spawn(|| {
                let mut late = Vec::new();
                while importing.load(Ordering::Relaxed) {
                    let t = Instant::now();
                    std::thread::sleep(Duration::from_millis(2));
                    late.push(t.elapsed().saturating_sub(Duration::from_millis(2)));
                }
                late
            });
            let appender = sc.spawn(|| {
                let mut lat = Vec::new();
                while importing.load(Ordering::Relaxed) {
                    let t = Instant::now();
                    s.append_transcript(&other, Role::User, body.clone()).unwrap();
                    lat.push(t.elapsed());
                    std::thread::sleep(Duration::from_millis(2));
                }
                lat
            });
            let (took, entries) = imp.join().unwrap();
            println!(
                "import{}: {src_bytes} bytes, {entries} entries in {:.2} s ({:.1} MB/s)",
                if outside_checkpoints { " with an outside checkpointer" } else { "" },
                took.as_secs_f64(),
                src_bytes as f64 / took.as_secs_f64() / 1e6
            );
            let mut late = sleeper.join().unwrap();
            let (l99, lmax) = (pct(&mut late, 0.99), pct(&mut late, 1.0));
            println!("floor: a thread sleeping 2 ms woke up late by p99 {l99:.2} ms, worst {lmax:.2} ms ({} sleeps)", late.len());
            (reader.join().unwrap(), appender.join().unwrap())
        });
        let (rn, an) = (reads.len(), appends.len());
        let (r99, rmax) = (pct(&mut reads, 0.99), pct(&mut reads, 1.0));
        let (a99, amax) = (pct(&mut appends, 0.99), pct(&mut appends, 1.0));
        let over = |v: &[Duration]| v.iter().filter(|d| d.as_millis() > 20).count();
        println!(
            "({}) during the import{}: {rn} reads, p99 {r99:.2} ms, worst {rmax:.2} ms, {} over 20 ms; {an} appends, p99 {a99:.2} ms, worst {amax:.2} ms, {} over 20 ms",
            if outside_checkpoints { "c" } else { "b" },
            if outside_checkpoints { " with an outside checkpointer" } else { "" },
            over(&reads),
            over(&appends)
        );
        std::fs::remove_file(&src).unwrap();
    }
}
