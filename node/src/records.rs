//! Record types as plain JS objects (`#[napi(object)]`), camelCase fields.
//! Counts and times are JS numbers (exact below 2^53); times are ms since
//! the Unix epoch. Conversions only.

use napi_derive::napi;

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

// `Conv` and `Back`, the conversion rules of every record (JS numbers,
// names, string keys), are written by sessiondb-bridge (bridge/src/conv.rs)
// into the records below.

/// A compaction run's transformation back into the core's shared `Arc` (a
/// fresh one: the one core type shared this way).
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
// one declaration for every host, generated into bridge/generated/node/records.rs.
use std::collections::BTreeMap;
include!("../../bridge/generated/node/records.rs");

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

/// How to open a store. Key: `key` (32 bytes, or the base64 text of a key
/// file as a string or its bytes), else `keyProvider`, else the OS keyring.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct OpenOptions {
    /// Database file; default: the default path for `app`.
    pub path: Option<String>,
    /// The data key: its 32 bytes, or the base64 text of a key file (a
    /// string, or a Buffer read from the file); anything else is InvalidInputError.
    #[napi(ts_type = "Buffer | Uint8Array | string")]
    pub key: Option<napi::Either<napi::bindgen_prelude::Uint8Array, String>>,
    pub key_provider: Option<KeyProvider>,
    pub app: Option<String>,
    /// Milliseconds a write waits for another writer (a whole number; default 10,000).
    pub busy_timeout_ms: Option<f64>,
    pub recover: Option<bool>,
    /// Compress contents of 512 bytes or more before encryption (default:
    /// off, for a database file and PostgreSQL alike); `false`: stored lengths
    /// reveal only plaintext lengths (SECURITY.md "Size oracle").
    pub compress: Option<bool>,
    /// Secret redaction policy: 'off' (default), 'on-export' or 'on-write'
    /// (SECURITY.md "Secret redaction"); anything else is InvalidInputError.
    #[napi(ts_type = "'off' | 'on-export' | 'on-write'")]
    pub redact: Option<String>,
    /// A gitleaks-format TOML file of extra redaction rules.
    pub redact_rules: Option<String>,
}
