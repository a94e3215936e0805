//! Persistence of context governance: pins, exclusions and compaction
//! records as context extensions, and their replay after a restart (what
//! `/context` shows: which turns are verbatim, compacted or excluded).
//!
//! Source: seed 000, "Context Compaction" ("Use /context to inspect which
//! turns are verbatim, compacted, or excluded") and "Session Restoration
//! Boundary" ("Pinned turns and compaction history" are restored).
//!
//! # Stored shape
//! Each decision is one context extension (body encrypted by the store),
//! replayed in `n` order:
//!
//! | kind | body (JSON) | effect on the listed seqs |
//! |---|---|---|
//! | `pin` | `{"seqs": [3, 4]}` | pinned; a compacted turn becomes verbatim again |
//! | `unpin` | `{"seqs": [3]}` | no longer pinned (stays verbatim until the next compaction) |
//! | `exclude` | `{"seqs": [7]}` | left out of the next request |
//! | `include` | `{"seqs": [7]}` | back in (verbatim, or compacted if it was) |
//! | `compaction` | a [`CompactionPlan`] | each transformed seq is compacted, with its summary |
//!
//! A body of the form `{"seq": 3}` is accepted for the first four kinds.
//! Extensions of any other kind are not governance and are ignored here.
//! The transcript itself is never modified.
//!
//! # Replayed shape
//! The compactions in force are runs ([`CompactedRun`]: a seq range and its
//! transformation, held once however many seqs it covers), ascending and
//! non-overlapping, so memory is O(runs + seqs) and never O(seqs × summary
//! bytes): a 100,000-turn session whose one run carries a 20 KB summary
//! holds one run. A pin inside a run splits it into two runs sharing one
//! `Arc<Transformation>`; a later run replaces an earlier one seq by seq
//! (the earlier one keeps the seqs the later one does not cover). A turn
//! ([`TurnGovernance`]) names its run (`compacted_by`) instead of holding a
//! copy of it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::planner::{CompactionPlan, ContextItem, ItemKind, Transformation};
use super::tokens::count_tokens;
use crate::error::{Error, Result};
use crate::store::{ContextExtensionRecord, SessionStore, TranscriptEntry};

/// Extension kind of a pin.
pub const KIND_PIN: &str = "pin";
/// Extension kind of an unpin.
pub const KIND_UNPIN: &str = "unpin";
/// Extension kind of an exclusion.
pub const KIND_EXCLUDE: &str = "exclude";
/// Extension kind that reverses an exclusion.
pub const KIND_INCLUDE: &str = "include";
/// Extension kind of a recorded compaction plan.
pub const KIND_COMPACTION: &str = "compaction";
/// Every governance kind, in the table's order.
pub const GOVERNANCE_KINDS: [&str; 5] = [KIND_PIN, KIND_UNPIN, KIND_EXCLUDE, KIND_INCLUDE, KIND_COMPACTION];

/// What the next request does with a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnState {
    /// Sent as stored.
    Verbatim,
    /// Sent as its compaction summary.
    Compacted,
    /// Not sent.
    Excluded,
}

/// One turn as `/context` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnGovernance {
    /// Transcript seq.
    pub seq: u64,
    /// Verbatim, compacted or excluded (exclusion wins over compaction).
    pub state: TurnState,
    /// Pinned by the user.
    pub pinned: bool,
    /// The run in force for this turn, if any: its `first_seq` in
    /// `compacted` (of the `ContextStatus` or `ContextGovernance` it came
    /// with). Kept while excluded, so `include` brings the summary back.
    ///
    /// The run in force for this turn, if any: its [`CompactedRun::first_seq`]
    /// (a key of [`ContextGovernance::compacted`] and of
    /// [`super::ContextStatus::compacted`]; look it up with
    /// [`ContextGovernance::run_of`]). Kept while the turn is excluded, so
    /// `include` brings the summary back. The turn refers to its run and
    /// never holds a copy of the summary.
    pub compacted_by: Option<u64>,
}

