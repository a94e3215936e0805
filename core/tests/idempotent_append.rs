//! Appends under an idempotency key (issue 29 item 2): a retried call
//! stores its entries once, whatever handle or thread retries it; a key
//! used for anything else is refused and nothing is written.
use std::sync::{Arc, Barrier};

use sessiondb::{DataKey, EntryMeta, ErrorKind, KeySource, NewEntry, NewEvent, OpenOptions, Role, SessionStore};

fn open(path: &std::path::Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, KeySource::Bytes(DataKey::from_bytes(&[9u8; 32]).unwrap()))).unwrap()
}

fn entries(texts: &[&str]) -> Vec<NewEntry> {
    texts.iter().map(|t| NewEntry::text(Role::User, *t)).collect()
}

fn appended_events(s: &SessionStore, sid: &str) -> Vec<String> {
    s.journal_events(sid, 1, 10_000).unwrap().into_iter().filter(|e| e.kind == "TranscriptAppended").map(|e| e.event_id).collect()
}

#[test]
fn a_retried_append_stores_its_entries_once_and_returns_what_the_first_stored() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    s.append_entries(&sid, entries(&["before"])).unwrap();
    let first = s.append_entries_keyed(&sid, entries(&["a", "b"]), Some("turn-1")).unwrap();
    assert_eq!(first.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![2, 3]);
    let again = s.append_entries_keyed(&sid, entries(&["a", "b"]), Some("turn-1")).unwrap();
    assert_eq!(again, first, "same seqs, contents and times");
    assert_eq!(s.last_seq(&sid).unwrap(), 3);
    let events = appended_events(&s, &sid);
    assert_eq!(events.len(), 2);
    assert_eq!(events[1], "turn-1");
    // Another handle (another process after a crash) sees the key too.
    drop(s);
    let s = open(&dir.path().join("s.db"));
    assert_eq!(s.append_entries_keyed(&sid, entries(&["a", "b"]), Some("turn-1")).unwrap(), first);
    // A new key appends; no key always appends.
    assert_eq!(s.append_entries_keyed(&sid, entries(&["a", "b"]), Some("turn-2")).unwrap()[0].seq, 4);
    assert_eq!(s.append_entries_keyed(&sid, entries(&["a", "b"]), None).unwrap()[0].seq, 6);
    assert_eq!(s.last_seq(&sid).unwrap(), 7);
}

#[test]
fn a_key_used_for_anything_else_is_a_conflict_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    let other = s.create_session(None, None).unwrap().id;
    s.append_entries_keyed(&sid, entries(&["a"]), Some("k1")).unwrap();
    let conflict = |r: sessiondb::Result<Vec<sessiondb::TranscriptEntry>>| {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
        e.to_string()
    };
    // Other entries, another session, other metadata.
    let msg = conflict(s.append_entries_keyed(&sid, entries(&["A"]), Some("k1")));
    assert!(msg.contains("idempotency key `k1` was already used for other entries or another event"), "{msg}");
    conflict(s.append_entries_keyed(&sid, entries(&["a", "a"]), Some("k1")));
    conflict(s.append_entries_keyed(&other, entries(&["a"]), Some("k1")));
    let meta = EntryMeta { model: Some("m".into()), ..EntryMeta::default() };
    conflict(s.append_entries_with_meta_keyed(&sid, vec![(NewEntry::text(Role::User, "a"), meta)], Some("k1")));
    // A host journal event's id is not an append's key.
    s.journal_append(NewEvent {
        event_id: "ev-1".into(),
        session_id: sid.clone(),
        kind: "ToolRan".into(),
        operation_id: None,
        payload: serde_json::json!({}),
    })
    .unwrap();
    conflict(s.append_entries_keyed(&sid, entries(&["x"]), Some("ev-1")));
    assert_eq!(s.last_seq(&sid).unwrap(), 1);
    assert_eq!(s.last_seq(&other).unwrap(), 0);
}

