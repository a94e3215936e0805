//! Adversarial tests of group commit of concurrent appends (written by a
//! review that tried to break it; the fork and panic cases were bugs, fixed).
#![allow(unsafe_code)]
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use sessiondb::{DataKey, ErrorKind, KeySource, NewEntry, NewSession, OpenOptions, Role, SessionStore};

fn key() -> KeySource {
    KeySource::Bytes(DataKey::from_bytes(&[7u8; 32]).unwrap())
}

fn open(path: &std::path::Path, busy_ms: u64) -> SessionStore {
    let mut o = OpenOptions::at(path, key());
    o.busy_timeout_ms = busy_ms;
    SessionStore::open(o).unwrap()
}

/// Join with a deadline: `None` if the thread is still running after it.
fn join_within<T: Send + 'static>(h: std::thread::JoinHandle<T>, d: Duration) -> Option<std::thread::Result<T>> {
    let t0 = Instant::now();
    while !h.is_finished() {
        if t0.elapsed() > d {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Some(h.join())
}

/// Check every session: seqs gapless 1..=n, and one TranscriptAppended per append.
fn check_store(s: &SessionStore, sid: &str, oks: &[(u64, Vec<String>)]) {
    // Every entry, in pages (a release build appends more than one page's
    // 10,000 in the close test's 150 ms: reading one page then indexed past
    // its end, which looked like a lost append).
    let mut entries = Vec::new();
    loop {
        let page = s.get_transcript(sid, entries.len() as u64 + 1, 10_000).unwrap();
        if page.is_empty() {
            break;
        }
        entries.extend(page);
    }
    for (i, e) in entries.iter().enumerate() {
        assert_eq!(e.seq, i as u64 + 1, "gap in seqs");
    }
    let mut expected = 0usize;
    for (first, contents) in oks {
        for (j, c) in contents.iter().enumerate() {
            let e = &entries[(*first as usize) - 1 + j];
            assert_eq!(&e.content, c, "append at seq {first} not contiguous/in order");
        }
        expected += contents.len();
    }
    assert_eq!(entries.len(), expected, "stored entries != acknowledged entries");
    let mut ev = Vec::new();
    loop {
        let page = s.journal_events(sid, ev.last().map_or(1, |e: &sessiondb::JournalEvent| e.seq + 1), 10_000).unwrap();
        if page.is_empty() {
            break;
        }
        ev.extend(page);
    }
    let appended = ev.iter().filter(|e| e.kind == "TranscriptAppended").count();
    assert_eq!(appended, oks.len(), "TranscriptAppended events != acknowledged appends");
}

/// Close while 8 threads append multi-entry batches: every Ok append stored,
/// every Err append absent (checked after reopening).
#[test]
fn close_while_appending_keeps_exactly_the_acknowledged_appends() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.db");
    let s = Arc::new(open(&p, 5_000));
    let sid = s.create_session(None, None).unwrap().id;
    let stop = Arc::new(AtomicBool::new(false));
    let hs: Vec<_> = (0..8)
        .map(|t| {
            let (s, sid, stop) = (s.clone(), sid.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut oks = Vec::new();
                let mut errs = 0;
                for i in 0.. {
                    if stop.load(Ordering::Relaxed) && errs > 3 {
                        break;
                    }
                    let c: Vec<String> = (0..3).map(|k| format!("{t}:{i}:{k}")).collect();
                    match s.append_entries(&sid, c.iter().map(|x| NewEntry::text(Role::User, x.clone())).collect()) {
                        Ok(v) => oks.push((v[0].seq, c)),
                        Err(e) => {
                            assert_eq!(e.kind(), ErrorKind::Closed, "{e}");
                            errs += 1;
                        }
                    }
                }
                oks
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(150));
    s.close();
    stop.store(true, Ordering::Relaxed);
    let mut oks: Vec<(u64, Vec<String>)> = hs.into_iter().flat_map(|h| h.join().unwrap()).collect();
    oks.sort();
    drop(s);
    let s = open(&p, 5_000);
    check_store(&s, &sid, &oks);
}

/// Another connection holds BEGIN IMMEDIATE: queued appends get Busy, none is
/// stored, none twice; afterwards everything is gapless.
#[test]
fn busy_from_another_writer_fails_queued_appends_cleanly() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.db");
    let s = Arc::new(open(&p, 200));
    let sid = s.create_session(None, None).unwrap().id;
    s.append_transcript(&sid, Role::User, "0:first".into()).unwrap();
    let other = rusqlite::Connection::open(&p).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let bar = Arc::new(Barrier::new(8));
    let hs: Vec<_> = (0..8)
        .map(|t| {
            let (s, sid, bar) = (s.clone(), sid.clone(), bar.clone());
            std::thread::spawn(move || {
                bar.wait();
                let mut out = Vec::new();
                for i in 0..5 {
                    let c = format!("{t}:{i}");
                    let t0 = Instant::now();
                    out.push((c.clone(), s.append_transcript(&sid, Role::User, c).map(|e| e.seq).map_err(|e| e.kind()), t0.elapsed()));
                }
                out
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(700));
    other.execute_batch("COMMIT").unwrap();
    let mut oks = vec![(1u64, vec!["0:first".to_string()])];
    let mut max_wait = Duration::ZERO;
    for h in hs {
        for (c, r, el) in h.join().unwrap() {
            max_wait = max_wait.max(el);
            match r {
                Ok(seq) => oks.push((seq, vec![c])),
                Err(k) => assert_eq!(k, ErrorKind::Busy),
            }
        }
    }
    oks.sort();
    eprintln!("acknowledged {} of 41; longest single append {:?}", oks.len(), max_wait);
    check_store(&s, &sid, &oks);
}

/// Many threads, many sessions, with renames, journal appends, deletes of the
/// session being appended to, and imports going on from other threads.
#[test]
fn appends_mixed_with_other_writes_and_deletes() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.db");
    let s = Arc::new(open(&p, 5_000));
    let sids: Vec<String> = (0..4).map(|_| s.create_session(None, None).unwrap().id).collect();
    let victim = s.create_session(None, None).unwrap().id;
    let stop = Arc::new(AtomicBool::new(false));
    let mut hs = Vec::new();
    for t in 0..6 {
        let (s, sids, victim, stop) = (s.clone(), sids.clone(), victim.clone(), stop.clone());
        hs.push(std::thread::spawn(move || {
            let mut oks: Vec<(String, u64, Vec<String>)> = Vec::new();
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                let sid = if i % 5 == 4 { victim.clone() } else { sids[(t + i) % 4].clone() };
                let c: Vec<String> = (0..(1 + i % 3)).map(|k| format!("{t}:{i}:{k}")).collect();
                match s.append_entries(&sid, c.iter().map(|x| NewEntry::text(Role::Assistant, x.clone())).collect()) {
                    Ok(v) => oks.push((sid, v[0].seq, c)),
                    Err(e) => assert!(sid == victim && e.kind() == ErrorKind::NotFound, "{e}"),
                }
                i += 1;
            }
            oks
        }));
    }
    {
        let (s, sids, stop) = (s.clone(), sids.clone(), stop.clone());
        hs.push(std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                s.rename_session(&sids[n % 4], Some(format!("t{n}"))).unwrap();
                n += 1;
            }
            Vec::new()
        }));
    }
    std::thread::sleep(Duration::from_millis(100));
    s.delete_session(&victim).unwrap();
    std::thread::sleep(Duration::from_millis(150));
    stop.store(true, Ordering::Relaxed);
    let all: Vec<_> = hs.into_iter().flat_map(|h| h.join().unwrap()).collect();
    drop(s);
    let s = open(&p, 5_000);
    for sid in &sids {
        let mut oks: Vec<(u64, Vec<String>)> = all.iter().filter(|x| &x.0 == sid).map(|x| (x.1, x.2.clone())).collect();
        oks.sort();
        check_store(&s, sid, &oks);
    }
    assert_eq!(s.get_transcript(&victim, 1, 10).unwrap_err().kind(), ErrorKind::NotFound);
}

