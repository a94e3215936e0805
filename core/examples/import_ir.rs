//! Instruction counts of a full import against a plain serde_json parse of
//! the same file (issue 12, "Full import >= 0.5x of a plain serde_json
//! parse"): run each mode under `valgrind --tool=callgrind` and divide
//! (`valgrind --tool=callgrind target/release/examples/import_ir parse FILE`,
//! then `import FILE`). Counts are repeatable on a loaded machine where
//! seconds are not.
//!
//! Run: `cargo run --release -p sessiondb --example import_ir -- parse|import|floor FILE`, `-- read FILE FORMAT` or `-- ratio FILE [ROUNDS]`
//! * `parse`: every line to a `serde_json::Value` (the baseline);
//! * `read`: our reader (parse + neutral model), events dropped;
//! * `import`: `import_file` into a fresh encrypted store in a temp dir.
//! * `floor`: the floor of an import of the file (issue 33 item 3), what
//!   any encrypted import must do and nothing else, on two threads as the
//!   import's pipeline: one reads each line, parses it to a
//!   `serde_json::Value` and seals the line whole (AES-256-GCM, its record
//!   id as AAD, `crypto::seal` without compression); the other writes the
//!   envelopes with plain rusqlite and the store's pragmas (1 KiB pages,
//!   WAL, `synchronous=NORMAL`, its cache size, `secure_delete`), 512 lines
//!   a transaction, packed as the store packs entry bodies (consecutive
//!   envelopes in one row of a rowid table up to 64 KiB, the store's
//!   `BODY_SET_BYTES`), and checkpoints the WAL (PASSIVE, from a second
//!   connection) every 4 MiB written, as the store's checkpoint thread
//!   does. No identities, entry rows, journal, token ledger or progress
//!   records: only the ciphertext the import must write.
//!
//! `IMPORT_IR_COMPRESS=1` opens the store with compression on (zstd,
//! `OpenOptions::compress`; off by default).
//!
//! `import` also imports the file a second time (unchanged: up to date)
//! and reports how long that took, and the database + WAL bytes over the
//! file's bytes.
//!
//! `ratio FILE [ROUNDS]` (default 5) runs `parse`, `import` and `floor` in
//! this process, interleaved, ROUNDS times, and prints each one's MB/s
//! (file bytes over wall seconds) and CPU seconds (user + system, all
//! threads, `/proc/self/stat`), their medians, and the ratios import /
//! parse and floor / parse of the median MB/s (the goal of issue 33 item 3:
//! import ≥ 0.3× parse).
#[path = "common/floor_db.rs"]
mod floor_db;
use sessiondb::portable::{read_stream, Event, EventSink, ReadOptions, SourceFormat, Thread};
use sessiondb::*;
use std::io::BufRead;

struct Drop_;
impl EventSink for Drop_ {
    fn event(&mut self, _thread: &Thread, e: Event) -> Result<()> {
        std::hint::black_box(e);
        Ok(())
    }
}

/// Every line parsed to a `serde_json::Value` (the baseline).
fn parse(path: &std::path::Path) -> u64 {
    let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut n = 0u64;
    for line in f.lines() {
        let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        n += std::hint::black_box(v).is_object() as u64;
    }
    n
}

/// `import_file` into a fresh store in a temp dir; entries imported. Sets
/// [`DB_OVER_SOURCE`] to the database + WAL bytes over the file's bytes.
fn import(path: &std::path::Path) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    // `IMPORT_IR_COMPRESS=1`: zstd on (`OpenOptions::compress`; off by default since issue 30).
    let compress = std::env::var("IMPORT_IR_COMPRESS").is_ok_and(|v| v == "1");
    let opts = OpenOptions { compress: Some(compress), ..OpenOptions::at(db.clone(), KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap())) };
    let s = SessionStore::open(opts).unwrap();
    let r = sessiondb::portable::import_file(&s, path, None).unwrap();
    // Importing the unchanged file again: up to date, nothing read.
    let t = std::time::Instant::now();
    let again = sessiondb::portable::import_file(&s, path, None).unwrap();
    assert_eq!(again.status, sessiondb::portable::ImportStatus::UpToDate);
    REIMPORT_NS.store(t.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
    // Sizes once the store is closed (as after a CLI import).
    drop(s);
    let size = |p: std::path::PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
    let stored = size(db.clone()) + size(db.with_extension("db-wal"));
    let ratio = stored as f64 / std::fs::metadata(path).unwrap().len() as f64;
    DB_OVER_SOURCE.store(ratio.to_bits(), std::sync::atomic::Ordering::Relaxed);
    r.sessions.iter().map(|x| x.entries).sum::<u64>()
}

