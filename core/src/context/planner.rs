//! The compaction planner: which items of the active context become short
//! deterministic summaries so the next request fits.
//!
//! Source: seed 000, "Context Compaction" (targets ≤ 70% after compaction,
//! summaries up to 240 characters, transformation records, Irreducible
//! Context Overflow) and seed 002, "Compaction" (old tool results become
//! `[tool result: N bytes, truncated to preview]`).
//!
//! The planner is pure: it reads a slice of [`ContextItem`]s and returns a
//! [`CompactionPlan`]. It never touches storage; the saved transcript is
//! never modified. A host sends [`CompactionPlan::apply`]'s output to the
//! model and may record the plan as a `compaction` context extension.
//!
//! # Rules
//! 1. **Units.** Items that share a call id (`call_ids`) form one unit: a tool
//!    call and its result, or an assistant message with parallel calls and all
//!    their results. A unit is compacted whole or not at all, so no tool
//!    result is ever separated from its call.
//! 2. **Protected** (always verbatim): `System` items, pinned items, and the
//!    recent window: from the `recent_user_turns`-th last user message
//!    (role `user`, kind `Message`) to the end. With fewer user messages than
//!    that, the window starts at the first user message; with none, it is
//!    empty; with `recent_user_turns = 0` it is empty. A unit with any
//!    protected member is protected whole.
//! 3. **Runs** (DESIGN.md "Context governance"). A unit with a protected
//!    item between its members is protected whole, so no run ever separates
//!    a call from its result. Each maximal stretch of consecutive compactable
//!    items, earlier summaries included, is a segment. Oldest segment first,
//!    the plan replaces the shortest prefix of the segment that reaches the
//!    target (`tokens × 100 ≤ capacity × target_percent`, default 70%) and
//!    ends where no unit continues past it, or else the whole segment, by
//!    one run summary ([`summarize_run`], ≤ 240 characters), and goes on to
//!    the next segment until the target is reached.
//! 4. **Summaries.** A run's summary costs
//!    [`count_tokens`](super::count_tokens)`(options.model, summary)`; a run
//!    whose summary would not be smaller is left verbatim. A run of one
//!    item not yet compacted is summarized by [`summarize_item`] (the
//!    seed 002 tool-result preview for a tool result). Because earlier
//!    summaries roll up into the next run, the summaries of a session of
//!    any length fit: a session needs at most one summary per stretch
//!    between protected items.
//! 5. **Overflow.** If, with every compactable unit compacted, the context is
//!    still above `capacity`, the result is [`Error::ContextOverflow`] with
//!    the breakdown of what is left (see [`ContextOverflowBreakdown`] for the
//!    categories). If it fits `capacity` but not the target, the plan is
//!    returned with `reached_target = false`.
//! 6. **Idempotent.** Planning again on `plan.apply(items)` yields no
//!    transformations and the same token total.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::tokens::{count_with, encoding_for_model};
use crate::error::{ContextOverflowBreakdown, Error, Result};

/// Maximum length of a summary, in Unicode scalar values (seed 000: "up to
/// 240 characters").
pub const SUMMARY_MAX_CHARS: usize = 240;
/// Default compaction target, percent of capacity (seed 000: "≤70%").
pub const DEFAULT_TARGET_PERCENT: u8 = 70;
/// Default number of recent user turns kept verbatim.
pub const DEFAULT_RECENT_USER_TURNS: usize = 2;

/// What an item of the active context is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// A user or assistant message without tool calls.
    Message,
    /// An assistant message that makes one or more tool calls.
    ToolCall,
    /// The result of one tool call.
    ToolResult,
    /// A system prompt or system notice (always protected).
    System,
}

/// One item of the active model context, in the order it would be sent
/// (`compact_context` input, `apply_compaction` output). Python also
/// accepts a plain dict of these fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextItem {
    /// Transcript sequence number; strictly increasing along the list.
    ///
    /// Transcript sequence number; strictly increasing along the slice.
    pub seq: u64,
    /// `user`, `assistant`, `tool`, `system`... (`user` + `message` counts as a user turn).
    pub role: String,
    /// What the item is.
    pub kind: ItemKind,
    /// Tokens the item costs in the request.
    ///
    /// Tokens the item costs in the request (host count or [`count_tokens`](super::count_tokens)).
    pub tokens: u64,
    /// Pinned by the user: always verbatim.
    #[serde(default)]
    pub pinned: bool,
    /// The item's text (for a tool call: the serialized calls). Read only to summarize.
    #[serde(default)]
    pub text: String,
    /// Tool-call ids linking calls and results.
    ///
    /// Tool-call ids linking calls and results; a message with parallel calls carries several.
    #[serde(default)]
    pub call_ids: Vec<String>,
    /// Already a summary from an earlier compaction; never summarized again.
    #[serde(default)]
    pub compacted: bool,
}

