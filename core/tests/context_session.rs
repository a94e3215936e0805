//! `/context` and `/compact` over a stored session (context::session).

use sessiondb::context::{compact_session, context_status, Band, TurnState};
use sessiondb::*;

fn store() -> (tempfile::TempDir, SessionStore) {
    let d = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions::at(d.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[5; 32]).unwrap()))).unwrap();
    (d, s)
}

#[test]
fn status_then_compaction_then_status_after_reopen() {
    let (d, s) = store();
    let id = s.create_session(None, None).unwrap().id;
    // 10 turns of 1,000 host-counted tokens each: 10,000 active tokens.
    let entries = (0..10)
        .map(|i| NewEntry { tokens: Some(1000), ..NewEntry::text(if i % 2 == 0 { Role::User } else { Role::Assistant }, format!("turn {i} body")) })
        .collect();
    s.append_entries(&id, entries).unwrap();
    // window 12,000: capacity = 12000 - 960 - 2048 = 8992; 10000 / 8992 = 111%.
    let st = context_status(&s, &id, 12_000, None, None).unwrap();
    assert_eq!(st.capacity, 8_992);
    assert_eq!((st.meter.percent, st.meter.band, st.meter.overflow), (111, Band::Red, true));
    assert_eq!(st.meter.label, "Ctx 111%");
    let dry = compact_session(&s, &id, 12_000, None, None, None, true).unwrap();
    assert!(dry.tokens_after <= 8_992 * 70 / 100, "{} tokens after", dry.tokens_after);
    assert!(s.list_context_extensions(&id).unwrap().is_empty(), "dry run records nothing");
    let plan = compact_session(&s, &id, 12_000, None, None, None, false).unwrap();
    assert_eq!(plan, dry);
    drop(s);
    let s = SessionStore::open(OpenOptions::at(d.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[5; 32]).unwrap()))).unwrap();
    let st = context_status(&s, &id, 12_000, None, None).unwrap();
    assert_eq!(st.meter.active_tokens, plan.tokens_after);
    let compacted: Vec<u64> = st.turns.iter().filter(|t| t.state == TurnState::Compacted).map(|t| t.seq).collect();
    assert_eq!(compacted, plan.compacted_seqs());
    // The saved transcript is unchanged.
    assert_eq!(s.get_transcript(&id, 1, 100).unwrap()[0].content, "turn 0 body");
    // A window too small for the protected recent turns: Irreducible Context Overflow.
    let e = compact_session(&s, &id, 4_000, None, None, None, true).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ContextOverflow);
    assert_eq!(context_status(&s, "nope", 12_000, None, None).unwrap_err().kind(), ErrorKind::NotFound);
}

#[test]
fn imported_source_compactions_do_not_break_context_replay() {
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/samples/codex/excerpts/localpush_rollout-2026-02-23T12-54-34_lines1780-1796_compacted.jsonl");
    if !samples.exists() {
        eprintln!("SKIP: ../shared/samples is absent");
        return;
    }
    let (_d, s) = store();
    let rep = sessiondb::portable::import_file(&s, &samples, None).unwrap();
    let id = rep.sessions[0].session_id.clone();
    let kinds: Vec<String> = s.list_context_extensions(&id).unwrap().into_iter().map(|x| x.kind).collect();
    assert!(kinds.contains(&"source_compaction".to_string()), "{kinds:?}");
    let st = context_status(&s, &id, 400_000, None, None).unwrap();
    assert_eq!(st.turns.len(), 3);
    // Since issue 14 the import also records where Codex resumes (a
    // `compaction` plan whose runs hold the replacement history): the two
    // turns before the `compacted` line are compacted, the one after verbatim.
    assert!(kinds.contains(&"compaction".to_string()), "{kinds:?}");
    assert_eq!(st.turns.iter().map(|t| t.state).collect::<Vec<_>>(), [TurnState::Compacted, TurnState::Compacted, TurnState::Verbatim]);
}
