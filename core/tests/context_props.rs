//! Property tests of context governance (issue 3): the compaction plan never
//! exceeds the target when a plan is possible, protected items are never
//! touched, a tool call is never split from its results; plus the summary
//! cut, the capacity formula and the meter.

use std::collections::{BTreeMap, HashSet};

use proptest::prelude::*;
use sessiondb::context::{
    capacity_breakdown, compact_context, estimate_tokens, meter, summarize_item, truncate_chars, Band,
    CompactionOptions, ContextItem, ItemKind, SUMMARY_MAX_CHARS,
};
use sessiondb::Error;

/// One generated item plus the unit it belongs to by construction.
#[derive(Debug, Clone)]
struct Gen {
    item: ContextItem,
    unit: usize,
}

#[derive(Debug, Clone)]
enum Turn {
    System,
    User,
    Assistant,
    /// An assistant call message with `n` parallel calls, then their results.
    Batch(usize),
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        1 => Just(Turn::System),
        4 => Just(Turn::User),
        3 => Just(Turn::Assistant),
        3 => (1usize..4).prop_map(Turn::Batch),
    ]
}

fn text() -> impl Strategy<Value = String> {
    // Cheap to generate: `len` pieces cycled from a mix of ASCII words,
    // whitespace runs, CJK, emoji ZWJ sequences, flags and combining marks.
    const PIECES: [&str; 10] = ["word", " ", "\n\t ", "語", "😀", "👨\u{200D}👩\u{200D}👧", "🇯🇵", "e\u{301}", "x", "👍🏽"];
    (0usize..400, 0usize..PIECES.len(), 1usize..PIECES.len()).prop_map(|(len, start, step)| {
        (0..len).map(|k| PIECES[(start + k * step) % PIECES.len()]).collect()
    })
}

/// Per-item attributes: tokens, pinned, compacted, text.
fn attrs() -> impl Strategy<Value = (u64, bool, bool, String)> {
    (1u64..3000, proptest::bool::weighted(0.1), proptest::bool::weighted(0.05), text())
}

fn context() -> impl Strategy<Value = Vec<Gen>> {
    proptest::collection::vec((turn(), proptest::collection::vec(attrs(), 4)), 0..40).prop_map(|turns| {
        let mut out = Vec::new();
        let mut seq = 0u64;
        let mut call = 0usize;
        for (unit, (t, mut a)) in turns.into_iter().enumerate() {
            let mut push = |role: &str, kind: ItemKind, call_ids: Vec<String>, (tokens, pinned, compacted, text): (u64, bool, bool, String)| {
                seq += 1 + tokens % 3; // gaps in seqs are allowed
                out.push(Gen {
                    item: ContextItem { seq, role: role.into(), kind, tokens, pinned, text, call_ids, compacted },
                    unit,
                });
            };
            match t {
                Turn::System => push("system", ItemKind::System, vec![], a.remove(0)),
                Turn::User => push("user", ItemKind::Message, vec![], a.remove(0)),
                Turn::Assistant => push("assistant", ItemKind::Message, vec![], a.remove(0)),
                Turn::Batch(n) => {
                    let ids: Vec<String> = (0..n).map(|k| format!("call_{}", call + k)).collect();
                    call += n;
                    push("assistant", ItemKind::ToolCall, ids.clone(), a.remove(0));
                    for id in ids {
                        push("tool", ItemKind::ToolResult, vec![id], a.remove(0));
                    }
                }
            }
        }
        out
    })
}

/// The documented protection rule, re-stated independently of the planner.
fn protected_units(gens: &[Gen], recent_user_turns: usize) -> HashSet<usize> {
    let users: Vec<usize> = gens
        .iter()
        .enumerate()
        .filter(|(_, g)| g.item.role == "user" && g.item.kind == ItemKind::Message)
        .map(|(i, _)| i)
        .collect();
    let recent_start = if recent_user_turns == 0 || users.is_empty() {
        gens.len()
    } else {
        users[users.len().saturating_sub(recent_user_turns)]
    };
    gens.iter()
        .enumerate()
        .filter(|(i, g)| g.item.kind == ItemKind::System || g.item.pinned || *i >= recent_start)
        .map(|(_, g)| g.unit)
        .collect()
}

/// Whether the planner may summarize `g`: its summary is smaller than it.
fn shrinks(g: &Gen) -> bool {
    estimate_tokens(&summarize_item(&g.item)) < g.item.tokens
}