/// A compaction run in force: seqs `first_seq..=last_seq` are sent as
/// `transformation`'s summary, held once for the whole range (a pin inside
/// a recorded run leaves two runs with the same transformation).
///
/// A compaction run in force: seqs `first_seq..=last_seq` of the transcript
/// are sent as `transformation`'s summary (a single-item transformation: one
/// seq). The transformation is held once for the whole range; two runs left
/// by a pin inside one recorded run share one allocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactedRun {
    /// First seq this run is in force for.
    ///
    /// First seq this run is in force for (>= the transformation's `seq`).
    pub first_seq: u64,
    /// Last seq this run is in force for (>= `first_seq`).
    ///
    /// Last seq this run is in force for (>= `first_seq`; <= the
    /// transformation's `last_seq`, or its `seq` for a single item).
    pub last_seq: u64,
    /// The transformation as recorded (its `seq`/`last_seq`: the run as
    /// recorded, before a pin or a later run took seqs from it).
    ///
    /// The recorded transformation (its `seq`/`last_seq` are the run as
    /// recorded, before any pin or later run took seqs from it). JSON: the
    /// transformation's object.
    #[serde(with = "shared")]
    pub transformation: Arc<Transformation>,
}

/// Serde of an `Arc<Transformation>` as the transformation itself (serde's
/// own `Arc` support is behind its `rc` feature).
mod shared {
    use super::Transformation;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::sync::Arc;

    pub fn serialize<S: Serializer>(t: &Arc<Transformation>, s: S) -> Result<S::Ok, S::Error> {
        t.as_ref().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<Transformation>, D::Error> {
        Transformation::deserialize(d).map(Arc::new)
    }
}

/// One recorded compaction (history entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionHistoryEntry {
    /// The context extension's number.
    pub n: u64,
    /// When it was recorded, ms since the Unix epoch.
    pub created_at_ms: i64,
    /// The plan as recorded.
    pub plan: CompactionPlan,
}

/// The replayed governance state of a session (pins, exclusions, compactions).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextGovernance {
    /// Pinned seqs, ascending.
    pub pinned: BTreeSet<u64>,
    /// Excluded seqs, ascending.
    pub excluded: BTreeSet<u64>,
    /// The compaction runs in force, ascending by `first_seq` and
    /// non-overlapping (each seq in at most one): every summary once,
    /// however many seqs its run covers.
    ///
    /// The compaction runs in force, ascending by `first_seq` and
    /// non-overlapping: each seq is in at most one run, whose transformation
    /// is the latest recorded for it, unless a later pin made the turn
    /// verbatim again (the run is then split around it). Look a seq up with
    /// [`Self::compaction_of`] / [`Self::run_of`] (O(log runs)).
    pub compacted: Vec<CompactedRun>,
    /// Every recorded compaction, oldest first.
    pub history: Vec<CompactionHistoryEntry>,
}

#[derive(Deserialize)]
struct SeqsBody {
    #[serde(default)]
    seqs: Vec<u64>,
    #[serde(default)]
    seq: Option<u64>,
}

impl ContextGovernance {
    /// Replay context extensions (any kinds, in `n` order as
    /// [`SessionStore::list_context_extensions`] returns them); kinds other
    /// than [`GOVERNANCE_KINDS`] are skipped.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when a governance extension's body does not have the
    /// documented shape (the message names its `n` and kind, never content).
    pub fn replay(records: &[ContextExtensionRecord]) -> Result<Self> {
        let mut g = ContextGovernance::default();
        let mut runs = Runs::default();
        for r in records {
            let bad = || Error::corrupt(format!("context extension {} of kind `{}` has an unexpected body", r.n, r.kind));
            match r.kind.as_str() {
                KIND_PIN | KIND_UNPIN | KIND_EXCLUDE | KIND_INCLUDE => {
                    let body: SeqsBody = serde_json::from_str(&r.body).map_err(|_| bad())?;
                    for seq in body.seqs.into_iter().chain(body.seq) {
                        match r.kind.as_str() {
                            KIND_PIN => {
                                g.pinned.insert(seq);
                                runs.carve(seq, seq);
                            }
                            KIND_UNPIN => {
                                g.pinned.remove(&seq);
                            }
                            KIND_EXCLUDE => {
                                g.excluded.insert(seq);
                            }
                            _ => {
                                g.excluded.remove(&seq);
                            }
                        }
                    }
                }
                KIND_COMPACTION => {
                    let plan: CompactionPlan = serde_json::from_str(&r.body).map_err(|_| bad())?;
                    for t in &plan.transformations {
                        // A run is in force for every seq it covers (a later
                        // run that rolls it up replaces it seq by seq): one
                        // range, its transformation held once.
                        runs.assign(t.seq, t.last_seq.unwrap_or(t.seq).max(t.seq), Arc::new(t.clone()));
                    }
                    g.history.push(CompactionHistoryEntry { n: r.n, created_at_ms: r.created_at_ms, plan });
                }
                _ => {}
            }
        }
        g.compacted = runs.into_vec();
        Ok(g)
    }