/// A panic inside the leader's group (here: `now - updated_at` overflows for
/// a session created at i64::MIN ms, a debug-build overflow panic) must not
/// wedge every other append of the store.
#[test]
fn a_panic_in_a_group_does_not_wedge_later_appends() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.db");
    let s = Arc::new(open(&p, 5_000));
    let bad = s.create_session_with(NewSession { created_at_ms: Some(i64::MIN), ..Default::default() }).unwrap().id;
    let good = s.create_session(None, None).unwrap().id;
    let s2 = s.clone();
    let r = std::thread::spawn(move || s2.append_transcript(&bad, Role::User, "x".into())).join();
    eprintln!("append to the i64::MIN session: {}", if r.is_err() { "panicked" } else { "returned" });
    let s3 = s.clone();
    let h = std::thread::spawn(move || s3.append_transcript(&good, Role::User, "y".into()).map(|e| e.seq));
    let got = join_within(h, Duration::from_secs(5));
    assert!(got.is_some(), "an append to another session hangs forever after a panic in an earlier group");
}

#[cfg(unix)]
extern "C" {
    fn fork() -> i32;
    fn waitpid(pid: i32, status: *mut i32, options: i32) -> i32;
    fn _exit(code: i32) -> !;
    fn alarm(secs: u32) -> u32;
}

