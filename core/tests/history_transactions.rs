//! Atomic replacement of a session's tail (issue 29 item 1: the Agents SDK
//! JS session's `applyHistoryTransaction` / `applyHistoryMutations`): the
//! expected items are compared as JSON values, the old entries retracted and
//! the new ones appended in one transaction with one journal event; a
//! mismatch or a reused key writes nothing; a retried key is a no-op.

use sessiondb::{DataKey, EntryMeta, ErrorKind, KeySource, NewEntry, OpenOptions, Role, SearchOptions, SessionStore};

fn open(path: &std::path::Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, KeySource::Bytes(DataKey::from_bytes(&[7u8; 32]).unwrap()))).unwrap()
}

/// An entry holding the SDK item `{"role":"user","content":text}`.
fn item(text: &str) -> (NewEntry, EntryMeta) {
    let json = serde_json::json!({ "role": "user", "content": text }).to_string();
    (NewEntry::text(Role::User, text), EntryMeta { item: Some(json), ..Default::default() })
}

fn expected(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| item(t).1.item.unwrap()).collect()
}

/// The visible contents in order.
fn contents(s: &SessionStore, sid: &str) -> Vec<String> {
    s.get_transcript(sid, 1, 1000).unwrap().into_iter().map(|e| e.content).collect()
}

fn kinds(s: &SessionStore, sid: &str) -> Vec<String> {
    s.journal_events(sid, 1, 10_000).unwrap().into_iter().map(|e| e.kind).collect()
}

#[test]
fn a_matching_tail_is_replaced_atomically_with_one_journal_event() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    s.append_entries_with_meta(&sid, vec![item("a"), item("b"), item("zebracanary"), item("d")]).unwrap();
    let before = kinds(&s, &sid).len();
    let got = s.replace_tail_items(&sid, expected(&["zebracanary", "d"]), vec![item("x")], None).unwrap();
    assert_eq!(got.iter().map(|e| (e.seq, e.content.as_str())).collect::<Vec<_>>(), vec![(5, "x")]);
    assert_eq!(contents(&s, &sid), ["a", "b", "x"]);
    let events = s.journal_events(&sid, 1, 10_000).unwrap();
    assert_eq!(events.len(), before + 1);
    let last = events.last().unwrap();
    assert_eq!(last.kind, "TranscriptTailReplaced");
    assert_eq!(last.payload["retracted"], serde_json::json!([3, 4]));
    assert_eq!((last.payload["from_seq"].as_u64(), last.payload["count"].as_u64()), (Some(5), Some(1)));
    // The replaced entries are gone from every read, the search index too.
    assert_eq!(s.get_entry_items_tail(&sid, 10).unwrap().seqs, vec![1, 2, 5]);
    assert_eq!(s.search("zebracanary", &SearchOptions::default()).unwrap().hits.len(), 0);
    assert_eq!(s.search("x", &SearchOptions::default()).unwrap().hits.len(), 1);
}

#[test]
fn items_compare_as_json_values_and_an_entry_without_an_item_as_role_and_content() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    s.append_entries(&sid, vec![NewEntry::text(Role::Assistant, "plain")]).unwrap();
    s.append_entries_with_meta(&sid, vec![item("b")]).unwrap();
    // Keys in another order and other spacing are the same value.
    let exp = vec![r#"{ "content": "plain", "role": "assistant" }"#.to_string(), r#"{"content":"b","role":"user"}"#.to_string()];
    s.replace_tail_items(&sid, exp.clone(), vec![item("c")], None).unwrap();
    assert_eq!(contents(&s, &sid), ["c"]);
}

#[test]
fn a_tail_that_does_not_match_is_a_conflict_and_nothing_changes() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    s.append_entries_with_meta(&sid, vec![item("a"), item("b")]).unwrap();
    let before = kinds(&s, &sid);
    for exp in [expected(&["a"]), expected(&["x", "a", "b"]), expected(&["b", "a"])] {
        let e = s.replace_tail_items(&sid, exp.clone(), vec![item("y")], Some("op-1")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
        assert!(e.to_string().contains("no longer hold the expected items"), "{e}");
    }
    assert_eq!(contents(&s, &sid), ["a", "b"]);
    assert_eq!(kinds(&s, &sid), before);
    // The key was not recorded: it still works for a matching change.
    s.replace_tail_items(&sid, expected(&["b"]), vec![item("y")], Some("op-1")).unwrap();
    assert_eq!(contents(&s, &sid), ["a", "y"]);
    let bad = s.replace_tail_items(&sid, vec!["{not json".to_string()], vec![], None).unwrap_err();
    assert_eq!(bad.kind(), ErrorKind::InvalidInput);
    assert_eq!(s.replace_tail_items("no-such", vec![], vec![item("z")], None).unwrap_err().kind(), ErrorKind::NotFound);
}

#[test]
fn a_retried_key_is_a_no_op_and_a_reused_key_is_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    s.append_entries_with_meta(&sid, vec![item("a"), item("b")]).unwrap();
    let first = s.replace_tail_items(&sid, expected(&["b"]), vec![item("c"), item("d")], Some("op-1")).unwrap();
    let events = kinds(&s, &sid).len();
    // The tail no longer holds "b", but this is the same change again.
    let again = s.replace_tail_items(&sid, expected(&["b"]), vec![item("c"), item("d")], Some("op-1")).unwrap();
    assert_eq!(again, first);
    assert_eq!(contents(&s, &sid), ["a", "c", "d"]);
    assert_eq!(kinds(&s, &sid).len(), events);
    // The same key with another change, or for an append, writes nothing.
    for r in [
        s.replace_tail_items(&sid, expected(&["d"]), vec![item("e")], Some("op-1")),
        s.replace_tail_items(&sid, vec![], vec![item("c"), item("d")], Some("op-1")),
        s.append_entries_with_meta_keyed(&sid, vec![item("c"), item("d")], Some("op-1")),
    ] {
        assert_eq!(r.unwrap_err().kind(), ErrorKind::Conflict);
    }
    assert_eq!(contents(&s, &sid), ["a", "c", "d"]);
    assert_eq!(kinds(&s, &sid).len(), events);
}

#[test]
fn an_empty_change_under_a_key_is_recorded_so_its_key_cannot_be_reused() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    s.append_entries_with_meta(&sid, vec![item("a")]).unwrap();
    assert_eq!(s.replace_tail_items(&sid, vec![], vec![], Some("op-empty")).unwrap(), vec![]);
    assert_eq!(s.replace_tail_items(&sid, vec![], vec![], Some("op-empty")).unwrap(), vec![]);
    assert_eq!(s.replace_tail_items(&sid, vec![], vec![item("b")], Some("op-empty")).unwrap_err().kind(), ErrorKind::Conflict);
    // Appending with no expected items is an append.
    let got = s.replace_tail_items(&sid, vec![], vec![item("b")], Some("op-2")).unwrap();
    assert_eq!(got[0].seq, 2);
    assert_eq!(contents(&s, &sid), ["a", "b"]);
    assert_eq!(kinds(&s, &sid).iter().filter(|k| *k == "TranscriptTailReplaced").count(), 2);
}
