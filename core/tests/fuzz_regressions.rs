//! Fuzz regressions: every input saved under `tests/fuzz_regressions/`
//! (`<target>-<n>.bin` / `.jsonl`, minimized from an AFL++ crash or hang of
//! the targets in `fuzz/`) and every seed of `fuzz/corpus/<target>/` is fed
//! to the same public functions the fuzz target calls, and must come back
//! (`Ok` or `Err`) without a panic. The seeds' results are also checked
//! exactly (event counts, detected format, decrypted text, timestamps), so
//! the test fails if a reader starts to drop or invent events.
//!
//! The calls here mirror `fuzz/src/lib.rs` (this crate cannot depend on
//! the fuzz package); keep the two in step. See `fuzz/README.md`.

use sessiondb::crypto::{self, DataKey, EncryptedField};
use sessiondb::portable::{self, Collector, Event, EventSink, ReadOptions, ReadReport, SourceFormat, Thread, WriteOptions};
use std::collections::BTreeMap;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

const TARGETS: [&str; 6] = ["read_thclaws", "read_codex", "read_claude", "detect_format", "envelope", "iso8601"];
const RECORD_ID: &str = "session:fuzz:name";

fn fuzz_key() -> DataKey {
    let bytes: Vec<u8> = (0u8..32).collect();
    DataKey::from_bytes(&bytes).expect("32 bytes")
}

fn format_of(target: &str) -> Option<SourceFormat> {
    match target {
        "read_thclaws" => Some(SourceFormat::Thclaws),
        "read_codex" => Some(SourceFormat::Codex),
        "read_claude" => Some(SourceFormat::ClaudeCode),
        _ => None,
    }
}

// ---- the fuzz targets' bodies (as fuzz/src/lib.rs) ------------------------

fn read(format: SourceFormat, data: &[u8]) {
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

fn detect_file_name(len: usize) -> &'static str {
    match len % 4 {
        0 => "input.jsonl",
        1 => "sess-0123456789abcdef.jsonl",
        2 => "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl",
        _ => ".claude/projects/-fuzz/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    }
}

fn detect(dir: &Path, data: &[u8]) {
    let path = dir.join(detect_file_name(data.len()));
    std::fs::create_dir_all(path.parent().expect("has a parent")).expect("creating the scratch dir");
    std::fs::File::create(&path).and_then(|mut f| f.write_all(data)).expect("writing the scratch file");
    let _ = portable::detect_format(&path);
    if let Ok(outcome) = portable::read_path(&path, None) {
        for s in &outcome.sessions {
            let _ = s.active_turns();
        }
    }
    let _ = portable::fallback_id(&path);
}

fn envelope(data: &[u8]) {
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

fn iso8601(data: &[u8]) {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = portable::parse_iso8601_ms(s);
    }
    let _ = portable::parse_iso8601_ms(&String::from_utf8_lossy(data));
}

/// Run `target` on `data`; `Err(panic message)` if it panicked.
fn run(target: &str, data: &[u8], scratch: &Path) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| match target {
        "detect_format" => detect(scratch, data),
        "envelope" => envelope(data),
        "iso8601" => iso8601(data),
        t => read(format_of(t).unwrap_or_else(|| panic!("unknown fuzz target `{t}`")), data),
    }))
    .map_err(|p| {
        p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned())).unwrap_or_else(|| "<non-string panic>".into())
    })
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus_dir(target: &str) -> PathBuf {
    manifest_dir().join("../fuzz/corpus").join(target)
}

// ---- saved crash inputs ---------------------------------------------------

/// The target a regression file belongs to: its name up to the first `-`.
fn target_of(path: &Path) -> String {
    let name = path.file_name().expect("a file name").to_string_lossy().into_owned();
    name.split_once('-').map(|(t, _)| t.to_owned()).unwrap_or(name)
}

