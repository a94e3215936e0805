//! The timing loop of the hosts' benchmark helpers (`_bench_core` in Python
//! and Node, declared in bridge/api.rs): the same store work as their
//! benchmarks' sessiondb runs (python/bench/bench_vs_agents_sdk.py,
//! node/bench/bench.mjs), in Rust only, so a benchmark can tell the core's
//! share of a run from the binding's.

use std::path::Path;
use std::time::Instant;

use crate::{DataKey, KeySource, NewEntry, OpenOptions, Result, Role, SessionStore};

/// Open (or create) the store at `path` under the 32-byte data `key`, create
/// one session, append `items` as user text entries (one `append_transcript`
/// per item, or one `append_entries` of `batch` items per call when `batch >
/// 1`), then read everything back with `get_transcript` in pages of `page`
/// entries. Returns `(append_s, read_s)`: the wall-clock seconds of the
/// append phase and of the read phase (opening and creating are not timed).
///
/// Errors: `InvalidInput` for a key that is not 32 bytes or a `page` outside
/// `1..=MAX_PAGE`; otherwise those of [`SessionStore::open`],
/// `append_transcript` / `append_entries` and `get_transcript` (`Io`,
/// `Database`, `KeyMismatch` for a store written under another key...).
#[doc(hidden)]
pub fn append_and_read(path: &Path, key: &[u8], items: Vec<String>, page: u32, batch: usize) -> Result<(f64, f64)> {
    let store = SessionStore::open(OpenOptions::at(path, KeySource::Bytes(DataKey::from_bytes(key)?)))?;
    let sid = store.create_session(None, None)?.id;
    let t = Instant::now();
    if batch <= 1 {
        for it in items {
            store.append_transcript(&sid, Role::User, it)?;
        }
    } else {
        for chunk in items.chunks(batch) {
            store.append_entries(&sid, chunk.iter().map(|c| NewEntry::text(Role::User, c.clone())).collect())?;
        }
    }
    let append = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut from = 1;
    while let Some(last) = store.get_transcript(&sid, from, page)?.last() {
        from = last.seq + 1;
    }
    Ok((append, t.elapsed().as_secs_f64()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_and_reads_every_item_by_either_path() {
        for batch in [1, 3] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("b.db");
            let items: Vec<String> = (0..10).map(|i| format!("item {i}")).collect();
            let (append_s, read_s) = append_and_read(&path, &[7; 32], items, 4, batch).unwrap();
            assert!(append_s >= 0.0 && read_s >= 0.0);
            let store = SessionStore::open(OpenOptions::at(&path, KeySource::Bytes(DataKey::from_bytes(&[7; 32]).unwrap()))).unwrap();
            let sid = store.list_sessions(Some(10)).unwrap()[0].id.clone();
            let texts: Vec<String> = store.get_transcript(&sid, 1, 100).unwrap().into_iter().map(|e| e.content).collect();
            assert_eq!(texts, (0..10).map(|i| format!("item {i}")).collect::<Vec<_>>(), "batch {batch}");
        }
        let dir = tempfile::tempdir().unwrap();
        let e = append_and_read(&dir.path().join("b.db"), &[7; 31], vec![], 4, 1).unwrap_err();
        assert_eq!(e.to_string(), "invalid input: a data key is 32 bytes, got 31");
    }
}