/// How long the last [`import`]'s second import of the unchanged file took (ns).
static REIMPORT_NS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
/// The last [`import`]'s database + WAL bytes over source bytes (`f64` bits).
static DB_OVER_SOURCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The floor (see the module doc): rows written.
fn floor(path: &std::path::Path) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("f.db");
    let mut c = floor_db::open(&db);
    c.execute_batch("CREATE TABLE bodies (id INTEGER PRIMARY KEY, content_enc BLOB NOT NULL);").unwrap();
    let key = DataKey::from_bytes(&[1; 32]).unwrap();
    let sid = "bench-floor";
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Vec<u8>>>(2);
    let writer = std::thread::spawn(move || {
        let mut ck = rusqlite::Connection::open(&db).unwrap();
        ck.pragma_update(None, "synchronous", "NORMAL").unwrap();
        let (mut rows, mut wal_pages) = (0u64, 0usize);
        let mut set = Vec::with_capacity(64 << 10);
        for batch in rx {
            let t = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
            {
                let mut ins = t.prepare_cached("INSERT INTO bodies (content_enc) VALUES (?1)").unwrap();
                for sealed in &batch {
                    rows += 1;
                    wal_pages += sealed.len() / 1024 + 1;
                    if !set.is_empty() && set.len() + sealed.len() > 64 << 10 {
                        ins.execute([&set]).unwrap();
                        set.clear();
                    }
                    set.extend_from_slice(sealed);
                }
                if !set.is_empty() {
                    ins.execute([&set]).unwrap();
                    set.clear();
                }
            }
            t.commit().unwrap();
            if wal_pages >= 4096 {
                let _: (i64, i64, i64) = ck.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap();
                wal_pages = 0;
            }
        }
        let _ = &mut ck;
        rows
    });
    let f = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(path).unwrap());
    let mut batch = Vec::with_capacity(512);
    for (i, line) in f.lines().enumerate() {
        let line = line.unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        std::hint::black_box(&v);
        batch.push(sessiondb::crypto::seal(&key, &format!("transcript:{sid}:{}:content", i + 1), line.as_bytes(), false));
        if batch.len() == 512 {
            tx.send(std::mem::replace(&mut batch, Vec::with_capacity(512))).unwrap();
        }
    }
    tx.send(batch).unwrap();
    drop(tx);
    writer.join().unwrap()
}

/// User + system CPU seconds of this process so far, all threads
/// (`/proc/self/stat` fields 14 and 15, in clock ticks of 1/100 s).
fn cpu_seconds() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let rest = &s[s.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    // Fields from the 3rd (state): utime is the 14th field, so index 11 here.
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// `ratio FILE ROUNDS`: see the module doc.
fn ratio(path: &std::path::Path, rounds: usize) {
    let bytes = std::fs::metadata(path).unwrap().len() as f64;
    let modes: [(&str, fn(&std::path::Path) -> u64); 3] = [("parse", parse), ("import", import), ("floor", floor)];
    let mut mbs = vec![Vec::new(); 3];
    let mut cpus = vec![Vec::new(); 3];
    for r in 0..rounds {
        for (i, (name, f)) in modes.iter().enumerate() {
            let (c0, t0) = (cpu_seconds(), std::time::Instant::now());
            let n = f(path);
            let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
            let extra = if *name == "import" {
                format!(
                    ", db+wal/source {:.3}, re-import {:.2} ms",
                    f64::from_bits(DB_OVER_SOURCE.load(std::sync::atomic::Ordering::Relaxed)),
                    REIMPORT_NS.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e6
                )
            } else {
                String::new()
            };
            println!("round {} {name:>6}: {n} rows, {wall:.3} s wall, {cpu:.2} s CPU ({:.2} cores), {:.1} MB/s{extra}", r + 1, cpu / wall, bytes / wall / 1e6);
            mbs[i].push(bytes / wall / 1e6);
            cpus[i].push(cpu);
        }
    }
    let m: Vec<f64> = mbs.into_iter().map(median).collect();
    let c: Vec<f64> = cpus.into_iter().map(median).collect();
    for (i, (name, _)) in modes.iter().enumerate() {
        println!("median {name:>6}: {:.1} MB/s, {:.2} s CPU", m[i], c[i]);
    }
    println!("import / parse: {:.3}x by MB/s (goal >= 0.3), {:.3}x by CPU seconds", m[1] / m[0], c[0] / c[1]);
    println!("floor / parse: {:.3}x by MB/s, {:.3}x by CPU seconds; import / floor {:.3}x by MB/s", m[2] / m[0], c[0] / c[2], m[1] / m[2]);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().expect("usage: import_ir parse|read|import|floor FILE, or ratio FILE [ROUNDS]");
    let path = std::path::PathBuf::from(args.next().expect("usage: import_ir parse|read|import FILE"));
    match mode.as_str() {
        "parse" => eprintln!("{} lines parsed", parse(&path)),
        "floor" => eprintln!("{} rows written", floor(&path)),
        "ratio" => ratio(&path, args.next().map_or(5, |r| r.parse().expect("ROUNDS is a number"))),
        "read" => {
            let f = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
            let format = SourceFormat::parse(&args.next().expect("read FILE FORMAT (thclaws, codex, claude-code)")).unwrap();
            let r = read_stream(format, f, &ReadOptions::default(), &mut Drop_).unwrap();
            eprintln!("{} lines read", r.lines);
        }
        "import" => {
            let n = import(&path);
            eprintln!(
                "{n} entries imported, db+wal/source {:.3}, re-import {:.2} ms",
                f64::from_bits(DB_OVER_SOURCE.load(std::sync::atomic::Ordering::Relaxed)),
                REIMPORT_NS.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e6
            );
        }
        m => panic!("unknown mode {m}"),
    }
}
