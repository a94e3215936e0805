//! Writes the records and enums declared in bridge/api.rs (sessiondb-bridge).
fn main() {
    sessiondb_bridge::build(sessiondb_bridge::Host::Uniffi);
}