    /// Check that `body` has the shape its governance `kind` needs (other
    /// kinds pass). Called by the store before a context extension is
    /// written, so a bad body can never make a session's governance unreadable.
    ///
    /// # Errors
    /// `InvalidInput` naming the kind.
    pub fn validate_body(kind: &str, body: &str) -> Result<()> {
        let rec = ContextExtensionRecord { session_id: String::new(), n: 0, kind: kind.to_string(), body: body.to_string(), created_at_ms: 0 };
        Self::replay(std::slice::from_ref(&rec))
            .map(|_| ())
            .map_err(|_| Error::invalid(format!("a `{kind}` context extension body must be {}", match kind {
                KIND_COMPACTION => "a compaction plan",
                _ => "{\"seqs\": [seq, ...]} or {\"seq\": seq} with seqs >= 1",
            })))
    }

    /// The run in force for `seq`, if any (binary search: O(log runs);
    /// [`Self::compacted`] ascending and non-overlapping, as replay builds it).
    pub fn run_of(&self, seq: u64) -> Option<&CompactedRun> {
        let i = self.compacted.partition_point(|r| r.first_seq <= seq);
        self.compacted[..i].last().filter(|r| r.last_seq >= seq)
    }

    /// The transformation in force for `seq`, if any (O(log runs), see
    /// [`Self::run_of`]).
    pub fn compaction_of(&self, seq: u64) -> Option<&Transformation> {
        self.run_of(seq).map(|r| &*r.transformation)
    }

    /// Check a state a host built by hand (every state replay builds
    /// passes): [`Self::compacted`] ascending and non-overlapping, each run
    /// `1 <= first_seq <= last_seq` and inside its transformation's own seqs
    /// (`transformation.seq ..= transformation.last_seq`, or that one seq).
    ///
    /// # Errors
    /// `InvalidInput` naming the first run that breaks a rule (a state that
    /// broke them made turns vanish from the active context, or be
    /// reported compacted by a summary of other turns).
    pub fn check(&self) -> Result<()> {
        let mut after = 0;
        for r in &self.compacted {
            let (t_first, t_last) = (r.transformation.seq, r.transformation.last_seq.unwrap_or(r.transformation.seq));
            let why = if r.first_seq == 0 || r.first_seq > r.last_seq {
                "must have 1 <= first_seq <= last_seq"
            } else if r.first_seq <= after {
                "must come after the previous run (runs are ascending and do not overlap)"
            } else if r.first_seq < t_first || r.last_seq > t_last {
                "must lie inside its transformation's seqs"
            } else {
                after = r.last_seq;
                continue;
            };
            return Err(Error::invalid(format!(
                "compacted run {}..={} (transformation {t_first}..={t_last}) {why}",
                r.first_seq, r.last_seq
            )));
        }
        Ok(())
    }

    /// The state of one turn (exclusion wins, then compaction, else verbatim).
    pub fn state_of(&self, seq: u64) -> TurnState {
        if self.excluded.contains(&seq) {
            TurnState::Excluded
        } else if self.run_of(seq).is_some() {
            TurnState::Compacted
        } else {
            TurnState::Verbatim
        }
    }

    /// Per-turn view of seqs `1..=entry_count` (transcript seqs are gapless
    /// from 1; a session with retracted entries: see [`Self::turn`]).
    pub fn turns(&self, entry_count: u64) -> Vec<TurnGovernance> {
        (1..=entry_count).map(|seq| self.turn(seq)).collect()
    }

    /// The view of one turn.
    pub fn turn(&self, seq: u64) -> TurnGovernance {
        TurnGovernance { seq, state: self.state_of(seq), pinned: self.pinned.contains(&seq), compacted_by: self.run_of(seq).map(|r| r.first_seq) }
    }
}

/// The runs in force while replaying: first seq -> (last seq, transformation),
/// non-overlapping.
#[derive(Default)]
struct Runs(BTreeMap<u64, (u64, Arc<Transformation>)>);

impl Runs {
    /// Take `first..=last` out of every run (a run reaching past either end
    /// keeps the rest, sharing its transformation). O(log runs) per run touched.
    fn carve(&mut self, first: u64, last: u64) {
        let before = self.0.range(..first).next_back().filter(|(_, (l, _))| *l >= first).map(|(f, _)| *f);
        let inside: Vec<u64> = self.0.range(first..=last).map(|(f, _)| *f).collect();
        for f in before.into_iter().chain(inside) {
            let (l, t) = self.0.remove(&f).expect("a listed run");
            if f < first {
                self.0.insert(f, (first - 1, Arc::clone(&t)));
            }
            if l > last {
                self.0.insert(last + 1, (l, t));
            }
        }
    }

