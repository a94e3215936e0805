//! napi's build setup, and the record interfaces declared in bridge/api.rs
//! (sessiondb-bridge).
fn main() {
    napi_build::setup();
    sessiondb_bridge::build(sessiondb_bridge::Host::Node);
}