/// A child forked while a parent thread is writing a group: the child's
/// append must fail with `Closed` (as every other call does after fork),
/// not hang.
#[cfg(unix)]
#[test]
fn append_in_a_forked_child_fails_closed_instead_of_hanging() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.db");
    let s = Arc::new(open(&p, 5_000));
    let sid = s.create_session(None, None).unwrap().id;
    let stop = Arc::new(AtomicBool::new(false));
    let hs: Vec<_> = (0..3)
        .map(|_| {
            let (s, sid, stop) = (s.clone(), sid.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    s.append_transcript(&sid, Role::User, "parent".into()).unwrap();
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let mut hung = 0;
    let mut other = 0;
    for _ in 0..5 {
        let pid = unsafe { fork() };
        if pid == 0 {
            // child: SIGALRM (default action: terminate) after 3 s if it hangs.
            unsafe { alarm(3) };
            // control: a read in the child fails Closed at once (pid check).
            if s.get_session(&sid).map_err(|e| e.kind()).err() != Some(ErrorKind::Closed) {
                unsafe { _exit(2) };
            }
            let code = match s.append_transcript(&sid, Role::User, "child".into()) {
                Err(e) if e.kind() == ErrorKind::Closed => 0,
                _ => 1,
            };
            unsafe { _exit(code) };
        }
        let mut status = 0;
        unsafe { waitpid(pid, &mut status, 0) };
        let signaled = (status & 0x7f) != 0;
        if signaled {
            hung += 1;
        } else if (status >> 8) & 0xff != 0 {
            other += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for h in hs {
        h.join().unwrap();
    }
    assert_eq!(other, 0, "a child append did something other than fail Closed");
    assert_eq!(hung, 0, "{hung} of 5 forked children hung in append_transcript (killed by alarm)");
}

/// Appends issued in order on one thread and run on a FIFO pool of four
/// threads (as Node's `appendTranscript` runs on libuv's) land in issue
/// order when each carries its `AppendTurn`, although the jobs spend
/// different times before they append; a turn dropped unrun, one whose job
/// makes no append, and one whose append fails each give their place up.
#[test]
fn appends_under_turns_land_in_issue_order_from_a_pool() {
    let dir = tempfile::tempdir().unwrap();
    let s = Arc::new(open(&dir.path().join("s.db"), 5_000));
    let a = s.create_session(None, None).unwrap().id;
    let b = s.create_session(None, None).unwrap().id;
    let (tx, pool) = fifo_pool(4);
    let (results_tx, results_rx) = std::sync::mpsc::channel::<(usize, Result<u64, ErrorKind>)>();
    let mut want = std::collections::HashMap::<String, Vec<String>>::new();
    for i in 0..4_000usize {
        let turn = s.append_turn();
        if i % 97 == 5 {
            drop(turn); // cancelled before it started
            continue;
        }
        let (s, results_tx) = (Arc::clone(&s), results_tx.clone());
        if i % 101 == 7 {
            // A call in turn that appends nothing: a read.
            let a = a.clone();
            tx.send(Box::new(move || turn.run(|| drop(s.get_session(&a).unwrap())))).unwrap();
            continue;
        }
        let sid = match i % 89 {
            3 => "no-such-session".to_owned(),
            _ if i % 3 == 0 => b.clone(),
            _ => a.clone(),
        };
        let text = format!("m{i}");
        if sid != "no-such-session" {
            want.entry(sid.clone()).or_default().push(text.clone());
        }
        tx.send(Box::new(move || {
            // Earlier jobs often take longer before they append (a host's
            // argument conversion, redaction, token counting).
            let spin = Instant::now();
            while spin.elapsed() < Duration::from_micros(((4_000 - i) % 7 * 40) as u64) {}
            let r = turn.run(|| s.append_transcript(&sid, Role::User, text));
            results_tx.send((i, r.map(|e| e.seq).map_err(|e| e.kind()))).unwrap();
        }))
        .unwrap();
    }
    drop((tx, results_tx));
    for t in pool {
        t.join().unwrap();
    }
    let results: Vec<_> = results_rx.iter().collect();
    let failed: Vec<_> = results.iter().filter(|(_, r)| r.is_err()).map(|(i, r)| (*i, r.clone().unwrap_err())).collect();
    let expect_failed: Vec<_> = (0..4_000usize).filter(|i| i % 89 == 3 && i % 97 != 5 && i % 101 != 7).map(|i| (i, ErrorKind::NotFound)).collect();
    let mut failed = failed;
    failed.sort_by_key(|(i, _)| *i);
    assert_eq!(failed, expect_failed);
    for (sid, contents) in &want {
        let stored: Vec<String> = s.get_transcript(sid, 1, 10_000).unwrap().into_iter().map(|e| e.content).collect();
        assert_eq!(stored.len(), contents.len());
        assert_eq!(&stored, contents, "session {sid}: stored out of issue order");
    }
    let ok = results.iter().filter(|(_, r)| r.is_ok()).count();
    assert_eq!(want[&a].len() + want[&b].len(), ok);
    assert!(ok > 3_800, "{ok} appends");
}

/// A FIFO pool of `n` threads (libuv's pool, as Node runs each call):
/// jobs sent to the returned channel, run in the order sent.
fn fifo_pool(n: usize) -> (std::sync::mpsc::Sender<Box<dyn FnOnce() + Send>>, Vec<std::thread::JoinHandle<()>>) {
    let (tx, rx) = std::sync::mpsc::channel::<Box<dyn FnOnce() + Send>>();
    let rx = Arc::new(std::sync::Mutex::new(rx));
    let threads = (0..n)
        .map(|_| {
            let rx = Arc::clone(&rx);
            std::thread::spawn(move || loop {
                let job = rx.lock().unwrap().recv();
                match job {
                    Ok(job) => job(),
                    Err(_) => break,
                }
            })
        })
        .collect();
    (tx, threads)
}

/// close() under a turn, issued after 200 appends in flight and before 100
/// more, on a FIFO pool of 4 (Node's `close()` not awaited): the 200 are
/// stored, in order, and the 100 fail with `Closed`. Without the turn, the
/// close ran while the three earlier appends on the other threads were
/// still before the queue (they failed with `Closed`), and appends issued
/// after it could be stored before it ran (23 of 2,000 in
/// node/__test__/appends_under_load.test.mjs).
#[test]
fn close_under_a_turn_stores_the_appends_issued_before_it_and_refuses_those_after() {
    let dir = tempfile::tempdir().unwrap();
    let s = Arc::new(open(&dir.path().join("s.db"), 5_000));
    let sid = s.create_session(None, None).unwrap().id;
    let (tx, pool) = fifo_pool(4);
    let (results_tx, results_rx) = std::sync::mpsc::channel::<(usize, Result<u64, ErrorKind>)>();
    for i in 0..300usize {
        if i == 200 {
            let (turn, s) = (s.append_turn(), Arc::clone(&s));
            tx.send(Box::new(move || turn.run(|| s.close()))).unwrap();
        }
        let (turn, s, sid, results_tx) = (s.append_turn(), Arc::clone(&s), sid.clone(), results_tx.clone());
        tx.send(Box::new(move || {
            // A host's work before the append (argument conversion,
            // redaction, counting): the close job starts meanwhile.
            // The last ten before the close take longest.
            let spin = Instant::now();
            while spin.elapsed() < Duration::from_micros(if (190..200).contains(&i) { 3_000 } else { 300 }) {}
            let r = turn.run(|| s.append_transcript(&sid, Role::User, format!("m{i}")));
            results_tx.send((i, r.map(|e| e.seq).map_err(|e| e.kind()))).unwrap();
        }))
        .unwrap();
    }
    drop((tx, results_tx));
    for t in pool {
        t.join().unwrap();
    }
    let mut results: Vec<_> = results_rx.iter().collect();
    results.sort_by_key(|(i, _)| *i);
    let want: Vec<_> = (0..300usize).map(|i| (i, if i < 200 { Ok(i as u64 + 1) } else { Err(ErrorKind::Closed) })).collect();
    assert_eq!(results, want);
    assert!(s.is_closed());
    let s = open(&dir.path().join("s.db"), 5_000);
    let stored: Vec<String> = s.get_transcript(&sid, 1, 1_000).unwrap().into_iter().map(|e| e.content).collect();
    assert_eq!(stored, (0..200).map(|i| format!("m{i}")).collect::<Vec<_>>());
}

/// A write other than an append, issued between appends and run on the
/// same FIFO pool under its turn with `hold_turn`, sees exactly the appends
/// issued before it: `retract_last_entry` issued after append i retracts
/// entry i, although the pool's threads race.
#[test]
fn a_write_holding_its_turn_sees_exactly_the_appends_issued_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let s = Arc::new(open(&dir.path().join("s.db"), 5_000));
    let sid = s.create_session(None, None).unwrap().id;
    let (tx, pool) = fifo_pool(4);
    let (done_tx, done_rx) = std::sync::mpsc::channel::<(usize, String)>();
    for i in 0..1_500usize {
        let (s2, sid2, turn) = (Arc::clone(&s), sid.clone(), s.append_turn());
        tx.send(Box::new(move || {
            let spin = Instant::now();
            while spin.elapsed() < Duration::from_micros(((1_500 - i) % 5 * 50) as u64) {}
            turn.run(|| s2.append_transcript(&sid2, Role::User, format!("m{i}")).unwrap());
        }))
        .unwrap();
        if i % 10 == 9 {
            let (s2, sid2, turn, done_tx) = (Arc::clone(&s), sid.clone(), s.append_turn(), done_tx.clone());
            tx.send(Box::new(move || {
                let popped = turn.run(|| {
                    let _held = s2.hold_turn();
                    s2.retract_last_entry(&sid2).unwrap().expect("an entry to retract")
                });
                done_tx.send((i, popped.content)).unwrap();
            }))
            .unwrap();
        }
    }
    drop((tx, done_tx));
    for t in pool {
        t.join().unwrap();
    }
    let mut popped: Vec<(usize, String)> = done_rx.iter().collect();
    popped.sort();
    assert_eq!(popped.len(), 150);
    for (i, content) in &popped {
        assert_eq!(content, &format!("m{i}"), "the retraction issued after append {i} retracted {content}");
    }
    let visible: Vec<String> = s.get_transcript(&sid, 1, 10_000).unwrap().into_iter().map(|e| e.content).collect();
    let want: Vec<String> = (0..1_500).filter(|i| i % 10 != 9).map(|i| format!("m{i}")).collect();
    assert_eq!(visible, want);
}
