//! The floors' database (`append_floor`, `import_ir`): plain rusqlite with
//! the store's pragmas (`PAGE_SIZE` pages, WAL, `synchronous=NORMAL`, the
//! store's cache, no checkpoint inside a commit, `secure_delete`).

use sessiondb::backend::sqlite::{CACHE_SIZE_KIB, PAGE_SIZE};

/// A new connection to `path` set up as the store sets up its own.
pub fn open(path: &std::path::Path) -> rusqlite::Connection {
    let c = rusqlite::Connection::open(path).unwrap();
    c.pragma_update(None, "page_size", PAGE_SIZE).unwrap();
    let _: String = c.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).unwrap();
    c.pragma_update(None, "synchronous", "NORMAL").unwrap();
    c.pragma_update(None, "cache_size", CACHE_SIZE_KIB).unwrap();
    c.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    c.pragma_update(None, "secure_delete", "ON").unwrap();
    c
}
