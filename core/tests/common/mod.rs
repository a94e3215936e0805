//! Helpers shared by the tests that kill an importing child process
//! (`import_crash.rs`, `import_processes.rs`).

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// Transcript entries committed in the database at `db`, read through a
/// separate read-only connection (0 before the table exists).
pub fn stored_entries(db: &Path) -> i64 {
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    c.busy_timeout(Duration::from_secs(5)).unwrap();
    c.query_row("SELECT COUNT(*) FROM transcript_entries", [], |r| r.get(0)).unwrap_or(0)
}

/// SIGKILL `child` once at least `threshold` entries are committed in `db`
/// (or let it finish first), then reap it. Returns the entries committed
/// when it stopped. Panics if nothing happens within `timeout`.
pub fn kill_after_entries(child: &mut Child, db: &Path, threshold: i64, timeout: Duration) -> i64 {
    let deadline = Instant::now() + timeout;
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if stored_entries(db) >= threshold {
            child.kill().unwrap();
            break;
        }
        assert!(Instant::now() < deadline, "the importing child made no progress");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.wait().unwrap();
    stored_entries(db)
}
