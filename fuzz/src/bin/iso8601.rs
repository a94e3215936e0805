//! AFL++ target: `sessiondb::portable::parse_iso8601_ms`.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        sessiondb_fuzz::iso8601(data);
    });
}
