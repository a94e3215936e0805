//! Writes the record classes declared in bridge/records.rs (sessiondb-bridge).
fn main() {
    sessiondb_bridge::build(sessiondb_bridge::Host::Python);
}
