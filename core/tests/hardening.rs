//! Regression tests for what the adversarial review found: each input below
//! was once accepted and then broke a store or a session for good, or was
//! answered with the wrong error.

use sessiondb::*;

fn key() -> KeySource {
    KeySource::Bytes(DataKey::from_bytes(&[4; 32]).unwrap())
}

fn temp() -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("sessions.db");
    (d, p)
}

fn note(event_id: &str, op: Option<&str>, payload: serde_json::Value) -> NewEvent {
    NewEvent { event_id: event_id.into(), session_id: "s1".into(), kind: "Note".into(), operation_id: op.map(Into::into), payload }
}

#[test]
fn operation_ids_too_long_for_their_lifecycle_ids_are_refused_and_the_longest_allowed_recovers() {
    let (_d, p) = temp();
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    let too_long = "o".repeat(119);
    assert_eq!(s.dispatch_operation("s1", &too_long, serde_json::json!({})).unwrap_err().kind(), ErrorKind::InvalidInput);
    let longest = "o".repeat(118);
    s.journal_append(NewEvent { event_id: "d1".into(), session_id: "s1".into(), kind: "EffectDispatchCommitted".into(),
        operation_id: Some(longest.clone()), payload: serde_json::json!({}) }).unwrap();
    drop(s);
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    assert_eq!(s.open_recovery_report().marked_unknown, vec![("s1".to_string(), longest)]);
}

#[test]
fn lifecycle_event_ids_are_reserved() {
    let (_d, p) = temp();
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    assert_eq!(s.journal_append(note("x.terminal", None, serde_json::json!({}))).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(s.journal_append(note("x.dispatch", Some("x"), serde_json::json!({}))).unwrap_err().kind(), ErrorKind::InvalidInput);
    // So a dispatched operation can always be completed and recovered.
    s.journal_append(NewEvent { event_id: "d1".into(), session_id: "s1".into(), kind: "EffectDispatchCommitted".into(),
        operation_id: Some("x".into()), payload: serde_json::json!({}) }).unwrap();
    drop(s);
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    assert_eq!(s.open_recovery_report().marked_unknown.len(), 1);
}

#[test]
fn a_host_event_carrying_an_operation_id_does_not_block_its_lifecycle() {
    let (_d, p) = temp();
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    s.journal_append(note("n1", Some("op5"), serde_json::json!({"progress": 1}))).unwrap();
    s.dispatch_operation("s1", "op5", serde_json::json!({})).unwrap();
    s.complete_operation("s1", "op5", OperationOutcome::Succeeded, serde_json::json!({})).unwrap();
    assert!(s.open_operations().unwrap().is_empty());
}

#[test]
fn journal_payloads_nested_too_deep_are_refused_at_write() {
    let (_d, p) = temp();
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    let mut deep = serde_json::json!(1);
    for _ in 0..200 {
        deep = serde_json::json!([deep]);
    }
    assert_eq!(s.journal_append(note("deep", None, deep)).unwrap_err().kind(), ErrorKind::InvalidInput);
    let mut ok = serde_json::json!(1);
    for _ in 0..63 {
        ok = serde_json::json!([ok]);
    }
    s.journal_append(note("ok", None, ok.clone())).unwrap();
    assert_eq!(s.journal_events("s1", 1, 10).unwrap()[0].payload, ok);
}

#[test]
fn governance_bodies_are_checked_when_written() {
    let (_d, p) = temp();
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    let id = s.create_session(None, None).unwrap().id;
    for (kind, body) in [("pin", "\"x\""), ("pin", r#"{"seq":-1}"#), ("compaction", "{}"), ("exclude", "[1]")] {
        assert_eq!(s.append_context_extension(&id, kind, body).unwrap_err().kind(), ErrorKind::InvalidInput, "{kind} {body}");
    }
    assert!(s.list_context_extensions(&id).unwrap().is_empty());
    s.append_context_extension(&id, "pin", r#"{"seqs":[1]}"#).unwrap();
    sessiondb::context::recover_context_governance(&s, &id).unwrap();
}

#[test]
fn token_totals_saturate_instead_of_failing() {
    let (_d, p) = temp();
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    let id = s.create_session(None, None).unwrap().id;
    for _ in 0..3 {
        s.record_tokens(&id, TokenUsage { input: i64::MAX as u64, output: 1, ..Default::default() }).unwrap();
    }
    assert_eq!(s.token_totals(&id).unwrap(), TokenTotals { input: u64::MAX, output: 3, cached: 0 });
}

#[test]
fn opening_and_reading_do_not_wait_for_another_writer() {
    let (_d, p) = temp();
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    let id = s.create_session(None, None).unwrap().id;
    drop(s);
    let writer = rusqlite::Connection::open(&p).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let t = std::time::Instant::now();
    let r = SessionStore::open(OpenOptions { busy_timeout_ms: 300, ..OpenOptions::at(&p, key()) }).unwrap();
    assert_eq!(r.list_sessions(None).unwrap().len(), 1);
    assert!(t.elapsed() < std::time::Duration::from_millis(250), "{:?}", t.elapsed());
    // A write does wait, and its Busy error reports the configured timeout.
    let e = r.append_transcript(&id, Role::User, "x".into()).unwrap_err();
    let Error::Busy { timeout_ms, waited_ms } = e else { panic!("{e:?}") };
    assert_eq!(timeout_ms, 300);
    assert!(waited_ms >= 300, "a Busy comes only after the real timeout; waited {waited_ms} ms");
    writer.execute_batch("COMMIT").unwrap();
    assert_eq!(r.append_transcript(&id, Role::User, "x".into()).unwrap().seq, 1);
}

#[test]
fn another_programs_sqlite_file_is_refused_and_left_untouched() {
    let (_d, p) = temp();
    {
        let c = rusqlite::Connection::open(&p).unwrap();
        c.execute_batch("CREATE TABLE notes (x); INSERT INTO notes VALUES (1);").unwrap();
    }
    let before = std::fs::read(&p).unwrap();
    let e = SessionStore::open(OpenOptions::at(&p, key())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corrupt, "{e}");
    assert_eq!(std::fs::read(&p).unwrap(), before, "not switched to WAL, no tables added");
    assert!(!std::path::Path::new(&format!("{}-wal", p.display())).exists());
}

#[cfg(unix)]
#[test]
fn a_read_only_database_file_stays_read_only() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, p) = temp();
    drop(SessionStore::open(OpenOptions::at(&p, key())).unwrap());
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o400)).unwrap();
    let _ = SessionStore::open(OpenOptions::at(&p, key()));
    assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o400);
}