    /// `first..=last` (first <= last) is compacted by `t` from now on.
    fn assign(&mut self, first: u64, last: u64, t: Arc<Transformation>) {
        self.carve(first, last);
        self.0.insert(first, (last, t));
    }

    fn into_vec(self) -> Vec<CompactedRun> {
        self.0.into_iter().map(|(first_seq, (last_seq, transformation))| CompactedRun { first_seq, last_seq, transformation }).collect()
    }
}

/// The most turns [`governance_turns`] describes in one call (each is a
/// [`TurnGovernance`] of 32 bytes, which refers to its run and holds no
/// summary: 10^6 turns ≈ 32 MB).
pub const MAX_GOVERNANCE_TURNS: u64 = 1_000_000;

/// Per-turn view of seqs `1..=entry_count` under `governance` (exclusion
/// wins, then compaction); at most 1,000,000 turns.
///
/// [`ContextGovernance::turns`] for a host.
///
/// # Errors
/// `InvalidInput` when `entry_count` exceeds [`MAX_GOVERNANCE_TURNS`]
/// (a host-supplied count must not allocate without bound), or the state's
/// runs break [`ContextGovernance::check`].
pub fn governance_turns(governance: &ContextGovernance, entry_count: u64) -> Result<Vec<TurnGovernance>> {
    if entry_count > MAX_GOVERNANCE_TURNS {
        return Err(Error::invalid(format!("entry_count {entry_count} is above {MAX_GOVERNANCE_TURNS} turns")));
    }
    governance.check()?;
    Ok(governance.turns(entry_count))
}

/// Replay a session's pins, exclusions and compactions (after a restart).
///
/// # Errors
/// `NotFound` (session), `AuthenticationFailed` (a body was altered or
/// moved), `Corrupt` (see [`ContextGovernance::replay`]).
pub fn recover_context_governance(store: &SessionStore, session_id: &str) -> Result<ContextGovernance> {
    ContextGovernance::replay(&store.list_context_extensions(session_id)?)
}

/// Check a `compaction` body (a [`CompactionPlan`]) before it is stored:
/// every transformation covers seqs of the transcript (`1 <= seq <=
/// last_seq <= last`, where `last` is the session's last seq), the
/// transformations are ascending and do not overlap, and `target_percent`
/// is at most 100. A body that is not a plan passes (its shape is
/// [`ContextGovernance::validate_body`]'s).
///
/// # Errors
/// `InvalidInput` naming the transformation's seq or run, or the target.
pub(crate) fn check_compaction_plan(body: &str, last: u64) -> Result<()> {
    let Ok(plan) = serde_json::from_str::<CompactionPlan>(body) else { return Ok(()) };
    for t in &plan.transformations {
        match t.last_seq {
            Some(end) if end < t.seq => {
                return Err(Error::invalid(format!("compaction run {}..={end} ends before it starts", t.seq)));
            }
            Some(end) if t.seq == 0 || end > last => {
                return Err(Error::invalid(format!("compaction run {}..={end}: the transcript has seqs 1..={last}", t.seq)));
            }
            None if t.seq == 0 || t.seq > last => {
                return Err(Error::invalid(format!("compaction of seq {}: the transcript has seqs 1..={last}", t.seq)));
            }
            _ => {}
        }
    }
    // A replay would send two summaries for the seqs two runs share.
    let mut after = 0;
    for t in &plan.transformations {
        if t.seq <= after {
            return Err(Error::invalid(format!(
                "compaction of seq {} must come after seq {after} (transformations are ascending and do not overlap)",
                t.seq
            )));
        }
        after = t.last_seq.unwrap_or(t.seq);
    }
    if plan.target_percent > 100 {
        return Err(Error::invalid(format!("target_percent {} is above 100", plan.target_percent)));
    }
    Ok(())
}

fn check_seqs(store: &SessionStore, session_id: &str, seqs: &[u64]) -> Result<String> {
    let count = store.last_seq(session_id)?;
    if seqs.is_empty() {
        return Err(Error::invalid("no seqs given"));
    }
    if let Some(bad) = seqs.iter().find(|s| **s == 0 || **s > count) {
        return Err(Error::invalid(format!("seq {bad} is not in the transcript (1..={count})")));
    }
    Ok(serde_json::json!({ "seqs": seqs }).to_string())
}

