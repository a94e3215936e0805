//! Module functions. Pure ones (capacity, meter, token counts, the
//! compaction planner, AAD) are synchronous; those that read the disk or
//! run crypto return Promises. Results are typed objects (`crate::results`).

use napi::bindgen_prelude::{AsyncTask, Buffer};
use napi_derive::napi;
use serde_json::Value;
use sessiondb::{paths, DataKey, Error, ErrorKind, KeySource, OpenOptions, Role};

use crate::errors::r;
use crate::job::{job, Job};
use crate::records::ThclawsDigest;

/// Name, code (`ERR_*`) of every core error kind, in declaration order.
#[napi(object)]
pub struct ErrorKindInfo {
    pub name: String,
    pub code: String,
}

#[napi]
pub fn error_kinds() -> Vec<ErrorKindInfo> {
    ErrorKind::ALL.iter().map(|k| ErrorKindInfo { name: k.name().into(), code: k.code().into() }).collect()
}

/// Default database path for `app` (seed 000 `sessionsDbPath()`).
#[napi]
pub fn default_db_path(app: Option<String>) -> napi::Result<String> {
    r(paths::default_db_path(app.as_deref().unwrap_or(paths::DEFAULT_APP)).map(|p| p.to_string_lossy().into_owned()))
}

/// Canonical form of a workspace path (resolves symlinks: reads the disk).
#[napi(ts_return_type = "Promise<string>")]
pub fn canonical_workspace(path: String) -> AsyncTask<Job<String>> {
    job(move || {
        let cwd = std::env::current_dir().map_err(|e| Error::io("reading the current directory", e))?;
        paths::canonical_workspace(&path, &cwd)
    })
}

/// Benchmark helper: the same work as bench/bench.mjs's sessiondb run, in
/// Rust only. Resolves to `[appendSeconds, readSeconds]`.
#[napi(js_name = "_benchCore", ts_return_type = "Promise<number[]>")]
pub fn bench_core(path: String, key: Buffer, items: Vec<String>, page: u32) -> AsyncTask<Job<Vec<f64>>> {
    let key = key.to_vec();
    job(move || {
        let store = sessiondb::SessionStore::open(OpenOptions::at(path, KeySource::Bytes(DataKey::from_bytes(&key)?)))?;
        let sid = store.create_session(None, None)?.id;
        let t = std::time::Instant::now();
        for it in items {
            store.append_transcript(&sid, Role::User, it)?;
        }
        let append = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let mut from = 1;
        while let Some(last) = store.get_transcript(&sid, from, page)?.last() {
            from = last.seq + 1;
        }
        Ok(vec![append, t.elapsed().as_secs_f64()])
    })
}


/// Read thClaws JSONL bytes and return what the reader saw (the fields of
/// `tests/conformance/portable/read_thclaws.json`). Pure parsing, synchronous.
/// Throws InvalidInputError when the bytes hold no session.
#[napi]
pub fn read_thclaws_digest(data: Buffer, fallback_id: Option<String>) -> napi::Result<ThclawsDigest> {
    r(sessiondb::portable::read_thclaws_digest(&data, fallback_id.as_deref().unwrap_or("session")).map(Into::into))
}

/// Write a session object `{id, title?, model?, provider?, cwd?, created_at_ms?,
/// turns: [{role, blocks, timestamp_ms?, model?, provider?}]}` as thClaws
/// JSONL text. Pure, synchronous. Throws InvalidInputError.
#[napi(ts_args_type = "session: { id: string; title?: string | null; model?: string | null; provider?: string | null; cwd?: string | null; created_at_ms?: number | null; turns: Array<{ role: 'user' | 'assistant' | 'system' | 'tool'; blocks: Array<Record<string, unknown>>; timestamp_ms?: number | null; model?: string | null; provider?: string | null }> }")]
pub fn write_thclaws_json(session: Value) -> napi::Result<String> {
    r(sessiondb::portable::write_thclaws_json(&session))
}