/// The smallest total any plan could reach: protected units and already
/// compacted items as they are, every other item summarized when its
/// summary is smaller (a summary never replaces a smaller item).
fn minimal_total(gens: &[Gen], protected: &HashSet<usize>) -> u64 {
    gens.iter()
        .map(|g| {
            if protected.contains(&g.unit) || g.item.compacted {
                g.item.tokens
            } else {
                g.item.tokens.min(estimate_tokens(&summarize_item(&g.item)))
            }
        })
        .sum()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn plan_reaches_target_when_possible_and_never_touches_protected_or_splits_pairs(
        gens in context(),
        capacity in 1u64..40_000,
        target in proptest::option::of(0u8..=100),
        recent in 0usize..4,
    ) {
        let items: Vec<ContextItem> = gens.iter().map(|g| g.item.clone()).collect();
        let options = CompactionOptions { recent_user_turns: recent, model: None };
        let protected = protected_units(&gens, recent);
        let minimal = minimal_total(&gens, &protected);
        let target_tokens = capacity * u64::from(target.unwrap_or(70)) / 100;

        match compact_context(&items, capacity, target, &options) {
            Ok(plan) => {
                prop_assert_eq!(plan.target_tokens, target_tokens);
                prop_assert!(plan.tokens_after <= capacity.max(plan.tokens_before));
                // "never exceeds the target when a plan is possible"
                if minimal <= target_tokens {
                    prop_assert!(plan.reached_target);
                    prop_assert!(plan.tokens_after <= target_tokens);
                }
                prop_assert_eq!(plan.reached_target, plan.tokens_after <= target_tokens);
                if !plan.reached_target {
                    prop_assert_eq!(plan.tokens_after, minimal);
                }
                let by_seq: BTreeMap<u64, _> = plan.transformations.iter().map(|t| (t.seq, t)).collect();
                prop_assert_eq!(by_seq.len(), plan.transformations.len());
                prop_assert!(plan.transformations.windows(2).all(|w| w[0].seq < w[1].seq));
                let mut total = 0u64;
                for g in &gens {
                    match by_seq.get(&g.item.seq) {
                        Some(t) => {
                            // protected and already-compacted items are never touched
                            prop_assert!(!protected.contains(&g.unit), "protected seq {} was compacted", g.item.seq);
                            prop_assert!(!g.item.compacted);
                            prop_assert_eq!(t.tokens_before, g.item.tokens);
                            prop_assert_eq!(&t.summary, &summarize_item(&g.item));
                            prop_assert!(t.summary.chars().count() <= SUMMARY_MAX_CHARS);
                            total += t.tokens_after;
                        }
                        None => total += g.item.tokens,
                    }
                }
                prop_assert_eq!(total, plan.tokens_after);
                // pairs (and parallel batches) are compacted together: in a
                // unit, either nothing or every item whose summary is smaller
                for unit in gens.iter().map(|g| g.unit).collect::<HashSet<_>>() {
                    let open: Vec<(bool, bool)> = gens.iter()
                        .filter(|g| g.unit == unit && !g.item.compacted)
                        .map(|g| (by_seq.contains_key(&g.item.seq), shrinks(g)))
                        .collect();
                    prop_assert!(
                        open.iter().all(|(c, _)| !*c) || open.iter().all(|(c, s)| c == s),
                        "unit {} split: {:?}", unit, open
                    );
                }
                // no transformation makes its item bigger
                prop_assert!(plan.transformations.iter().all(|t| t.tokens_after < t.tokens_before));
                // idempotent
                let applied = plan.apply(&items);
                let again = compact_context(&applied, capacity, target, &options).expect("second run");
                prop_assert!(again.transformations.is_empty());
                prop_assert_eq!(again.tokens_after, plan.tokens_after);
            }
            Err(Error::ContextOverflow(b)) => {
                prop_assert!(minimal > capacity, "overflow but minimal {} <= capacity {}", minimal, capacity);
                prop_assert_eq!(b.protected_total, minimal);
                prop_assert_eq!(b.system + b.pinned + b.recent + b.tool_results + b.other, b.protected_total);
                prop_assert_eq!(b.capacity, capacity);
                prop_assert!(!b.remedies.is_empty());
            }
            Err(e) => prop_assert!(false, "unexpected error {e}"),
        }
    }

    #[test]
    fn summary_cut_is_a_char_boundary_prefix(s in "\\PC{0,400}", max in 1usize..300) {
        let out = truncate_chars(&s, max);
        prop_assert!(out.chars().count() <= max);
        if s.chars().count() <= max {
            prop_assert_eq!(out, s);
        } else {
            let kept = out.strip_suffix('…').expect("a cut ends with an ellipsis");
            prop_assert!(s.starts_with(kept));
            prop_assert!(!kept.ends_with('\u{200D}'), "cut after a ZWJ");
        }
    }

    #[test]
    fn capacity_terms_add_up_to_raw(raw in 1u64..10_000_000, reserve in proptest::option::of(0u64..2_000_000), max_out in proptest::option::of(1u64..500_000)) {
        if let Ok(b) = capacity_breakdown(raw, reserve, max_out) {
            prop_assert_eq!(b.output_reserve + b.safety_margin + b.capacity, raw);
            prop_assert!(b.output_reserve * 100 >= raw * 8);
            prop_assert!(b.safety_margin >= 2048 && b.safety_margin * 100 >= raw * 2);
            prop_assert!(b.capacity >= 1);
        }
    }

    #[test]
    fn meter_band_and_overflow_follow_the_percent(active in 0u64..1_000_000, capacity in 1u64..1_000_000) {
        let m = meter(active, capacity).expect("capacity > 0");
        prop_assert_eq!(m.percent, active * 100 / capacity);
        prop_assert_eq!(m.overflow, active > capacity);
        prop_assert_eq!(m.label, format!("Ctx {}%", m.percent));
        let band = match m.percent { 0..=69 => Band::Green, 70..=84 => Band::Amber, 85..=94 => Band::Orange, _ => Band::Red };
        prop_assert_eq!(m.band, band);
    }
}