/// Record a governance decision (`kind` = `pin`, `unpin`, `exclude` or
/// `include`) on transcript seqs; returns the extension number `n`.
///
/// # Errors
/// `InvalidInput` (another kind, no seqs, a seq outside `1..=entry_count`),
/// `NotFound` (session), `Busy`.
pub fn record_turn_decision(store: &SessionStore, session_id: &str, kind: &str, seqs: &[u64]) -> Result<u64> {
    if ![KIND_PIN, KIND_UNPIN, KIND_EXCLUDE, KIND_INCLUDE].contains(&kind) {
        return Err(Error::invalid("turn decision kind must be pin, unpin, exclude or include"));
    }
    let body = check_seqs(store, session_id, seqs)?;
    store.append_context_extension(session_id, kind, &body)
}

/// Record a compaction plan (a context extension); returns its number
/// `n`, or none for a plan without transformations (not recorded).
///
/// The extension's kind is `compaction`.
///
/// # Errors
/// `NotFound` (session), `Busy`, `InvalidInput` (a transformation whose
/// seq or run is outside the transcript, a run ending before it starts,
/// transformations not ascending or overlapping, `target_percent` above 100).
pub fn record_compaction(store: &SessionStore, session_id: &str, plan: &CompactionPlan) -> Result<Option<u64>> {
    if plan.transformations.is_empty() {
        store.get_session(session_id)?;
        return Ok(None);
    }
    // The store checks the plan when it writes it (check_compaction_plan).
    let body = serde_json::to_string(plan).expect("a plan serializes");
    store.append_context_extension(session_id, KIND_COMPACTION, &body).map(Some)
}

/// Tool-call ids and the item kind of a stored entry ([`crate::store::entry_shape`]).
fn kind_and_calls(entry: &TranscriptEntry) -> (ItemKind, Vec<String>) {
    let (kind, calls) = crate::store::entry_shape(entry.role, entry.format, &entry.content);
    (item_kind(kind), calls)
}

/// The planner's kind of a stored kind name (an unknown name is a message).
pub(crate) fn item_kind(name: &str) -> ItemKind {
    use crate::store::entry_kind as k;
    match name {
        k::TOOL_CALL => ItemKind::ToolCall,
        k::TOOL_RESULT => ItemKind::ToolResult,
        k::SYSTEM => ItemKind::System,
        _ => ItemKind::Message,
    }
}

/// The active context for the planner, from `entries` and `governance`
/// (as `recover_context_governance` returns it): excluded turns left out,
/// compacted turns as their summaries, tokens = the entry's count or
/// `count_tokens(model, content)`.
///
/// Compacted turns carry `compacted = true`, `tokens = tokens_after`; pinned
/// turns are marked. Pure.
///
/// # Errors
/// `InvalidInput` when `governance` breaks [`ContextGovernance::check`] (a
/// host-built state; replayed ones pass).
pub fn active_context_items(entries: &[TranscriptEntry], governance: &ContextGovernance, model: &str) -> Result<Vec<ContextItem>> {
    governance.check()?;
    Ok(active_items(entries, governance, model))
}

fn active_items(entries: &[TranscriptEntry], governance: &ContextGovernance, model: &str) -> Vec<ContextItem> {
    // A run is one item, at the first of its seqs still in the context.
    let mut run_emitted: Option<(u64, u64)> = None;
    entries
        .iter()
        .filter(|e| !governance.excluded.contains(&e.seq))
        .filter(|e| match governance.compaction_of(e.seq) {
            Some(t) if t.last_seq.is_some() => {
                let id = (t.seq, t.last_seq.unwrap_or(t.seq));
                let first = run_emitted != Some(id);
                run_emitted = Some(id);
                first
            }
            _ => true,
        })
        .map(|e| {
            let (kind, call_ids) = kind_and_calls(e);
            let pinned = governance.pinned.contains(&e.seq);
            match governance.compaction_of(e.seq) {
                Some(t) if t.last_seq.is_some() => ContextItem {
                    seq: e.seq,
                    role: e.role.as_str().to_string(),
                    kind: ItemKind::Message,
                    tokens: t.tokens_after,
                    pinned,
                    text: t.summary.clone(),
                    call_ids: Vec::new(),
                    compacted: true,
                },
                Some(t) => ContextItem {
                    seq: e.seq,
                    role: e.role.as_str().to_string(),
                    kind,
                    tokens: t.tokens_after,
                    pinned,
                    text: t.summary.clone(),
                    call_ids,
                    compacted: true,
                },
                None => ContextItem {
                    seq: e.seq,
                    role: e.role.as_str().to_string(),
                    kind,
                    tokens: count_tokens(model, &e.content, e.tokens).tokens,
                    pinned,
                    text: e.content.clone(),
                    call_ids,
                    compacted: false,
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
