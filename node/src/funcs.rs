//! Module functions. Pure ones (capacity, meter, token counts, the
//! compaction planner, AAD) are synchronous; those that read the disk or
//! run crypto return Promises. Context results are the core's serde form
//! (snake_case keys), the shapes the conformance cases use.

use napi::bindgen_prelude::{AsyncTask, Buffer};
use napi_derive::napi;
use serde_json::Value;
use sessiondb::context::{self, CompactionOptions, CompactionPlan, ContextItem};
use sessiondb::crypto::{self, EncryptedField};
use sessiondb::{paths, DataKey, Error, ErrorKind, KeySource, OpenOptions, Role};

use crate::errors::{r, to_napi};
use crate::job::{job, Job};
use crate::records::u;
use crate::store::ser;

fn u_opt(v: Option<i64>, what: &str) -> napi::Result<Option<u64>> {
    v.map(|x| u(x, what)).transpose().map_err(to_napi)
}

fn de<T: serde::de::DeserializeOwned>(v: Value, what: &str) -> napi::Result<T> {
    serde_json::from_value(v).map_err(|e| to_napi(Error::invalid(format!("{what}: {e}"))))
}

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

/// The AAD of an envelope v1 for `recordId`: `recordId:v1:aes-256-gcm`.
#[napi]
pub fn envelope_aad(record_id: String) -> String {
    crypto::aad_for(&record_id, crypto::ENVELOPE_VERSION, crypto::ALG_AES_256_GCM)
}

/// Decrypt an envelope (JSON text) written for `recordId`; resolves to the plaintext bytes.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn decrypt_field(key: Buffer, record_id: String, envelope_json: String) -> AsyncTask<Job<Buffer>> {
    let key = key.to_vec();
    job(move || {
        let key = DataKey::from_bytes(&key)?;
        let field = EncryptedField::from_json(&envelope_json)?;
        crypto::decrypt_field(&key, &record_id, &field).map(|p| Buffer::from(p.to_vec()))
    })
}

/// Encrypt `plaintext` for `recordId` with a fresh nonce; resolves to the envelope JSON text.
#[napi(ts_return_type = "Promise<string>")]
pub fn encrypt_field(key: Buffer, record_id: String, plaintext: Buffer) -> AsyncTask<Job<String>> {
    let (key, pt) = (key.to_vec(), plaintext.to_vec());
    job(move || DataKey::from_bytes(&key).map(|k| crypto::encrypt_field(&k, &record_id, &pt).to_json()))
}

/// Hex HMAC-SHA-256 workspace index of an already canonical path.
#[napi(ts_return_type = "Promise<string>")]
pub fn workspace_index(key: Buffer, canonical_path: String) -> AsyncTask<Job<String>> {
    let key = key.to_vec();
    job(move || DataKey::from_bytes(&key).map(|k| crypto::workspace_index(&k, &canonical_path)))
}

/// Effective Context Capacity in tokens (seed 000): raw − max(min(outputReserve,
/// modelMaxOutput), ⌈8% raw⌉) − max(2048, ⌈2% raw⌉). Throws InvalidInputError.
#[napi]
pub fn effective_context_capacity(raw: i64, output_reserve: Option<i64>, model_max_output: Option<i64>) -> napi::Result<i64> {
    let raw = u(raw, "raw").map_err(to_napi)?;
    r(context::effective_context_capacity(raw, u_opt(output_reserve, "outputReserve")?, u_opt(model_max_output, "modelMaxOutput")?)
        .map(|c| c as i64))
}

/// Every term of the capacity: `{raw, output_reserve, safety_margin, capacity}`.
#[napi(ts_return_type = "{ raw: number; output_reserve: number; safety_margin: number; capacity: number }")]
pub fn capacity_breakdown(raw: i64, output_reserve: Option<i64>, model_max_output: Option<i64>) -> napi::Result<Value> {
    let raw = u(raw, "raw").map_err(to_napi)?;
    r(context::capacity_breakdown(raw, u_opt(output_reserve, "outputReserve")?, u_opt(model_max_output, "modelMaxOutput")?)
        .and_then(ser))
}

/// Capacity for a known model name.
#[napi]
pub fn effective_context_capacity_for_model(model: String, output_reserve: Option<i64>) -> napi::Result<i64> {
    r(context::effective_context_capacity_for_model(&model, u_opt(output_reserve, "outputReserve")?).map(|c| c as i64))
}

