//! `sessiondb` for Node: napi-rs v3 bindings of the sessiondb core. Thin:
//! each function converts arguments, runs the core call on the libuv pool
//! (`AsyncTask`) when it touches disk or crypto, and maps the error.
//! `index.js` turns errors into `Error` subclasses with `code`.

// `cargo test` builds this crate without napi's registration, so every
// exported function looks unused there.
#![cfg_attr(test, allow(dead_code))]

mod errors;
mod job;
mod keys;
mod records;
mod store;
mod viewer;
