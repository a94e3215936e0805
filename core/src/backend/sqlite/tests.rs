//! The SQLite backend's unit tests (moved out of mod.rs as they were).
use super::access::open_reader;
use super::*;
use crate::backend::Sealed;
use std::sync::mpsc;

fn migrated(dir: &Path) -> SqliteBackend {
    let b = SqliteBackend::connect(&dir.join("s.db"), &SqliteOptions::new(10_000).unwrap(), "t").unwrap();
    b.migrate().unwrap();
    b
}

fn meta(b: &(dyn Backend + 'static), key: &str) -> Sealed {
    b.read(|r| r.meta(key)).unwrap()
}

/// A read on another thread runs and ends while this handle's write
/// transaction is held open (inside the write closure, which waits for
/// the read's answer): it sees the last committed value, not the one
/// being written. With one connection behind one mutex, the read could
/// not start until the write ended, and the write closure would give
/// up waiting (after a minute: a liveness bound, not a timing).
#[test]
fn a_read_on_another_thread_completes_while_a_write_transaction_is_open() {
    let d = tempfile::tempdir().unwrap();
    let b = migrated(d.path());
    let b: &(dyn Backend + 'static) = &b;
    b.write(|tx| tx.put_meta("k", "old", true)).unwrap();
    // One read first, so the pool holds an idle connection; the held
    // write below also meets a read that must open a new one.
    assert_eq!(meta(b, "k"), Sealed::Bytes(b"old".to_vec()));
    std::thread::scope(|sc| {
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (got_tx, got_rx) = mpsc::channel::<Vec<Sealed>>();
        sc.spawn(move || {
            go_rx.recv().unwrap();
            // Two reads at once: one reuses the idle connection, one opens another.
            let got = std::thread::scope(|sc2| {
                let h = sc2.spawn(|| meta(b, "k"));
                let mine = meta(b, "k");
                vec![mine, h.join().unwrap()]
            });
            got_tx.send(got).unwrap();
        });
        b.write(|tx| {
            tx.put_meta("k", "new", true)?;
            go_tx.send(()).unwrap();
            let got = got_rx
                .recv_timeout(Duration::from_secs(60))
                .expect("the reads on another thread did not complete while the write transaction was open");
            assert_eq!(got, vec![Sealed::Bytes(b"old".to_vec()); 2]);
            Ok(())
        })
        .unwrap();
    });
    // Committed: the next read sees it.
    assert_eq!(meta(b, "k"), Sealed::Bytes(b"new".to_vec()));
}

/// Before the schema is migrated no read connection exists (reads use
/// the writer); after, reads use the pool, bounded by READ_POOL_SIZE;
/// close() closes them and later reads are `Closed`.
#[test]
fn readers_exist_only_after_migration_are_bounded_and_closed_with_the_handle() {
    let d = tempfile::tempdir().unwrap();
    let b = SqliteBackend::connect(&d.path().join("s.db"), &SqliteOptions::new(10_000).unwrap(), "t").unwrap();
    assert!(b.has_key_check().is_ok());
    let pool = |b: &SqliteBackend| {
        let g = lock(&b.readers.state);
        (g.idle.len(), g.out)
    };
    assert_eq!(pool(&b), (0, 0));
    b.migrate().unwrap();
    let bd: &(dyn Backend + 'static) = &b;
    assert_eq!(bd.read(|r| r.schema_version()).unwrap(), schema::LATEST_VERSION);
    assert_eq!(pool(&b), (1, 0));
    std::thread::scope(|sc| {
        for _ in 0..8 {
            sc.spawn(|| {
                for _ in 0..100 {
                    bd.read(|r| r.counts()).unwrap();
                }
            });
        }
    });
    let (idle, out) = pool(&b);
    assert!((1..=READ_POOL_SIZE).contains(&idle) && out == 0, "{idle} idle, {out} out");
    bd.close();
    assert_eq!(pool(&b), (0, 0));
    assert!(bd.is_closed());
    assert_eq!(bd.read(|r| r.counts()).unwrap_err().kind(), crate::ErrorKind::Closed);
    assert_eq!(bd.write(|tx| tx.put_meta("k", "v", true)).unwrap_err().kind(), crate::ErrorKind::Closed);
}

/// The writer never checkpoints inside a commit on its own: SQLite's
/// automatic checkpoint is off on it (the WAL hook replaces it).
#[test]
fn the_writer_has_no_automatic_checkpoint() {
    let d = tempfile::tempdir().unwrap();
    let b = migrated(d.path());
    let pages: i64 = b.with_conn(|c| Ok(c.query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0))?)).unwrap();
    assert_eq!(pages, 0);
}

/// Commits below `PASSIVE_BYTES` of WAL start no thread; the first
/// commit past it starts the checkpoint thread, which copies the WAL
/// back into the database file (a liveness bound of a minute, not a
/// timing); close stops it,
/// and the writer's close, the last, removes the WAL.
#[test]
fn a_commit_past_passive_bytes_starts_the_checkpoint_thread_and_close_stops_it() {
    let d = tempfile::tempdir().unwrap();
    let b = migrated(d.path());
    let bd: &(dyn Backend + 'static) = &b;
    bd.write(|tx| tx.put_meta("small", "v", true)).unwrap();
    assert!(lock(&b.checkpointer.thread).is_none());
    // 5 MiB in one commit: more than 4 MiB of WAL frames.
    let big = "x".repeat(5 << 20);
    bd.write(|tx| tx.put_meta("big", &big, true)).unwrap();
    assert!(lock(&b.checkpointer.thread).is_some());
    // Until a checkpoint copies them, the 5 MiB are in the WAL only:
    // the database file grows past 5 MiB when the thread has run.
    let db_len = || std::fs::metadata(d.path().join("s.db")).unwrap().len();
    let started = Instant::now();
    while db_len() < 5 << 20 {
        assert!(started.elapsed() < Duration::from_secs(60), "the checkpoint thread did not copy the WAL back");
        std::thread::sleep(Duration::from_millis(5));
    }
    bd.close();
    assert!(lock(&b.checkpointer.thread).is_none());
    assert!(!d.path().join("s.db-wal").exists());
}

/// A read connection cannot write, whatever SQL reaches it.
#[test]
fn a_read_connection_is_query_only() {
    let d = tempfile::tempdir().unwrap();
    let _b = migrated(d.path());
    let c = open_reader(&d.path().join("s.db"), 1_000).unwrap();
    let e = c.execute("INSERT INTO meta (key, value) VALUES ('x', 'y')", []).unwrap_err();
    assert!(e.to_string().contains("readonly") || e.to_string().contains("read-only") || e.to_string().contains("query_only"), "{e}");
}

#[test]
fn a_pause_waits_for_the_reads_in_progress_and_holds_new_ones_back() {
    // What `scrub_deleted` relies on: while the pause lives no read
    // connection holds a snapshot, so the truncating checkpoint cannot be
    // kept `Busy` by this handle's own readers (CI saw it time out after
    // 10 s with three threads reading in a loop under load).
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc};
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("r.db");
    rusqlite::Connection::open(&p).unwrap().execute_batch("PRAGMA journal_mode=WAL; CREATE TABLE t (x)").unwrap();
    let pool = Arc::new(super::access::ReadPool::default());
    pool.enable();
    let reading = pool.take(&p, 1_000).unwrap().unwrap();
    let (tx, rx) = mpsc::channel();
    let released = Arc::new(AtomicBool::new(false));
    let pauser = {
        let (pool, released) = (pool.clone(), released.clone());
        std::thread::spawn(move || {
            let held = pool.pause();
            tx.send(()).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(50));
            released.store(true, Ordering::SeqCst);
            drop(held);
        })
    };
    // The pause cannot begin while a read is out.
    assert!(rx.recv_timeout(std::time::Duration::from_millis(200)).is_err());
    drop(reading);
    rx.recv_timeout(std::time::Duration::from_secs(30)).unwrap();
    // A new read waits until the pause ends.
    let again = pool.take(&p, 1_000).unwrap().unwrap();
    assert!(released.load(Ordering::SeqCst));
    drop(again);
    pauser.join().unwrap();
}
