//! Regression tests for the red-team pass of 2026-12-01: each input below
//! once panicked the core, changed stored data silently, or broke an
//! idempotent retry. One test per finding; the report names them.

use sessiondb::*;

fn key() -> KeySource {
    KeySource::Bytes(DataKey::from_bytes(&[6; 32]).unwrap())
}

fn store() -> (tempfile::TempDir, SessionStore) {
    let d = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions::at(d.path().join("s.db"), key())).unwrap();
    (d, s)
}

/// `busy_timeout_ms` above SQLite's `int` milliseconds once panicked inside
/// rusqlite ("too big") from every host (Python `busy_timeout_ms=2**64-1`).
#[test]
fn a_busy_timeout_sqlite_cannot_hold_is_invalid_input_not_a_panic() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.db");
    for ms in [u64::MAX, i32::MAX as u64 + 1] {
        let err = SessionStore::open(OpenOptions { busy_timeout_ms: ms, ..OpenOptions::at(&p, key()) }).err().expect("refused");
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert_eq!(err.to_string(), format!("invalid input: busy_timeout_ms {ms} is above 2147483647 (SQLite's limit, about 24.8 days)"));
    }
    assert!(!p.exists(), "nothing was created");
    let s = SessionStore::open(OpenOptions { busy_timeout_ms: i32::MAX as u64, ..OpenOptions::at(&p, key()) }).unwrap();
    assert_eq!(s.list_sessions(None).unwrap().len(), 0);
}

/// A host token count or source line above `i64::MAX` was once accepted,
/// stored clamped to `i64::MAX` while the call returned the value given
/// (a silent change), and then overflowed `context_status`'s sum (a panic
/// in debug builds, a wrapped meter in release).
#[test]
fn entry_token_counts_and_source_lines_beyond_i64_are_refused_and_nothing_is_stored() {
    let (_d, s) = store();
    let id = s.create_session(None, None).unwrap().id;
    let too_big = i64::MAX as u64 + 1;
    let cases = [
        (NewEntry { tokens: Some(too_big), ..NewEntry::text(Role::User, "a") }, "invalid input: entry 2: tokens 9223372036854775808 is out of range (at most 9223372036854775807)"),
        (NewEntry { source_line: Some(u64::MAX), ..NewEntry::text(Role::User, "a") }, "invalid input: entry 2: source_line 18446744073709551615 is out of range (at most 9223372036854775807)"),
    ];
    for (bad, msg) in cases {
        let err = s.append_entries(&id, vec![NewEntry::text(Role::User, "ok"), bad]).unwrap_err();
        assert_eq!((err.kind(), err.to_string()), (ErrorKind::InvalidInput, msg.to_string()));
    }
    assert_eq!(s.get_session(&id).unwrap().entry_count, 0, "the batch is refused whole");
    let e = s.append_entries(&id, vec![NewEntry { tokens: Some(i64::MAX as u64), source_line: Some(i64::MAX as u64), ..NewEntry::text(Role::User, "max") }]).unwrap();
    let stored = s.get_transcript(&id, 1, 10).unwrap();
    assert_eq!(stored, e, "what the call returned is what is stored");
    assert_eq!((stored[0].tokens, stored[0].source_line), (Some(i64::MAX as u64), Some(i64::MAX as u64)));
}

/// Three entries of `i64::MAX` host tokens overflow a `u64` sum: the meter
/// saturates at `u64::MAX` (red, overflow) instead of panicking.
#[test]
fn context_status_of_entries_whose_tokens_overflow_u64_saturates() {
    let (_d, s) = store();
    let id = s.create_session(None, None).unwrap().id;
    let big = |r| NewEntry { tokens: Some(i64::MAX as u64), ..NewEntry::text(r, "x") };
    s.append_entries(&id, vec![big(Role::User), big(Role::Assistant), big(Role::User)]).unwrap();
    let st = context::context_status(&s, &id, 128_000, None, None).unwrap();
    assert_eq!(st.capacity, 115_200);
    assert_eq!((st.meter.active_tokens, st.meter.overflow, st.meter.band), (u64::MAX, true, context::Band::Red));
    assert_eq!(context::active_context(&s, &id, 128_000, None, None).unwrap().tokens, u64::MAX);
}

