//! Store benchmark (issue 2). Prints figures and ratios against baselines
//! measured in the same run on the same machine; asserts nothing.
//!
//! Run: `cargo bench -p sessiondb --bench store` (env `BENCH_N`, default 10000).

use std::time::{Duration, Instant};

use rusqlite::{params, Connection};
use sessiondb::crypto::{self, DataKey};
use sessiondb::*;

fn key() -> DataKey {
    DataKey::from_bytes(&[3u8; 32]).unwrap()
}

fn payload(i: usize) -> String {
    let mut s = format!("entry {i} ");
    while s.len() < 1024 {
        s.push_str("lorem ipsum dolor sit amet ");
    }
    s.truncate(1024);
    s
}

fn baseline_conn(path: &std::path::Path) -> Connection {
    let c = Connection::open(path).unwrap();
    c.busy_timeout(Duration::from_millis(10_000)).unwrap();
    c.pragma_update(None, "page_size", sessiondb::backend::sqlite::PAGE_SIZE).unwrap();
    c.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(())).unwrap();
    c.pragma_update(None, "synchronous", "NORMAL").unwrap();
    c.pragma_update(None, "journal_size_limit", sessiondb::backend::sqlite::JOURNAL_SIZE_LIMIT).unwrap();
    c.pragma_update(None, "cache_size", sessiondb::backend::sqlite::CACHE_SIZE_KIB).unwrap();
    c.pragma_update(None, "wal_autocheckpoint", sessiondb::backend::sqlite::WAL_AUTOCHECKPOINT_PAGES).unwrap();
    c.execute_batch("CREATE TABLE t (session_id TEXT NOT NULL, seq INTEGER NOT NULL, content_enc TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID")
        .unwrap();
    c
}

