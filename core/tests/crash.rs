//! Process-level faults (issue 2): SIGKILL at random points, and two
//! processes appending to one session at once. The test binary re-executes
//! itself as the child (`child_process_entry`), selected by environment.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::RngExt;
use sessiondb::*;

const KEY: [u8; 32] = [9u8; 32];

fn open(path: &str) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, KeySource::Bytes(DataKey::from_bytes(&KEY).unwrap()))).unwrap()
}

/// Child entry point: does nothing unless SESSIONDB_CHILD is set.
#[test]
fn child_process_entry() {
    let Ok(mode) = std::env::var("SESSIONDB_CHILD") else { return };
    let db = std::env::var("SESSIONDB_DB").unwrap();
    let sid = std::env::var("SESSIONDB_SID").unwrap();
    let store = open(&db);
    let out = std::io::stdout();
    match mode.as_str() {
        "writer" => {
            // Append forever (until killed), acknowledging each append after it returned.
            // Every 7th append is wrapped in an operation that stays open while the next appends run.
            let mut i = 0u64;
            loop {
                i += 1;
                let op = format!("op-{}-{i}", std::process::id());
                if i.is_multiple_of(7) {
                    store.dispatch_operation(&sid, &op, serde_json::json!({"i": i})).unwrap();
                }
                let e = store.append_transcript(&sid, Role::User, format!("entry from {}", std::process::id())).unwrap();
                use std::io::Write;
                writeln!(out.lock(), "ACK {}", e.seq).unwrap();
                if i.is_multiple_of(7) && i.is_multiple_of(2) {
                    store.complete_operation(&sid, &op, OperationOutcome::Succeeded, serde_json::json!({})).unwrap();
                }
            }
        }
        "appender" => {
            let n: u64 = std::env::var("SESSIONDB_N").unwrap().parse().unwrap();
            let tag = std::env::var("SESSIONDB_TAG").unwrap();
            for i in 0..n {
                // Any error (Busy included) fails the child and so the test.
                store.append_transcript(&sid, Role::User, format!("{tag}:{i}")).unwrap();
            }
            use std::io::Write;
            writeln!(out.lock(), "DONE {tag}").unwrap();
        }
        other => panic!("unknown child mode {other}"),
    }
}

fn child(mode: &str, db: &str, sid: &str, extra: &[(&str, String)]) -> std::process::Child {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", "child_process_entry", "--nocapture", "--test-threads=1"])
        .env("SESSIONDB_CHILD", mode)
        .env("SESSIONDB_DB", db)
        .env("SESSIONDB_SID", sid)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (k, v) in extra {
        c.env(k, v);
    }
    c.spawn().unwrap()
}

#[test]
fn sigkill_at_random_points_loses_no_acknowledged_append() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db").to_string_lossy().into_owned();
    let sid = open(&db).create_session(Some("crash".into()), None).unwrap().id;
    let mut rng = rand::rng();
    let mut max_acked = 0u64;
    let rounds = 100;
    for round in 0..rounds {
        let mut ch = child("writer", &db, &sid, &[]);
        let stdout = ch.stdout.take().unwrap();
        let kill_after = rng.random_range(1..40u64);
        let reader = std::thread::spawn(move || {
            let mut acked = Vec::new();
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(n) = line.strip_prefix("ACK ") {
                    acked.push(n.parse::<u64>().unwrap());
                }
            }
            acked
        });
        // Kill at a random moment: after a random delay once the child is writing.
        let start = Instant::now();
        std::thread::sleep(Duration::from_millis(kill_after + rng.random_range(0..20)));
        ch.kill().unwrap(); // SIGKILL on Unix
        ch.wait().unwrap();
        let acked = reader.join().unwrap();
        let _ = start;
        // Reopen: recovery runs; every acknowledged append is there, seqs gapless.
        let s = open(&db);
        let entries: Vec<_> = {
            let mut all = Vec::new();
            let mut from = 1;
            loop {
                let page = s.get_transcript(&sid, from, 10_000).unwrap();
                if page.is_empty() { break; }
                from = page.last().unwrap().seq + 1;
                all.extend(page);
            }
            all
        };
        let seqs: Vec<u64> = entries.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>(), "round {round}: gapless");
        for a in &acked {
            assert!(*a <= seqs.len() as u64, "round {round}: acknowledged seq {a} lost");
        }
        assert!(entries.iter().all(|e| e.content.starts_with("entry from ")), "round {round}: nothing half-written");
        assert_eq!(s.get_session(&sid).unwrap().entry_count, seqs.len() as u64, "round {round}: count matches rows");
        assert!(s.open_operations().unwrap().is_empty(), "round {round}: dead owner's operations were closed");
        max_acked = max_acked.max(acked.iter().copied().max().unwrap_or(0));
        drop(s);
    }
    // Every operation dispatched by a killed writer ended with exactly one terminal event.
    let s = open(&db);
    let mut dispatched = std::collections::HashSet::new();
    let mut terminal = std::collections::HashMap::new();
    let mut from = 1;
    loop {
        let ev = s.journal_events(&sid, from, 10_000).unwrap();
        if ev.is_empty() { break; }
        from = ev.last().unwrap().seq + 1;
        for e in ev {
            match e.kind.as_str() {
                "EffectDispatchCommitted" => { dispatched.insert(e.operation_id.unwrap()); }
                k if sessiondb::journal::TERMINAL_KINDS.contains(&k) => { *terminal.entry(e.operation_id.unwrap()).or_insert(0) += 1; }
                _ => {}
            }
        }
    }
    assert!(dispatched.iter().all(|op| terminal.get(op) == Some(&1)), "each dispatched op has exactly one terminal");
    assert!(max_acked > 0, "the writers made progress");
    eprintln!("sigkill: {rounds} rounds, {} entries, {} operations", s.get_session(&sid).unwrap().entry_count, dispatched.len());
}

#[test]
fn two_processes_appending_at_once_get_unique_gapless_seqs_and_no_busy() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db").to_string_lossy().into_owned();
    let sid = open(&db).create_session(None, None).unwrap().id;
    let per = 5_000u64;
    let kids: Vec<_> = ["A", "B"]
        .iter()
        .map(|tag| child("appender", &db, &sid, &[("SESSIONDB_N", per.to_string()), ("SESSIONDB_TAG", tag.to_string())]))
        .collect();
    for k in kids {
        let out = k.wait_with_output().unwrap();
        assert!(out.status.success(), "a child failed (a BUSY or other error reached it)");
    }
    let s = open(&db);
    let mut all = Vec::new();
    let mut from = 1;
    loop {
        let page = s.get_transcript(&sid, from, 10_000).unwrap();
        if page.is_empty() { break; }
        from = page.last().unwrap().seq + 1;
        all.extend(page);
    }
    assert_eq!(all.len() as u64, 2 * per);
    assert_eq!(all.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=2 * per).collect::<Vec<_>>());
    for tag in ["A", "B"] {
        let mine: Vec<u64> = all.iter().filter_map(|e| e.content.strip_prefix(&format!("{tag}:")).map(|n| n.parse().unwrap())).collect();
        assert_eq!(mine, (0..per).collect::<Vec<_>>(), "{tag}'s appends all present, in its order");
    }
}