/// Planner options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CompactionOptions {
    /// User turns kept verbatim at the end of the context (default 2).
    ///
    /// User turns kept verbatim at the end of the context (default 2); see rule 2 of the module docs.
    pub recent_user_turns: usize,
    /// Model whose tokenizer counts the summaries (`null`/`nil`: `⌈UTF-8 bytes / 3⌉`).
    ///
    /// Model whose tokenizer counts the summaries (`None`: the estimate `⌈UTF-8 bytes / 3⌉`).
    pub model: Option<String>,
}

impl Default for CompactionOptions {
    fn default() -> Self {
        CompactionOptions { recent_user_turns: DEFAULT_RECENT_USER_TURNS, model: None }
    }
}

/// What compaction did to one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionAction {
    /// A message or tool call replaced by a summary.
    Summarized,
    /// A tool result replaced by `[tool result: N bytes, truncated to preview] …`.
    ToolResultPreview,
}

/// The transformation record of one compacted item, or of a run of items
/// from `seq` to `last_seq` replaced by one summary.
///
/// The transformation record of one compacted item, or of a run of items
/// (`last_seq` set) replaced by one summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transformation {
    /// The item's seq (a run: its first item's seq).
    pub seq: u64,
    /// A run: the seq of its last item; none: one item.
    ///
    /// A run: the seq of its last item; every item from `seq` to `last_seq`
    /// of the active context is replaced by `summary`. `None`: one item.
    #[serde(default)]
    pub last_seq: Option<u64>,
    /// What was done.
    pub action: CompactionAction,
    /// Tokens before (the item's tokens).
    ///
    /// Tokens before (the item's `tokens`; a run: the sum over its items).
    pub tokens_before: u64,
    /// Tokens of `summary`.
    pub tokens_after: u64,
    /// The replacement text, at most 240 characters.
    pub summary: String,
}

/// A compaction plan (the saved transcript is never modified).
///
/// The result of [`compact_context`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionPlan {
    /// Effective Context Capacity planned against (tokens).
    pub capacity: u64,
    /// Target utilization (percent).
    pub target_percent: u8,
    /// `⌊capacity × target_percent / 100⌋` (tokens).
    ///
    /// `⌊capacity × target_percent / 100⌋` (tokens): the plan aims at `tokens_after ≤ target_tokens`.
    pub target_tokens: u64,
    /// Sum of the items' tokens before the plan.
    pub tokens_before: u64,
    /// Sum after the plan is applied.
    pub tokens_after: u64,
    /// `tokens_after ≤ target_tokens`; false: everything compactable was
    /// compacted and the context fits capacity but not the target.
    ///
    /// `tokens_after ≤ target_tokens`. `false` means every compactable unit
    /// was compacted and the context fits capacity but not the target.
    pub reached_target: bool,
    /// One record per compacted item or run, in seq order. Empty: nothing to do.
    pub transformations: Vec<Transformation>,
}

impl CompactionPlan {
    /// Seqs of the compacted items, ascending (a run: every seq from its
    /// `seq` to its `last_seq`).
    pub fn compacted_seqs(&self) -> Vec<u64> {
        self.transformations.iter().flat_map(|t| t.seq..=t.last_seq.unwrap_or(t.seq)).collect()
    }

    /// The active context after the plan: each transformed item gets
    /// `text = summary`, `tokens = tokens_after`, `compacted = true`; a run
    /// becomes one such item (its first) and its other items are left out;
    /// all other items are returned unchanged.
    pub fn apply(&self, items: &[ContextItem]) -> Vec<ContextItem> {
        let mut out = Vec::with_capacity(items.len());
        let mut t = self.transformations.iter().peekable();
        for item in items {
            while t.peek().is_some_and(|x| x.last_seq.unwrap_or(x.seq) < item.seq) {
                t.next();
            }
            match t.peek() {
                Some(x) if x.seq == item.seq => {
                    let mut item = item.clone();
                    item.text = x.summary.clone();
                    item.tokens = x.tokens_after;
                    item.compacted = true;
                    if x.last_seq.is_some() {
                        item.call_ids.clear();
                        item.kind = ItemKind::Message;
                    }
                    out.push(item);
                }
                Some(x) if x.seq < item.seq => {} // inside a run
                _ => out.push(item.clone()),
            }
        }
        out
    }
}