/// Known limits of a model (`{context_window, max_output}`), or null.
#[napi(ts_return_type = "any")]
pub fn known_model_limits(model: String) -> napi::Result<Value> {
    match context::known_model_limits(&model) {
        Some(l) => r(ser(l)),
        None => Ok(Value::Null),
    }
}

/// The meter: `{active_tokens, capacity, percent, label, band, overflow}`.
#[napi(ts_return_type = "{ active_tokens: number; capacity: number; percent: number; label: string; band: 'green' | 'amber' | 'orange' | 'red'; overflow: boolean }")]
pub fn meter(active_tokens: i64, capacity: i64) -> napi::Result<Value> {
    let (a, c) = (u(active_tokens, "activeTokens").map_err(to_napi)?, u(capacity, "capacity").map_err(to_napi)?);
    r(context::meter(a, c).and_then(ser))
}

/// True when the projected context exceeds the capacity.
#[napi]
pub fn should_compact(projected_tokens: i64, capacity: i64) -> napi::Result<bool> {
    let (p, c) = (u(projected_tokens, "projectedTokens").map_err(to_napi)?, u(capacity, "capacity").map_err(to_napi)?);
    Ok(context::should_compact(p, c))
}

/// Token count: `{tokens, method: 'exact'|'estimate'|'host', encoding?}`; a host count always wins.
#[napi(ts_return_type = "{ tokens: number; method: 'exact' | 'estimate' | 'host'; encoding?: string }")]
pub fn count_tokens(model: String, text: String, host_count: Option<i64>) -> napi::Result<Value> {
    r(ser(context::count_tokens(&model, &text, u_opt(host_count, "hostCount")?)))
}

/// The documented estimate (no tokenizer), in tokens.
#[napi]
pub fn estimate_tokens(text: String) -> i64 {
    context::estimate_tokens(&text) as i64
}

pub fn plan_value(plan: &CompactionPlan) -> sessiondb::Result<Value> {
    let mut v = ser(plan)?;
    v["compacted_seqs"] = serde_json::json!(plan.compacted_seqs());
    Ok(v)
}

/// Plan compaction of `items` (`{seq, role, kind, tokens, text, pinned?, call_ids?, compacted?}`)
/// down to `targetPercent` (default 70) of `capacity`. Throws ContextOverflowError, InvalidInputError.
#[napi(ts_return_type = "any")]
pub fn compact_context(items: Value, capacity: i64, target_percent: Option<u32>, options: Option<Value>) -> napi::Result<Value> {
    let items: Vec<ContextItem> = de(items, "context items")?;
    let options: CompactionOptions = match options {
        Some(v) if !v.is_null() => de(v, "compaction options")?,
        _ => CompactionOptions::default(),
    };
    let capacity = u(capacity, "capacity").map_err(to_napi)?;
    let target = target_percent.map(|t| u8::try_from(t).map_err(|_| to_napi(Error::invalid("targetPercent must be 0..=100")))).transpose()?;
    r(context::compact_context(&items, capacity, target, &options).and_then(|p| plan_value(&p)))
}

/// `items` with `plan` applied (compacted items replaced by their summaries).
#[napi(ts_return_type = "any[]")]
pub fn apply_compaction(plan: Value, items: Value) -> napi::Result<Value> {
    let plan: CompactionPlan = de(plan, "compaction plan")?;
    let items: Vec<ContextItem> = de(items, "context items")?;
    r(ser(plan.apply(&items)))
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


/// Read thClaws JSONL bytes and return what the reader saw (the shape of
/// `tests/conformance/portable/read_thclaws.json`: id, roles, texts,
/// active_texts, tool_calls, skipped, ...). Pure parsing, synchronous.
#[napi]
pub fn read_thclaws_digest(data: Buffer, fallback_id: Option<String>) -> napi::Result<Value> {
    r(sessiondb::portable::read_thclaws_digest(&data, fallback_id.as_deref().unwrap_or("session")))
}

/// Write a session object `{id, title?, model?, provider?, cwd?, created_at_ms?,
/// turns: [{role, blocks, timestamp_ms?, model?, provider?}]}` as thClaws
/// JSONL text. Pure, synchronous. Throws InvalidInputError.
#[napi]
pub fn write_thclaws_json(session: Value) -> napi::Result<String> {
    r(sessiondb::portable::write_thclaws_json(&session))
}
