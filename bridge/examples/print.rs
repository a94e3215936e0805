//! Print what the bridge generates for one host from bridge/api.rs:
//! `cargo run -p sessiondb-bridge --example print -- python|node|uniffi [methods|pyi|errors]`.
use sessiondb_bridge::{generate, generate_errors, generate_methods, generate_pyi, Host};

fn main() {
    let mut args = std::env::args().skip(1);
    let host = match args.next().as_deref() {
        Some("python") => Host::Python,
        Some("node") => Host::Node,
        Some("uniffi") => Host::Uniffi,
        _ => {
            eprintln!("usage: print python|node|uniffi [methods|pyi|errors]");
            std::process::exit(2);
        }
    };
    let api = concat!(env!("CARGO_MANIFEST_DIR"), "/api.rs");
    let src = std::fs::read_to_string(api).expect("bridge/api.rs");
    let out = match args.next().as_deref() {
        Some("methods") => generate_methods(host, &src),
        Some("pyi") => generate_pyi(&src),
        Some("errors") => generate_errors(host, &src),
        _ => generate(host, &src),
    };
    match out {
        Ok(text) => print!("{text}"),
        Err(e) => {
            eprintln!("{api}: {e}");
            std::process::exit(1);
        }
    }
}
