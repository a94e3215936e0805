//! Unit tests of governance.rs, moved out of it as they were.

use super::*;
use crate::context::{compact_context, CompactionOptions};
use crate::store::test_support::temp_store;
use crate::store::{ContentFormat, NewEntry, Role};

#[test]
fn governance_survives_reopen_and_replays_in_order() {
    let (dir, store) = temp_store();
    let s = store.create_session(None, None).unwrap();
    let mut entries = Vec::new();
    for i in 0..8 {
        let role = if i % 2 == 0 { Role::User } else { Role::Assistant };
        entries.push(NewEntry { tokens: Some(100), ..NewEntry::text(role, format!("turn {i}")) });
    }
    store.append_entries(&s.id, entries).unwrap();
    record_turn_decision(&store, &s.id, KIND_PIN, &[2]).unwrap();
    record_turn_decision(&store, &s.id, KIND_EXCLUDE, &[5]).unwrap();

    let all = store.get_transcript(&s.id, 1, 100).unwrap();
    let g = recover_context_governance(&store, &s.id).unwrap();
    let items = active_context_items(&all, &g, "claude-sonnet-4").unwrap();
    assert_eq!(items.iter().map(|i| i.seq).collect::<Vec<_>>(), vec![1, 2, 3, 4, 6, 7, 8]);
    // Recent window = from user seq 3 on; 2 is pinned; only 1 may compact (100 -> 5 tokens).
    let plan = compact_context(&items, 1000, Some(50), &CompactionOptions::default()).unwrap();
    assert_eq!((plan.compacted_seqs(), plan.tokens_after, plan.reached_target), (vec![1], 605, false));
    assert_eq!(record_compaction(&store, &s.id, &plan).unwrap(), Some(3));
    record_turn_decision(&store, &s.id, KIND_UNPIN, &[2]).unwrap();
    record_turn_decision(&store, &s.id, KIND_EXCLUDE, &[1]).unwrap();
    record_turn_decision(&store, &s.id, KIND_INCLUDE, &[1]).unwrap();
    store.append_context_extension(&s.id, "artifact", r#"{"path":"x"}"#).unwrap();
    let path = store.path().to_path_buf();
    drop(store);

    let key = crate::DataKey::from_bytes(&[42u8; 32]).unwrap();
    let store = SessionStore::open(crate::OpenOptions::at(path, crate::KeySource::Bytes(key))).unwrap();
    let g = recover_context_governance(&store, &s.id).unwrap();
    let states: Vec<(u64, TurnState, bool)> = g.turns(8).iter().map(|t| (t.seq, t.state, t.pinned)).collect();
    assert_eq!(
        states,
        vec![
            (1, TurnState::Compacted, false),
            (2, TurnState::Verbatim, false),
            (3, TurnState::Verbatim, false),
            (4, TurnState::Verbatim, false),
            (5, TurnState::Excluded, false),
            (6, TurnState::Verbatim, false),
            (7, TurnState::Verbatim, false),
            (8, TurnState::Verbatim, false),
        ]
    );
    assert_eq!(g.history.len(), 1);
    assert_eq!(g.history[0].n, 3);
    assert_eq!(g.compaction_of(1).unwrap().summary, "[user] turn 0");
    // The saved transcript is never modified: seq 1 is still verbatim in storage.
    assert_eq!(store.get_transcript(&s.id, 1, 1).unwrap()[0].content, "turn 0");
    // Planning again on the recovered context, 2 being unpinned now, rolls
    // the summary of 1 and turn 2 up into one run.
    let all = store.get_transcript(&s.id, 1, 100).unwrap();
    let items = active_context_items(&all, &g, "claude-sonnet-4").unwrap();
    assert_eq!((items[0].compacted, items[0].tokens, items[0].text.as_str()), (true, 5, "[user] turn 0"));
    let again = compact_context(&items, 1000, Some(50), &CompactionOptions::default()).unwrap();
    assert_eq!(again.compacted_seqs(), vec![1, 2]);
    let run = &again.transformations[0];
    assert_eq!((run.seq, run.last_seq, run.tokens_before, run.summary.as_str()), (1, Some(2), 105, "[compacted seq 1–2: 2 items, 105 tokens] turn 0"));
    // Recorded and replayed, the run is one item of the active context.
    record_compaction(&store, &s.id, &again).unwrap();
    let g = recover_context_governance(&store, &s.id).unwrap();
    let items = active_context_items(&all, &g, "claude-sonnet-4").unwrap();
    assert_eq!(items.iter().map(|i| (i.seq, i.compacted)).collect::<Vec<_>>(), vec![(1, true), (3, false), (4, false), (6, false), (7, false), (8, false)]);
    assert_eq!((g.state_of(1), g.state_of(2), g.state_of(3)), (TurnState::Compacted, TurnState::Compacted, TurnState::Verbatim));
    assert_eq!(items[0].tokens, run.tokens_after);
    drop(dir);
}

#[test]
fn pin_after_compaction_makes_the_turn_verbatim() {
    let rec = |n: u64, kind: &str, body: &str| ContextExtensionRecord {
        session_id: "s".into(),
        n,
        kind: kind.into(),
        body: body.into(),
        created_at_ms: 0,
    };
    let plan = r#"{"capacity":10,"target_percent":70,"target_tokens":7,"tokens_before":20,"tokens_after":5,"reached_target":true,
        "transformations":[{"seq":1,"action":"summarized","tokens_before":15,"tokens_after":1,"summary":"[user] x"}]}"#;
    let g = ContextGovernance::replay(&[rec(1, "compaction", plan), rec(2, "pin", r#"{"seq":1}"#)]).unwrap();
    assert_eq!(g.state_of(1), TurnState::Verbatim);
    assert!(g.pinned.contains(&1));
    let err = ContextGovernance::replay(&[rec(1, "pin", r#"{"seqs":"no"}"#)]).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::Corrupt);
}

#[test]
fn blocks_with_tool_use_and_tool_result_are_linked() {
    let e = |seq, role, content: &str| TranscriptEntry {
        session_id: "s".into(),
        seq,
        role,
        format: ContentFormat::Blocks,
        content: content.into(),
        created_at_ms: 0,
        tokens: Some(10),
        source_line: None,
    };
    let entries = vec![
        e(1, Role::Assistant, r#"[{"type":"text","text":"hi"},{"type":"tool_use","id":"A"},{"type":"tool_use","id":"B"}]"#),
        e(2, Role::User, r#"[{"type":"tool_result","tool_use_id":"A"},{"type":"tool_result","tool_use_id":"B"}]"#),
    ];
    let items = active_context_items(&entries, &ContextGovernance::default(), "").unwrap();
    assert_eq!((items[0].kind, items[0].call_ids.clone()), (ItemKind::ToolCall, vec!["A".to_string(), "B".to_string()]));
    assert_eq!((items[1].kind, items[1].call_ids.clone()), (ItemKind::ToolResult, vec!["A".to_string(), "B".to_string()]));
}

fn ext(n: u64, kind: &str, body: &str) -> ContextExtensionRecord {
    ContextExtensionRecord { session_id: "s".into(), n, kind: kind.into(), body: body.into(), created_at_ms: 0 }
}

fn plan_body(transformations: &[(u64, Option<u64>, &str)]) -> String {
    let plan = CompactionPlan {
        capacity: 10,
        target_percent: 70,
        target_tokens: 7,
        tokens_before: 20,
        tokens_after: 5,
        reached_target: true,
        transformations: transformations
            .iter()
            .map(|&(seq, last_seq, summary)| Transformation {
                seq,
                last_seq,
                action: crate::context::CompactionAction::Summarized,
                tokens_before: 15,
                tokens_after: 1,
                summary: summary.to_string(),
            })
            .collect(),
    };
    serde_json::to_string(&plan).unwrap()
}

/// A compaction run was held once per seq it covers (red-team finding:
/// a 100,000-turn file ending in a 20 KB compaction took 2.0 GB to
/// import and 3.97 GB for `sessiondb context`). Now it is one run, and
/// a pin inside it leaves two runs sharing one allocation.
#[test]
fn a_long_run_replays_into_one_run_and_a_pin_splits_it_into_two_sharing_one_transformation() {
    let summary = "s".repeat(20 * 1024);
    let plan = plan_body(&[(1, Some(100_000), &summary)]);
    let g = ContextGovernance::replay(&[ext(1, "compaction", &plan)]).unwrap();
    assert_eq!(g.compacted.len(), 1);
    assert_eq!((g.compacted[0].first_seq, g.compacted[0].last_seq), (1, 100_000));
    assert_eq!((g.compacted[0].transformation.seq, g.compacted[0].transformation.last_seq), (1, Some(100_000)));
    assert_eq!(g.compacted[0].transformation.summary.len(), 20_480);
    assert_eq!(Arc::strong_count(&g.compacted[0].transformation), 1, "held once, not once per seq");
    assert_eq!((g.compaction_of(1).map(|t| t.seq), g.compaction_of(100_000).map(|t| t.seq), g.compaction_of(100_001)), (Some(1), Some(1), None));
    assert_eq!(g.compaction_of(0), None);
    // The per-turn view refers to the run and copies nothing.
    let turns = governance_turns(&g, 100_001).unwrap();
    assert_eq!((turns[0].compacted_by, turns[99_999].compacted_by, turns[100_000].compacted_by), (Some(1), Some(1), None));
    assert_eq!((turns[99_999].state, turns[100_000].state), (TurnState::Compacted, TurnState::Verbatim));

    // A pin in the middle: two runs, one transformation.
    let g = ContextGovernance::replay(&[ext(1, "compaction", &plan), ext(2, "pin", r#"{"seqs":[50000]}"#)]).unwrap();
    let spans: Vec<(u64, u64)> = g.compacted.iter().map(|r| (r.first_seq, r.last_seq)).collect();
    assert_eq!(spans, vec![(1, 49_999), (50_001, 100_000)]);
    assert!(Arc::ptr_eq(&g.compacted[0].transformation, &g.compacted[1].transformation));
    assert_eq!(Arc::strong_count(&g.compacted[0].transformation), 2);
    assert_eq!((g.state_of(49_999), g.state_of(50_000), g.state_of(50_001)), (TurnState::Compacted, TurnState::Verbatim, TurnState::Compacted));
    assert_eq!((g.turn(49_999).compacted_by, g.turn(50_000).compacted_by, g.turn(50_001).compacted_by), (Some(1), None, Some(50_001)));
    assert_eq!(g.compaction_of(50_001).map(|t| (t.seq, t.last_seq)), Some((1, Some(100_000))));
}

/// Replay keeps the per-seq semantics of the old map: a later run takes
/// the seqs it covers from an earlier one (which keeps the rest), a pin
/// makes a compacted turn verbatim for good (unpin does not undo it),
/// exclusion keeps the run so `include` brings the summary back.
#[test]
fn later_runs_replace_earlier_ones_seq_by_seq() {
    let g = ContextGovernance::replay(&[
        ext(1, "compaction", &plan_body(&[(1, Some(10), "a"), (12, None, "b")])),
        ext(2, "compaction", &plan_body(&[(4, Some(6), "c")])),
        ext(3, "pin", r#"{"seqs":[8, 12]}"#),
        ext(4, "unpin", r#"{"seqs":[8]}"#),
        ext(5, "exclude", r#"{"seq":2}"#),
        ext(6, "compaction", &plan_body(&[(9, Some(11), "d"), (10, None, "e")])),
    ])
    .unwrap();
    let runs: Vec<(u64, u64, &str)> = g.compacted.iter().map(|r| (r.first_seq, r.last_seq, r.transformation.summary.as_str())).collect();
    assert_eq!(runs, vec![(1, 3, "a"), (4, 6, "c"), (7, 7, "a"), (9, 9, "d"), (10, 10, "e"), (11, 11, "d")]);
    assert!(Arc::ptr_eq(&g.compacted[0].transformation, &g.compacted[2].transformation));
    assert!(Arc::ptr_eq(&g.compacted[3].transformation, &g.compacted[5].transformation));
    let view: Vec<(TurnState, bool, Option<u64>)> = g.turns(13).iter().map(|t| (t.state, t.pinned, t.compacted_by)).collect();
    use TurnState::{Compacted as C, Excluded as X, Verbatim as V};
    assert_eq!(
        view,
        vec![
            (C, false, Some(1)),
            (X, false, Some(1)),
            (C, false, Some(1)),
            (C, false, Some(4)),
            (C, false, Some(4)),
            (C, false, Some(4)),
            (C, false, Some(7)),
            (V, false, None),
            (C, false, Some(9)),
            (C, false, Some(10)),
            (C, false, Some(11)),
            (V, true, None),
            (V, false, None),
        ]
    );
    let g = ContextGovernance::replay(&[ext(1, "compaction", &plan_body(&[(1, Some(3), "a")])), ext(2, "exclude", r#"{"seq":2}"#), ext(3, "include", r#"{"seq":2}"#)]).unwrap();
    assert_eq!((g.state_of(2), g.turn(2).compacted_by, g.compaction_of(2).map(|t| t.summary.as_str())), (TurnState::Compacted, Some(1), Some("a")));
}

/// A state a host built with runs out of order, overlapping, empty or
/// outside their transformation is refused (it made turns vanish from
/// the active context); every replayed state passes.
#[test]
fn host_built_runs_are_checked() {
    let t = |seq, summary: &str| Arc::new(Transformation { seq, last_seq: Some(seq + 4), action: crate::context::CompactionAction::Summarized, tokens_before: 9, tokens_after: 1, summary: summary.into() });
    let run = |first_seq, last_seq, tr: &Arc<Transformation>| CompactedRun { first_seq, last_seq, transformation: Arc::clone(tr) };
    let (a, b) = (t(1, "a"), t(11, "b"));
    let refused = |compacted: Vec<CompactedRun>| {
        let g = ContextGovernance { compacted, ..Default::default() };
        let e = governance_turns(&g, 20).unwrap_err().to_string();
        assert_eq!(active_context_items(&[], &g, "").unwrap_err().to_string(), e);
        e
    };
    assert_eq!(refused(vec![run(11, 15, &b), run(1, 5, &a)]), "invalid input: compacted run 1..=5 (transformation 1..=5) must come after the previous run (runs are ascending and do not overlap)");
    assert_eq!(refused(vec![run(1, 5, &a), run(5, 5, &a)]), "invalid input: compacted run 5..=5 (transformation 1..=5) must come after the previous run (runs are ascending and do not overlap)");
    assert_eq!(refused(vec![run(5, 1, &a)]), "invalid input: compacted run 5..=1 (transformation 1..=5) must have 1 <= first_seq <= last_seq");
    assert_eq!(refused(vec![run(0, 2, &a)]), "invalid input: compacted run 0..=2 (transformation 1..=5) must have 1 <= first_seq <= last_seq");
    assert_eq!(refused(vec![run(11, 15, &a)]), "invalid input: compacted run 11..=15 (transformation 1..=5) must lie inside its transformation's seqs");
    let ok = ContextGovernance { compacted: vec![run(1, 2, &a), run(4, 5, &a), run(11, 15, &b)], ..Default::default() };
    assert_eq!(governance_turns(&ok, 12).unwrap().iter().map(|t| t.compacted_by).collect::<Vec<_>>(), [Some(1), Some(1), None, Some(4), Some(4), None, None, None, None, None, Some(11), Some(11)]);
    let replayed = ContextGovernance::replay(&[ext(1, "compaction", &plan_body(&[(1, Some(5), "x"), (8, Some(9), "y")])), ext(2, "pin", r#"{"seq":3}"#)]).unwrap();
    replayed.check().unwrap();
}

#[test]
fn governance_turns_is_bounded() {
    let g = ContextGovernance::default();
    assert_eq!(governance_turns(&g, 3).unwrap().iter().map(|t| t.seq).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert_eq!(governance_turns(&g, MAX_GOVERNANCE_TURNS).unwrap().len(), 1_000_000);
    let e = governance_turns(&g, MAX_GOVERNANCE_TURNS + 1).unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::InvalidInput);
    assert_eq!(e.to_string(), "invalid input: entry_count 1000001 is above 1000000 turns");
    assert_eq!(governance_turns(&g, u64::MAX).unwrap_err().kind(), crate::ErrorKind::InvalidInput);
}
