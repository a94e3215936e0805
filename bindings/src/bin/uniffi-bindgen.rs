//! The workspace's `uniffi-bindgen`: generates the Kotlin and Swift sources
//! from the built `sessiondb_ffi` library (library mode), e.g.
//! `cargo run -p sessiondb-ffi --bin uniffi-bindgen -- generate --library
//! <libsessiondb_ffi.so> --language kotlin --out-dir bindings/out/kotlin`.
//! See `scripts/gen-bindings.sh`.

fn main() {
    uniffi::uniffi_bindgen_main()
}
