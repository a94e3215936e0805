//! Each source record is imported once, whatever file it arrives in
//! (issue 14 item 2), and every plan and goal snapshot is kept in order
//! (item 3). Record identity comes from the record (Claude `uuid`, a
//! Codex or thClaws turn's content and timestamp; usage per Claude
//! `message.id` and per Codex `token_count` total), never its line number.
//! Real samples are read from `../shared/samples` (skipped when absent).

use sessiondb::portable::thclaws_check::load_check;
use sessiondb::portable::{export_thclaws, import_file, load_portable, read_path, SnapshotKind, SourceFormat};
use sessiondb::store::SessionStore;

mod portable_support;
use portable_support::{samples, store};

/// Lines `from..=to` (1-based) of `text`, each ending in `\n`.
fn lines(text: &str, from: usize, to: usize) -> String {
    text.split_terminator('\n').skip(from - 1).take(to + 1 - from).map(|l| format!("{l}\n")).collect()
}

/// (entries, tool calls, tool results, input, output, cached) of a stored session.
fn figures(st: &SessionStore, id: &str) -> (u64, usize, usize, u64, u64, u64) {
    let s = load_portable(st, id).unwrap();
    let t = st.token_totals(id).unwrap();
    (st.get_session(id).unwrap().entry_count, s.tool_calls(), s.tool_results(), t.input, t.output, t.cached)
}

const HEAVY: &str = "claude-code/spotter_tool_heavy.jsonl";
const HEAVY_ID: &str = "d6e0bada-1959-4eec-a9d2-0bfade768d8f";
/// What importing the whole file once gives (README table, portable_import.rs).
const HEAVY_ONCE: (u64, usize, usize, u64, u64, u64) = (19, 6, 6, 105_981, 212, 88_231);

