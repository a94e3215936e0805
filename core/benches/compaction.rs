//! Time to plan compaction of a 10,000- and a 100,000-item context, printed
//! as a ratio to a linear scan (sum of tokens) of the same items (issue 3,
//! "Performance").
//!
//! The context is the planner's worst case: ~90% of the items must be
//! summarized (capacity is set so the target is reached only near the
//! recent window). Run: `cargo bench -p sessiondb --bench compaction`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use sessiondb::context::{compact_context, CompactionOptions, ContextItem, ItemKind};

/// `n` items: repeating user message, assistant call with two parallel
/// calls, two results, assistant answer; ~200-byte texts; 300–800 tokens each.
fn context(n: usize) -> Vec<ContextItem> {
    let text = "fn parse(input: &str) -> Result<Ast> { let tokens = lex(input)?; let mut p = Parser::new(tokens); p.program() } // 日本語 and emoji 😀 ".repeat(2);
    (0..n)
        .map(|i| {
            let turn = i / 5;
            let (role, kind, call_ids) = match i % 5 {
                0 => ("user", ItemKind::Message, vec![]),
                1 => ("assistant", ItemKind::ToolCall, vec![format!("a{turn}"), format!("b{turn}")]),
                2 => ("tool", ItemKind::ToolResult, vec![format!("a{turn}")]),
                3 => ("tool", ItemKind::ToolResult, vec![format!("b{turn}")]),
                _ => ("assistant", ItemKind::Message, vec![]),
            };
            ContextItem {
                seq: i as u64 + 1,
                role: role.into(),
                kind,
                tokens: 300 + (i as u64 * 7919) % 500,
                pinned: i % 97 == 0,
                text: text.clone(),
                call_ids,
                compacted: false,
            }
        })
        .collect()
}

fn linear_scan(items: &[ContextItem]) -> u64 {
    items.iter().map(|i| i.tokens).sum()
}

/// A linear scan that reads every item's text once (what any pass that
/// writes summaries must at least do): characters summed.
fn text_scan(items: &[ContextItem]) -> usize {
    items.iter().map(|i| i.text.chars().count()).sum()
}

fn capacity_for(items: &[ContextItem]) -> u64 {
    // Summaries cost ~86 tokens each (estimate); with pinned batches that
    // leaves ~17% of the original total, which fits 20% but not 70% of it:
    // every compactable unit gets summarized.
    linear_scan(items) / 5
}

fn median(mut f: impl FnMut(), runs: usize) -> Duration {
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[runs / 2]
}

fn main() {
    let opts = CompactionOptions::default();
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    for n in [10_000usize, 100_000] {
        let items = context(n);
        let cap = capacity_for(&items);
        let plan = compact_context(&items, cap, None, &opts).expect("plan fits capacity");
        let mut g = c.benchmark_group(format!("compaction_{n}"));
        g.bench_function("compact_context", |b| b.iter(|| compact_context(black_box(&items), cap, None, &opts)));
        g.bench_function("linear_scan", |b| b.iter(|| linear_scan(black_box(&items))));
        g.finish();
        let runs = if n >= 100_000 { 5 } else { 15 };
        let t_plan = median(|| drop(black_box(compact_context(black_box(&items), cap, None, &opts))), runs);
        let t_scan = median(|| { black_box(linear_scan(black_box(&items))); }, 101);
        let t_text = median(|| { black_box(text_scan(black_box(&items))); }, 21);
        println!(
            "compaction n={n}: text scan {:.3} ms, plan / text scan {:.1}x",
            t_text.as_secs_f64() * 1e3,
            t_plan.as_secs_f64() / t_text.as_secs_f64().max(1e-9)
        );
        println!(
            "compaction n={n}: plan {:.3} ms ({} of {} items summarized, reached_target={}), token-sum scan {:.1} us, ratio {:.0}x, plan per item {:.0} ns",
            t_plan.as_secs_f64() * 1e3,
            plan.transformations.len(),
            n,
            plan.reached_target,
            t_scan.as_secs_f64() * 1e6,
            t_plan.as_secs_f64() / t_scan.as_secs_f64().max(1e-9),
            t_plan.as_secs_f64() * 1e9 / n as f64,
        );
    }
    c.final_summary();
}
