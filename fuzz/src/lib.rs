//! The bodies of the fuzz targets in `src/bin/`, kept here so that each
//! target binary is a one-line `afl::fuzz!` call and the same code can be
//! replayed outside AFL (every target binary reads one input from stdin
//! when it is not run under `afl-fuzz`).
//!
//! Every function here only calls public API of `sessiondb` and must
//! return for any input: a panic (including an arithmetic overflow, since
//! `cargo afl build` turns on overflow checks and debug assertions) is a
//! bug in `sessiondb`, a returned `Err` is not.
//!
//! `core/tests/fuzz_regressions.rs` makes the same calls on the saved
//! regression inputs and the seed corpus (it cannot depend on this crate).

use sessiondb::crypto::{self, DataKey, EncryptedField};
use sessiondb::portable::{self, Collector, ReadOptions, SourceFormat, WriteOptions};
use std::io::Write;
use std::path::PathBuf;

/// The fixed key of the envelope target (bytes 0, 1, ..., 31).
pub fn fuzz_key() -> DataKey {
    let bytes: Vec<u8> = (0u8..32).collect();
    DataKey::from_bytes(&bytes).expect("32 bytes")
}

/// The record id the envelope seeds were sealed for.
pub const RECORD_ID: &str = "session:fuzz:name";

/// Read `data` as `format` with the in-memory [`Collector`] sink, then:
/// read it again resumed from the middle line (`emit_from_line`), and
/// write every session read back out as thClaws JSONL (both writer modes)
/// and read that output again. Also touches the derived figures
/// (`active_turns`, `usage_total`, `tool_calls`, ...).
pub fn read(format: SourceFormat, data: &[u8]) {
    let mut sink = Collector::new(format, None);
    let full = portable::read_stream(format, data, &ReadOptions::default(), &mut sink);
    let sessions = sink.finish("fuzz-fallback");

    if let Ok(report) = &full {
        let _ = report.torn_tail();
        let from = report.lines / 2 + 1;
        let mut resumed = Collector::new(format, None);
        let _ = portable::read_stream(format, data, &ReadOptions { emit_from_line: from, ..Default::default() }, &mut resumed);
        let _ = resumed.finish("fuzz-fallback");
    }

    for s in &sessions {
        let _ = s.active_turns();
        let _ = s.usage_total();
        let _ = s.tool_calls();
        let _ = s.tool_results();
        let _ = s.plan_steps();
        for strict in [false, true] {
            let mut out = Vec::new();
            if portable::write_thclaws_with(s, &mut out, &WriteOptions { only_thclaws_blocks: strict }).is_ok() {
                let mut again = Collector::new(SourceFormat::Thclaws, None);
                let _ = portable::read_thclaws(&out[..], &ReadOptions::default(), &mut again);
                let _ = again.finish("fuzz-fallback");
            }
        }
    }
}

/// The file name the detection target writes `data` under: chosen by the
/// input length, so that path-based detection (`sess-*`, `rollout-*`,
/// `.claude/`, plain) is exercised as well as detection by content.
pub fn detect_file_name(len: usize) -> &'static str {
    match len % 4 {
        0 => "input.jsonl",
        1 => "sess-0123456789abcdef.jsonl",
        2 => "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl",
        _ => ".claude/projects/-fuzz/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    }
}

/// A per-process scratch directory for the detection target.
pub fn scratch_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("sessiondb-fuzz-detect-{}", std::process::id()));
    std::fs::create_dir_all(d.join(".claude/projects/-fuzz")).expect("creating the scratch dir");
    d
}

/// Write `data` to a file under `dir`, then `detect_format` it and
/// `read_path` it (detection followed by the detected reader).
pub fn detect(dir: &std::path::Path, data: &[u8]) {
    let path = dir.join(detect_file_name(data.len()));
    {
        let mut f = std::fs::File::create(&path).expect("creating the scratch file");
        f.write_all(data).expect("writing the scratch file");
    }
    let _ = portable::detect_format(&path);
    if let Ok(outcome) = portable::read_path(&path, None) {
        for s in &outcome.sessions {
            let _ = s.active_turns();
        }
    }
    let _ = portable::fallback_id(&path);
}

/// Parse `data` (lossily made UTF-8) as an `EncryptedField` envelope and
/// decrypt it with the fixed key for [`RECORD_ID`] and for another record;
/// also `open_str` the text. An envelope that parses must survive
/// `to_json` → `from_json` unchanged.
pub fn envelope(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let key = fuzz_key();
    if let Ok(field) = EncryptedField::from_json(&text) {
        let _ = crypto::decrypt_field(&key, RECORD_ID, &field);
        let _ = crypto::decrypt_field(&key, "session:other:name", &field);
        let back = EncryptedField::from_json(&field.to_json()).expect("to_json output must parse");
        assert_eq!(back, field, "to_json/from_json round trip changed the envelope");
    }
    let _ = crypto::open_str(&key, RECORD_ID, &text);
}

/// `parse_iso8601_ms` on `data` (lossily made UTF-8), and on the raw
/// bytes when they are valid UTF-8 already.
pub fn iso8601(data: &[u8]) {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = portable::parse_iso8601_ms(s);
    }
    let _ = portable::parse_iso8601_ms(&String::from_utf8_lossy(data));
}
