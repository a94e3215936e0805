//! Token counts stored on the write path (issue 33 item 7), SQLite: the
//! `counted_tokens` column holds, for each entry written to a session whose
//! model has a tokenizer, `count_tokens` of its content with the encoding's
//! code (`tokens × 4 + 1` for o200k_base, `+ 2` for cl100k_base), from a
//! single append, `append_entries` and an import alike; NULL for an entry
//! with a host count and in a session without a tokenizer.
//! (PostgreSQL: `store_postgres.rs`, `write_time_counts_are_stored_exactly`.)

use sessiondb::context::count_tokens;
use sessiondb::*;

const CJK: &str = "日本語のテキストと中文文本, 한국어 텍스트";
const MIXED: &str = "١٢٣ مرحبا بالعالم שלום עולם Привет, мир!";

fn key() -> KeySource {
    KeySource::Bytes(DataKey::from_bytes(&[9; 32]).unwrap())
}

fn stored(db: &std::path::Path, sid: &str) -> Vec<Option<i64>> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut st = c.prepare("SELECT counted_tokens FROM transcript_entries WHERE session_id = ?1 ORDER BY seq").unwrap();
    st.query_map([sid], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn appends_store_the_count_of_the_session_models_encoding() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("s.db");
    let s = SessionStore::open(OpenOptions::at(&db, key())).unwrap();
    let id = s.create_session_with(NewSession { model: Some("gpt-4o".into()), ..Default::default() }).unwrap().id;
    s.append_transcript(&id, Role::User, CJK.into()).unwrap();
    s.append_entries(&id, vec![NewEntry::text(Role::Assistant, MIXED), NewEntry { tokens: Some(7), ..NewEntry::text(Role::User, CJK) }]).unwrap();
    s.append_entries_with_meta(&id, vec![(NewEntry::text(Role::Assistant, "hello world"), EntryMeta::default())]).unwrap();
    s.set_session_model(&id, Some("gpt-4".into()), None).unwrap();
    s.append_transcript(&id, Role::User, CJK.into()).unwrap();
    // o200k_base: CJK 15, MIXED 14, hello world 2; cl100k_base: CJK 21.
    assert_eq!(stored(&db, &id), [Some(15 * 4 + 1), Some(14 * 4 + 1), None, Some(2 * 4 + 1), Some(21 * 4 + 2)]);
    assert_eq!(count_tokens("gpt-4o", CJK, None).tokens, 15);
    // No tokenizer for the model, or no model: nothing counted.
    let c = s.create_session_with(NewSession { model: Some("claude-sonnet-4".into()), ..Default::default() }).unwrap().id;
    let n = s.create_session(None, None).unwrap().id;
    s.append_transcript(&c, Role::User, CJK.into()).unwrap();
    s.append_transcript(&n, Role::User, CJK.into()).unwrap();
    assert_eq!(stored(&db, &c), [None]);
    assert_eq!(stored(&db, &n), [None]);
}

#[test]
fn an_import_stores_the_count_of_each_entry_as_stored() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("s.db");
    let file = d.path().join("t.jsonl");
    let mut lines = vec![serde_json::json!({"type": "header", "id": "imp-1", "model": "openai/gpt-4o", "cwd": "/w", "created_at": 1778930901})];
    for (i, t) in [CJK, MIXED, "hello world"].iter().enumerate() {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        lines.push(serde_json::json!({"type": role, "content": [{"type": "text", "text": t}], "timestamp": 1778930902 + i}));
    }
    std::fs::write(&file, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
    let s = SessionStore::open(OpenOptions::at(&db, key())).unwrap();
    let r = portable::import_file(&s, &file, None).unwrap();
    let sid = r.sessions[0].session_id.clone();
    let contents: Vec<String> = s.get_transcript(&sid, 1, 100).unwrap().into_iter().map(|e| e.content).collect();
    assert_eq!(contents.len(), 3);
    let expected: Vec<Option<i64>> = contents.iter().map(|c| Some(count_tokens("gpt-4o", c, None).tokens as i64 * 4 + 1)).collect();
    assert_eq!(stored(&db, &sid), expected);
    // A turn of one text block is stored as its text: the texts' counts.
    assert_eq!(contents, [CJK, MIXED, "hello world"]);
    assert_eq!(expected, [Some(15 * 4 + 1), Some(14 * 4 + 1), Some(2 * 4 + 1)]);
}
