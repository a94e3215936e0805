//! Regression tests for the red-team pass of 2026-12-01: each input below
//! once panicked the core, changed stored data silently, or broke an
//! idempotent retry. One test per finding; the report names them.

use sessiondb::*;

fn key() -> KeySource {
    KeySource::Bytes(DataKey::from_bytes(&[6; 32]).unwrap())
}

fn store() -> (tempfile::TempDir, SessionStore) {
    let d = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions::at(d.path().join("s.db"), key())).unwrap();
    (d, s)
}

/// `busy_timeout_ms` above SQLite's `int` milliseconds once panicked inside
/// rusqlite ("too big") from every host (Python `busy_timeout_ms=2**64-1`).
#[test]
fn a_busy_timeout_sqlite_cannot_hold_is_invalid_input_not_a_panic() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.db");
    for ms in [u64::MAX, i32::MAX as u64 + 1] {
        let err = SessionStore::open(OpenOptions { busy_timeout_ms: ms, ..OpenOptions::at(&p, key()) }).err().expect("refused");
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert_eq!(err.to_string(), format!("invalid input: busy_timeout_ms {ms} is above 2147483647 (SQLite's limit, about 24.8 days)"));
    }
    assert!(!p.exists(), "nothing was created");
    let s = SessionStore::open(OpenOptions { busy_timeout_ms: i32::MAX as u64, ..OpenOptions::at(&p, key()) }).unwrap();
    assert_eq!(s.list_sessions(None).unwrap().len(), 0);
}
