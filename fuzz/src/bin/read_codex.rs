//! AFL++ target: `sessiondb::portable::read_stream(SourceFormat::Codex, ..)`
//! with a Collector sink, a resumed read, and a thClaws write-back.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        sessiondb_fuzz::read(sessiondb::portable::SourceFormat::Codex, data);
    });
}
