//! AFL++ target: `sessiondb::portable::detect_format` and `read_path` on
//! the input written to a scratch file.
fn main() {
    let dir = sessiondb_fuzz::scratch_dir();
    afl::fuzz!(|data: &[u8]| {
        sessiondb_fuzz::detect(&dir, data);
    });
}