#[test]
fn malformed_keys_are_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    for (key, says) in [
        ("", "idempotency key: an event id must be 1..=128 characters without whitespace, control characters or `:`"),
        ("a:b", "idempotency key: an event id must be 1..=128"),
        ("op.dispatch", "idempotency keys ending in `.dispatch` or `.terminal` are reserved"),
        ("op.terminal", "reserved for the journal's lifecycle events"),
    ] {
        let e = s.append_entries_keyed(&sid, entries(&["a"]), Some(key)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{key}: {e}");
        assert!(e.to_string().contains(says), "{key}: {e}");
    }
    let long = "k".repeat(129);
    assert_eq!(s.append_entries_keyed(&sid, entries(&["a"]), Some(&long)).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(s.last_seq(&sid).unwrap(), 0);
}

#[test]
fn metadata_is_part_of_the_key_and_the_retry_returns_the_first_times() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    let meta = EntryMeta { model: Some("gpt".into()), item: Some("{\"role\":\"user\"}".into()), ..EntryMeta::default() };
    let batch = || vec![(NewEntry::text(Role::User, "hi"), meta.clone())];
    let first = s.append_entries_with_meta_keyed(&sid, batch(), Some("items-1")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    let again = s.append_entries_with_meta_keyed(&sid, batch(), Some("items-1")).unwrap();
    assert_eq!(again, first);
    assert_eq!(again[0].created_at_ms, first[0].created_at_ms);
    let stored = s.get_transcript_with_meta(&sid, 1, 10).unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].1.item.as_deref(), Some("{\"role\":\"user\"}"));
}

#[test]
fn eight_threads_retrying_one_key_store_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let s = Arc::new(open(&dir.path().join("s.db")));
    let sid = s.create_session(None, None).unwrap().id;
    let barrier = Arc::new(Barrier::new(8));
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let (s, sid, barrier) = (Arc::clone(&s), sid.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                (0..20).map(|k| s.append_entries_keyed(&sid, entries(&["x", "y"]), Some(&format!("k{k}"))).unwrap()[0].seq).collect::<Vec<_>>()
            })
        })
        .collect();
    let seen: Vec<Vec<u64>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    // Every thread got the same seqs for each key: the ones its first append took.
    for s in &seen[1..] {
        assert_eq!(s, &seen[0]);
    }
    assert_eq!(s.last_seq(&sid).unwrap(), 40);
    // One event per key, in key order (a thread appends k+1 only after k committed).
    assert_eq!(appended_events(&s, &sid), (0..20).map(|k| format!("k{k}")).collect::<Vec<_>>());
    assert_eq!(seen[0], (0..20).map(|k| 1 + 2 * k).collect::<Vec<u64>>());
}

#[test]
fn agents_items_append_as_the_adapter_stores_them_once_per_key() {
    use sessiondb::portable::append_agents_items;
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    let items = vec![
        r#"{"role":"user","content":"hi"}"#.to_string(),
        r#"{"type":"function_call","call_id":"c1","name":"grep","arguments":"{\"p\":1}"}"#.to_string(),
        r#"{"type":"function_call_output","call_id":"c1","output":"found é"}"#.to_string(),
        r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}"#.to_string(),
    ];
    assert_eq!(append_agents_items(&s, &sid, items.clone(), Some("turn-1"), Some(1_700_000_000_123)).unwrap(), 1);
    // The retry of the same items under the same key stores nothing and says where they went.
    assert_eq!(append_agents_items(&s, &sid, items.clone(), Some("turn-1"), Some(1_700_000_000_123)).unwrap(), 1);
    assert_eq!(s.last_seq(&sid).unwrap(), 4);
    let rows = s.get_transcript_with_meta(&sid, 1, 10).unwrap();
    let got: Vec<(Role, &str, i64, Option<&str>)> = rows.iter().map(|(e, m)| (e.role, e.content.as_str(), e.created_at_ms, m.item.as_deref())).collect();
    assert_eq!(
        got,
        vec![
            (Role::User, "hi", 1_700_000_000_123, Some(items[0].as_str())),
            (Role::Assistant, "grep({\"p\":1})", 1_700_000_000_123, Some(items[1].as_str())),
            (Role::Tool, "found é", 1_700_000_000_123, Some(items[2].as_str())),
            (Role::Assistant, "done", 1_700_000_000_123, Some(items[3].as_str())),
        ]
    );
    assert_eq!(appended_events(&s, &sid), vec!["turn-1".to_string()]);
    // The same key with other items is a conflict; no items write nothing.
    assert_eq!(append_agents_items(&s, &sid, items[..1].to_vec(), Some("turn-1"), None).unwrap_err().kind(), ErrorKind::Conflict);
    assert_eq!(append_agents_items(&s, &sid, vec![], Some("turn-2"), None).unwrap(), 0);
    // An item that is not a JSON object is refused before anything is written.
    for bad in ["[1]", "{", "\"text\""] {
        let r = append_agents_items(&s, &sid, vec![items[0].clone(), bad.to_string()], None, None);
        assert_eq!(r.unwrap_err().kind(), ErrorKind::InvalidInput, "{bad}");
    }
    assert_eq!(s.last_seq(&sid).unwrap(), 4);
}