/// An idempotent retry of a journal event whose payload holds a number
/// that JSON parsing rounds (Python's `2**200`, sent as its 61 digits) was
/// once a `Conflict`: the stored payload, parsed back from its text, was
/// one ULP away from the payload parsed from the host's text.
#[test]
fn a_journal_event_retried_with_a_rounded_number_is_a_duplicate_not_a_conflict() {
    let (_d, s) = store();
    let sid = s.create_session(None, None).unwrap().id;
    let text = r#"{"n": 1606938044258990275541962092341162602522202993782792835301376, "f": 12345678901234567890123}"#;
    let ev = || NewEvent { event_id: "ev-big".into(), session_id: sid.clone(), kind: "Note".into(), operation_id: None, payload: serde_json::from_str(text).unwrap() };
    let first = s.journal_append(ev()).unwrap();
    let again = s.journal_append(ev()).unwrap();
    assert_eq!((again.seq, again.duplicate), (first.seq, true));
    let stored = s.journal_events(&sid, 1, 100).unwrap().into_iter().find(|e| e.event_id == "ev-big").unwrap();
    // The nearest doubles, as Python's float(2**200) and float(12345678901234567890123).
    assert_eq!(stored.payload, serde_json::json!({"n": 1.6069380442589903e60, "f": 1.2345678901234568e22}));
}

fn plan_of(transformations: Vec<context::Transformation>) -> context::CompactionPlan {
    context::CompactionPlan { capacity: 1, target_percent: 0, target_tokens: 0, tokens_before: 0, tokens_after: 0, reached_target: true, transformations }
}

fn run(seq: u64, last_seq: Option<u64>) -> context::Transformation {
    context::Transformation { seq, last_seq, action: context::CompactionAction::Summarized, tokens_before: 5, tokens_after: 1, summary: "x".into() }
}

/// A hand-built plan (Python `record_compaction`, Node `recordCompaction`)
/// was once recorded as given: seqs past the transcript, a run ending before
/// it starts, and a run to `u64::MAX`, whose replay walks every seq of it
/// (a hang and an OOM, at the record call and at every later read).
#[test]
fn record_compaction_refuses_seqs_outside_the_transcript_and_runs_that_end_before_they_start() {
    let (_d, s) = store();
    let id = s.create_session(None, None).unwrap().id;
    s.append_entries(&id, (0..3).map(|i| NewEntry::text(Role::User, format!("t{i}"))).collect()).unwrap();
    let cases = [
        (run(99, None), "invalid input: compaction of seq 99: the transcript has seqs 1..=3"),
        (run(0, None), "invalid input: compaction of seq 0: the transcript has seqs 1..=3"),
        (run(2, Some(1)), "invalid input: compaction run 2..=1 ends before it starts"),
        (run(1, Some(4)), "invalid input: compaction run 1..=4: the transcript has seqs 1..=3"),
        (run(1, Some(u64::MAX)), "invalid input: compaction run 1..=18446744073709551615: the transcript has seqs 1..=3"),
    ];
    for (t, msg) in cases {
        let err = context::record_compaction(&s, &id, &plan_of(vec![run(1, None), t])).unwrap_err();
        assert_eq!((err.kind(), err.to_string()), (ErrorKind::InvalidInput, msg.to_string()));
        // The same body through the generic extension call.
        let body = serde_json::to_string(&plan_of(vec![run(1, None), run(99, None)])).unwrap();
        assert_eq!(s.append_context_extension(&id, "compaction", &body).unwrap_err().kind(), ErrorKind::InvalidInput);
    }
    assert!(s.list_context_extensions(&id).unwrap().is_empty(), "nothing recorded");
    assert_eq!(context::record_compaction(&s, &id, &plan_of(vec![run(1, Some(3))])).unwrap(), Some(1));
    let g = context::recover_context_governance(&s, &id).unwrap();
    assert_eq!(g.compacted.iter().map(|r| (r.first_seq, r.last_seq)).collect::<Vec<_>>(), vec![(1, 3)]);
    assert_eq!((1..=3).map(|seq| g.compaction_of(seq).map(|t| t.seq)).collect::<Vec<_>>(), vec![Some(1); 3]);
}

