//! AFL++ target: `EncryptedField::from_json`, `decrypt_field`, `open_str`.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        sessiondb_fuzz::envelope(data);
    });
}