#[test]
fn seq_arguments_beyond_i64_return_nothing_instead_of_wrapping() {
    let (_d, p) = temp();
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    let id = s.create_session(None, None).unwrap().id;
    s.append_transcript(&id, Role::User, "x".into()).unwrap();
    assert!(s.get_transcript(&id, u64::MAX, 10).unwrap().is_empty());
    assert!(s.journal_events(&id, u64::MAX, 10).unwrap().is_empty());
}

#[test]
fn titles_with_control_characters_empty_or_huge_are_refused() {
    let (_d, p) = temp();
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    for t in ["", "a\x1b[31m", "line\nbreak", &"x".repeat(1025)] {
        assert_eq!(s.create_session(Some(t.to_string()), None).unwrap_err().kind(), ErrorKind::InvalidInput);
    }
    let id = s.create_session(Some("ok".into()), None).unwrap().id;
    assert_eq!(s.rename_session(&id, Some("bad\u{0}".into())).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(s.get_session(&id).unwrap().name.as_deref(), Some("ok"));
}

#[test]
fn stale_lock_files_of_killed_handles_are_swept() {
    let (_d, p) = temp();
    let lock_dir = std::path::PathBuf::from(format!("{}-owners", p.display()));
    drop(SessionStore::open(OpenOptions::at(&p, key())).unwrap());
    std::fs::write(lock_dir.join("deadbeef.lock"), b"").unwrap();
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    let names: Vec<String> = std::fs::read_dir(&lock_dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, vec![format!("{}.lock", s.instance_id())]);
}

#[test]
fn an_owner_lock_that_cannot_be_opened_counts_as_alive() {
    let (_d, p) = temp();
    let lock_dir = std::path::PathBuf::from(format!("{}-owners", p.display()));
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    s.journal_append(NewEvent { event_id: "d1".into(), session_id: "s1".into(), kind: "EffectDispatchCommitted".into(),
        operation_id: Some("op".into()), payload: serde_json::json!({}) }).unwrap();
    // Replace this owner's lock file by a directory of the same name: opening it fails (not NotFound).
    let own = lock_dir.join(format!("{}.lock", s.instance_id()));
    std::fs::remove_file(&own).unwrap();
    std::fs::create_dir(&own).unwrap();
    let other = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    assert_eq!(other.open_recovery_report().skipped_live, 1);
    assert!(other.open_recovery_report().marked_unknown.is_empty());
}

#[test]
fn host_names_of_outcomes_and_scopes_parse_in_the_core() {
    assert_eq!(OperationOutcome::parse("unknown").unwrap(), OperationOutcome::UnknownOutcome);
    assert_eq!(OperationOutcome::parse("cancelled").unwrap().kind(), "OperationCancelled");
    assert_eq!(OperationOutcome::parse("Succeeded").unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(WorkspaceFilter::from_scope("other", Some("/w".into())).unwrap(), WorkspaceFilter::Other("/w".into()));
    assert_eq!(WorkspaceFilter::from_scope("all", None).unwrap(), WorkspaceFilter::All);
    assert_eq!(WorkspaceFilter::from_scope("current", None).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(WorkspaceFilter::from_scope("mine", None).unwrap_err().kind(), ErrorKind::InvalidInput);
}

#[test]
fn a_token_batch_is_one_transaction_and_one_journal_event() {
    let (_d, p) = temp();
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    let id = s.create_session(None, None).unwrap().id;
    let u = |i: u64| TokenUsage { input: i, output: 2 * i, cached: 1, model: Some("m".into()), provider: None };
    s.record_tokens_batch(&id, vec![u(1), u(2), u(3)]).unwrap();
    s.record_tokens_batch(&id, vec![]).unwrap();
    assert_eq!(s.token_totals(&id).unwrap(), TokenTotals { input: 6, output: 12, cached: 3 });
    let ev = s.journal_events(&id, 1, 10).unwrap();
    assert_eq!(ev.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(), ["SessionCreated", "TokensRecorded"]);
    assert_eq!(ev[1].payload, serde_json::json!({"records": 3, "input": 6, "output": 12, "cached": 3}));
    // One bad record: nothing of the batch is stored.
    let e = s.record_tokens_batch(&id, vec![u(1), TokenUsage { input: u64::MAX, ..Default::default() }]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert_eq!(s.token_totals(&id).unwrap().input, 6);
}

#[test]
fn source_format_names_parse_in_the_core() {
    use sessiondb::portable::SourceFormat;
    for f in [SourceFormat::Thclaws, SourceFormat::Codex, SourceFormat::ClaudeCode] {
        assert_eq!(SourceFormat::parse(f.as_str()).unwrap(), f);
    }
    assert_eq!(SourceFormat::parse("claude").unwrap_err().kind(), ErrorKind::InvalidInput);
}

#[test]
fn a_stored_role_or_format_the_schema_never_writes_is_corrupt_naming_the_entry() {
    // A page read keeps the names the schema writes without allocating
    // (`backend::known_name`); anything else still reaches the store's
    // check, and a value of another type (a BLOB spelling `user`) the column's own error.
    let (_d, p) = temp();
    let s = SessionStore::open(OpenOptions::at(&p, key())).unwrap();
    let sid = s.create_session(None, None).unwrap().id;
    for text in ["one", "two", "three"] {
        s.append_transcript(&sid, Role::Assistant, text.into()).unwrap();
    }
    let c = rusqlite::Connection::open(&p).unwrap();
    c.execute("UPDATE transcript_entries SET role = 'robot' WHERE seq = 1", []).unwrap();
    c.execute("UPDATE transcript_entries SET format = 'pdf' WHERE seq = 2", []).unwrap();
    c.execute("UPDATE transcript_entries SET role = x'75736572' WHERE seq = 3", []).unwrap();
    let e = s.get_transcript(&sid, 1, 1).unwrap_err();
    assert_eq!((e.kind(), e.to_string()), (ErrorKind::Corrupt, format!("corrupt data: record `transcript:{sid}:1:content`: unknown role")));
    let e = s.get_transcript(&sid, 2, 1).unwrap_err();
    assert_eq!((e.kind(), e.to_string()), (ErrorKind::Corrupt, format!("corrupt data: record `transcript:{sid}:2:content`: unknown content format")));
    let e = s.get_transcript(&sid, 3, 1).unwrap_err();
    assert_eq!((e.kind(), e.to_string()), (ErrorKind::Corrupt, format!("corrupt data: record `transcript:{sid}:3:content`: column 1 holds a value of a type this schema never writes there")));
}
