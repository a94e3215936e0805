//! Record types as plain JS objects (`#[napi(object)]`), camelCase fields.
//! Counts and times are JS numbers (exact below 2^53); times are ms since
//! the Unix epoch. Conversions only.

use napi_derive::napi;
use serde_json::Value;

/// A core count as a JS number (saturating).
pub fn n(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// A JS number as an exact integer `T` (a count, a seq, a limit): finite,
/// whole, at most 2^53 − 1 in magnitude and within `T`'s range. napi's own
/// integer conversion would truncate 1.5 to 1, turn NaN into 0 and wrap a
/// `u32` modulo 2^32. Errors: `InvalidInput` naming the parameter.
pub fn int<T: TryFrom<i64>>(v: f64, what: &str) -> sessiondb::Result<T> {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    if !v.is_finite() || v.fract() != 0.0 || v.abs() > MAX_SAFE {
        return Err(sessiondb::Error::invalid(format!("{what} must be a whole number of at most 2^53 - 1, not {v}")));
    }
    T::try_from(v as i64).map_err(|_| sessiondb::Error::invalid(format!("{what} is out of range: {v}")))
}

/// A non-negative JS number as a core `u64`. Errors: `InvalidInput`.
pub fn u(v: i64, what: &str) -> sessiondb::Result<u64> {
    u64::try_from(v).map_err(|_| sessiondb::Error::invalid(format!("{what} must be >= 0")))
}

/// A core value as the type of a JS record field (counts saturate into JS
/// numbers, enums become their names). Written once per type, so
/// [`from_core!`] generates each record's `From<core type>` field by field.
pub trait Conv<T> {
    fn conv(self) -> T;
}

macro_rules! conv_same {
    ($($t:ty),*) => { $(impl Conv<$t> for $t { fn conv(self) -> $t { self } })* };
}
conv_same!((), String, i64, u32, u8, bool, Value);

impl Conv<i64> for u64 {
    fn conv(self) -> i64 {
        n(self)
    }
}
impl<A: Conv<B>, B> Conv<Option<B>> for Option<A> {
    fn conv(self) -> Option<B> {
        self.map(Conv::conv)
    }
}
impl<A: Conv<B>, B> Conv<Vec<B>> for Vec<A> {
    fn conv(self) -> Vec<B> {
        self.into_iter().map(Conv::conv).collect()
    }
}
impl<A: Conv<B>, B> Conv<Vec<B>> for std::collections::BTreeSet<A> {
    fn conv(self) -> Vec<B> {
        self.into_iter().map(Conv::conv).collect()
    }
}
impl<K: Ord, A: Conv<B>, B> Conv<std::collections::BTreeMap<K, B>> for std::collections::BTreeMap<K, A> {
    fn conv(self) -> std::collections::BTreeMap<K, B> {
        self.into_iter().map(|(k, v)| (k, v.conv())).collect()
    }
}
/// Seq-keyed maps: JS object keys are strings.
impl<A: Conv<B>, B> Conv<std::collections::BTreeMap<String, B>> for std::collections::BTreeMap<u64, A> {
    fn conv(self) -> std::collections::BTreeMap<String, B> {
        self.into_iter().map(|(k, v)| (k.to_string(), v.conv())).collect()
    }
}

/// A JS record field as the core's value (the inverse of [`Conv`]: numbers
/// checked into counts, names parsed into enums, string keys into seqs), for
/// records a caller passes back in (`recordCompaction(plan)`,
/// `governanceTurns(governance)`...): the generator writes each record's and
/// enum's impl; `what` names the field in the `InvalidInput` error.
pub trait Back<C> {
    fn back(self, what: &str) -> sessiondb::Result<C>;
}

macro_rules! back_same {
    ($($t:ty),*) => { $(impl Back<$t> for $t { fn back(self, _: &str) -> sessiondb::Result<$t> { Ok(self) } })* };
}
back_same!(String, i64, u32, u8, bool, Value);
impl Back<u64> for i64 {
    fn back(self, what: &str) -> sessiondb::Result<u64> {
        u(self, what)
    }
}
impl<A: Back<B>, B> Back<Option<B>> for Option<A> {
    fn back(self, what: &str) -> sessiondb::Result<Option<B>> {
        self.map(|a| a.back(what)).transpose()
    }
}
impl<A: Back<B>, B> Back<Vec<B>> for Vec<A> {
    fn back(self, what: &str) -> sessiondb::Result<Vec<B>> {
        self.into_iter().map(|a| a.back(what)).collect()
    }
}
impl<A: Back<B>, B: Ord> Back<std::collections::BTreeSet<B>> for Vec<A> {
    fn back(self, what: &str) -> sessiondb::Result<std::collections::BTreeSet<B>> {
        self.into_iter().map(|a| a.back(what)).collect()
    }
}
/// Seq-keyed maps: JS object keys are decimal strings.
impl<A: Back<B>, B> Back<std::collections::BTreeMap<u64, B>> for std::collections::BTreeMap<String, A> {
    fn back(self, what: &str) -> sessiondb::Result<std::collections::BTreeMap<u64, B>> {
        self.into_iter()
            .map(|(k, a)| {
                let seq = k.parse::<u64>().map_err(|_| sessiondb::Error::invalid(format!("{what} keys must be seqs, not {k:?}")))?;
                Ok((seq, a.back(what)?))
            })
            .collect()
    }
}

/// A value the core shares (`Arc`, e.g. a compaction run's transformation)
/// as the JS field's value (a copy).
impl<A: Clone + Conv<B>, B> Conv<B> for std::sync::Arc<A> {
    fn conv(self) -> B {
        std::sync::Arc::unwrap_or_clone(self).conv()
    }
}
/// And back: a fresh `Arc` of the core value (a compaction run's
/// transformation: the one core type shared this way).
impl Back<std::sync::Arc<sessiondb::context::Transformation>> for Transformation {
    fn back(self, what: &str) -> sessiondb::Result<std::sync::Arc<sessiondb::context::Transformation>> {
        Back::<sessiondb::context::Transformation>::back(self, what).map(std::sync::Arc::new)
    }
}

/// `impl Conv<Js> for Core` from an existing `From<Core> for Js`.
macro_rules! conv_from {
    ($($core:ty => $js:ty),* $(,)?) => { $(impl $crate::records::Conv<$js> for $core { fn conv(self) -> $js { self.into() } })* };
}
pub(crate) use conv_from;

/// `From<core::Type>` for JS records whose fields each convert by [`Conv`]
/// (the struct stays a plain `#[napi(object)]` declaration: napi reads its
/// `Option` fields and doc comments from the source tokens).
macro_rules! from_core {
    ($($js:ident <= $core:path { $($field:ident),* $(,)? })*) => { $(
        impl From<$core> for $js {
            fn from(c: $core) -> Self {
                $js { $($field: $crate::records::Conv::conv(c.$field)),* }
            }
        }
        $crate::records::conv_from!($core => $js);
    )* };
}
pub(crate) use from_core;

// The records of bridge/api.rs (Session, TranscriptEntry, ContextMeter...):
// one declaration for every host, generated by build.rs.
pub(crate) use crate::results::{Authority, CompactionPlan, ContextItem, SkippedLine};
use std::collections::BTreeMap;
include!(concat!(env!("OUT_DIR"), "/bridge_records.rs"));

/// Fields of `createSession` beyond name and workspace.
#[napi(object)]
#[derive(Default)]
pub struct CreateSessionOptions {
    pub id: Option<String>,
    pub model: Option<String>,
    pub provider: Option<String>,
    pub work_mode: Option<String>,
    pub created_at_ms: Option<i64>,
    pub forked_from: Option<String>,
    pub forked_at_seq: Option<i64>,
}

/// One entry to append (`appendEntries`). `format` defaults to `text`, `createdAtMs` to now.
#[napi(object)]
pub struct NewEntry {
    #[napi(ts_type = "'user' | 'assistant' | 'tool' | 'system'")]
    pub role: String,
    pub content: String,
    #[napi(ts_type = "'text' | 'blocks'")]
    pub format: Option<String>,
    pub created_at_ms: Option<i64>,
    pub tokens: Option<i64>,
    pub source_line: Option<i64>,
}

impl Back<sessiondb::NewEntry> for NewEntry {
    fn back(self, _: &str) -> sessiondb::Result<sessiondb::NewEntry> {
        Ok(sessiondb::NewEntry {
            role: sessiondb::Role::parse(&self.role)?,
            content: self.content,
            format: match &self.format {
                Some(f) => sessiondb::ContentFormat::parse(f)?,
                None => sessiondb::ContentFormat::Text,
            },
            created_at_ms: self.created_at_ms,
            tokens: self.tokens.map(|t| u(t, "tokens")).transpose()?,
            source_line: self.source_line.map(|t| u(t, "sourceLine")).transpose()?,
        })
    }
}

/// Per-entry metadata: the model and provider that produced an entry, the
/// source's other fields (`extra`, JSON values under the core's keys,
/// which are not camelCased: Claude `tool_use_result`, `uuid`; Codex
/// `phase`...) and a structured item (`item`: a framework item's JSON
/// text, e.g. an `@openai/agents` item, kept byte-exact and encrypted; the
/// entry's content is the text that counts for tokens). Input: every field
/// may be left out; output: `extra` is always set (`{}` when empty), `item`
/// is left out when there is none.
#[napi(object)]
pub struct EntryMeta {
    pub model: Option<String>,
    pub provider: Option<String>,
    // A `Value` checked in `into_core`: napi's own map conversion would turn
    // an array or a string into an object of its indexes.
    #[napi(ts_type = "Record<string, unknown>")]
    pub extra: Option<Value>,
    pub item: Option<String>,
}

impl From<sessiondb::EntryMeta> for EntryMeta {
    fn from(m: sessiondb::EntryMeta) -> Self {
        EntryMeta { model: m.model, provider: m.provider, extra: Some(Value::Object(m.extra)), item: m.item }
    }
}

impl EntryMeta {
    /// Errors: `InvalidInput` when `extra` is not a JSON object.
    pub fn into_core(self) -> sessiondb::Result<sessiondb::EntryMeta> {
        let extra = match self.extra {
            None | Some(Value::Null) => Value::Object(serde_json::Map::new()),
            Some(v) => v,
        };
        Ok(sessiondb::EntryMeta { item: self.item, ..sessiondb::EntryMeta::from_json_extra(self.model, self.provider, extra, "meta.extra")? })
    }
}

/// One entry to append with its metadata (`appendEntriesWithMeta`).
#[napi(object, object_to_js = false)]
pub struct NewEntryWithMeta {
    pub entry: NewEntry,
    pub meta: EntryMeta,
}

/// One transcript entry with its metadata (`getTranscriptWithMeta`).
#[napi(object, object_from_js = false)]
pub struct TranscriptEntryWithMeta {
    pub entry: TranscriptEntry,
    pub meta: EntryMeta,
}

/// A page of structured items (`getEntryItems`, `getEntryItemsTail`):
/// `itemsJson`, one JSON array text with one element per visible entry in
/// seq order (its `meta.item` verbatim, `null` for an entry without one:
/// one `JSON.parse` gives the items); `seqs`, the entries' seqs in the same
/// order; `withoutItem`, the entries without an item with their metadata, in
/// seq order.
#[napi(object, object_from_js = false)]
pub struct ItemPage {
    pub items_json: String,
    pub seqs: Vec<i64>,
    pub without_item: Vec<TranscriptEntryWithMeta>,
}

impl From<sessiondb::ItemPage> for ItemPage {
    fn from(p: sessiondb::ItemPage) -> Self {
        ItemPage {
            items_json: p.items_json,
            seqs: p.seqs.into_iter().map(|s| s as i64).collect(),
            without_item: p.without_item.into_iter().map(|(e, m)| TranscriptEntryWithMeta { entry: e.into(), meta: m.into() }).collect(),
        }
    }
}

/// One token-ledger record, in tokens.
#[napi(object)]
pub struct TokenUsage {
    pub input: Option<i64>,
    pub output: Option<i64>,
    pub cached: Option<i64>,
    pub model: Option<String>,
    pub provider: Option<String>,
}

impl TokenUsage {
    pub fn into_core(self) -> sessiondb::Result<sessiondb::TokenUsage> {
        Ok(sessiondb::TokenUsage {
            input: u(self.input.unwrap_or(0), "input")?,
            output: u(self.output.unwrap_or(0), "output")?,
            cached: u(self.cached.unwrap_or(0), "cached")?,
            model: self.model,
            provider: self.provider,
        })
    }
}

/// A journal event to append.
#[napi(object)]
pub struct NewEvent {
    pub event_id: String,
    pub session_id: String,
    pub kind: String,
    pub operation_id: Option<String>,
    pub payload: Value,
}

/// One journal event (decrypted); `createdAt` is RFC 3339 UTC.
#[napi(object)]
pub struct JournalEvent {
    pub event_id: String,
    pub session_id: String,
    pub seq: i64,
    pub aggregate_version: i64,
    pub operation_id: Option<String>,
    pub kind: String,
    pub payload: Value,
    pub created_at: String,
}

/// An operation marked unknown by a recovery pass.
#[napi(object)]
pub struct OperationRef {
    pub session_id: String,
    pub operation_id: String,
}

/// What a recovery pass did.
#[napi(object)]
pub struct RecoveryReport {
    pub marked_unknown: Vec<OperationRef>,
    pub skipped_live: i64,
    /// Operations that could not be marked (retried by the next pass), with the error kind.
    pub failed: Vec<FailedOperation>,
}

/// An open operation a recovery pass could not mark, and why (an error kind name).
#[napi(object)]
pub struct FailedOperation {
    pub session_id: String,
    pub operation_id: String,
    pub kind: String,
}

impl From<sessiondb::RecoveryReport> for RecoveryReport {
    fn from(r: sessiondb::RecoveryReport) -> Self {
        RecoveryReport {
            marked_unknown: r
                .marked_unknown
                .into_iter()
                .map(|(session_id, operation_id)| OperationRef { session_id, operation_id })
                .collect(),
            skipped_live: n(r.skipped_live),
            failed: r
                .failed
                .into_iter()
                .map(|(session_id, operation_id, kind)| FailedOperation { session_id, operation_id, kind })
                .collect(),
        }
    }
}

impl Conv<OpenOperation> for (String, String, String) {
    fn conv(self) -> OpenOperation {
        OpenOperation { session_id: self.0, operation_id: self.1, owner: self.2 }
    }
}
conv_from!(sessiondb::RecoveryReport => RecoveryReport);

/// A host key source: `getKey()` returns the 32 stored key bytes or null
/// (no key yet) and must throw when the store is locked or unreachable;
/// `setKey(key)` persists a new key. Both are called synchronously.
#[napi(object, object_from_js = true, object_to_js = false)]
pub struct KeyProvider {
    #[napi(ts_type = "() => Buffer | Uint8Array | null")]
    pub get_key: crate::keys::GetKeyFn,
    #[napi(ts_type = "(key: Buffer) => void")]
    pub set_key: crate::keys::SetKeyFn,
    /// Names the backend in error messages.
    pub backend_name: Option<String>,
}

/// How to open a store. Key: `key` (32 bytes), else `keyProvider`, else the OS keyring.
#[napi(object, object_to_js = false)]
pub struct OpenOptions {
    /// Database file; default: the default path for `app`.
    pub path: Option<String>,
    pub key: Option<napi::bindgen_prelude::Buffer>,
    pub key_provider: Option<KeyProvider>,
    pub app: Option<String>,
    pub busy_timeout_ms: Option<u32>,
    pub recover: Option<bool>,
}

from_core! {
    JournalEvent <= sessiondb::JournalEvent { event_id, session_id, seq, aggregate_version, operation_id, kind, payload, created_at }
}
