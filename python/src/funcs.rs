//! Module-level functions: paths, the envelope primitives the crypto
//! conformance cases exercise, error kinds, and a core-only timing helper
//! for the benchmark. Each calls one core function.

use std::path::PathBuf;

use pyo3::prelude::*;
use sessiondb::{DataKey, ErrorKind, KeySource, OpenOptions, Role};

use crate::errors::py_err;

/// `(name, code, python class name)` of every core error kind.
#[pyfunction]
pub fn error_kinds() -> Vec<(&'static str, &'static str, &'static str)> {
    ErrorKind::ALL.iter().map(|k| (k.name(), k.code(), crate::errors::class_name(*k))).collect()
}



/// Benchmark helper: the same work as `bench_vs_agents_sdk.py`'s sessiondb
/// run, in Rust only: append the items (one `append_transcript` per item, or
/// `append_entries` of `batch` items per call when `batch > 1`), then read
/// everything back in pages of `page`. Returns `(append_s, read_s)`.
#[pyfunction]
#[pyo3(signature = (path, key, items, page, batch = 1))]
pub fn _bench_core(py: Python<'_>, path: PathBuf, key: &[u8], items: Vec<String>, page: u32, batch: usize) -> PyResult<(f64, f64)> {
    py.detach(|| -> sessiondb::Result<(f64, f64)> {
        let store = sessiondb::SessionStore::open(OpenOptions::at(path, KeySource::Bytes(DataKey::from_bytes(key)?)))?;
        let sid = store.create_session(None, None)?.id;
        let t = std::time::Instant::now();
        if batch <= 1 {
            for it in items {
                store.append_transcript(&sid, Role::User, it)?;
            }
        } else {
            for chunk in items.chunks(batch) {
                store.append_entries(&sid, chunk.iter().map(|c| sessiondb::NewEntry::text(Role::User, c.clone())).collect())?;
            }
        }
        let append = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let mut from = 1;
        loop {
            let got = store.get_transcript(&sid, from, page)?;
            match got.last() {
                Some(l) => from = l.seq + 1,
                None => break,
            }
        }
        Ok((append, t.elapsed().as_secs_f64()))
    })
    .map_err(py_err(py))
}


/// Write a session dict `{id, title?, model?, provider?, cwd?, created_at_ms?,
/// turns: [{role, blocks, timestamp_ms?, model?, provider?}]}` as thClaws
/// JSONL text. Raises InvalidInputError.
#[pyfunction]
pub fn write_thclaws_json(py: Python<'_>, session: &Bound<'_, PyAny>) -> PyResult<String> {
    let v: serde_json::Value = crate::json::de(session, "session")?;
    py.detach(|| sessiondb::portable::write_thclaws_json(&v)).map_err(py_err(py))
}
