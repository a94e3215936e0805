//! Core [`sessiondb::Error`] -> napi error. The JS side (`index.js`) turns
//! it into the `Error` subclass of its kind with `code` = `ErrorKind::code()`.
//!
//! Wire format: the napi error's message is `"\u{1}"` followed by a JSON
//! object `{code, kind, message, ...}` (plus `timeoutMs`, `backend`, `errno`,
//! `ioKind`, or the overflow breakdown). `index.js` is the only reader.

use serde_json::{json, Value};
use sessiondb::Error;

/// Marker that starts an encoded sessiondb error message.
pub const MARKER: char = '\u{1}';

pub fn to_napi(e: Error) -> napi::Error {
    let kind = e.kind();
    let mut v = json!({ "code": kind.code(), "kind": kind.name(), "message": e.to_string() });
    match &e {
        Error::Io { source, .. } => {
            v["errno"] = source.raw_os_error().map(Value::from).unwrap_or(Value::Null);
            v["ioKind"] = Value::from(match source.kind() {
                std::io::ErrorKind::NotFound => "ENOENT",
                std::io::ErrorKind::PermissionDenied => "EACCES",
                std::io::ErrorKind::StorageFull => "ENOSPC",
                _ => "EIO",
            });
        }
        Error::Busy { timeout_ms, waited_ms } => {
            v["timeoutMs"] = json!(timeout_ms);
            v["waitedMs"] = json!(waited_ms);
        }
        Error::KeyMismatch { backend } | Error::RecoveryLocked { backend, .. } => v["backend"] = json!(backend),
        Error::KeyStoreUnavailable { backend, remedy, .. } => {
            v["backend"] = json!(backend);
            v["remedy"] = json!(remedy);
        }
        Error::ContextOverflow(b) => {
            v["breakdown"] = json!({
                "capacity": b.capacity,
                "system": b.system,
                "pinned": b.pinned,
                "recent": b.recent,
                "toolResults": b.tool_results,
                "other": b.other,
                "protectedTotal": b.protected_total,
                "remedies": b.remedies,
            });
        }
        _ => {}
    }
    napi::Error::from_reason(format!("{MARKER}{v}"))
}

/// A core `Result` into a napi one.
pub fn r<T>(x: sessiondb::Result<T>) -> napi::Result<T> {
    x.map_err(to_napi)
}
