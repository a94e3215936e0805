//! Writes the compact BPE rank tables that `core/src/context/tokens.rs` embeds
//! (`core/data/o200k_base.ranks.zst`, `core/data/cl100k_base.ranks.zst`), from
//! the tables tiktoken-rs ships (its `assets/*.tiktoken`, OpenAI's files: one
//! `base64(token bytes) rank` line per token).
//!
//! Format of a table (the module docs of `context::tokens` give it too): one zstd
//! frame (level 19) whose content is, for every ordinary rank 0, 1, …, n-1 in
//! order, one byte `len` (1..=255) then the `len` bytes of that token. Ranks are
//! implicit (they are contiguous from 0 in both encodings; this program asserts
//! it). Special tokens are not in the table.
//!
//! Run after a tiktoken-rs upgrade (the test `context::tokens::tests::
//! embedded_tables_equal_tiktoken_rs` fails until the tables are regenerated):
//! `cargo run --release -p sessiondb --example gen_token_tables`
use std::collections::HashSet;
use tiktoken_rs::{CoreBPE, Rank};

/// The ordinary tokens of `bpe` by rank, 0 up to the first rank it cannot decode.
fn ordinary_tokens(bpe: &CoreBPE) -> Vec<Vec<u8>> {
    let special: HashSet<Rank> = bpe.special_tokens().iter().map(|s| bpe.encode_with_special_tokens(s)[0]).collect();
    let mut out = Vec::new();
    for rank in 0.. {
        match bpe.decode_bytes(&[rank]) {
            Ok(bytes) if !special.contains(&rank) => out.push(bytes),
            _ => break,
        }
    }
    // Nothing ordinary after the first gap (the specials come later).
    let last = special.iter().copied().max().unwrap_or(0);
    for rank in out.len() as Rank..=last {
        assert!(special.contains(&rank) || bpe.decode_bytes(&[rank]).is_err(), "rank {rank} is ordinary after a gap");
    }
    out
}

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bpe) in [("o200k_base", tiktoken_rs::o200k_base().unwrap()), ("cl100k_base", tiktoken_rs::cl100k_base().unwrap())] {
        let tokens = ordinary_tokens(&bpe);
        let mut raw = Vec::new();
        for t in &tokens {
            let len = u8::try_from(t.len()).expect("a token longer than 255 bytes");
            assert!(len > 0);
            raw.push(len);
            raw.extend_from_slice(t);
        }
        let z = zstd::bulk::compress(&raw, 19).unwrap();
        let path = dir.join(format!("{name}.ranks.zst"));
        std::fs::write(&path, &z).unwrap();
        println!("{}: {} ranks, {} bytes raw, {} bytes zstd", path.display(), tokens.len(), raw.len(), z.len());
    }
}
