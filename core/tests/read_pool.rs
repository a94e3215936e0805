//! Reads beside writes (issue 33 item 6): the SQLite backend reads on a
//! pool of read connections while its one writer writes. Exact values only:
//! what each read returns, never how long it took. (That a read on another
//! thread completes while a write transaction is held open is tested where
//! the transaction can be held: `backend::sqlite::tests` in the crate.)
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use sessiondb::*;

fn open(p: &std::path::Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(p, KeySource::Bytes(DataKey::from_bytes(&[3; 32]).unwrap()))).unwrap()
}

/// Two writer threads append to their own sessions and read each append
/// back at once (read-your-writes, on whatever read connection they get);
/// four reader threads meanwhile read both sessions whole, and every read
/// is a gapless prefix of what the writer appends, never shorter than the
/// previous read of the same reader (a snapshot that goes back in time
/// would show). At the end: every entry, exactly.
#[test]
fn concurrent_reads_and_writes_from_several_threads_give_consistent_results() {
    let d = tempfile::tempdir().unwrap();
    let s = Arc::new(open(&d.path().join("s.db")));
    let sids: Vec<String> = (0..2).map(|_| s.create_session(None, None).unwrap().id).collect();
    const PER: usize = 300;
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..4)
        .map(|_| {
            let (s, sids, done) = (s.clone(), sids.clone(), done.clone());
            std::thread::spawn(move || {
                let mut seen = [0usize; 2];
                let mut reads = 0u64;
                while !done.load(Ordering::Relaxed) || reads == 0 {
                    for (w, sid) in sids.iter().enumerate() {
                        let got = s.get_transcript(sid, 1, 10_000).unwrap();
                        for (i, e) in got.iter().enumerate() {
                            assert_eq!(e.seq, i as u64 + 1);
                            assert_eq!(e.content, format!("w{w}:{i}"));
                        }
                        assert!(got.len() >= seen[w], "a later read saw fewer entries ({} < {})", got.len(), seen[w]);
                        seen[w] = got.len();
                        // The session row's count comes from the same kind of snapshot.
                        assert!(s.get_session(sid).unwrap().entry_count as usize >= got.len());
                    }
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    let writers: Vec<_> = sids
        .iter()
        .enumerate()
        .map(|(w, sid)| {
            let (s, sid) = (s.clone(), sid.clone());
            std::thread::spawn(move || {
                for i in 0..PER {
                    let e = s.append_transcript(&sid, Role::User, format!("w{w}:{i}")).unwrap();
                    assert_eq!(e.seq, i as u64 + 1);
                    // Read-your-writes: the append is in the very next read.
                    let back = s.get_transcript(&sid, e.seq, 1).unwrap();
                    assert_eq!(back.len(), 1, "entry {} of writer {w} not seen by the read after its append", e.seq);
                    assert_eq!(back[0].content, format!("w{w}:{i}"));
                    assert_eq!(s.get_session(&sid).unwrap().entry_count, i as u64 + 1);
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    done.store(true, Ordering::Relaxed);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
    for (w, sid) in sids.iter().enumerate() {
        let got: Vec<String> = s.get_transcript(sid, 1, 10_000).unwrap().into_iter().map(|e| e.content).collect();
        assert_eq!(got, (0..PER).map(|i| format!("w{w}:{i}")).collect::<Vec<_>>());
        let appended = s.journal_events(sid, 1, 10_000).unwrap().iter().filter(|e| e.kind == "TranscriptAppended").count();
        assert_eq!(appended, PER);
    }
}

/// `close()` closes the read connections too: every later read is
/// `Closed`, on this thread and on others, and the WAL is checkpointed and
/// removed (the writer closed last, after the readers).
#[test]
fn close_then_read_is_closed_and_the_readers_are_closed_too() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.db");
    let s = Arc::new(open(&p));
    let sid = s.create_session(Some("t".into()), None).unwrap().id;
    s.append_transcript(&sid, Role::User, "one".into()).unwrap();
    // Several reads at once, so that more than one read connection exists.
    std::thread::scope(|sc| {
        for _ in 0..4 {
            sc.spawn(|| {
                for _ in 0..50 {
                    assert_eq!(s.get_transcript(&sid, 1, 10).unwrap().len(), 1);
                }
            });
        }
    });
    s.close();
    assert!(s.is_closed());
    assert_eq!(s.get_transcript(&sid, 1, 10).unwrap_err().kind(), ErrorKind::Closed);
    assert_eq!(s.get_session(&sid).unwrap_err().kind(), ErrorKind::Closed);
    assert_eq!(s.list_sessions(None).unwrap_err().kind(), ErrorKind::Closed);
    let s2 = s.clone();
    let other = std::thread::spawn(move || s2.get_transcript_tail(&sid, 5).map(|v| v.len()).map_err(|e| e.kind())).join().unwrap();
    assert_eq!(other, Err(ErrorKind::Closed));
    assert!(!d.path().join("s.db-wal").exists(), "the WAL is removed at close: no read connection stayed open");
}

/// Reads running on other threads while `close()` runs either finish with
/// the right value or fail `Closed`, never anything else, and every read
/// after `close()` returned is `Closed`.
#[test]
fn reads_racing_close_return_their_value_or_closed() {
    let d = tempfile::tempdir().unwrap();
    let s = Arc::new(open(&d.path().join("s.db")));
    let sid = s.create_session(None, None).unwrap().id;
    s.append_entries(&sid, (0..20).map(|i| NewEntry::text(Role::User, format!("e{i}"))).collect()).unwrap();
    let closed = Arc::new(AtomicBool::new(false));
    let hs: Vec<_> = (0..4)
        .map(|_| {
            let (s, sid, closed) = (s.clone(), sid.clone(), closed.clone());
            std::thread::spawn(move || loop {
                let after_close = closed.load(Ordering::SeqCst);
                match s.get_transcript(&sid, 1, 100) {
                    Ok(v) => {
                        assert!(!after_close, "a read that began after close() returned succeeded");
                        assert_eq!(v.len(), 20);
                    }
                    Err(e) => {
                        assert_eq!(e.kind(), ErrorKind::Closed);
                        return;
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(20));
    s.close();
    closed.store(true, Ordering::SeqCst);
    for h in hs {
        h.join().unwrap();
    }
}