/// A hand-built plan whose transformations overlap or go backwards (Node
/// `recordCompaction`) was recorded, and replay then sent two summaries for
/// the same turns; a target above 100 % was recorded too (red-team pass of
/// session 8). Both are refused and nothing is recorded.
#[test]
fn record_compaction_refuses_overlapping_runs_and_targets_above_100() {
    let (_d, s) = store();
    let id = s.create_session(None, None).unwrap().id;
    s.append_entries(&id, (0..12).map(|i| NewEntry::text(Role::User, format!("t{i}"))).collect()).unwrap();
    let cases = [
        (vec![run(1, Some(10)), run(5, Some(12))], "invalid input: compaction of seq 5 must come after seq 10 (transformations are ascending and do not overlap)"),
        (vec![run(6, None), run(2, None)], "invalid input: compaction of seq 2 must come after seq 6 (transformations are ascending and do not overlap)"),
        (vec![run(3, None), run(3, None)], "invalid input: compaction of seq 3 must come after seq 3 (transformations are ascending and do not overlap)"),
    ];
    for (ts, msg) in cases {
        let err = context::record_compaction(&s, &id, &plan_of(ts)).unwrap_err();
        assert_eq!((err.kind(), err.to_string()), (ErrorKind::InvalidInput, msg.to_string()));
    }
    let mut over = plan_of(vec![run(1, None)]);
    over.target_percent = 101;
    assert_eq!(context::record_compaction(&s, &id, &over).unwrap_err().to_string(), "invalid input: target_percent 101 is above 100");
    assert!(s.list_context_extensions(&id).unwrap().is_empty(), "nothing recorded");
    assert_eq!(context::record_compaction(&s, &id, &plan_of(vec![run(1, Some(4)), run(5, None), run(7, Some(12))])).unwrap(), Some(1));
}

/// Two different source sessions whose ids become one store id once
/// sanitized (`a b` and `a_b`: whitespace becomes `_`) were once merged
/// silently: the second file's turns were appended to the first's session.
/// Now the second is a `Conflict` and the first session is unchanged; the
/// same file imported again (or a copy of it) still continues its session.
#[test]
fn two_source_ids_that_sanitize_to_one_store_id_are_not_merged() {
    let (d, s) = store();
    let write = |name: &str, id: &str, text: &str| {
        let p = d.path().join(name);
        std::fs::write(&p, format!("{{\"type\":\"header\",\"id\":\"{id}\",\"cwd\":\"/w\",\"created_at\":1}}\n{{\"type\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}],\"timestamp\":1}}\n")).unwrap();
        p
    };
    let first = write("one.jsonl", "a b", "first file");
    let second = write("two.jsonl", "a_b", "second, unrelated file");
    assert_eq!(portable::import_file(&s, &first, None).unwrap().status, portable::ImportStatus::Imported);
    let err = portable::import_file(&s, &second, None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert_eq!(
        err.to_string(),
        "conflict: session `a_b` was imported from source session `a b`, not `a_b`; nothing of this file was added to it"
    );
    let t = s.get_transcript("a_b", 1, 10).unwrap();
    assert_eq!(t.iter().map(|e| e.content.as_str()).collect::<Vec<_>>(), vec!["first file"]);
    // A copy of the first file under another name continues it (nothing new to add).
    let copy = d.path().join("copy.jsonl");
    std::fs::copy(&first, &copy).unwrap();
    assert_eq!(portable::import_file(&s, &copy, None).unwrap().status, portable::ImportStatus::Imported);
    assert_eq!(s.get_session("a_b").unwrap().entry_count, 1);
}

/// `export_thclaws_to_file` (Python, Node, Kotlin/Swift) once truncated the
/// target before reading the session, so a failed export (an unknown id, a
/// damaged record, a full disk) destroyed the file that was there; and a new
/// export (decrypted plaintext) got the umask's mode (0644) where the CLI's
/// is 0600.
#[test]
fn a_failed_file_export_keeps_the_old_file_and_a_new_one_is_private() {
    let (d, s) = store();
    let id = s.create_session(Some("t".into()), None).unwrap().id;
    s.append_transcript(&id, Role::User, "hello".into()).unwrap();
    let target = d.path().join("out.jsonl");
    std::fs::write(&target, "precious\n").unwrap();
    let err = portable::export_thclaws_to_file(&s, "no-such-session", &target).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n", "the old file is intact");
    let rep = portable::export_thclaws_to_file(&s, &id, &target).unwrap();
    let text = std::fs::read_to_string(&target).unwrap();
    assert_eq!((rep.turns, rep.bytes), (1, text.len() as u64));
    assert!(text.contains(r#""text":"hello""#), "{text}");
    let fresh = d.path().join("fresh.jsonl");
    portable::export_thclaws_to_file(&s, &id, &fresh).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let mut names: Vec<String> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.contains("jsonl")).collect();
    names.sort();
    assert_eq!(names, vec!["fresh.jsonl", "out.jsonl"], "no temporary file left behind");
}