fn rate(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

fn main() {
    let n: usize = std::env::var("BENCH_N").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let k = key();
    let items: Vec<String> = (0..n).map(payload).collect();

    // --- append: baseline raw rusqlite insert of AES-GCM 1 KiB payloads, one commit each.
    let base = baseline_conn(&dir.path().join("baseline.db"));
    let t = Instant::now();
    for (i, p) in items.iter().enumerate() {
        let seq = i as i64 + 1;
        let env = crypto::seal_str(&k, &format!("transcript:s:{seq}:content"), p);
        base.execute("INSERT INTO t (session_id, seq, content_enc) VALUES ('s', ?1, ?2)", params![seq, env]).unwrap();
    }
    let base_append = t.elapsed();

    let store = SessionStore::open(OpenOptions::at(dir.path().join("sessions.db"), KeySource::Bytes(key()))).unwrap();
    let sid = store.create_session(None, None).unwrap().id;
    let t = Instant::now();
    for p in &items {
        store.append_transcript(&sid, Role::User, p.clone()).unwrap();
    }
    let our_append = t.elapsed();
    println!(
        "append_transcript   {n} x 1 KiB: {:>9.0}/s   baseline raw insert+encrypt {:>9.0}/s   ratio {:.2} (goal >= 0.60)",
        rate(n, our_append),
        rate(n, base_append),
        base_append.as_secs_f64() / our_append.as_secs_f64()
    );

    // --- read back, alternating ours and the baseline (raw select + decrypt), median of 5 each.
    let read_base = || {
        let t = Instant::now();
        let mut st = base.prepare_cached("SELECT seq, content_enc FROM t WHERE session_id = 's' ORDER BY seq").unwrap();
        let mut rows = st.query([]).unwrap();
        let mut total = 0usize;
        while let Some(r) = rows.next().unwrap() {
            let seq: i64 = r.get(0).unwrap();
            let env: String = r.get(1).unwrap();
            total += crypto::open_str(&k, &format!("transcript:s:{seq}:content"), &env).unwrap().len();
        }
        (t.elapsed(), total)
    };
    let read_ours = || {
        let t = Instant::now();
        let mut total = 0usize;
        let mut from = 1;
        loop {
            let page = store.get_transcript(&sid, from, 10_000).unwrap();
            if page.is_empty() {
                break;
            }
            from = page.last().unwrap().seq + 1;
            total += page.iter().map(|e| e.content.len()).sum::<usize>();
        }
        (t.elapsed(), total)
    };
    let (mut base_times, mut our_times) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let (d, a) = read_ours();
        our_times.push(d);
        let (e, b) = read_base();
        base_times.push(e);
        assert_eq!(a, b);
    }
    base_times.sort();
    our_times.sort();
    let (base_read, our_read) = (base_times[2], our_times[2]);
    println!(
        "get_transcript      {n} entries: {:>9.0}/s   baseline raw select+decrypt {:>9.0}/s   ratio {:.2} (goal >= 0.80)",
        rate(n, our_read),
        rate(n, base_read),
        base_read.as_secs_f64() / our_read.as_secs_f64()
    );
    drop(store);

    // --- open with recovery at 10k and 1M journal events (10 dead-owner open operations each).
    let mut first_opens = Vec::new();
    for events in [10_000usize, 1_000_000] {
        let p = dir.path().join(format!("recovery-{events}.db"));
        drop(SessionStore::open(OpenOptions::at(&p, KeySource::Bytes(key()))).unwrap());
        {
            let mut c = Connection::open(&p).unwrap();
            let tx = c.transaction().unwrap();
            let env = crypto::seal_str(&k, "journal:bench:payload", "{}");
            {
                let mut ins = tx
                    .prepare("INSERT INTO journal VALUES (?1, ?2, ?3, ?4, '', 'Note', ?5, '{\"v\":1}', '2026-01-01T00:00:00.000Z')")
                    .unwrap();
                for i in 0..events {
                    ins.execute(params![format!("e{i}"), format!("s{}", i % 1000), (i / 1000) as i64 + 1, i as i64 + 1, env]).unwrap();
                }
            }
            for j in 0..10 {
                let op = format!("op{j}");
                tx.execute(
                    "INSERT INTO journal VALUES (?1, 's0', ?2, ?3, ?4, 'EffectDispatchCommitted', ?5, '{\"v\":1,\"owner\":\"dead\"}', '2026-01-01T00:00:00.000Z')",
                    params![format!("{op}.dispatch"), 1_000_000 + j as i64, events as i64 + 1 + j as i64, op, env],
                )
                .unwrap();
                tx.execute(
                    "INSERT INTO open_operations VALUES (?1, 's0', 'deadowner', ?2)",
                    params![op, format!("{op}.dispatch")],
                )
                .unwrap();
            }
            tx.commit().unwrap();
            c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
        }
        let mut firsts = Vec::new();
        for round in 0..9 {
            if round > 0 {
                // Plant 10 more operations of a dead owner (raw SQL, not timed).
                let c = Connection::open(&p).unwrap();
                let env = crypto::seal_str(&k, "journal:bench:payload", "{}");
                for j in 0..10 {
                    let op = format!("op{round}-{j}");
                    let v: i64 = c.query_row("SELECT MAX(rowid) + 1 FROM journal", [], |r| r.get(0)).unwrap();
                    c.execute(
                        "INSERT INTO journal (rowid, event_id, session_id, seq, aggregate_version, operation_id, payload_kind, payload_json, envelope_json, created_at)
                         VALUES (?1, ?2, 's0', ?3, ?1, ?4, 'EffectDispatchCommitted', ?5, '{}', '2026-01-01T00:00:00.000Z')",
                        params![v, format!("{op}.dispatch"), 2_000_000 + v, op, env],
                    )
                    .unwrap();
                    c.execute("INSERT INTO open_operations VALUES (?1, 's0', 'deadowner', ?2)", params![op, format!("{op}.dispatch")]).unwrap();
                }
            }
            let t = Instant::now();
            let s = SessionStore::open(OpenOptions::at(&p, KeySource::Bytes(key()))).unwrap();
            firsts.push(t.elapsed());
            assert_eq!(s.open_recovery_report().marked_unknown.len(), 10);
            drop(s);
        }
        firsts.sort();
        let first = firsts[4];
        let mut again = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            drop(SessionStore::open(OpenOptions::at(&p, KeySource::Bytes(key()))).unwrap());
            again.push(t.elapsed());
        }
        again.sort();
        println!(
            "open+recovery       {events:>9} journal events: open that marks 10 ops, median of 9 {:>8.2} ms; open with none open {:>6.2} ms",
            first.as_secs_f64() * 1e3,
            again[2].as_secs_f64() * 1e3
        );
        first_opens.push(first);
    }
    println!(
        "open+recovery       ratio 1M / 10k events: {:.2} (goal <= 1.5)",
        first_opens[1].as_secs_f64() / first_opens[0].as_secs_f64()
    );

    // --- list_sessions_for_workspace over 50,000 sessions, first page of 20.
    let p = dir.path().join("list.db");
    let s = SessionStore::open(OpenOptions::at(&p, KeySource::Bytes(key()))).unwrap();
    let workspaces: Vec<String> = (0..10)
        .map(|i| {
            let w = dir.path().join(format!("ws{i}"));
            std::fs::create_dir_all(&w).unwrap();
            w.to_string_lossy().into_owned()
        })
        .collect();
    let sessions = 50_000usize;
    let t = Instant::now();
    for i in 0..sessions {
        let ws = if i % 11 == 10 { None } else { Some(workspaces[i % 11 % 10].clone()) };
        s.create_session(Some(format!("session {i}")), ws).unwrap();
    }
    let created = t.elapsed();
    let mut times = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        let page = s.list_sessions_for_workspace(WorkspaceFilter::Current(workspaces[3].clone()), Some(20)).unwrap();
        times.push(t.elapsed());
        assert_eq!(page.len(), 20);
    }
    times.sort();
    println!(
        "list_for_workspace  {sessions} sessions (created at {:.0}/s): first page of 20 median {:.0} µs, p95 {:.0} µs",
        rate(sessions, created),
        times[100].as_secs_f64() * 1e6,
        times[190].as_secs_f64() * 1e6
    );
}
