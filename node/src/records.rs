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
/// the generated records convert from the core field by field.
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
impl Conv<napi::bindgen_prelude::Buffer> for Vec<u8> {
    fn conv(self) -> napi::bindgen_prelude::Buffer {
        self.into()
    }
}
impl Conv<u32> for u8 {
    fn conv(self) -> u32 {
        u32::from(self)
    }
}
impl Conv<String> for &str {
    fn conv(self) -> String {
        self.to_owned()
    }
}
impl Conv<String> for &std::path::Path {
    fn conv(self) -> String {
        self.to_string_lossy().into_owned()
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
/// The numbers of a record a caller passes in: JS numbers, checked into
/// the integer ([`int`]: finite, whole, at most 2^53 - 1, in range).
macro_rules! back_number {
    ($($t:ty),*) => { $(impl Back<$t> for f64 { fn back(self, what: &str) -> sessiondb::Result<$t> { int(self, what) } })* };
}
back_number!(u64, i64, u32, u8, usize);
impl Conv<f64> for u64 {
    fn conv(self) -> f64 {
        self as f64
    }
}
impl Conv<f64> for i64 {
    fn conv(self) -> f64 {
        self as f64
    }
}
impl Conv<f64> for u8 {
    fn conv(self) -> f64 {
        f64::from(self)
    }
}
impl Conv<f64> for u32 {
    fn conv(self) -> f64 {
        f64::from(self)
    }
}
impl Conv<f64> for usize {
    fn conv(self) -> f64 {
        self as f64
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

// The records of bridge/api.rs (Session, TranscriptEntry, ContextMeter...):
// one declaration for every host, generated by build.rs.
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

crate::records::conv_from!(sessiondb::EntryMeta => EntryMeta);

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
