//! Import into the encrypted store, idempotence, export back to thClaws,
//! find/resume and fork (issue 4 items 1, 3, 4, 5).

use sessiondb::portable::{
    append_turns, export_thclaws, fork_session, import_file, import_paths, read_path, read_thclaws, resolve_session, sidebar_sessions, Block,
    Collector, ImportStatus, ReadOptions, Role, SourceFormat, Turn,
};
use sessiondb::store::SessionStore;
use sessiondb::ErrorKind;

mod portable_support;
use portable_support::{samples, store};

/// (session id suffix-free, entries, tool calls, tool results, input, output, cached)
type Row = (&'static str, u64, u64, u64, u64, u64, u64);

#[test]
fn every_sample_file_imports_with_exact_counts_reimports_nothing_and_round_trips() {
    let Some(root) = samples() else { return };
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let expect: &[(&str, &[Row])] = &[
        ("thclaws/apcball_sess-18b0083aead7f4d7.jsonl", &[("sess-18b0083aead7f4d7", 8, 1, 1, 0, 0, 0)]),
        ("thclaws/apcball_sess-18b0133eac539936.jsonl", &[("sess-18b0133eac539936", 102, 51, 50, 0, 0, 0)]),
        ("thclaws/athena_sess-18b1e2cdf829bd8c.jsonl", &[("sess-18b1e2cdf829bd8c", 0, 0, 0, 0, 0, 0)]),
        (
            "codex/localpush_rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl",
            &[("019c8bfe-ec25-79e0-97d7-bda6a9c575ff", 18, 5, 5, 298_373, 1_123, 238_848)],
        ),
        (
            "codex/excerpts/localpush_rollout-2026-02-23T12-54-34_lines1780-1796_compacted.jsonl",
            &[("localpush_rollout-2026-02-23T12-54-34_lines1780-1796_compacted", 3, 2, 1, 22_454_993, 90_856, 21_131_904)],
        ),
        ("claude-code/spotter_short.jsonl", &[("55604662-cf2a-4331-851a-ec234028f8ca", 7, 2, 2, 25_353, 13, 11_515)]),
        ("claude-code/spotter_tool_heavy.jsonl", &[("d6e0bada-1959-4eec-a9d2-0bfade768d8f", 19, 6, 6, 105_981, 212, 88_231)]),
        (
            "claude-code/claude-code-viewer_5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
            &[
                ("5c0375b4-57a5-4f26-b12d-d022ee4e51b7", 25, 13, 13, 216_399, 2_003, 190_261),
                ("5c0375b4-57a5-4f26-b12d-d022ee4e51b7.sidechain.6340ddef-f656-4b72-a065-82390f637678", 6, 2, 2, 39_191, 485, 25_737),
                ("5c0375b4-57a5-4f26-b12d-d022ee4e51b7.sidechain.83e2917c-8940-4df6-a5a5-f2514f0d08c5", 14, 6, 6, 116_545, 1_141, 108_261),
            ],
        ),
        ("claude-code/excerpts/claude-code-viewer_fe5e1c67_lines1-8_summary.jsonl", &[("fe5e1c67-53e7-4862-81ae-d0e013e3270b", 5, 2, 2, 16_208, 172, 14_874)]),
    ];
    for (file, rows) in expect {
        let path = root.join(file);
        let r = import_file(&st, &path, None).unwrap();
        assert_eq!(r.status, ImportStatus::Imported, "{file}");
        let got: Vec<Row> = r
            .sessions
            .iter()
            .map(|s| {
                let id: &'static str = Box::leak(s.session_id.clone().into_boxed_str());
                (id, s.entries, s.tool_calls, s.tool_results, s.input_tokens, s.output_tokens, s.cached_tokens)
            })
            .collect();
        assert_eq!(got, rows.to_vec(), "{file}");
        for (id, entries, .., input, output, cached) in rows.iter() {
            let rec = st.get_session(id).unwrap();
            assert_eq!(rec.entry_count, *entries);
            let t = st.token_totals(id).unwrap();
            assert_eq!((t.input, t.output, t.cached), (*input, *output, *cached), "{file}");
        }
        // Re-import: nothing added.
        let again = import_file(&st, &path, None).unwrap();
        assert_eq!(again.status, ImportStatus::UpToDate, "{file}");
        assert!(again.sessions.is_empty());
        // Export → read back gives the same turns as reading the source.
        let direct = read_path(&path, None).unwrap().sessions;
        for (src, (id, ..)) in direct.iter().zip(rows.iter()) {
            let mut out = Vec::new();
            export_thclaws(&st, id, &mut out).unwrap();
            let mut sink = Collector::new(SourceFormat::Thclaws, None);
            let rep = read_thclaws(&out[..], &ReadOptions::default(), &mut sink).unwrap();
            assert!(rep.skipped.is_empty());
            let back = sink.finish("x").remove(0);
            assert_eq!(back.id, *id);
            assert_eq!(back.turns.len(), src.turns.len(), "{file}");
            for (a, b) in src.turns.iter().zip(&back.turns) {
                assert_eq!(b.blocks, a.blocks, "{file} line {}", a.source_line);
                assert_eq!(b.role, if a.role == Role::Tool { Role::User } else { a.role });
                if let Some(ts) = a.timestamp_ms {
                    assert_eq!(b.timestamp_ms, Some(ts.div_euclid(1000) * 1000));
                }
            }
            assert_eq!(back.plan.clone().unwrap_or_default(), src.plan.clone().unwrap_or_default());
            assert_eq!(back.title, src.title);
            assert_eq!(back.compactions.len(), src.compactions.len());
            assert_eq!(back.active_turns().len(), src.active_turns().len());
            assert_eq!(back.cwd, src.cwd, "{file}: cwd kept (workspace binding or import_source)");
        }
    }
    let rec = st.get_session("sess-18b0133eac539936").unwrap();
    assert_eq!(rec.model.as_deref(), Some("zai/glm-5.1"));
    assert_eq!(rec.provider.as_deref(), Some("zai"));
    assert_eq!(rec.workspace_path.as_deref(), Some("/workspace"));
    assert_eq!(rec.created_at_ms, 1_778_943_012_000);
    let codex = st.get_session("019c8bfe-ec25-79e0-97d7-bda6a9c575ff").unwrap();
    assert_eq!(codex.model.as_deref(), Some("gpt-5.3-codex"));
    assert_eq!(codex.provider.as_deref(), Some("openai"));
    let titled = st.get_session("fe5e1c67-53e7-4862-81ae-d0e013e3270b").unwrap();
    assert_eq!(titled.name.as_deref(), Some("Empty Repo Setup: CLAUDE.md Foundation Created"));
    let src = st.get_transcript("sess-18b0133eac539936", 1, 3).unwrap();
    assert_eq!(src.iter().map(|e| e.source_line).collect::<Vec<_>>(), [Some(4), Some(5), Some(11)], "provenance: source line per entry");
}

#[test]
fn importing_a_tree_detects_formats_and_a_second_pass_adds_nothing() {
    let Some(root) = samples() else { return };
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let mut calls = 0;
    let r = import_paths(&st, std::slice::from_ref(&root), &mut |_| calls += 1).unwrap();
    assert_eq!(r.files.len(), 9);
    assert_eq!(calls, 9);
    assert!(r.files.iter().all(|f| f.status == ImportStatus::Imported));
    assert_eq!(r.entries(), 8 + 102 + 18 + 3 + 7 + 19 + 25 + 6 + 14 + 5);
    assert_eq!(st.list_sessions(None).unwrap().len(), 11);
    let r2 = import_paths(&st, &[root], &mut |_| {}).unwrap();
    assert!(r2.files.iter().all(|f| f.status == ImportStatus::UpToDate));
    assert_eq!(r2.entries(), 0);
}

const HEADER: &str = r#"{"type":"header","id":"sess-00000000000000bb","model":"anthropic/claude-sonnet-4-6","cwd":"/tmp","created_at":1700000000}"#;

fn user(text: &str, ts: i64) -> String {
    serde_json::json!({"type":"user","content":[{"type":"text","text":text}],"timestamp":ts}).to_string()
}

#[test]
fn a_grown_file_adds_only_its_new_lines_and_a_torn_tail_waits_until_complete() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let path = dir.path().join("sess-00000000000000bb.jsonl");
    let torn = user("third", 3);
    std::fs::write(&path, format!("{HEADER}\n{}\n{}\n{}", user("one", 1), user("two", 2), &torn[..10])).unwrap();
    let r = import_file(&st, &path, None).unwrap();
    assert_eq!(r.sessions[0].entries, 2);
    assert_eq!(r.read.as_ref().unwrap().torn_tail().unwrap().line, 4);

    // The writer finishes its line and appends more.
    std::fs::write(&path, format!("{HEADER}\n{}\n{}\n{}\n{}\n", user("one", 1), user("two", 2), torn, user("four", 4))).unwrap();
    let r = import_file(&st, &path, None).unwrap();
    assert_eq!(r.from_line, 4);
    assert_eq!(r.sessions[0].entries, 2);
    let t = st.get_transcript("sess-00000000000000bb", 1, 10).unwrap();
    assert_eq!(t.iter().map(|e| e.content.as_str()).collect::<Vec<_>>(), ["one", "two", "third", "four"]);
    assert_eq!(import_file(&st, &path, None).unwrap().status, ImportStatus::UpToDate);

    append_turns(&path, &[Turn::new(Role::Assistant, vec![Block::Text { text: "five".into() }], Some(5000), 0)]).unwrap();
    let r = import_file(&st, &path, None).unwrap();
    assert_eq!(r.sessions[0].entries, 1);
    assert_eq!(st.get_session("sess-00000000000000bb").unwrap().entry_count, 5);

    // A rewritten (shorter) file is not the same source: left alone.
    std::fs::write(&path, format!("{HEADER}\n")).unwrap();
    assert_eq!(import_file(&st, &path, None).unwrap().status, ImportStatus::SourceChanged);
    assert_eq!(st.get_session("sess-00000000000000bb").unwrap().entry_count, 5);
}