fn is_extender(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}'   // combining diacritics
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{200C}'..='\u{200D}' // ZWNJ, ZWJ
        | '\u{20D0}'..='\u{20FF}' // combining marks for symbols (keycap)
        | '\u{3099}'..='\u{309A}' // kana voicing marks
        | '\u{FE00}'..='\u{FE0F}' // variation selectors
        | '\u{FE20}'..='\u{FE2F}'
        | '\u{1F3FB}'..='\u{1F3FF}' // emoji skin tones
        | '\u{E0020}'..='\u{E007F}' // emoji tag sequences
        | '\u{E0100}'..='\u{E01EF}')
}

fn is_regional_indicator(c: char) -> bool {
    ('\u{1F1E6}'..='\u{1F1FF}').contains(&c)
}

/// Cut `s` to at most `max` Unicode scalar values; when it is cut, the kept
/// part ends with `…` (counted in `max`). The cut never lands inside a UTF-8
/// sequence, and is moved back so it does not split an emoji ZWJ sequence,
/// a skin-tone or variation-selector modifier, a combining mark, or a flag
/// (regional-indicator pair): an approximation of grapheme-cluster boundaries
/// that needs no segmentation tables.
pub fn truncate_chars(s: &str, max: usize) -> String {
    // Byte offsets of the first `max` chars; `None` when `s` has at most `max` chars.
    let Some((cut_at_max, _)) = s.char_indices().nth(max) else {
        return s.to_string();
    };
    if max == 0 {
        return String::new();
    }
    let head = &s[..cut_at_max];
    // `kept` = head minus its last char (room for the ellipsis); back off
    // while the next char would extend the last kept one.
    let mut kept = &head[..head.char_indices().next_back().map_or(0, |(i, _)| i)];
    let mut next = head[kept.len()..].chars().next();
    while let (Some(last), Some(n)) = (kept.chars().next_back(), next) {
        let split_flag = is_regional_indicator(n)
            && is_regional_indicator(last)
            && kept.chars().rev().take_while(|c| is_regional_indicator(*c)).count() % 2 == 1;
        if is_extender(n) || last == '\u{200D}' || split_flag {
            kept = &kept[..kept.len() - last.len_utf8()];
            next = Some(last);
        } else {
            break;
        }
    }
    let mut out = String::with_capacity(kept.len() + '…'.len_utf8());
    out.push_str(kept);
    out.push('…');
    out
}

/// The deterministic summary of one item (seed 000: at most 240 characters).
///
/// * tool result: `[tool result: N bytes, truncated to preview] <preview>`,
///   `N` = UTF-8 byte length of the full text (seed 002);
/// * tool call: `[<role> tool call <id>,<id>] <preview>`;
/// * message / system: `[<role>] <preview>`;
///
/// where `<preview>` is the text with every run of whitespace collapsed to
/// one space, and the whole line is cut by [`truncate_chars`] to
/// [`SUMMARY_MAX_CHARS`].
pub fn summarize_item(item: &ContextItem) -> String {
    let mut line = match item.kind {
        ItemKind::ToolResult => format!("[tool result: {} bytes, truncated to preview]", item.text.len()),
        ItemKind::ToolCall => format!("[{} tool call {}]", item.role, item.call_ids.join(",")),
        ItemKind::Message | ItemKind::System => format!("[{}]", item.role),
    };
    // Collapse whitespace, stopping once the line is certainly longer than the cap.
    let mut len = line.chars().count();
    for word in item.text.split_whitespace() {
        if len > SUMMARY_MAX_CHARS {
            break;
        }
        line.push(' ');
        line.push_str(word);
        len += 1 + word.chars().count();
    }
    truncate_chars(&line, SUMMARY_MAX_CHARS)
}

