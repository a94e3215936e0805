//! Module functions. Pure ones (capacity, meter, token counts, the
//! compaction planner, AAD) are synchronous; those that read the disk or
//! run crypto return Promises. Results are typed objects (`crate::results`).

use napi::bindgen_prelude::{AsyncTask, Buffer};
use napi_derive::napi;
use serde_json::Value;
use sessiondb::{DataKey, ErrorKind, KeySource, OpenOptions, Role};

use crate::errors::r;
use crate::job::{job, Job};

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


/// Write a session object `{id, title?, model?, provider?, cwd?, created_at_ms?,
/// turns: [{role, blocks, timestamp_ms?, model?, provider?}]}` as thClaws
/// JSONL text. Pure, synchronous. Throws InvalidInputError.
#[napi(ts_args_type = "session: { id: string; title?: string | null; model?: string | null; provider?: string | null; cwd?: string | null; created_at_ms?: number | null; turns: Array<{ role: 'user' | 'assistant' | 'system' | 'tool'; blocks: Array<Record<string, unknown>>; timestamp_ms?: number | null; model?: string | null; provider?: string | null }> }")]
pub fn write_thclaws_json(session: Value) -> napi::Result<String> {
    r(sessiondb::portable::write_thclaws_json(&session))
}