#[test]
fn claude_partial_copy_then_whole_file_stores_each_record_once() {
    let Some(root) = samples() else { return };
    let text = std::fs::read_to_string(root.join(HEAVY)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let part = dir.path().join("part.jsonl");
    std::fs::write(&part, lines(&text, 11, 30)).unwrap();
    let r = import_file(&st, &part, Some(SourceFormat::ClaudeCode)).unwrap();
    assert_eq!(r.sessions[0].session_id, HEAVY_ID);
    let part_entries = r.sessions[0].entries;
    assert_eq!(part_entries, 11);
    let r = import_file(&st, &root.join(HEAVY), None).unwrap();
    let s = &r.sessions[0];
    assert_eq!((s.entries, s.skipped_already_stored), (19 - part_entries, part_entries), "no turn skipped that was not stored, none stored twice");
    assert_eq!(figures(&st, HEAVY_ID), HEAVY_ONCE);
}

#[test]
fn claude_two_files_with_copied_lines_give_the_whole_file_once() {
    let Some(root) = samples() else { return };
    let text = std::fs::read_to_string(root.join(HEAVY)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    std::fs::write(&a, lines(&text, 1, 26)).unwrap();
    std::fs::write(&b, lines(&text, 11, 39)).unwrap();
    import_file(&st, &a, Some(SourceFormat::ClaudeCode)).unwrap();
    let r = import_file(&st, &b, Some(SourceFormat::ClaudeCode)).unwrap();
    assert_eq!(figures(&st, HEAVY_ID), HEAVY_ONCE);
    // The report says what was not stored again.
    let read = r.read.unwrap();
    // Lines 11-26 are in both: 10 turns (7 user, 1 assistant message of two
    // lines, 2 local_command) and the usage of that assistant message.
    assert_eq!((read.not_imported["already stored: turn"], read.not_imported["already stored: usage"]), (10, 1));
    assert_eq!(r.sessions[0].skipped_already_stored, 10);
    // The whole file afterwards adds nothing.
    let r = import_file(&st, &root.join(HEAVY), None).unwrap();
    assert_eq!((r.sessions[0].entries, r.sessions[0].usage_records), (0, 0));
    assert_eq!(figures(&st, HEAVY_ID), HEAVY_ONCE);
}

#[test]
fn a_moved_file_that_grew_adds_only_its_new_records() {
    let Some(root) = samples() else { return };
    let text = std::fs::read_to_string(root.join(HEAVY)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let first = dir.path().join("first.jsonl");
    std::fs::write(&first, lines(&text, 1, 22)).unwrap();
    let r = import_file(&st, &first, Some(SourceFormat::ClaudeCode)).unwrap();
    let early = r.sessions[0].entries;
    // Moved to another directory, and grown to the whole file there.
    std::fs::create_dir(dir.path().join("archived")).unwrap();
    let moved = dir.path().join("archived/first.jsonl");
    std::fs::rename(&first, &moved).unwrap();
    std::fs::write(&moved, &text).unwrap();
    let r = import_file(&st, &moved, Some(SourceFormat::ClaudeCode)).unwrap();
    assert_eq!(r.sessions[0].entries, 19 - early);
    assert_eq!(figures(&st, HEAVY_ID), HEAVY_ONCE);
}

const CODEX: &str = "codex/localpush_rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl";
const CODEX_ID: &str = "019c8bfe-ec25-79e0-97d7-bda6a9c575ff";
const CODEX_ONCE: (u64, usize, usize, u64, u64, u64) = (18, 5, 5, 298_373, 1_123, 238_848);

#[test]
fn codex_copy_and_grown_head_give_the_whole_file_once() {
    let Some(root) = samples() else { return };
    let text = std::fs::read_to_string(root.join(CODEX)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    // The first 40 lines under another name (the session id comes from session_meta).
    let head = dir.path().join("rollout-head.jsonl");
    std::fs::write(&head, lines(&text, 1, 40)).unwrap();
    import_file(&st, &head, Some(SourceFormat::Codex)).unwrap();
    // The original, then a byte-identical copy elsewhere.
    import_file(&st, &root.join(CODEX), None).unwrap();
    let copy = dir.path().join("copy.jsonl");
    std::fs::write(&copy, &text).unwrap();
    let r = import_file(&st, &copy, Some(SourceFormat::Codex)).unwrap();
    assert_eq!((r.sessions[0].entries, r.sessions[0].usage_records), (0, 0));
    assert_eq!(figures(&st, CODEX_ID), CODEX_ONCE);
}

const RICH: &str = "thclaws/apcball_sess-18b0133eac539936.jsonl";
const RICH_ID: &str = "sess-18b0133eac539936";

#[test]
fn thclaws_partial_copy_then_whole_file_stores_each_record_once() {
    let Some(root) = samples() else { return };
    let text = std::fs::read_to_string(root.join(RICH)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let part = dir.path().join("part.jsonl");
    // The header and lines 40-80 (a copy cut out of the middle).
    std::fs::write(&part, lines(&text, 1, 1) + &lines(&text, 40, 80)).unwrap();
    import_file(&st, &part, Some(SourceFormat::Thclaws)).unwrap();
    import_file(&st, &root.join(RICH), None).unwrap();
    assert_eq!(figures(&st, RICH_ID), (102, 51, 50, 0, 0, 0));
    let kinds = |k: &str| st.list_context_extensions(RICH_ID).unwrap().iter().filter(|x| x.kind == k).count();
    assert_eq!((kinds("plan_snapshot"), kinds("goal_snapshot")), (10, 3));
}

#[test]
fn every_plan_and_goal_snapshot_is_kept_in_order_and_exported_in_order() {
    let Some(root) = samples() else { return };
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let r = import_file(&st, &root.join(RICH), None).unwrap();
    assert!(!r.read.as_ref().unwrap().not_imported.keys().any(|k| k.starts_with(sessiondb::portable::import::ALREADY_STORED)));
    let src = read_path(&root.join(RICH), None).unwrap().sessions.remove(0);
    let plans = |s: &sessiondb::portable::PortableSession| s.snapshots.iter().filter(|x| x.kind == SnapshotKind::Plan).map(|x| (x.at_turn, x.value.clone())).collect::<Vec<_>>();
    assert_eq!(plans(&src).len(), 10);
    assert_eq!(src.snapshots.iter().filter(|x| x.kind == SnapshotKind::Goal).count(), 3);
    let distinct: std::collections::BTreeSet<String> = plans(&src).iter().filter(|(_, v)| !v.is_null()).map(|(_, v)| v.to_string()).collect();
    assert_eq!(distinct.len(), 7, "seven real plans, none lost");
    let stored = load_portable(&st, RICH_ID).unwrap();
    assert_eq!(plans(&stored), plans(&src), "every plan, at its place, in order");
    assert_eq!(stored.plan, src.plan, "the restored view uses the latest");
    let mut out = Vec::new();
    export_thclaws(&st, RICH_ID, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let load = load_check(&text);
    assert!(load.rejected.is_empty(), "{:?}", load.rejected);
    assert_eq!((load.plan_snapshots, load.goal_snapshots, load.messages), (10, 3, 102));
    // The exported snapshot lines are the source's, in the source's order.
    let snap_lines = |t: &str| t.lines().filter(|l| l.starts_with(r#"{"type":"plan_snapshot""#) || l.starts_with(r#"{"type":"goal_snapshot""#)).map(|l| {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        (v["type"].clone(), v.get("plan").or(v.get("goal")).cloned(), v["timestamp"].clone())
    }).collect::<Vec<_>>();
    let original = std::fs::read_to_string(root.join(RICH)).unwrap();
    assert_eq!(snap_lines(&text), snap_lines(&original));
}

/// Schema version 5 keeps the import's record identities in
/// `import_records` (16 bytes each), not as `meta` rows. A version-4
/// database (its records as `import-rec:<sid>:<64 hex>` rows in `meta`)
/// migrates without the key: the rows move, and importing the same file
/// again stores nothing twice; deleting the session removes its records.
#[test]
fn import_records_live_in_their_own_table_and_version_4_rows_migrate() {
    use sessiondb::backend::sqlite::schema;
    let dir = tempfile::tempdir().unwrap();
    let header = r#"{"type":"header","id":"sess-00000000000000bb","model":"m","cwd":"/tmp/p","created_at":1700000000}"#;
    let turn = |role: &str, text: &str, ts: i64| serde_json::json!({"type": role, "content": [{"type": "text", "text": text}], "timestamp": ts}).to_string();
    let body = format!("{header}\n{}\n{}\n{}\n", turn("user", "one", 1), turn("assistant", "two", 2), turn("user", "three", 3));
    let file = dir.path().join("a.jsonl");
    std::fs::write(&file, &body).unwrap();
    let sid = "sess-00000000000000bb";
    let db = dir.path().join("sessions.db");
    {
        let st = store(dir.path());
        assert_eq!(import_file(&st, &file, Some(SourceFormat::Thclaws)).unwrap().sessions[0].entries, 3);
    }
    let c = rusqlite::Connection::open(&db).unwrap();
    let records = |c: &rusqlite::Connection| -> Vec<(String, usize)> {
        c.prepare("SELECT session_id, length(record_id) FROM import_records ORDER BY record_id").unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as usize))).unwrap().map(|x| x.unwrap()).collect()
    };
    let meta_records = |c: &rusqlite::Connection| -> i64 { c.query_row("SELECT COUNT(*) FROM meta WHERE key LIKE 'import-rec:%'", [], |r| r.get(0)).unwrap() };
    // Three turns, three 16-byte records; none in `meta`.
    assert_eq!(records(&c), vec![(sid.to_string(), 16); 3]);
    assert_eq!(meta_records(&c), 0);
    // Back to version 4's form: each record a `meta` row with 64 hex digits
    // (the first 32 are the id), the table gone.
    let ids: Vec<Vec<u8>> = c.prepare("SELECT record_id FROM import_records").unwrap().query_map([], |r| r.get(0)).unwrap().map(|x| x.unwrap()).collect();
    for id in &ids {
        let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
        c.execute("INSERT INTO meta (key, value) VALUES (?1, '1')", [format!("import-rec:{sid}:{hex}{}", "ab".repeat(16))]).unwrap();
    }
    // A key that does not parse stays in `meta`, untouched.
    c.execute("INSERT INTO meta (key, value) VALUES ('import-rec:broken', '1')", []).unwrap();
    // Schema 6 keeps the records in `import_record_sets`, `import_records` a view of them.
    c.execute_batch("DROP VIEW import_records; DROP TABLE import_record_sets; PRAGMA user_version = 4;").unwrap();
    drop(c);
    let st = store(dir.path());
    let c = rusqlite::Connection::open(&db).unwrap();
    assert_eq!(schema::current_version(&c).unwrap(), schema::LATEST_VERSION);
    assert_eq!(records(&c), vec![(sid.to_string(), 16); 3]);
    assert_eq!(meta_records(&c), 1);
    // The migrated identities are recognised: a copy of the file under
    // another name adds nothing, and says why.
    let copy = dir.path().join("b.jsonl");
    std::fs::write(&copy, &body).unwrap();
    let r = import_file(&st, &copy, Some(SourceFormat::Thclaws)).unwrap();
    assert_eq!((r.sessions[0].entries, r.sessions[0].skipped_already_stored), (0, 3));
    assert_eq!(st.get_session(sid).unwrap().entry_count, 3);
    // Deleting the session deletes its records: importing again stores it whole.
    st.delete_session(sid).unwrap();
    assert_eq!(records(&c), vec![]);
    let r = import_file(&st, &copy, Some(SourceFormat::Thclaws)).unwrap();
    assert_eq!(r.sessions[0].entries, 3);
    assert_eq!(records(&c).len(), 3);
}

/// Issue 33 item 3 made the import's identities cheaper (the blocks' JSON
/// made once per turn, the HMAC's keyed state once per file, the hashing on
/// the reader while a sealing stage encrypts) without changing them: every
/// `import_records` row is the one issue 14/28's formula gives, spelled out
/// here as it was (`turn\0<role>\0<timestamp {:?}>\0<blocks JSON>`, its
/// k-th repeat in the file `‖ \0#k`, HMAC-SHA-256 with the data key, domain
/// `import-record`, first 16 bytes). So sessions imported by older builds
/// hold the same ids, and a copy of the file under another name adds
/// nothing. Checked on a small file (read, sealed and written on one
/// thread) and on one over the 8 MiB batch (the three-thread pipeline).
#[test]
fn record_ids_are_issue_14_formula_on_both_import_paths() {
    use sessiondb::portable::{read_stream, Event, EventSink, ReadOptions, Thread, Turn};
    struct Turns(Vec<Turn>);
    impl EventSink for Turns {
        fn event(&mut self, _: &Thread, e: Event) -> sessiondb::Result<()> {
            if let Event::Turn(t) = e {
                self.0.push(t);
            }
            Ok(())
        }
    }
    for (sid, big) in [("sess-ids-small", 0usize), ("sess-ids-big", 320_000)] {
        let dir = tempfile::tempdir().unwrap();
        let st = store(dir.path());
        let mut text = format!("{}\n", serde_json::json!({"type":"header","id":sid,"model":"m","cwd":"/tmp/p","created_at":1_700_000_000}));
        let pad = |n: usize, tag: &str| format!("{tag} ").repeat(1 + big / (tag.len() + 1)) + &"x".repeat(n % 7);
        for n in 0..40usize {
            let ts = 1_700_000_000 + (n as i64 % 5);
            let line = match n % 4 {
                0 => serde_json::json!({"type":"user","content":[{"type":"text","text":pad(n, "one \"q\" é")}],"timestamp":ts}),
                1 => serde_json::json!({"type":"assistant","content":[{"type":"thinking","content":pad(n, "think")},{"type":"text","text":"t"},
                    {"type":"tool_use","id":format!("call_{n}"),"name":"Bash","input":{"command":"ls"}}],"timestamp":ts}),
                2 => serde_json::json!({"type":"user","content":[{"type":"tool_result","tool_use_id":format!("call_{}", n - 1),"content":pad(n, "out")}],"timestamp":ts}),
                // No timestamp; the same text every time (repeats: #1, #2...).
                _ => serde_json::json!({"type":"user","content":[{"type":"text","text":"again"}]}),
            };
            text.push_str(&line.to_string());
            text.push('\n');
        }
        assert_eq!(text.len() > 8 << 20, big > 0, "the big file is over BATCH_BYTES, the small one under");
        let file = dir.path().join("a.jsonl");
        std::fs::write(&file, &text).unwrap();
        let r = import_file(&st, &file, Some(SourceFormat::Thclaws)).unwrap();
        assert_eq!(r.sessions[0].entries, 40);
        // The ids by the formula, from the turns as the reader gives them.
        let mut turns = Turns(Vec::new());
        read_stream(SourceFormat::Thclaws, std::io::Cursor::new(text.as_bytes()), &ReadOptions::default(), &mut turns).unwrap();
        assert_eq!(turns.0.len(), 40);
        let key = sessiondb::DataKey::from_bytes(&[7u8; 32]).unwrap();
        let mut seen: std::collections::HashMap<String, u32> = Default::default();
        let mut want: Vec<Vec<u8>> = turns
            .0
            .iter()
            .map(|t| {
                let base = format!("turn\0{}\0{:?}\0{}", t.role.as_str(), t.timestamp_ms, t.blocks_json());
                let k = seen.entry(base.clone()).or_default();
                let text = if *k == 0 { base.clone() } else { format!("{base}\0#{k}") };
                *k += 1;
                sessiondb::crypto::keyed_digest(&key, "import-record", text.as_bytes())[..16].to_vec()
            })
            .collect();
        want.sort();
        assert_eq!(seen["turn\0user\0None\0[{\"type\":\"text\",\"text\":\"again\"}]"], 10, "ten repeats of one content");
        let c = rusqlite::Connection::open(dir.path().join("sessions.db")).unwrap();
        let got: Vec<Vec<u8>> = c
            .prepare("SELECT record_id FROM import_records WHERE session_id = ?1 ORDER BY record_id")
            .unwrap()
            .query_map([sid], |r| r.get(0))
            .unwrap()
            .map(|x| x.unwrap())
            .collect();
        assert_eq!(got, want, "{sid}");
        // A copy under another name: every turn is held already.
        let copy = dir.path().join("copy.jsonl");
        std::fs::write(&copy, &text).unwrap();
        let again = import_file(&st, &copy, Some(SourceFormat::Thclaws)).unwrap();
        assert_eq!((again.sessions[0].entries, again.sessions[0].skipped_already_stored), (0, 40));
        assert_eq!(st.get_session(sid).unwrap().entry_count, 40);
    }
}
