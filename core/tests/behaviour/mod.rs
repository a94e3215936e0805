//! The store's behaviour suite, written once and instantiated per backend
//! (issue "One seam, one bridge"; matrix-rust-sdk's
//! `statestore_integration_tests!` is the model). A backend's test file
//! provides `$temp() -> (guard, location)` (a fresh, empty location kept
//! alive by the guard) and `$open(&location, key_byte) -> SessionStore`,
//! then invokes `store_behaviour_suite!(temp, open)`. Only the public API is
//! used, so every backend runs these unchanged.

pub mod conformance;

macro_rules! store_behaviour_suite {
    ($temp:ident, $open:ident) => {
        fn never_skip() -> bool {
            false
        }
        store_behaviour_suite!($temp, $open, never_skip);
    };
    ($temp:ident, $open:ident, $skip:ident) => {
        #[test]
        fn store_conformance_cases() {
            if $skip() {
                return;
            }
            behaviour::conformance::run_store_cases($temp, |p, b| $open(p, b));
        }
        /// Issue 33 item 7: token counts are taken on the write path with the
        /// session model's tokenizer, and `context` uses a stored count only
        /// for the encoding it was taken with: after a model change to
        /// another encoding (or a `model` asked for) it counts again. Texts
        /// whose counts differ between the encodings (o200k_base /
        /// cl100k_base): CJK 15 / 21, Arabic, Hebrew and Cyrillic 14 / 33,
        /// `hello world` 2 / 2; a host count (1,000) always wins.
        #[test]
        fn context_uses_write_time_counts_of_the_model_in_force_only() {
            if $skip() {
                return;
            }
            use sessiondb::context::context_status;
            const CJK: &str = "日本語のテキストと中文文本, 한국어 텍스트";
            const MIXED: &str = "١٢٣ مرحبا بالعالم שלום עולם Привет, мир!";
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let id = s.create_session_with(NewSession { model: Some("gpt-4o".into()), ..Default::default() }).unwrap().id;
            s.append_transcript(&id, Role::User, CJK.into()).unwrap();
            // A second single append (a server backend's one-statement path).
            s.append_transcript(&id, Role::Assistant, "hello world".into()).unwrap();
            s.append_entries(&id, vec![NewEntry { tokens: Some(1000), ..NewEntry::text(Role::User, MIXED) }, NewEntry::text(Role::Assistant, MIXED)]).unwrap();
            let active = |s: &SessionStore, model: Option<&str>| context_status(s, &id, 128_000, None, model.map(str::to_string)).unwrap().meter.active_tokens;
            assert_eq!(active(&s, None), 15 + 2 + 1000 + 14);
            assert_eq!(active(&s, Some("gpt-4")), 21 + 2 + 1000 + 33, "a model asked for counts with its own encoding");
            s.set_session_model(&id, Some("gpt-4-turbo".into()), None).unwrap();
            assert_eq!(active(&s, None), 21 + 2 + 1000 + 33, "after a model change the o200k counts are not used");
            // Appended under the new model: counted with cl100k_base.
            s.append_transcript(&id, Role::User, CJK.into()).unwrap();
            assert_eq!(active(&s, None), 21 + 2 + 1000 + 33 + 21);
            assert_eq!(active(&s, Some("gpt-4o")), 15 + 2 + 1000 + 14 + 15);
            // A model without a tokenizer: the estimate (ceil(bytes / 3)).
            let est = |t: &str| (t.len() as u64).div_ceil(3);
            assert_eq!(active(&s, Some("claude-sonnet-4")), est(CJK) + est("hello world") + 1000 + est(MIXED) + est(CJK));
            drop(s);
            let s = $open(&p, 1);
            assert_eq!(active(&s, None), 21 + 2 + 1000 + 33 + 21, "the same from a new handle");
        }
        #[test]
        fn create_get_rename_delete_round_trip() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let a = s.create_session(Some("refactor-auth".into()), None).unwrap();
            assert_eq!(a.name.as_deref(), Some("refactor-auth"));
            assert_eq!(a.entry_count, 0);
            assert_eq!(s.get_session(&a.id).unwrap(), a);
            let r = s.rename_session(&a.id, None).unwrap();
            assert_eq!(r.name, None);
            let r = s.rename_session(&a.id, Some("new title".into())).unwrap();
            assert_eq!(r.name.as_deref(), Some("new title"));
            s.delete_session(&a.id).unwrap();
            assert_eq!(s.get_session(&a.id).unwrap_err().kind(), ErrorKind::NotFound);
            assert_eq!(s.delete_session(&a.id).unwrap_err().kind(), ErrorKind::NotFound);
            assert_eq!(s.rename_session("nope", None).unwrap_err().kind(), ErrorKind::NotFound);
        }
        /// Issue 27: listings order by the last transcript activity; a
        /// rename or a model change is not activity (a week-old session
        /// renamed today stays where it was). The first-prompt preview reads
        /// the first user turn, past an agent's preamble.
        #[test]
        fn a_rename_or_model_change_is_not_activity_and_the_first_prompt_is_previewed() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let old = s.create_session_with(NewSession { created_at_ms: Some(1_000_000), ..Default::default() }).unwrap();
            let at = |ms: i64, role: Role, text: &str| NewEntry { created_at_ms: Some(ms), ..NewEntry::text(role, text) };
            s.append_entries(&old.id, vec![
                at(1_000_000, Role::User, "<environment_context>\n<cwd>/x</cwd>\n</environment_context>"),
                at(2_000_000, Role::User, "  Why does the lexer\ndrop the last token?  "),
                at(3_000_000, Role::Assistant, "It stops at EOF."),
            ]).unwrap();
            let new = s.create_session_with(NewSession { created_at_ms: Some(5_000_000), ..Default::default() }).unwrap();
            s.append_entries(&new.id, vec![at(6_000_000, Role::User, "hi")]).unwrap();
            assert_eq!(s.get_session(&old.id).unwrap().updated_at_ms, 3_000_000);
            s.rename_session(&old.id, Some("Renamed today".into())).unwrap();
            s.set_session_model(&old.id, Some("gpt-5".into()), None).unwrap();
            let after = s.get_session(&old.id).unwrap();
            assert_eq!((after.name.as_deref(), after.updated_at_ms), (Some("Renamed today"), 3_000_000));
            let ids: Vec<String> = s.list_sessions(None).unwrap().into_iter().map(|r| r.id).collect();
            assert_eq!(ids, vec![new.id.clone(), old.id.clone()]);
            assert_eq!(s.first_prompt(&old.id).unwrap().as_deref(), Some("Why does the lexer drop the last token?"));
            assert_eq!(s.first_prompt(&new.id).unwrap().as_deref(), Some("hi"));
            let empty = s.create_session(None, None).unwrap();
            assert_eq!(s.first_prompt(&empty.id).unwrap(), None);
            assert_eq!(s.first_prompt("nope").unwrap_err().kind(), ErrorKind::NotFound);
        }
        #[test]
        fn a_retracted_entry_is_left_out_of_reads_counts_export_fork_and_context_but_kept() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let a = s.create_session(None, None).unwrap();
            for i in 1..=6u64 {
                let role = if i % 2 == 1 { Role::User } else { Role::Assistant };
                s.append_transcript(&a.id, role, format!("turn {i}")).unwrap();
            }
            // pop_item: the last visible entry, returned as it was.
            let popped = s.retract_last_entry(&a.id).unwrap().unwrap();
            assert_eq!((popped.seq, popped.content.as_str()), (6, "turn 6"));
            let e = s.retract_entry(&a.id, 3).unwrap().unwrap();
            assert_eq!(e.content, "turn 3");
            // Again: nothing happens, nothing is recorded.
            assert_eq!(s.retract_entry(&a.id, 3).unwrap(), None);
            assert_eq!(s.retract_entry(&a.id, 9).unwrap_err().kind(), ErrorKind::NotFound);
            assert_eq!(s.retract_entry(&a.id, 0).unwrap_err().kind(), ErrorKind::NotFound);
            assert_eq!(s.retract_entry("missing", 1).unwrap_err().kind(), ErrorKind::NotFound);
            let visible = |s: &SessionStore| s.get_transcript(&a.id, 1, 100).unwrap().iter().map(|e| e.seq).collect::<Vec<_>>();
            assert_eq!(visible(&s), vec![1, 2, 4, 5]);
            assert_eq!(s.get_session(&a.id).unwrap().entry_count, 4);
            assert_eq!(s.get_transcript_tail(&a.id, 2).unwrap().iter().map(|e| e.seq).collect::<Vec<_>>(), vec![4, 5]);
            assert_eq!(s.get_transcript_with_meta(&a.id, 1, 100).unwrap().len(), 4);
            let kinds: Vec<String> = s.journal_events(&a.id, 1, 100).unwrap().into_iter().map(|e| e.kind).filter(|k| k == "EntryRetracted").collect();
            assert_eq!(kinds.len(), 2);
            // The next append goes after the last seq ever written.
            assert_eq!(s.append_transcript(&a.id, Role::User, "turn 7".into()).unwrap().seq, 7);
            assert_eq!(s.retract_last_entry(&a.id).unwrap().unwrap().seq, 7);
            // Export, fork and the context see the four visible turns only.
            let mut out = Vec::new();
            sessiondb::portable::export_thclaws(&s, &a.id, &mut out).unwrap();
            let jsonl = String::from_utf8(out).unwrap();
            assert_eq!(jsonl.lines().filter(|l| l.contains("turn ")).count(), 4);
            assert!(!jsonl.contains("turn 3") && !jsonl.contains("turn 6"));
            let f = sessiondb::portable::fork_session(&s, &a.id, Some(7), None).unwrap();
            assert_eq!(s.get_transcript(&f.id, 1, 100).unwrap().iter().map(|e| e.content.clone()).collect::<Vec<_>>(), ["turn 1", "turn 2", "turn 4", "turn 5"]);
            let f = sessiondb::portable::fork_session(&s, &a.id, None, None).unwrap();
            let summary = &s.get_transcript(&f.id, 1, 1).unwrap()[0].content;
            assert!(summary.starts_with(&format!("Summary of session {} (4 message(s), forked at seq 7).\n[user] turn 1\n[assistant] turn 2\n[assistant] turn 4\n[user] turn 5", a.id)), "{summary}");
            let st = sessiondb::context::context_status(&s, &a.id, 128_000, None, None).unwrap();
            assert_eq!(st.turns.iter().map(|t| t.seq).collect::<Vec<_>>(), vec![1, 2, 4, 5]);
            assert_eq!(st.meter.active_tokens, 4 * 2);
            // The rows are still there, as written: reopening changes nothing.
            drop(s);
            let s = $open(&p, 1);
            assert_eq!(visible(&s), vec![1, 2, 4, 5]);
            assert_eq!(s.retract_last_entry(&a.id).unwrap().unwrap().seq, 5);
            let empty = s.create_session(None, None).unwrap();
            assert_eq!(s.retract_last_entry(&empty.id).unwrap(), None);
        }
        #[test]
        fn the_active_context_lists_each_entry_verbatim_compacted_or_excluded_with_its_tokens() {
            if $skip() {
                return;
            }
            use sessiondb::context::{active_context, compact_session, context_status, record_turn_decision, TurnState};
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let a = s.create_session(None, None).unwrap();
            let entries: Vec<NewEntry> = (1..=8u64)
                .map(|i| NewEntry { tokens: Some(1000), ..NewEntry::text(if i % 2 == 1 { Role::User } else { Role::Assistant }, format!("turn {i}")) })
                .collect();
            s.append_entries(&a.id, entries).unwrap();
            record_turn_decision(&s, &a.id, "exclude", &[7]).unwrap();
            s.retract_entry(&a.id, 8).unwrap();
            // 6,000 tokens active in a 10,000-token window (capacity 7,152), target 50%:
            // turns 1-2 (all before the last two user turns) become one run.
            let plan = compact_session(&s, &a.id, 10_000, None, None, Some(50), false).unwrap();
            assert_eq!(plan.compacted_seqs(), vec![1, 2]);
            let cx = active_context(&s, &a.id, 10_000, None, None).unwrap();
            let got: Vec<(u64, Option<u64>, &str, TurnState, u64, Option<&str>)> =
                cx.items.iter().map(|i| (i.seq, i.last_seq, i.role.as_str(), i.state, i.tokens, i.text.as_deref())).collect();
            let t = &plan.transformations[0];
            assert_eq!(got, vec![
                (1, Some(2), "user", TurnState::Compacted, t.tokens_after, Some(t.summary.as_str())),
                (3, None, "user", TurnState::Verbatim, 1000, Some("turn 3")),
                (4, None, "assistant", TurnState::Verbatim, 1000, Some("turn 4")),
                (5, None, "user", TurnState::Verbatim, 1000, Some("turn 5")),
                (6, None, "assistant", TurnState::Verbatim, 1000, Some("turn 6")),
                (7, None, "user", TurnState::Excluded, 0, None),
            ]);
            assert_eq!(cx.tokens, 4000 + t.tokens_after);
            assert_eq!(cx.tokens, context_status(&s, &a.id, 10_000, None, None).unwrap().meter.active_tokens);
            assert_eq!(cx.capacity, plan.capacity);
            assert_eq!(active_context(&s, "missing", 10_000, None, None).unwrap_err().kind(), ErrorKind::NotFound);
        }
        #[test]
        fn transcript_seqs_are_gapless_and_pages_read_back_verbatim() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let a = s.create_session(None, None).unwrap();
            for i in 1..=25u64 {
                let e = s.append_transcript(&a.id, Role::User, format!("msg {i} ✓ 日本")).unwrap();
                assert_eq!(e.seq, i);
            }
            let page1 = s.get_transcript(&a.id, 1, 10).unwrap();
            assert_eq!(page1.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=10).collect::<Vec<_>>());
            let page3 = s.get_transcript(&a.id, 21, 10).unwrap();
            assert_eq!(page3.len(), 5);
            assert_eq!(page3[4].content, "msg 25 ✓ 日本");
            assert_eq!(s.get_session(&a.id).unwrap().entry_count, 25);
            assert_eq!(s.get_transcript(&a.id, 26, 10).unwrap().len(), 0);
            assert_eq!(s.get_transcript(&a.id, 1, 0).unwrap_err().kind(), ErrorKind::InvalidInput);
            assert_eq!(s.get_transcript("missing", 1, 10).unwrap_err().kind(), ErrorKind::NotFound);
            // The tail: the last `limit` entries, or all of a shorter session.
            let tail = s.get_transcript_tail(&a.id, 3).unwrap();
            assert_eq!(tail.iter().map(|e| (e.seq, e.content.as_str())).collect::<Vec<_>>(), vec![(23, "msg 23 ✓ 日本"), (24, "msg 24 ✓ 日本"), (25, "msg 25 ✓ 日本")]);
            assert_eq!(s.get_transcript_tail(&a.id, 100).unwrap().len(), 25);
            assert_eq!(s.get_transcript_tail(&a.id, 0).unwrap_err().kind(), ErrorKind::InvalidInput);
            assert_eq!(s.get_transcript_tail("missing", 5).unwrap_err().kind(), ErrorKind::NotFound);
            assert_eq!(s.append_transcript("missing", Role::User, "x".into()).unwrap_err().kind(), ErrorKind::NotFound);
            // A second session has its own seq space.
            let b = s.create_session(None, None).unwrap();
            assert_eq!(s.get_transcript_tail(&b.id, 5).unwrap(), vec![]);
            assert_eq!(s.append_transcript(&b.id, Role::Assistant, "hi".into()).unwrap().seq, 1);
        }
        #[test]
        fn workspace_filters_current_other_unbound_and_prefix_paths() {
            if $skip() {
                return;
            }
            let (d, p) = $temp();
            let s = $open(&p, 1);
            let root = std::fs::canonicalize(d.path()).unwrap();
            let proj_a = root.join("projA");
            let proj_ab = root.join("projAB");
            std::fs::create_dir_all(&proj_a).unwrap();
            std::fs::create_dir_all(&proj_ab).unwrap();
            let a = s.create_session(Some("a".into()), Some(proj_a.to_string_lossy().into())).unwrap();
            let ab = s.create_session(Some("ab".into()), Some(format!("{}/", proj_ab.display()))).unwrap();
            let un = s.create_session(Some("unbound".into()), None).unwrap();
            assert_eq!(ab.workspace_path.as_deref(), Some(proj_ab.to_str().unwrap()), "trailing slash normalised");
            let ids = |f: WorkspaceFilter| -> Vec<String> {
                s.list_sessions_for_workspace(f, None).unwrap().into_iter().map(|x| x.id).collect()
            };
            let pa = proj_a.to_string_lossy().into_owned();
            assert_eq!(ids(WorkspaceFilter::Current(pa.clone())), vec![a.id.clone()]);
            assert_eq!(ids(WorkspaceFilter::Current(format!("{pa}/./x/.."))), vec![a.id.clone()], "./.. resolved");
            assert_eq!(ids(WorkspaceFilter::Other(pa.clone())), vec![ab.id.clone()]);
            assert_eq!(ids(WorkspaceFilter::Unbound), vec![un.id.clone()]);
            assert_eq!(ids(WorkspaceFilter::All).len(), 3);
            // Symlink to projA is the same workspace.
            std::os::unix::fs::symlink(&proj_a, root.join("alias")).unwrap();
            assert_eq!(ids(WorkspaceFilter::Current(root.join("alias").to_string_lossy().into())), vec![a.id.clone()]);
            // Opening a session from another directory never rebinds it.
            let again = s.get_session(&a.id).unwrap();
            assert_eq!(again.workspace_path.as_deref(), Some(pa.as_str()));
            assert_eq!(s.list_sessions(Some(2)).unwrap().len(), 2);
        }
        #[test]
        fn token_totals_sum_the_ledger() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let a = s.create_session(None, None).unwrap();
            assert_eq!(s.token_totals(&a.id).unwrap(), TokenTotals { input: 0, output: 0, cached: 0 });
            s.record_tokens(&a.id, TokenUsage { input: 100, output: 20, cached: 5, model: Some("gpt-4o".into()), provider: None }).unwrap();
            s.record_tokens(&a.id, TokenUsage { input: 7, output: 3, cached: 0, model: None, provider: None }).unwrap();
            assert_eq!(s.token_totals(&a.id).unwrap(), TokenTotals { input: 107, output: 23, cached: 5 });
            assert_eq!(s.token_totals("x").unwrap_err().kind(), ErrorKind::NotFound);
        }
        #[test]
        fn context_extensions_number_from_one_and_round_trip() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let a = s.create_session(None, None).unwrap();
            assert_eq!(s.append_context_extension(&a.id, "pin", r#"{"seq":3}"#).unwrap(), 1);
            assert_eq!(s.append_context_extension(&a.id, "artifact_manifest", r#"{"files":["a.rs"]}"#).unwrap(), 2);
            let l = s.list_context_extensions(&a.id).unwrap();
            assert_eq!(l.iter().map(|e| (e.n, e.kind.as_str(), e.body.as_str())).collect::<Vec<_>>(),
                vec![(1, "pin", r#"{"seq":3}"#), (2, "artifact_manifest", r#"{"files":["a.rs"]}"#)]);
            assert_eq!(s.append_context_extension(&a.id, "pin", "not json").unwrap_err().kind(), ErrorKind::InvalidInput);
            assert_eq!(s.list_context_extensions(&a.id).unwrap().len(), 2, "bad input changed nothing");
        }
        #[test]
        fn every_state_change_writes_one_journal_event() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let a = s.create_session(Some("t".into()), None).unwrap();
            s.append_transcript(&a.id, Role::User, "x".into()).unwrap();
            s.rename_session(&a.id, Some("u".into())).unwrap();
            s.record_tokens(&a.id, TokenUsage::default()).unwrap();
            s.append_context_extension(&a.id, "pin", "{}").unwrap();
            let ev = s.journal_events(&a.id, 1, 100).unwrap();
            assert_eq!(
                ev.iter().map(|e| (e.seq, e.kind.as_str())).collect::<Vec<_>>(),
                vec![(1, "SessionCreated"), (2, "TranscriptAppended"), (3, "SessionRenamed"), (4, "TokensRecorded"), (5, "ContextExtensionAppended")]
            );
            let versions: Vec<u64> = ev.iter().map(|e| e.aggregate_version).collect();
            assert!(versions.windows(2).all(|w| w[1] == w[0] + 1), "{versions:?}");
        }
        #[test]
        fn journal_append_is_idempotent_by_event_id() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let ev = NewEvent { event_id: "e1".into(), session_id: "s1".into(), kind: "Note".into(), operation_id: None, payload: serde_json::json!({"a": 1}) };
            let first = s.journal_append(ev.clone()).unwrap();
            assert_eq!((first.seq, first.duplicate), (1, false));
            let again = s.journal_append(ev.clone()).unwrap();
            assert_eq!((again.seq, again.aggregate_version, again.duplicate), (1, first.aggregate_version, true));
            let mut other = ev.clone();
            other.payload = serde_json::json!({"a": 2});
            assert_eq!(s.journal_append(other).unwrap_err().kind(), ErrorKind::Conflict);
            let second = s.journal_append(NewEvent { event_id: "e2".into(), ..ev }).unwrap();
            assert_eq!(second.seq, 2);
            assert_eq!(s.journal_events("s1", 1, 10).unwrap().len(), 2, "the conflict wrote nothing");
        }
        #[test]
        fn operation_lifecycle_and_errors() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            s.dispatch_operation("s1", "op1", serde_json::json!({"tool": "bash"})).unwrap();
            assert_eq!(s.open_operations().unwrap().len(), 1);
            assert_eq!(s.dispatch_operation("s1", "op1", serde_json::json!({"tool": "other"})).unwrap_err().kind(), ErrorKind::Conflict);
            let done = s.complete_operation("s1", "op1", OperationOutcome::Succeeded, serde_json::json!({})).unwrap();
            assert!(!done.duplicate);
            assert!(s.complete_operation("s1", "op1", OperationOutcome::Succeeded, serde_json::json!({})).unwrap().duplicate);
            assert_eq!(s.complete_operation("s1", "op1", OperationOutcome::Failed, serde_json::json!({})).unwrap_err().kind(), ErrorKind::Conflict);
            assert_eq!(s.complete_operation("s1", "nope", OperationOutcome::Failed, serde_json::json!({})).unwrap_err().kind(), ErrorKind::NotFound);
            assert!(s.open_operations().unwrap().is_empty());
        }
        #[test]
        fn recovery_marks_operations_of_closed_owners_and_skips_live_ones() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let live = $open(&p, 1);
            let gone = $open(&p, 1);
            live.dispatch_operation("s1", "live-op", serde_json::json!({})).unwrap();
            gone.dispatch_operation("s1", "gone-op", serde_json::json!({})).unwrap();
            gone.close();
            let third = $open(&p, 1);
            let r = third.open_recovery_report();
            assert_eq!(r.marked_unknown, vec![("s1".to_string(), "gone-op".to_string())]);
            assert_eq!(r.skipped_live, 1);
            let kinds: Vec<_> = third.journal_events("s1", 1, 10).unwrap().into_iter().map(|e| (e.operation_id.unwrap(), e.kind)).collect();
            assert_eq!(kinds.last().unwrap(), &("gone-op".to_string(), "OperationUnknownOutcome".to_string()));
            assert_eq!(third.open_operations().unwrap().len(), 1);
            // The live owner can still complete its operation.
            live.complete_operation("s1", "live-op", OperationOutcome::Succeeded, serde_json::json!({})).unwrap();
            // Running recovery again does nothing.
            assert_eq!(third.recover().unwrap(), RecoveryReport::default());
        }
        #[test]
        fn entry_metadata_round_trips_and_is_bound_to_its_entry() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let a = s.create_session(None, None).unwrap();
            let meta = |m: &str, v: serde_json::Value| {
                let mut extra = serde_json::Map::new();
                extra.insert("tool_use_result".into(), v);
                EntryMeta { model: Some(m.into()), provider: Some("anthropic".into()), extra, item: None }
            };
            let m1 = meta("claude-opus-4-6", serde_json::json!({"stdout": "one"}));
            let m2 = meta("claude-sonnet-4-6", serde_json::json!("User rejected tool use"));
            s.append_entries_with_meta(
                &a.id,
                vec![
                    (NewEntry::text(Role::Assistant, "a"), m1.clone()),
                    (NewEntry::text(Role::User, "b"), EntryMeta::default()),
                    (NewEntry::text(Role::User, "c"), m2.clone()),
                ],
            )
            .unwrap();
            let got: Vec<_> = s.get_transcript_with_meta(&a.id, 1, 10).unwrap().into_iter().map(|(e, m)| (e.content, m)).collect();
            assert_eq!(got, [("a".to_string(), m1), ("b".to_string(), EntryMeta::default()), ("c".to_string(), m2)]);
            // Names are checked as session names are.
            let bad = EntryMeta { model: Some("x".repeat(257)), ..Default::default() };
            assert_eq!(s.append_entries_with_meta(&a.id, vec![(NewEntry::text(Role::User, "d"), bad)]).unwrap_err().kind(), ErrorKind::InvalidInput);
            assert_eq!(s.get_session(&a.id).unwrap().entry_count, 3);
        }
        #[test]
        fn structured_item_round_trips_byte_exact_beside_extra_and_through_fork() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let a = s.create_session(None, None).unwrap();
            // Key order, whitespace, escapes and non-ASCII exactly as a framework wrote them.
            let item1 = r#"{"type":"message",  "role":"user",
 "content":"h\u00e9llo ☃ café", "z":1, "a":[ ]}"#;
            let item2 = "{ \"role\" : \"assistant\", \"content\": [{\"type\":\"output_text\",\"text\":\"\\ud83d\\ude00 😀 ok\"}],\"id\":\"msg_1\" }\t\r\n";
            let mut extra = serde_json::Map::new();
            extra.insert("uuid".into(), serde_json::json!("u-1"));
            let m1 = EntryMeta::default().with_item(item1);
            let m2 = EntryMeta { model: Some("gpt-5".into()), provider: None, extra: extra.clone(), item: Some(item2.into()) };
            let m3 = EntryMeta { extra, ..Default::default() };
            s.append_entries_with_meta(
                &a.id,
                vec![(NewEntry::text(Role::User, "héllo ☃ café"), m1.clone()), (NewEntry::text(Role::Assistant, "😀 ok"), m2.clone()), (NewEntry::text(Role::User, "plain"), m3.clone())],
            )
            .unwrap();
            let want = vec![("héllo ☃ café".to_string(), m1), ("😀 ok".to_string(), m2), ("plain".to_string(), m3)];
            let got: Vec<_> = s.get_transcript_with_meta(&a.id, 1, 10).unwrap().into_iter().map(|(e, m)| (e.content, m)).collect();
            assert_eq!(got, want);
            assert_eq!(got[0].1.item.as_deref(), Some(item1));
            assert_eq!(got[1].1.item.as_deref(), Some(item2));
            // A fork copies the item with its entry.
            let f = sessiondb::portable::fork_session(&s, &a.id, Some(3), None).unwrap();
            let forked: Vec<_> = s.get_transcript_with_meta(&f.id, 1, 10).unwrap().into_iter().map(|(e, m)| (e.content, m)).collect();
            assert_eq!(forked, want);
            // The integrity check reads both forms without a complaint.
            assert_eq!(s.check_records().unwrap().damaged, vec![]);
        }
        #[test]
        fn an_item_that_is_not_json_is_invalid_input_and_nothing_is_stored() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let a = s.create_session(None, None).unwrap();
            let rows = vec![
                (NewEntry::text(Role::User, "fine"), EntryMeta::default().with_item("{}")),
                (NewEntry::text(Role::User, "bad"), EntryMeta::default().with_item("{\"role\": \"user\"")),
            ];
            let e = s.append_entries_with_meta(&a.id, rows).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidInput);
            assert_eq!(e.to_string(), "invalid input: EntryMeta.item must be the JSON text of one value (a framework item)");
            assert_eq!(s.get_session(&a.id).unwrap().entry_count, 0);
            assert_eq!(s.last_seq(&a.id).unwrap(), 0);
        }
        #[test]
        fn tokens_of_an_entry_with_an_item_are_those_of_its_text_alone() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let texts = ["What is the weather in Tokyo today, and should I bring an umbrella?", "get_weather({\"city\":\"Tokyo\"})", "Sunny, 24 C, no rain expected."];
            let item = |t: &str| serde_json::json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": t}], "id": "msg_0123456789abcdef0123456789abcdef"}).to_string();
            let with = s.create_session(None, None).unwrap().id;
            let plain = s.create_session(None, None).unwrap().id;
            let json = s.create_session(None, None).unwrap().id;
            s.append_entries_with_meta(&with, texts.iter().map(|t| (NewEntry::text(Role::User, *t), EntryMeta::default().with_item(item(t)))).collect()).unwrap();
            s.append_entries(&plain, texts.iter().map(|t| NewEntry::text(Role::User, *t)).collect()).unwrap();
            s.append_entries(&json, texts.iter().map(|t| NewEntry::text(Role::User, item(t))).collect()).unwrap();
            let view = |sid: &str| sessiondb::context::active_context(&s, sid, 128_000, None, Some("gpt-4o".into())).unwrap();
            let (w, p_, j) = (view(&with), view(&plain), view(&json));
            let toks = |v: &sessiondb::context::ActiveContextView| v.items.iter().map(|i| i.tokens).collect::<Vec<_>>();
            let want: Vec<u64> = texts.iter().map(|t| sessiondb::context::count_tokens("gpt-4o", t, None).tokens).collect();
            assert_eq!(toks(&p_), want);
            assert_eq!(toks(&w), want);
            assert_eq!(w.tokens, want.iter().sum::<u64>());
            assert_eq!(w.items.iter().map(|i| i.text.clone().unwrap()).collect::<Vec<_>>(), texts);
            // Had the JSON been the content, the meter would count far more.
            assert!(j.tokens > 2 * w.tokens, "{} vs {}", j.tokens, w.tokens);
            let st = |sid: &str| sessiondb::context::context_status(&s, sid, 128_000, None, Some("gpt-4o".into())).unwrap().meter.active_tokens;
            assert_eq!(st(&with), st(&plain));
        }
        #[test]
        fn transcript_tail_with_meta_is_the_last_entries_with_their_metadata() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let a = s.create_session(None, None).unwrap().id;
            let rows: Vec<_> = (1..=6).map(|i| (NewEntry::text(Role::User, format!("t{i}")), EntryMeta::default().with_item(format!("{{\"n\": {i}}}")))).collect();
            s.append_entries_with_meta(&a, rows).unwrap();
            s.retract_entry(&a, 6).unwrap();
            let tail = s.get_transcript_tail_with_meta(&a, 3).unwrap();
            let got: Vec<_> = tail.iter().map(|(e, m)| (e.seq, e.content.as_str(), m.item.as_deref())).collect();
            assert_eq!(got, [(3, "t3", Some("{\"n\": 3}")), (4, "t4", Some("{\"n\": 4}")), (5, "t5", Some("{\"n\": 5}"))]);
            assert_eq!(s.get_transcript_tail_with_meta(&a, 100).unwrap().len(), 5);
            assert_eq!(s.get_transcript_tail_with_meta(&a, 0).unwrap_err().kind(), ErrorKind::InvalidInput);
            assert_eq!(s.get_transcript_tail_with_meta("none", 3).unwrap_err().kind(), ErrorKind::NotFound);
        }
        #[test]
        fn entry_items_are_each_visible_entrys_item_in_order_and_the_entries_without_one() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            let a = s.create_session(None, None).unwrap().id;
            // Items byte-exact (spacing, escapes, non-ASCII), an entry without
            // metadata, one with extra but no item, and a JSON `null` item.
            let it = |i: u32| format!(r#"{{ "n":{i}, "t": "caf\u00e9 ☃ \"q\"" }}"#);
            let mut extra = serde_json::Map::new();
            extra.insert("uuid".into(), serde_json::json!("u-4"));
            let rows = vec![
                (NewEntry::text(Role::User, "one"), EntryMeta::default().with_item(it(1))),
                (NewEntry::text(Role::Assistant, "two"), EntryMeta::default().with_item(it(2))),
                (NewEntry::text(Role::User, "plain three"), EntryMeta::default()),
                (NewEntry::text(Role::Tool, "imported four"), EntryMeta { model: Some("gpt-5".into()), provider: Some("openai".into()), extra: extra.clone(), item: None }),
                (NewEntry::text(Role::User, "five"), EntryMeta::default().with_item(it(5))),
                (NewEntry::text(Role::User, "six"), EntryMeta::default().with_item("null")),
                (NewEntry::text(Role::User, "seven"), EntryMeta::default().with_item(it(7))),
            ];
            s.append_entries_with_meta(&a, rows).unwrap();
            s.retract_entry(&a, 2).unwrap();
            s.retract_entry(&a, 7).unwrap();
            let page = s.get_entry_items(&a, 1, 100).unwrap();
            assert_eq!(page.items_json, format!("[{},null,null,{},null]", it(1), it(5)));
            assert_eq!(page.seqs, [1, 3, 4, 5, 6]);
            let without: Vec<_> = page.without_item.iter().map(|(e, m)| (e.seq, e.role, e.content.as_str(), m.clone())).collect();
            assert_eq!(
                without,
                [
                    (3, Role::User, "plain three", EntryMeta::default()),
                    (4, Role::Tool, "imported four", EntryMeta { model: Some("gpt-5".into()), provider: Some("openai".into()), extra, item: None }),
                ]
            );
            let parsed: Vec<serde_json::Value> = serde_json::from_str(&page.items_json).unwrap();
            assert_eq!(parsed[0], serde_json::json!({"n": 1, "t": "café ☃ \"q\""}));
            // Pages: from a seq, with a limit; on past the last seq.
            let p2 = s.get_entry_items(&a, 2, 2).unwrap();
            assert_eq!((p2.items_json.as_str(), p2.seqs.as_slice(), p2.without_item.len()), ("[null,null]", &[3u64, 4][..], 2));
            let p3 = s.get_entry_items(&a, 5, 2).unwrap();
            assert_eq!((p3.items_json, p3.seqs, p3.without_item), (format!("[{},null]", it(5)), vec![5, 6], vec![]));
            assert_eq!(s.get_entry_items(&a, 7, 10).unwrap(), sessiondb::ItemPage { items_json: "[]".into(), seqs: vec![], without_item: vec![] });
            // The tail: the last visible entries.
            let t = s.get_entry_items_tail(&a, 2).unwrap();
            assert_eq!((t.items_json, t.seqs), (format!("[{},null]", it(5)), vec![5, 6]));
            assert_eq!(s.get_entry_items_tail(&a, 100).unwrap(), page);
            // The same entries as get_transcript_with_meta, item for item.
            let full = s.get_transcript_with_meta(&a, 1, 100).unwrap();
            assert_eq!(full.iter().map(|(e, _)| e.seq).collect::<Vec<_>>(), page.seqs);
            assert_eq!(full.iter().filter(|(_, m)| m.item.is_none()).cloned().collect::<Vec<_>>(), page.without_item);
            // Limits and a missing session.
            for r in [s.get_entry_items(&a, 1, 0), s.get_entry_items(&a, 1, sessiondb::store::MAX_PAGE + 1), s.get_entry_items_tail(&a, 0)] {
                assert_eq!(r.unwrap_err().kind(), ErrorKind::InvalidInput);
            }
            assert_eq!(s.get_entry_items("none", 1, 3).unwrap_err().kind(), ErrorKind::NotFound);
            assert_eq!(s.get_entry_items_tail("none", 3).unwrap_err().kind(), ErrorKind::NotFound);
            let empty = s.create_session(None, None).unwrap().id;
            assert_eq!(s.get_entry_items_tail(&empty, 5).unwrap().items_json, "[]");
        }
        #[test]
        fn find_session_by_id_prefix_and_title() {
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = $open(&p, 1);
            for (id, name) in [("abc-1", "one"), ("abc-2", "two"), ("xyz", "two")] {
                s.create_session_with(NewSession { id: Some(id.into()), name: Some(name.into()), ..Default::default() }).unwrap();
            }
            assert_eq!(s.find_session("abc-1").unwrap().id, "abc-1");
            assert_eq!(s.find_session("xy").unwrap().id, "xyz");
            let e = s.find_session("abc").unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Conflict);
            assert!(e.to_string().contains("abc-1, abc-2"), "{e}");
            assert_eq!(s.find_session("one").unwrap().id, "abc-1");
            assert_eq!(s.find_session("two").unwrap_err().kind(), ErrorKind::Conflict);
            assert_eq!(s.find_session("none such").unwrap_err().kind(), ErrorKind::NotFound);
            assert_eq!(
                s.create_session_with(NewSession { id: Some("abc-1".into()), ..Default::default() }).unwrap_err().kind(),
                ErrorKind::Conflict
            );
            assert_eq!(
                s.create_session_with(NewSession { id: Some("bad:id".into()), ..Default::default() }).unwrap_err().kind(),
                ErrorKind::InvalidInput
            );
        }
        #[test]
        fn store_handle_is_send_and_sync_and_usable_from_threads() {
            fn assert_send_sync<T: Send + Sync>() {}
            assert_send_sync::<SessionStore>();
            if $skip() {
                return;
            }
            let (_d, p) = $temp();
            let s = Arc::new($open(&p, 1));
            let a = s.create_session(None, None).unwrap();
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    let s = s.clone();
                    let id = a.id.clone();
                    std::thread::spawn(move || for _ in 0..50 { s.append_transcript(&id, Role::User, "t".into()).unwrap(); })
                })
                .collect();
            for h in hs {
                h.join().unwrap();
            }
            let all = s.get_transcript(&a.id, 1, 1000).unwrap();
            assert_eq!(all.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=200).collect::<Vec<_>>());
        }
    };
}