/// The text a run's summary previews: an earlier summary's own preview
/// (after its `[...] ` header), else the item's text.
fn preview_source(item: &ContextItem) -> &str {
    if item.compacted && item.text.starts_with('[') {
        if let Some(i) = item.text.find("] ") {
            return &item.text[i + 2..];
        }
    }
    &item.text
}

/// The deterministic summary of a run of items (DESIGN.md "Context
/// governance": runs): `[compacted seq <first>–<last>: <n> items, <tokens>
/// tokens] <preview>`, where `<preview>` is the whitespace-collapsed text of
/// the run's first user message (else its first item; an earlier run
/// summary keeps its own preview), cut by [`truncate_chars`] to
/// [`SUMMARY_MAX_CHARS`]. A run of one item that is not yet compacted is
/// summarized by [`summarize_item`] instead, as before runs existed.
pub fn summarize_run(items: &[ContextItem], tokens: u128) -> String {
    let first = &items[0];
    let last = &items[items.len() - 1];
    let lead = items.iter().find(|i| i.kind == ItemKind::Message && i.role == "user").unwrap_or(first);
    let mut line = format!("[compacted seq {}–{}: {} items, {tokens} tokens]", first.seq, last.seq, items.len());
    let mut len = line.chars().count();
    for word in preview_source(lead).split_whitespace() {
        if len > SUMMARY_MAX_CHARS {
            break;
        }
        line.push(' ');
        line.push_str(word);
        len += 1 + word.chars().count();
    }
    truncate_chars(&line, SUMMARY_MAX_CHARS)
}

/// The transformation of compacting `run` (consecutive items, `tokens` their sum).
fn run_transformation(run: &[ContextItem], tokens: u128, encoding: Option<super::tokens::Encoding>) -> Transformation {
    let first = &run[0];
    let before = u64::try_from(tokens).unwrap_or(u64::MAX);
    if run.len() == 1 && !first.compacted {
        let summary = summarize_item(first);
        return Transformation {
            seq: first.seq,
            last_seq: None,
            action: if first.kind == ItemKind::ToolResult { CompactionAction::ToolResultPreview } else { CompactionAction::Summarized },
            tokens_before: before,
            tokens_after: count_with(encoding, &summary),
            summary,
        };
    }
    let summary = summarize_run(run, tokens);
    Transformation {
        seq: first.seq,
        last_seq: Some(run[run.len() - 1].seq),
        action: CompactionAction::Summarized,
        tokens_before: before,
        tokens_after: count_with(encoding, &summary),
        summary,
    }
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    let mut root = i;
    while parent[root] != root {
        root = parent[root];
    }
    while parent[i] != root {
        let next = parent[i];
        parent[i] = root;
        i = next;
    }
    root
}

/// Why an item cannot be compacted (the overflow breakdown's categories).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Protection {
    None,
    System,
    Pinned,
    Recent,
}

/// The widest seq range one [`compact_context`] call plans over (last seq
/// − first seq): a plan's `compacted_seqs` lists every seq of its runs, so
/// this bounds that list at 80 MB. A transcript this long is 100 times the
/// longest session the benchmarks compact (100,000 turns).
pub const MAX_CONTEXT_SEQ_SPAN: u64 = 10_000_000;

/// Plan the compaction of the active context (seed 000, "Context Compaction";
/// rules in the module docs).
///
/// * `items`: the active context in request order, seqs strictly increasing.
/// * `capacity`: Effective Context Capacity (tokens), > 0.
/// * `target_percent`: 0–100, default [`DEFAULT_TARGET_PERCENT`] (70).
/// * `options`: recent-window size and the summary tokenizer.
///
/// Runs in O(n α(n)) plus the summaries actually written. Call it when
/// [`should_compact`](super::should_compact) says so, or on demand (`/compact`);
/// when the context is already at or below the target the plan is empty.
///
/// # Errors
/// * [`Error::InvalidInput`]: capacity 0, target above 100, seqs not
///   strictly increasing or spanning [`MAX_CONTEXT_SEQ_SPAN`] seqs or more.
/// * [`Error::ContextOverflow`]: even with every compactable unit compacted
///   the context exceeds `capacity`. The breakdown assigns every remaining
///   token to one category, first match wins: `system` (kind `System`),
///   `pinned`, `recent` (the recent window), `tool_results` (tool results
///   kept because their unit is protected), `other` (everything else that
///   remains: calls or messages tied to a protected unit, items already
///   compacted, units whose summary would not be smaller, and the summaries
///   themselves). `protected_total` is their sum; `remedies` are plain
///   sentences, most useful first.
pub fn compact_context(
    items: &[ContextItem],
    capacity: u64,
    target_percent: Option<u8>,
    options: &CompactionOptions,
) -> Result<CompactionPlan> {
    match plan_runs(items, capacity, target_percent, options)? {
        (plan, None) => Ok(plan),
        (_, Some(b)) => Err(Error::ContextOverflow(Box::new(b))),
    }
}

