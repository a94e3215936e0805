//! Property tests of context governance (issue 3): the compaction plan never
//! exceeds the target when a plan is possible, protected items are never
//! touched, a tool call is never split from its results; plus the summary
//! cut, the capacity formula and the meter.

use std::collections::HashSet;

use proptest::prelude::*;
use sessiondb::context::{
    capacity_breakdown, compact_context, meter, summarize_item, truncate_chars, Band,
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

/// The documented protection rule, re-stated independently of the planner:
/// per item, protected when system, pinned or in the recent window (from the
/// `recent_user_turns`-th last user message that is not a summary); a unit
/// with a protected member, or with a protected item between its members,
/// is kept whole. Returns whether each item may join a run.
fn compactable(gens: &[Gen], recent_user_turns: usize) -> Vec<bool> {
    let users: Vec<usize> = gens
        .iter()
        .enumerate()
        .filter(|(_, g)| g.item.role == "user" && g.item.kind == ItemKind::Message && !g.item.compacted)
        .map(|(i, _)| i)
        .collect();
    let recent_start = if recent_user_turns == 0 || users.is_empty() {
        gens.len()
    } else {
        users[users.len().saturating_sub(recent_user_turns)]
    };
    let prot: Vec<bool> = gens
        .iter()
        .enumerate()
        .map(|(i, g)| g.item.kind == ItemKind::System || g.item.pinned || i >= recent_start)
        .collect();
    let mut protected_units = HashSet::new();
    for unit in gens.iter().map(|g| g.unit).collect::<HashSet<_>>() {
        let idx: Vec<usize> = (0..gens.len()).filter(|&i| gens[i].unit == unit).collect();
        let (lo, hi) = (idx[0], idx[idx.len() - 1]);
        if (lo..=hi).any(|i| prot[i]) {
            protected_units.insert(unit);
        }
    }
    gens.iter().map(|g| !protected_units.contains(&g.unit)).collect()
}

/// Most tokens any summary can cost: 240 characters of up to 4 UTF-8 bytes
/// under the `⌈bytes / 3⌉` estimate.
const MAX_SUMMARY_TOKENS: u64 = (SUMMARY_MAX_CHARS as u64 * 4).div_ceil(3);

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
        let can = compactable(&gens, recent);
        let protected_tokens: u64 = gens.iter().zip(&can).filter(|(_, c)| !**c).map(|(g, _)| g.item.tokens).sum();
        let segments = (0..gens.len()).filter(|&i| can[i] && (i == 0 || !can[i - 1])).count() as u64;
        // Whenever the protected (pinned, recent, system) content and one
        // summary per stretch of compactable items fit, the target is reached.
        let fits = protected_tokens + segments * MAX_SUMMARY_TOKENS;
        let target_tokens = capacity * u64::from(target.unwrap_or(70)) / 100;

        match compact_context(&items, capacity, target, &options) {
            Ok(plan) => {
                prop_assert_eq!(plan.target_tokens, target_tokens);
                prop_assert!(plan.tokens_after <= capacity.max(plan.tokens_before));
                if fits <= target_tokens {
                    prop_assert!(plan.reached_target, "fits {} <= target {} but not reached: {}", fits, target_tokens, plan.tokens_after);
                }
                prop_assert_eq!(plan.reached_target, plan.tokens_after <= target_tokens);
                prop_assert!(plan.transformations.windows(2).all(|w| w[0].last_seq.unwrap_or(w[0].seq) < w[1].seq));
                let mut covered = vec![false; gens.len()];
                let mut total = 0u64;
                for t in &plan.transformations {
                    let run: Vec<usize> = (0..gens.len()).filter(|&i| (t.seq..=t.last_seq.unwrap_or(t.seq)).contains(&gens[i].item.seq)).collect();
                    prop_assert!(!run.is_empty());
                    prop_assert!(run.windows(2).all(|w| w[1] == w[0] + 1), "a run is consecutive items");
                    prop_assert_eq!(gens[run[0]].item.seq, t.seq);
                    for &i in &run {
                        prop_assert!(can[i], "protected seq {} was compacted", gens[i].item.seq);
                        covered[i] = true;
                    }
                    prop_assert_eq!(t.tokens_before, run.iter().map(|&i| gens[i].item.tokens).sum::<u64>());
                    prop_assert!(t.tokens_after < t.tokens_before, "a run never grows the context");
                    prop_assert!(t.summary.chars().count() <= SUMMARY_MAX_CHARS);
                    if t.last_seq.is_none() {
                        prop_assert_eq!(run.len(), 1);
                        prop_assert!(!gens[run[0]].item.compacted);
                        prop_assert_eq!(&t.summary, &summarize_item(&gens[run[0]].item));
                    }
                    total += t.tokens_after;
                }
                total += gens.iter().zip(&covered).filter(|(_, c)| !**c).map(|(g, _)| g.item.tokens).sum::<u64>();
                prop_assert_eq!(total, plan.tokens_after);
                // A tool call and its results are in the same run or in none.
                for unit in gens.iter().map(|g| g.unit).collect::<HashSet<_>>() {
                    let members: Vec<bool> = (0..gens.len()).filter(|&i| gens[i].unit == unit).map(|i| covered[i]).collect();
                    prop_assert!(members.iter().all(|c| *c) || members.iter().all(|c| !*c), "unit {} split: {:?}", unit, members);
                    let runs_of_unit: HashSet<u64> = (0..gens.len())
                        .filter(|&i| gens[i].unit == unit && covered[i])
                        .map(|i| plan.transformations.iter().find(|t| (t.seq..=t.last_seq.unwrap_or(t.seq)).contains(&gens[i].item.seq)).unwrap().seq)
                        .collect();
                    prop_assert!(runs_of_unit.len() <= 1, "unit {} in two runs", unit);
                }
                // idempotent
                let applied = plan.apply(&items);
                let again = compact_context(&applied, capacity, target, &options).expect("second run");
                if plan.reached_target {
                    prop_assert!(again.transformations.is_empty());
                    prop_assert_eq!(again.tokens_after, plan.tokens_after);
                }
            }
            Err(Error::ContextOverflow(b)) => {
                prop_assert!(fits > capacity, "overflow but protected + summaries {} <= capacity {}", fits, capacity);
                prop_assert!(b.protected_total > capacity);
                prop_assert!(b.protected_total >= protected_tokens);
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