#[test]
fn saved_fuzz_inputs_return_without_panicking() {
    let dir = manifest_dir().join("tests/fuzz_regressions");
    let scratch = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    let files: Vec<PathBuf> = files_in(&dir).into_iter().filter(|p| p.file_name().is_some_and(|n| n != "README.md")).collect();
    for path in &files {
        let target = target_of(path);
        assert!(TARGETS.contains(&target.as_str()), "{}: name must start with one of {TARGETS:?} and a `-`", path.display());
        let data = std::fs::read(path).expect("reading a regression input");
        if let Err(msg) = run(&target, &data, scratch.path()) {
            failures.push(format!("{} ({target}): panicked: {msg}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{} of {} saved fuzz inputs panicked:\n{}", failures.len(), files.len(), failures.join("\n"));
}

#[test]
fn every_seed_returns_without_panicking() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    for target in TARGETS {
        let files = files_in(&corpus_dir(target));
        assert!(!files.is_empty(), "no seeds in {}", corpus_dir(target).display());
        for path in files {
            let data = std::fs::read(&path).expect("reading a seed");
            if let Err(msg) = run(target, &data, scratch.path()) {
                failures.push(format!("{} ({target}): panicked: {msg}", path.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{} seeds panicked:\n{}", failures.len(), failures.join("\n"));
}

// ---- exact results on the seeds -------------------------------------------

/// Counts events by kind and thread.
#[derive(Default)]
struct Counter {
    by_kind: BTreeMap<&'static str, usize>,
    sidechains: BTreeMap<String, usize>,
}

impl EventSink for Counter {
    fn event(&mut self, thread: &Thread, event: Event) -> sessiondb::Result<()> {
        let kind = match event {
            Event::Meta(_) => "meta",
            Event::Turn(_) => "turn",
            Event::Usage(_) => "usage",
            Event::Title { .. } => "title",
            Event::Plan { .. } => "plan",
            Event::Goal { .. } => "goal",
            Event::ProviderState { .. } => "provider_state",
            Event::Compaction(_) => "compaction",
            Event::Other(_) => "other",
        };
        *self.by_kind.entry(kind).or_default() += 1;
        if let Thread::Sidechain(root) = thread {
            *self.sidechains.entry(root.clone()).or_default() += 1;
        }
        Ok(())
    }
}

fn count(target: &str, file: &str) -> (Counter, ReadReport) {
    let data = std::fs::read(corpus_dir(target).join(file)).expect("reading a seed");
    let mut c = Counter::default();
    let report = portable::read_stream(format_of(target).expect("a reader target"), &data[..], &ReadOptions::default(), &mut c).expect("seed reads");
    (c, report)
}

fn kinds(pairs: &[(&'static str, usize)]) -> BTreeMap<&'static str, usize> {
    pairs.iter().copied().collect()
}

#[test]
fn thclaws_seeds_give_the_expected_events() {
    let (c, r) = count("read_thclaws", "full.jsonl");
    assert_eq!(
        c.by_kind,
        kinds(&[("meta", 1), ("plan", 1), ("goal", 1), ("turn", 6), ("compaction", 1), ("title", 1), ("provider_state", 1), ("other", 1)])
    );
    assert_eq!((r.lines, r.skipped.len()), (13, 0));

    let (c, r) = count("read_thclaws", "edges.jsonl");
    assert_eq!(c.by_kind, kinds(&[("meta", 1), ("turn", 1)]));
    assert_eq!((r.lines, r.blank_lines, r.skipped.len(), r.surrogates_replaced.clone()), (6, 1, 3, vec![4]));
    assert_eq!(r.torn_tail().map(|s| s.line), Some(6));

    let (c, _) = count("read_thclaws", "empty_session.jsonl");
    assert_eq!(c.by_kind, kinds(&[("meta", 1), ("plan", 1), ("goal", 1)]));
}

#[test]
fn codex_seeds_give_the_expected_events() {
    // Turns: developer, user, then assistant / tool-output runs merged:
    // [reasoning+call], [output], [custom call], [output], [shell+search+message].
    let (c, r) = count("read_codex", "full.jsonl");
    assert_eq!(c.by_kind, kinds(&[("meta", 2), ("turn", 7), ("usage", 2), ("compaction", 1), ("other", 2)]));
    assert_eq!((r.lines, r.skipped.len()), (20, 0));

    let (c, _) = count("read_codex", "legacy.jsonl");
    assert_eq!(c.by_kind, kinds(&[("meta", 1), ("turn", 3)]));
}

#[test]
fn claude_seeds_give_the_expected_events() {
    // msg_1 is split over three lines with a tool result between them: one
    // turn, one usage, then the buffered result; the sidechain rooted at s1
    // has its own user turn, model meta, assistant turn and usage.
    let (c, r) = count("read_claude", "full.jsonl");
    assert_eq!(c.by_kind, kinds(&[("title", 2), ("meta", 5), ("turn", 6), ("usage", 2), ("compaction", 1), ("other", 2)]));
    assert_eq!(c.sidechains, [("s1".to_owned(), 4)].into_iter().collect());
    assert_eq!((r.lines, r.merged_lines, r.skipped.len()), (17, 2, 0));

    let (c, _) = count("read_claude", "agent_file.jsonl");
    assert_eq!(c.by_kind, kinds(&[("meta", 1), ("turn", 2)]));
    assert!(c.sidechains.is_empty(), "a subagent transcript file is its own main thread");
}

#[test]
fn detect_seeds_give_the_expected_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let expected = [
        ("claude_summary.jsonl", Some(SourceFormat::ClaudeCode)),
        ("claude_user.jsonl", Some(SourceFormat::ClaudeCode)),
        ("codex_legacy.jsonl", Some(SourceFormat::Codex)),
        ("codex_meta.jsonl", Some(SourceFormat::Codex)),
        ("thclaws_bare_turn.jsonl", Some(SourceFormat::Thclaws)),
        ("thclaws_header.jsonl", Some(SourceFormat::Thclaws)),
        ("undetectable_surrogate.jsonl", None),
    ];
    assert_eq!(files_in(&corpus_dir("detect_format")).len(), expected.len());
    for (file, want) in expected {
        // A neutral name, so only the content decides.
        let path = dir.path().join("input.jsonl");
        std::fs::copy(corpus_dir("detect_format").join(file), &path).expect("copying a seed");
        assert_eq!(portable::detect_format(&path).expect("detects"), want, "{file}");
    }
}

#[test]
fn envelope_seeds_give_the_expected_results() {
    let key = fuzz_key();
    let text = |f: &str| std::fs::read_to_string(corpus_dir("envelope").join(f)).expect("reading a seed");
    assert_eq!(crypto::open_str(&key, RECORD_ID, &text("valid_hello.json")).expect("opens"), "hello, fuzz");
    assert_eq!(crypto::open_str(&key, RECORD_ID, &text("valid_empty.json")).expect("opens"), "");
    let not_utf8 = EncryptedField::from_json(&text("valid_not_utf8.json")).expect("parses");
    assert_eq!(&crypto::decrypt_field(&key, RECORD_ID, &not_utf8).expect("decrypts")[..], b"\xff\xfe");
    assert!(crypto::open_str(&key, RECORD_ID, &text("valid_not_utf8.json")).is_err());
    // Bound to the record id: another one fails authentication.
    assert!(matches!(
        crypto::open_str(&key, "session:other:name", &text("valid_hello.json")),
        Err(sessiondb::Error::AuthenticationFailed { .. })
    ));
    for f in ["bad_version.json", "bad_alg_escape.json"] {
        let field = EncryptedField::from_json(&text(f)).expect("parses");
        assert!(crypto::decrypt_field(&key, RECORD_ID, &field).is_err(), "{f}");
    }
    assert!(EncryptedField::from_json(&text("extra_field.json")).is_err(), "unknown keys are refused");
}

#[test]
fn iso8601_seeds_give_the_expected_times() {
    let expected = [
        ("max.txt", 253_402_300_799_900),
        ("offset.txt", 1_771_875_265_000),
        ("space_leap_frac.txt", 60_123),
        ("utc_ms.txt", 1_771_875_265_573),
        ("year0.txt", -62_161_948_861_000),
    ];
    assert_eq!(files_in(&corpus_dir("iso8601")).len(), expected.len());
    for (file, want) in expected {
        let s = std::fs::read_to_string(corpus_dir("iso8601").join(file)).expect("reading a seed");
        assert_eq!(portable::parse_iso8601_ms(&s), Some(want), "{file}: {s}");
    }
}

/// Token counts at u64::MAX (handmade, from a review of the fuzzed sums):
/// every sum saturates instead of overflowing, in the reader and the session total.
#[test]
fn token_counts_at_u64_max_saturate() {
    let path = manifest_dir().join("tests/fuzz_regressions/read_claude-overflow.jsonl");
    let out = sessiondb::portable::read_path(&path, Some(SourceFormat::ClaudeCode)).unwrap();
    let total: u64 = out.sessions.iter().map(|s| s.usage_total().input).max().unwrap();
    assert_eq!(total, u64::MAX);
    let output: u64 = out.sessions.iter().map(|s| s.usage_total().output).max().unwrap();
    assert_eq!(output, u64::MAX);
}
