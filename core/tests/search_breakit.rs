//! Break-it pass on search (issue 26): hostile queries found by running the
//! CLI as a hostile user would; each case asserts the exact answer.

use std::path::Path;

use sessiondb::*;

const KEY: [u8; 32] = [9u8; 32];

fn open(path: &Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, KeySource::Bytes(DataKey::from_bytes(&KEY).unwrap()))).unwrap()
}

fn find(store: &SessionStore, q: &str) -> Result<Vec<u64>> {
    Ok(store.search(q, &SearchOptions { limit: Some(100), ..Default::default() })?.hits.iter().map(|h| h.seq).collect())
}

/// A word longer than the 80-byte token limit is in no index. Before the
/// fix, inside a phrase it was dropped silently and the phrase matched
/// without it (`"qqq…(100) fails"` found an entry that only says `fails`),
/// and alone it said "nothing searchable (letters or digits)".
#[test]
fn a_word_too_long_to_be_indexed_is_refused_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    let s = store.create_session(None, None).unwrap();
    store.append_transcript(&s.id, Role::User, ("retry_busy fails in openDatabase").into()).unwrap();
    let long = "q".repeat(100);
    let msg = "invalid input: search query: a word longer than 80 bytes is not indexed; search a part of it at character";
    for (q, at) in [
        (format!("\"{long} fails\""), 1),
        (long.clone(), 1),
        (format!("fails -{long}"), 8),
        (format!("fails {long}*"), 7),
        (format!("fails OR {long}"), 10),
    ] {
        let e = find(&store, &q).unwrap_err();
        assert_eq!((e.kind(), e.to_string()), (ErrorKind::InvalidInput, format!("{msg} {at}")), "{q}");
    }
    // Long compounds whose parts are indexed still work: 80 bytes exactly,
    // a long identifier split at `_`, a long camelCase run.
    store.append_transcript(&s.id, Role::User, (&format!("{} {}_{} {}", "r".repeat(80), "a".repeat(60), "b".repeat(60), "aB".repeat(60))).into()).unwrap();
    assert_eq!(find(&store, &"r".repeat(80)).unwrap(), vec![2]);
    assert_eq!(find(&store, &format!("{}_{}", "a".repeat(60), "b".repeat(60))).unwrap(), vec![2]);
    assert_eq!(find(&store, &"aB".repeat(60)).unwrap(), vec![2]);
    assert_eq!(find(&store, "\"retry busy fails\"").unwrap(), vec![1]);
}

/// NUL, other control characters, RTL, emoji, combining marks and CJK in a
/// query: an answer or a positioned InvalidInput, never a panic.
#[test]
fn unusual_characters_in_queries() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    let s = store.create_session(None, None).unwrap();
    store.append_transcript(&s.id, Role::User, ("café مرحبا 数据库 😀 zero\u{200b}width a\u{0}b").into()).unwrap();
    assert_eq!(find(&store, "cafe\u{301}").unwrap(), vec![1]);
    assert_eq!(find(&store, "CAFÉ").unwrap(), vec![1]);
    assert_eq!(find(&store, "مرحبا").unwrap(), vec![1]);
    assert_eq!(find(&store, "数据").unwrap(), vec![1]);
    assert_eq!(find(&store, "据数").unwrap(), Vec::<u64>::new());
    assert_eq!(find(&store, "\u{202e}zero").unwrap(), vec![1]);
    assert_eq!(find(&store, "a\u{0}b").unwrap(), vec![1]);
    for (q, msg) in [
        ("😀", "invalid input: search query: nothing searchable (letters or digits) in this term at character 1"),
        ("\u{0}", "invalid input: search query: nothing searchable (letters or digits) in this term at character 1"),
        ("\u{301}\u{301}", "invalid input: search query: nothing searchable (letters or digits) in this term at character 1"),
    ] {
        let e = find(&store, q).unwrap_err();
        assert_eq!((e.kind(), e.to_string()), (ErrorKind::InvalidInput, msg.to_string()), "{q:?}");
    }
}

/// A word too long to index (100 letters) between two words: the phrase of
/// those two words matched across it (the dropped part took no position).
#[test]
fn a_phrase_does_not_match_across_a_word_too_long_to_index() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    let s = store.create_session(None, None).unwrap();
    let long = "q".repeat(100);
    store.append_transcript(&s.id, Role::User, format!("alpha {long} omega")).unwrap();
    store.append_transcript(&s.id, Role::User, format!("gamma x_{long}_y delta")).unwrap();
    store.append_transcript(&s.id, Role::User, "alpha omega".into()).unwrap();
    assert_eq!(find(&store, "\"alpha omega\"").unwrap(), vec![3]);
    assert_eq!(find(&store, "alpha omega").unwrap().len(), 2);
    assert_eq!(find(&store, "\"x y\"").unwrap(), Vec::<u64>::new());
    assert_eq!(find(&store, "x_y").unwrap(), Vec::<u64>::new());
    assert_eq!(find(&store, "\"gamma x\"").unwrap(), vec![2]);
}
