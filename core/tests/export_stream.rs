//! Store export streams (issue 12 item 3): `export_thclaws` writes page by
//! page (pages bounded by entry count and stored content bytes) and gives
//! exactly the bytes of the in-memory writer over the whole session.

use sessiondb::portable::{export_thclaws, import_file, load_portable, write_thclaws_with, SourceFormat, WriteOptions, EXPORT_PAGE_BYTES};
use sessiondb::store::{NewEntry, Role};

mod portable_support;
use portable_support::store;

#[test]
fn streamed_export_equals_the_whole_session_writer_across_pages_snapshots_and_compactions() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let sid = "sess-00000000000000cc";
    // Snapshots and compactions placed between turns, from a thClaws file.
    let mut lines = vec![format!(r#"{{"type":"header","id":"{sid}","model":"m","cwd":"/tmp/p","created_at":1700000000}}"#)];
    for i in 0..1_500u32 {
        lines.push(serde_json::json!({"type": if i % 2 == 0 {"user"} else {"assistant"}, "content": [{"type": "text", "text": format!("turn {i}")}], "timestamp": 1_700_000_000 + i}).to_string());
        if i == 10 || i == 1_200 {
            lines.push(serde_json::json!({"type": "plan_snapshot", "plan": {"id": format!("p{i}"), "steps": []}, "timestamp": 1_700_000_000 + i}).to_string());
        }
        if i == 700 {
            lines.push(serde_json::json!({"type": "compaction", "messages": [{"role": "user", "content": [{"type": "text", "text": "summary"}]}], "replaces_count": 600, "timestamp": 1_700_000_700}).to_string());
        }
    }
    let file = dir.path().join("s.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    import_file(&st, &file, Some(SourceFormat::Thclaws)).unwrap();
    // Entries larger than the page budget (one per page), an empty turn
    // (left out of the file but counted for placement) and a retracted one.
    let big = "x".repeat(EXPORT_PAGE_BYTES as usize + 1);
    st.append_entries(sid, vec![NewEntry::text(Role::Tool, big.clone()), NewEntry::text(Role::User, "   "), NewEntry::text(Role::Assistant, big)]).unwrap();
    st.append_transcript(sid, Role::User, "retract me".into()).unwrap();
    st.retract_last_entry(sid).unwrap();
    st.append_transcript(sid, Role::Assistant, "last".into()).unwrap();

    let mut streamed = Vec::new();
    let rep = export_thclaws(&st, sid, &mut streamed).unwrap();
    let mut whole = Vec::new();
    let want = write_thclaws_with(&load_portable(&st, sid).unwrap(), &mut whole, &WriteOptions { only_thclaws_blocks: true }).unwrap();
    assert_eq!(rep, want);
    assert!(streamed == whole, "streamed export differs from the in-memory writer");
    // 1,500 + 3 turns written (the empty one left out), header, 2 plan
    // snapshots, the goal line, the compaction.
    assert_eq!(rep.turns, 1_503);
    assert_eq!(rep.lines, 1_503 + 1 + 2 + 1 + 1);
    let text = String::from_utf8(streamed).unwrap();
    assert!(!text.contains("retract me"));
    let kinds: Vec<String> = text.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["type"].as_str().unwrap().to_owned()).collect();
    // The compaction sits after turn 701 (its at_seq), the second plan after turn 1,201.
    assert_eq!(kinds.iter().position(|k| k == "compaction"), Some(1 + 1 + 1 + 11 + 690));
}