/// [`compact_context`], returning the plan also when it overflows (with the
/// breakdown): the runs chosen so far name the items whose text the
/// summaries read (see `context::session`).
pub(crate) fn plan_runs(
    items: &[ContextItem],
    capacity: u64,
    target_percent: Option<u8>,
    options: &CompactionOptions,
) -> Result<(CompactionPlan, Option<ContextOverflowBreakdown>)> {
    if capacity == 0 {
        return Err(Error::invalid("capacity is 0 tokens"));
    }
    let target_percent = target_percent.unwrap_or(DEFAULT_TARGET_PERCENT);
    if target_percent > 100 {
        return Err(Error::invalid(format!("target percent {target_percent} is above 100")));
    }
    if let Some(w) = items.windows(2).find(|w| w[0].seq >= w[1].seq) {
        return Err(Error::invalid(format!(
            "context item seqs must be strictly increasing (seq {} is followed by {})",
            w[0].seq, w[1].seq
        )));
    }
    // A run covers every seq from its first to its last item
    // (`CompactionPlan::compacted_seqs`): host-built items with seqs 1 and
    // 2^63 made that one allocation abort the process.
    if let (Some(first), Some(last)) = (items.first(), items.last()) {
        if last.seq - first.seq >= MAX_CONTEXT_SEQ_SPAN {
            return Err(Error::invalid(format!(
                "context item seqs span {} to {}, more than {MAX_CONTEXT_SEQ_SPAN} seqs",
                first.seq, last.seq
            )));
        }
    }
    let cap = u128::from(capacity);
    let target_tokens = u64::try_from(cap * u128::from(target_percent) / 100).expect("≤ capacity");
    let tokens_before: u128 = items.iter().map(|i| u128::from(i.tokens)).sum();
    let within_target = |total: u128| total * 100 <= cap * u128::from(target_percent);

    let mut plan = CompactionPlan {
        capacity,
        target_percent,
        target_tokens,
        tokens_before: u64::try_from(tokens_before).unwrap_or(u64::MAX),
        tokens_after: u64::try_from(tokens_before).unwrap_or(u64::MAX),
        reached_target: within_target(tokens_before),
        transformations: Vec::new(),
    };
    if plan.reached_target {
        return Ok((plan, None));
    }

    let n = items.len();
    // Units: union-find over shared call ids; the root is the unit's oldest index.
    let mut parent: Vec<usize> = (0..n).collect();
    let mut owner: HashMap<&str, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        for id in &item.call_ids {
            match owner.get(id.as_str()) {
                Some(&j) => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    if a != b {
                        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                        parent[hi] = lo;
                    }
                }
                None => {
                    owner.insert(id.as_str(), i);
                }
            }
        }
    }
    // Members of each unit as linked lists in index order.
    let root: Vec<usize> = (0..n).map(|i| find(&mut parent, i)).collect();
    let mut next = vec![usize::MAX; n];
    let mut tail = vec![usize::MAX; n];
    for (i, &r) in root.iter().enumerate() {
        if tail[r] != usize::MAX {
            next[tail[r]] = i;
        }
        tail[r] = i;
    }

    // Recent window start.
    let recent_start = if options.recent_user_turns == 0 {
        n
    } else {
        let mut seen = 0usize;
        let mut start = n;
        for (i, item) in items.iter().enumerate().rev() {
            if item.kind == ItemKind::Message && item.role == "user" && !item.compacted {
                seen += 1;
                start = i;
                if seen == options.recent_user_turns {
                    break;
                }
            }
        }
        start
    };
    let protection = |i: usize| -> Protection {
        let item = &items[i];
        if item.kind == ItemKind::System {
            Protection::System
        } else if item.pinned {
            Protection::Pinned
        } else if i >= recent_start {
            Protection::Recent
        } else {
            Protection::None
        }
    };
    let mut unit_protected = vec![false; n];
    for i in 0..n {
        if protection(i) != Protection::None {
            unit_protected[root[i]] = true;
        }
    }

    // Units cannot straddle a protected item: a unit with a protected item
    // between its first and last member is kept verbatim whole.
    let mut unit_end = vec![0usize; n];
    for i in 0..n {
        unit_end[root[i]] = unit_end[root[i]].max(i);
    }
    let mut protected_before = vec![0usize; n + 1]; // protected items among 0..i
    for i in 0..n {
        protected_before[i + 1] = protected_before[i] + usize::from(protection(i) != Protection::None);
    }
    for r in 0..n {
        if root[r] == r && !unit_protected[r] && protected_before[unit_end[r] + 1] > protected_before[r] {
            unit_protected[r] = true;
        }
    }
    let compactable = |i: usize| !unit_protected[root[i]];

    // Runs, oldest first: each maximal stretch of compactable items (earlier
    // summaries included: they roll up) is a segment; the plan compacts the
    // shortest prefix of the oldest segment that reaches the target, ending
    // where no unit continues past it, or the whole segment and goes on.
    let encoding = options.model.as_deref().and_then(encoding_for_model);
    let mut total = tokens_before;
    let mut in_plan = vec![false; n];
    let mut start = 0usize;
    while start < n && !within_target(total) {
        if !compactable(start) {
            start += 1;
            continue;
        }
        let mut end = start;
        while end + 1 < n && compactable(end + 1) {
            end += 1;
        }
        // Candidate run ends: indices k where every unit begun in start..=k ends by k.
        let (mut sum, mut reach, mut chosen) = (0u128, 0usize, None);
        for k in start..=end {
            sum += u128::from(items[k].tokens);
            reach = reach.max(unit_end[root[k]]);
            if reach > k {
                continue;
            }
            // A summary costs at least a token: test that bound before writing one.
            if !within_target(total - sum + 1) && k < end {
                continue;
            }
            let t = run_transformation(&items[start..=k], sum, encoding);
            if within_target(total - sum + u128::from(t.tokens_after)) || k == end {
                chosen = Some((k, sum, t));
                break;
            }
        }
        if let Some((k, sum, t)) = chosen.filter(|(_, sum, t)| u128::from(t.tokens_after) < *sum) {
            total -= sum - u128::from(t.tokens_after);
            in_plan[start..=k].iter_mut().for_each(|x| *x = true);
            plan.transformations.push(t);
        }
        start = end + 1;
    }

    if total > cap {
        let mut b = ContextOverflowBreakdown {
            capacity,
            system: 0,
            pinned: 0,
            recent: 0,
            tool_results: 0,
            other: 0,
            protected_total: 0,
            remedies: Vec::new(),
        };
        for t in &plan.transformations {
            b.other = b.other.saturating_add(t.tokens_after);
        }
        for i in (0..n).filter(|&i| !in_plan[i]) {
            let tokens = items[i].tokens;
            let slot = match protection(i) {
                Protection::System => &mut b.system,
                Protection::Pinned => &mut b.pinned,
                Protection::Recent => &mut b.recent,
                Protection::None if unit_protected[root[i]] && items[i].kind == ItemKind::ToolResult => {
                    &mut b.tool_results
                }
                Protection::None => &mut b.other,
            };
            *slot = slot.saturating_add(tokens);
        }
        b.protected_total = u64::try_from(total).unwrap_or(u64::MAX);
        b.remedies = remedies(&b, options.recent_user_turns);
        return Ok((plan, Some(b)));
    }

    plan.tokens_after = u64::try_from(total).expect("total ≤ capacity");
    plan.reached_target = within_target(total);
    Ok((plan, None))
}