#[test]
fn a_copy_of_an_imported_file_elsewhere_adds_no_duplicate_entries() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    let body = format!("{HEADER}\n{}\n{}\n", user("one", 1), user("two", 2));
    std::fs::write(&a, &body).unwrap();
    std::fs::write(&b, &body).unwrap();
    import_file(&st, &a, None).unwrap();
    let r = import_file(&st, &b, None).unwrap();
    assert_eq!(r.sessions[0].entries, 0);
    assert_eq!(r.sessions[0].skipped_already_stored, 2);
}

#[test]
fn imported_content_and_paths_are_not_in_the_database_file_in_clear() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let src_dir = dir.path().join("CANARYDIR-path-5f3a");
    std::fs::create_dir(&src_dir).unwrap();
    let path = src_dir.join("s.jsonl");
    let header = r#"{"type":"header","id":"sess-c","model":"m","cwd":"/CANARYCWD-91b2","created_at":1}"#;
    std::fs::write(&path, format!("{header}\n{}\n{}\n", user("CANARYTEXT-77d1", 1), r#"{"type":"rename","title":"CANARYTITLE-3c4e","timestamp":2}"#)).unwrap();
    import_file(&st, &path, None).unwrap();
    drop(st);
    let mut bytes = Vec::new();
    for suffix in ["", "-wal", "-shm"] {
        if let Ok(b) = std::fs::read(dir.path().join(format!("sessions.db{suffix}"))) {
            bytes.extend(b);
        }
    }
    let hay = String::from_utf8_lossy(&bytes);
    for canary in ["CANARYDIR", "CANARYCWD", "CANARYTEXT", "CANARYTITLE"] {
        assert!(!hay.contains(canary), "{canary} found in clear");
    }
}

#[test]
fn find_by_id_prefix_title_and_last_with_ambiguity_listing_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    for (id, title) in [("sess-abc1", Some("refactor-auth")), ("sess-abc2", None), ("sess-xyz", None)] {
        let mut lines = vec![format!(r#"{{"type":"header","id":"{id}","model":"m","cwd":"{}","created_at":1}}"#, ws.display()), user("hi", 1)];
        if let Some(t) = title {
            lines.push(format!(r#"{{"type":"rename","title":"{t}","timestamp":2}}"#));
        }
        let p = dir.path().join(format!("{id}.jsonl"));
        std::fs::write(&p, lines.join("\n") + "\n").unwrap();
        import_file(&st, &p, None).unwrap();
    }
    assert_eq!(resolve_session(&st, "sess-xyz", None).unwrap().id, "sess-xyz");
    assert_eq!(resolve_session(&st, "sess-x", None).unwrap().id, "sess-xyz");
    assert_eq!(resolve_session(&st, "refactor-auth", None).unwrap().id, "sess-abc1");
    let e = resolve_session(&st, "sess-abc", None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict);
    assert!(e.to_string().contains("sess-abc1") && e.to_string().contains("sess-abc2"));
    assert_eq!(resolve_session(&st, "nope", None).unwrap_err().kind(), ErrorKind::NotFound);
    // Activity moves in steps of a second (store ACTIVITY_GRANULARITY_MS): write one a minute later.
    let mut later = sessiondb::store::NewEntry::text(sessiondb::store::Role::User, "later");
    later.created_at_ms = Some(sessiondb::store::now_ms() + 60_000);
    st.append_entries("sess-abc2", vec![later]).unwrap();
    assert_eq!(resolve_session(&st, "last", Some(ws.to_str().unwrap())).unwrap().id, "sess-abc2");
    assert_eq!(resolve_session(&st, "last", Some("/nowhere-else")).unwrap_err().kind(), ErrorKind::NotFound);
    let side = sidebar_sessions(&st).unwrap();
    assert_eq!(side[0].id, "sess-abc1", "titled first");
}

#[test]
fn fork_copies_up_to_a_seq_or_seeds_a_summary_and_records_its_origin() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let p = dir.path().join("s.jsonl");
    std::fs::write(&p, format!("{HEADER}\n{}\n{}\n{}\n", user("one", 1), user("two", 2), user("three", 3))).unwrap();
    import_file(&st, &p, None).unwrap();
    let f = fork_session(&st, "sess-00000000000000bb", Some(2), None).unwrap();
    assert_eq!(f.forked_from.as_deref(), Some("sess-00000000000000bb"));
    assert_eq!(f.forked_at_seq, Some(2));
    assert_eq!(f.entry_count, 2);
    assert_eq!(f.model.as_deref(), Some("anthropic/claude-sonnet-4-6"));
    let s = fork_session(&st, "sess-00000000000000bb", None, Some("we did three things".into())).unwrap();
    assert_eq!(s.forked_at_seq, Some(3));
    let t = st.get_transcript(&s.id, 1, 10).unwrap();
    assert_eq!((t.len(), t[0].role, t[0].content.as_str()), (1, sessiondb::store::Role::System, "we did three things"));
    assert_eq!(fork_session(&st, "sess-00000000000000bb", Some(9), None).unwrap_err().kind(), ErrorKind::InvalidInput);
    // Changing model keeps the same session.
    let same = st.set_session_model("sess-00000000000000bb", Some("gpt-5".into()), Some("openai".into())).unwrap();
    assert_eq!(same.id, "sess-00000000000000bb");
}

#[test]
fn rename_on_the_store_is_a_rename_line_on_export() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let p = dir.path().join("s.jsonl");
    std::fs::write(&p, format!("{HEADER}\n{}\n", user("one", 1))).unwrap();
    import_file(&st, &p, None).unwrap();
    st.rename_session("sess-00000000000000bb", Some("named".into())).unwrap();
    let mut out = Vec::new();
    export_thclaws(&st, "sess-00000000000000bb", &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.lines().last().unwrap().starts_with(r#"{"type":"rename","title":"named""#));
}

#[test]
fn fork_without_options_is_seeded_with_a_summary_of_the_old_history() {
    let dir = tempfile::tempdir().unwrap();
    let st = sessiondb::SessionStore::open(sessiondb::OpenOptions::at(
        dir.path().join("s.db"),
        sessiondb::KeySource::Bytes(sessiondb::DataKey::from_bytes(&[6; 32]).unwrap()),
    ))
    .unwrap();
    let src = st.create_session(Some("refactor auth".into()), None).unwrap();
    st.append_transcript(&src.id, sessiondb::Role::User, "Rename   the\nlogin handler".into()).unwrap();
    st.append_transcript(&src.id, sessiondb::Role::Assistant, "é".repeat(300)).unwrap();
    let f = fork_session(&st, &src.id, None, None).unwrap();
    assert_eq!((f.forked_from.as_deref(), f.forked_at_seq, f.entry_count), (Some(src.id.as_str()), Some(2), 1));
    let seed = &st.get_transcript(&f.id, 1, 10).unwrap()[0];
    assert_eq!(seed.role, sessiondb::Role::System);
    let lines: Vec<&str> = seed.content.lines().collect();
    assert_eq!(lines[0], "Summary of session refactor auth (2 message(s), forked at seq 2).");
    assert_eq!(lines[1], "[user] Rename the login handler");
    assert_eq!(lines[2].chars().count(), "[assistant] ".chars().count() + 240);
    assert!(lines[2].ends_with('…'));
}

/// Every entry of a session with its metadata, in seq order.
fn entries_with_meta(st: &SessionStore, id: &str) -> Vec<(sessiondb::TranscriptEntry, sessiondb::EntryMeta)> {
    let mut out = Vec::new();
    loop {
        let page = st.get_transcript_with_meta(id, out.len() as u64 + 1, 1000).unwrap();
        let n = page.len();
        out.extend(page);
        if n < 1000 {
            return out;
        }
    }
}

/// (session id, entries with a model, that model, its provider, entries with
/// `tool_use_result`, the roles of those entries)
type MetaRow = (&'static str, usize, Option<&'static str>, Option<&'static str>, usize);

const MAIN_5C: &str = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7";
const SIDE_6340: &str = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.sidechain.6340ddef-f656-4b72-a065-82390f637678";
const SIDE_83E2: &str = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.sidechain.83e2917c-8940-4df6-a5a5-f2514f0d08c5";

const META_EXPECT: &[(&str, &[MetaRow])] = &[
    ("thclaws/apcball_sess-18b0083aead7f4d7.jsonl", &[("sess-18b0083aead7f4d7", 4, Some("zai/glm-5.1"), Some("zai"), 0)]),
    ("thclaws/apcball_sess-18b0133eac539936.jsonl", &[("sess-18b0133eac539936", 51, Some("zai/glm-5.1"), Some("zai"), 0)]),
    ("thclaws/athena_sess-18b1e2cdf829bd8c.jsonl", &[("sess-18b1e2cdf829bd8c", 0, None, None, 0)]),
    (
        "codex/localpush_rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl",
        &[("019c8bfe-ec25-79e0-97d7-bda6a9c575ff", 6, Some("gpt-5.3-codex"), Some("openai"), 0)],
    ),
    (
        "codex/excerpts/localpush_rollout-2026-02-23T12-54-34_lines1780-1796_compacted.jsonl",
        // No session_meta in the excerpt: no provider.
        &[("localpush_rollout-2026-02-23T12-54-34_lines1780-1796_compacted", 2, Some("gpt-5.3-codex"), None, 0)],
    ),
    ("claude-code/spotter_short.jsonl", &[("55604662-cf2a-4331-851a-ec234028f8ca", 1, Some("claude-opus-4-6"), Some("anthropic"), 2)]),
    ("claude-code/spotter_tool_heavy.jsonl", &[("d6e0bada-1959-4eec-a9d2-0bfade768d8f", 4, Some("claude-opus-4-6"), Some("anthropic"), 6)]),
    (
        "claude-code/claude-code-viewer_5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
        &[
            (MAIN_5C, 10, Some("claude-sonnet-4-20250514"), Some("anthropic"), 13),
            (SIDE_6340, 3, Some("claude-sonnet-4-20250514"), Some("anthropic"), 2),
            (SIDE_83E2, 7, Some("claude-sonnet-4-20250514"), Some("anthropic"), 6),
        ],
    ),
    (
        "claude-code/excerpts/claude-code-viewer_fe5e1c67_lines1-8_summary.jsonl",
        &[("fe5e1c67-53e7-4862-81ae-d0e013e3270b", 1, Some("claude-sonnet-4-20250514"), Some("anthropic"), 2)],
    ),
];

fn meta_row(st: &SessionStore, id: &'static str) -> MetaRow {
    let all = entries_with_meta(st, id);
    let with_model: Vec<_> = all.iter().filter(|(_, m)| m.model.is_some()).collect();
    assert!(with_model.iter().all(|(e, _)| e.role == sessiondb::Role::Assistant), "{id}: only assistant entries name a model");
    let models: std::collections::BTreeSet<_> = with_model.iter().map(|(_, m)| (m.model.clone(), m.provider.clone())).collect();
    assert!(models.len() <= 1, "{id}: one model per sample session, got {models:?}");
    let (model, provider) = models.into_iter().next().unwrap_or_default();
    let leak = |s: Option<String>| s.map(|s| &*Box::leak(s.into_boxed_str()));
    let results: Vec<_> = all.iter().filter(|(_, m)| m.extra.contains_key("tool_use_result")).collect();
    for (e, _) in &results {
        // A tool_use_result rides on the user entry that holds the tool_result block.
        assert_eq!(e.role, sessiondb::Role::User, "{id} seq {}", e.seq);
        assert!(e.content.contains(r#""type":"tool_result""#), "{id} seq {}", e.seq);
    }
    (id, with_model.len(), leak(model), leak(provider), results.len())
}

#[test]
fn every_sample_file_stores_per_entry_model_and_source_fields_exactly() {
    let Some(root) = samples() else { return };
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    for (file, rows) in META_EXPECT {
        let path = root.join(file);
        import_file(&st, &path, None).unwrap();
        let got: Vec<MetaRow> = rows.iter().map(|r| meta_row(&st, r.0)).collect();
        assert_eq!(got, rows.to_vec(), "{file}");
        // Nothing the reader produced per turn is lost: model, provider and
        // every `extra` field come back exactly, turn by turn.
        let direct = read_path(&path, None).unwrap().sessions;
        for (src, row) in direct.iter().zip(rows.iter()) {
            let stored = entries_with_meta(&st, row.0);
            assert_eq!(stored.len(), src.turns.len(), "{file}");
            for (t, (e, m)) in src.turns.iter().zip(&stored) {
                assert_eq!(e.source_line, Some(t.source_line));
                assert_eq!((&m.model, &m.provider, &m.extra), (&t.model, &t.provider, &t.extra), "{file} line {}", t.source_line);
            }
        }
    }
    // Exact values.
    let heavy = entries_with_meta(&st, "d6e0bada-1959-4eec-a9d2-0bfade768d8f");
    let (first_result, meta) = heavy.iter().find(|(_, m)| m.extra.contains_key("tool_use_result")).unwrap();
    assert_eq!(first_result.source_line, Some(11));
    assert_eq!(
        meta.extra["tool_use_result"],
        serde_json::json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false, "backgroundTaskId": "bae407b"})
    );
    assert_eq!(meta.extra["uuid"], "4e7e59aa-c4e9-45ae-9611-55332b338bbd");
    let short = entries_with_meta(&st, "55604662-cf2a-4331-851a-ec234028f8ca");
    let rejected: Vec<_> = short.iter().filter_map(|(_, m)| m.extra.get("tool_use_result")).collect();
    assert_eq!(rejected, [&serde_json::json!("User rejected tool use"); 2]);
    let assistant = short.iter().find(|(e, _)| e.role == sessiondb::Role::Assistant).unwrap();
    assert!(assistant.1.extra["message_id"].as_str().unwrap().starts_with("msg_"));
    // Codex keeps each assistant turn's phase.
    let codex = entries_with_meta(&st, "019c8bfe-ec25-79e0-97d7-bda6a9c575ff");
    let phases: Vec<_> = codex.iter().filter_map(|(_, m)| m.extra.get("phase").and_then(|p| p.as_str())).collect();
    assert_eq!(phases, ["commentary", "commentary", "commentary", "commentary", "commentary", "final_answer"]);
    let developer = codex.iter().filter(|(_, m)| m.extra.get("codex_role").and_then(|r| r.as_str()) == Some("developer")).count();
    assert_eq!(developer, 4);
}

#[test]
fn per_turn_model_survives_export_and_reimport_and_fork() {
    let Some(root) = samples() else { return };
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let other_dir = tempfile::tempdir().unwrap();
    let again = store(other_dir.path());
    for (file, rows) in META_EXPECT {
        import_file(&st, &root.join(file), None).unwrap();
        for row in rows.iter() {
            let id = row.0;
            let mut out = Vec::new();
            export_thclaws(&st, id, &mut out).unwrap();
            // Assistant lines carry provider and model after the timestamp, as real thClaws writes them.
            let text = String::from_utf8(out.clone()).unwrap();
            let assistant_lines: Vec<serde_json::Value> =
                text.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()).filter(|v| v["type"] == "assistant").collect();
            assert!(assistant_lines.iter().all(|v| v["model"].is_string()), "{file}");
            if let Some(l) = text.lines().find(|l| l.starts_with(r#"{"type":"assistant""#)) {
                let tail = match row.3 {
                    Some(p) => format!(r#","provider":"{p}","model":"{}"}}"#, row.2.unwrap()),
                    None => format!(r#","model":"{}"}}"#, row.2.unwrap()),
                };
                assert!(l.ends_with(&tail), "{l}");
            }
            let exported = other_dir.path().join(format!("{}.jsonl", id.replace('.', "_")));
            std::fs::write(&exported, &out).unwrap();
            let r = import_file(&again, &exported, Some(SourceFormat::Thclaws)).unwrap();
            assert_eq!(r.status, ImportStatus::Imported);
            let before: Vec<_> = entries_with_meta(&st, id).into_iter().map(|(_, m)| (m.model, m.provider)).collect();
            let after: Vec<_> = entries_with_meta(&again, id).into_iter().map(|(_, m)| (m.model, m.provider)).collect();
            assert_eq!(after, before, "{file}: per-turn model and provider after export and re-import");
            assert_eq!(after.iter().filter(|(m, _)| m.is_some()).count(), row.1, "{file}");
        }
    }
    // A fork at a seq copies each entry's metadata.
    let src = "d6e0bada-1959-4eec-a9d2-0bfade768d8f";
    let f = fork_session(&st, src, Some(10), None).unwrap();
    let a: Vec<_> = entries_with_meta(&st, src).into_iter().take(10).map(|(_, m)| m).collect();
    let b: Vec<_> = entries_with_meta(&st, &f.id).into_iter().map(|(_, m)| m).collect();
    assert_eq!(b, a);
    assert!(b.iter().any(|m| m.extra.contains_key("tool_use_result")));
}

#[test]
fn a_claude_tool_use_result_is_never_in_the_database_files_in_clear() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let path = dir.path().join("0d2f7c1e-0000-4000-8000-00000000c1a0.jsonl");
    let env = |uuid: &str, parent: serde_json::Value| {
        serde_json::json!({"uuid": uuid, "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/tmp",
            "sessionId": "0d2f7c1e-0000-4000-8000-00000000c1a0", "version": "2.1.38", "timestamp": "2026-02-01T10:00:00.000Z"})
    };
    let mut l1 = env("u1", serde_json::Value::Null);
    l1["type"] = "user".into();
    l1["message"] = serde_json::json!({"role": "user", "content": "list files"});
    let mut l2 = env("a1", "u1".into());
    l2["type"] = "assistant".into();
    l2["message"] = serde_json::json!({"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-visible-model-name-3e9d",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}],
        "usage": {"input_tokens": 10, "output_tokens": 2}});
    let mut l3 = env("u2", "a1".into());
    l3["type"] = "user".into();
    l3["message"] = serde_json::json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]});
    l3["toolUseResult"] = serde_json::json!({"stdout": "CANARY_TOOL_RESULT_8c1f secret", "stderr": "", "interrupted": false});
    std::fs::write(&path, format!("{l1}\n{l2}\n{l3}\n")).unwrap();
    let r = import_file(&st, &path, None).unwrap();
    assert_eq!(r.format, Some(SourceFormat::ClaudeCode));
    assert_eq!(r.sessions[0].entries, 3);
    let stored = entries_with_meta(&st, "0d2f7c1e-0000-4000-8000-00000000c1a0");
    assert_eq!(stored[2].1.extra["tool_use_result"]["stdout"], "CANARY_TOOL_RESULT_8c1f secret");
    let scan = |when: &str| {
        let mut bytes = Vec::new();
        for suffix in ["", "-wal", "-shm"] {
            if let Ok(b) = std::fs::read(dir.path().join(format!("sessions.db{suffix}"))) {
                bytes.extend(b);
            }
        }
        assert!(bytes.len() > 4096, "{when}: the files were read");
        let found = |s: &str| bytes.windows(s.len()).any(|w| w == s.as_bytes());
        assert!(!found("CANARY_TOOL_RESULT_8c1f"), "{when}: toolUseResult found in clear");
        // The model name is allowed in clear and is there: the scan sees the stored rows.
        assert!(found("claude-visible-model-name-3e9d"), "{when}: model name not found, the scan missed the data");
    };
    scan("open (rows in the -wal)");
    drop(st);
    scan("closed");
}

/// Was a bug: a Codex rollout excerpt without its `session_meta` line got the
/// import time as its creation time and no workspace, although its first
/// `turn_context` line carries both.
#[test]
fn a_codex_excerpt_without_session_meta_takes_cwd_and_time_from_its_first_turn_context() {
    let Some(root) = samples() else { return };
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let f = root.join("codex/excerpts/localpush_rollout-2026-02-23T12-54-34_lines1780-1796_compacted.jsonl");
    let r = import_file(&st, &f, None).unwrap();
    let s = st.get_session(&r.sessions[0].session_id).unwrap();
    assert_eq!(s.workspace_path.as_deref(), Some("/redacted/path/59b923df4d"));
    // 2026-02-24T09:50:10.494Z, the first line's timestamp.
    assert_eq!(s.created_at_ms, 1_771_926_610_494);
}

#[test]
fn a_path_that_cannot_be_walked_is_a_failed_file_naming_it_and_the_others_still_import() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let good = dir.path().join("good.jsonl");
    std::fs::write(&good, format!("{HEADER}\n{}\n", user("hello", 1_700_000_001))).unwrap();
    let missing = dir.path().join("no-such-dir/x.jsonl");
    let mut calls = Vec::new();
    let r = import_paths(&st, &[good.clone(), missing.clone()], &mut |p| calls.push((p.files_done, p.files_total))).unwrap();
    assert_eq!(r.files.len(), 2, "{r:?}");
    assert_eq!(r.files[0].path, good);
    assert_eq!(r.files[0].status, ImportStatus::Imported);
    assert_eq!(r.files[0].sessions[0].entries, 1);
    assert_eq!(r.files[1].path, missing);
    assert_eq!(r.files[1].format, None);
    assert_eq!(
        r.files[1].status,
        ImportStatus::Failed(format!(
            "`{}`: I/O error while reading an import path: No such file or directory (os error 2)",
            missing.display()
        ))
    );
    assert_eq!(calls, [(1, 2), (2, 2)], "progress counts the failed path as done");
    assert_eq!(st.get_transcript("sess-00000000000000bb", 1, 10).unwrap().len(), 1, "the good file was imported");
    // The missing path first: the good one after it is still imported (and is up to date now).
    let r = import_paths(&st, &[missing.clone(), good.clone()], &mut |_| {}).unwrap();
    assert!(matches!(&r.files[0].status, ImportStatus::Failed(m) if m.contains(&missing.display().to_string())));
    assert_eq!(r.files[1].status, ImportStatus::UpToDate);
}
