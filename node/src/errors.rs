//! Core [`sessiondb::Error`] -> napi error. The JS side (`index.js`) turns
//! it into the `Error` subclass of its kind with `code` = `ErrorKind::code()`.
//!
//! Wire format: the napi error's message is `"\u{1}"` followed by a JSON
//! object `{code, kind, message, ...}` plus the fields of the error
//! declaration in bridge/api.rs, camelCase (`timeoutMs`, `backend`, `errno`,
//! `ioKind`, or the overflow `breakdown`), written by the generated
//! `add_fields` (bridge/generated/node/errors.rs). `index.js` is the only reader. The module
//! function `errorKinds()` is generated from the same declaration.

use serde_json::json;
use sessiondb::Error;

include!("../../bridge/generated/node/errors.rs");

/// Marker that starts an encoded sessiondb error message.
pub const MARKER: char = '\u{1}';

pub fn to_napi(e: Error) -> napi::Error {
    let kind = e.kind();
    let mut v = json!({ "code": kind.code(), "kind": kind.name(), "message": e.to_string() });
    add_fields(&mut v, &e);
    napi::Error::from_reason(format!("{MARKER}{v}"))
}

/// A core `Result` into a napi one.
pub fn r<T>(x: sessiondb::Result<T>) -> napi::Result<T> {
    x.map_err(to_napi)
}