/// Index (into `items`) of the item whose text the summary of `t` reads:
/// the item itself for one item, else the run's first user message (an
/// earlier summary's included), else its first item, as [`summarize_run`]
/// picks it.
pub(crate) fn summary_source(items: &[ContextItem], t: &Transformation) -> Option<usize> {
    let first = items.iter().position(|i| i.seq == t.seq)?;
    let Some(last) = t.last_seq else { return Some(first) };
    Some(
        items[first..]
            .iter()
            .take_while(|i| i.seq <= last)
            .position(|i| i.kind == ItemKind::Message && i.role == "user")
            .map_or(first, |k| first + k),
    )
}

/// Remedies for an Irreducible Context Overflow, most useful first; each
/// names only categories and token counts, never content.
fn remedies(b: &ContextOverflowBreakdown, recent_user_turns: usize) -> Vec<String> {
    let mut out = Vec::new();
    if b.pinned > 0 {
        out.push(format!("Unpin turns that no longer need to be verbatim (pinned: {} tokens).", b.pinned));
    }
    if b.tool_results > 0 {
        out.push(format!("Exclude large tool results from the next request (tool results: {} tokens).", b.tool_results));
    }
    if b.recent > 0 && recent_user_turns > 1 {
        out.push(format!(
            "Keep fewer recent turns verbatim (recent: {} tokens in the last {recent_user_turns} user turns).",
            b.recent
        ));
    }
    if b.recent > 0 {
        out.push(format!("Exclude or shorten large recent turns (recent: {} tokens).", b.recent));
    }
    if b.system > 0 {
        out.push(format!("Shorten the system prompt (system: {} tokens).", b.system));
    }
    out.push(format!("Switch to a model with a larger context window (needed: {} tokens, capacity: {} tokens).", b.protected_total, b.capacity));
    out.push("Start a new session that references this one.".to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(seq: u64, role: &str, kind: ItemKind, tokens: u64, text: &str, call_ids: &[&str]) -> ContextItem {
        ContextItem {
            seq,
            role: role.into(),
            kind,
            tokens,
            pinned: false,
            text: text.into(),
            call_ids: call_ids.iter().map(|s| s.to_string()).collect(),
            compacted: false,
        }
    }

    #[test]
    fn truncation_never_splits_multibyte_or_emoji_sequences() {
        assert_eq!(truncate_chars("abc", 3), "abc");
        assert_eq!(truncate_chars("abcd", 3), "ab…");
        assert_eq!(truncate_chars("日本語テキスト", 4), "日本語…");
        // family emoji: man ZWJ woman ZWJ girl (5 scalars), cut inside it.
        assert_eq!(truncate_chars("ab👨\u{200D}👩\u{200D}👧", 5), "ab…");
        // thumbs up + skin tone: the modifier stays with its base.
        assert_eq!(truncate_chars("a👍🏽b", 3), "a…");
        // flags: 🇯🇵🇫🇷 must not become 🇯🇵🇫.
        assert_eq!(truncate_chars("🇯🇵🇫🇷x", 4), "🇯🇵…");
    }

    #[test]
    fn tool_result_summary_states_full_size() {
        let it = item(3, "tool", ItemKind::ToolResult, 900, "line one\n\n  line two", &["A"]);
        assert_eq!(summarize_item(&it), "[tool result: 20 bytes, truncated to preview] line one line two");
    }

    #[test]
    fn nothing_to_do_below_target() {
        let items = vec![item(1, "user", ItemKind::Message, 70, "hi", &[])];
        let plan = compact_context(&items, 100, None, &CompactionOptions::default()).unwrap();
        assert!(plan.transformations.is_empty());
        assert!(plan.reached_target);
        assert_eq!(plan.tokens_after, 70);
    }

    #[test]
    fn seqs_spanning_more_than_the_bound_are_refused_not_expanded() {
        let opts = CompactionOptions::default();
        let far = |a: u64, b: u64| vec![item(a, "user", ItemKind::Message, 900, "a", &[]), item(b, "user", ItemKind::Message, 900, "b", &[])];
        // 1 and 2^63 aborted the process in compacted_seqs (capacity overflow).
        let e = compact_context(&far(1, 1 << 63), 1000, Some(10), &opts).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidInput);
        assert_eq!(e.to_string(), "invalid input: context item seqs span 1 to 9223372036854775808, more than 10000000 seqs");
        assert_eq!(compact_context(&far(1, MAX_CONTEXT_SEQ_SPAN + 1), 1000, Some(10), &opts).unwrap_err().kind(), crate::ErrorKind::InvalidInput);
        // Just inside the bound a sparse list still plans.
        let plan = compact_context(&far(1, MAX_CONTEXT_SEQ_SPAN), 100_000, Some(1), &CompactionOptions { recent_user_turns: 0, ..opts }).unwrap();
        assert_eq!(plan.tokens_before, 1800);
    }

}
