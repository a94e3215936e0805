//! Source record identity (issue 14 item 2; issue 28 item 1).
//!
//! A record is identified by what it holds, never by its line number, so
//! that a re-import, a moved file or an overlapping copy adds it once: the
//! Claude line's `uuid`, a Codex or thClaws turn's role, timestamp and
//! blocks, the Claude `message.id` of a usage figure, a Codex
//! `token_count`'s cumulative total, a snapshot's value and timestamp, a
//! compaction's content, a raw line's JSON.
//!
//! Content alone cannot tell a repeated record (the same bytes twice in one
//! file, as retries make: thClaws loads both) from the same record seen
//! again. So a content identity also carries its position among the
//! records of equal content *in the file it is read from*: the k-th
//! occurrence (k = 0, 1, ...) of content `C` is the record `C` (k = 0, the
//! identity sessions imported before issue 28 hold) or `C ‖ "#k"`. A file
//! with `C` twice stores two records; a copy holding one of them adds none;
//! the union of overlapping copies holds `C` as often as the copy that
//! holds it most. Identities that name the record (Claude `uuid`, usage
//! per message id or cumulative total) are not counted: the same `uuid`
//! twice is the same record, as Claude Code itself reads it.
//!
//! An import that resumes a grown file (lines `1..=L` imported before)
//! needs the counts of lines `1..=L`: they are counted again from the file
//! ([`count_prefix`]), only when a record of the new lines has content the
//! session already holds (otherwise its count is 0 whatever came before).

use super::bodies::{compaction_body, fit_depth, MAX_NESTED_DEPTH};
use crate::backend::RecordId;
use crate::crypto::{self, DataKey};
use crate::portable::events::{Event, EventSink, Thread};
use crate::portable::model::{Compaction, SourceFormat, Turn, Usage};
use crate::portable::{read_stream, ReadOptions};
use crate::{Error, Result};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufReader, Read};
use std::path::Path;

/// HMAC domain of the source record identities ([`RecordId`]).
pub(super) const RECORD_DOMAIN: &str = "import-record";

/// What identifies a source record: the text its [`RecordId`] is made of
/// and whether a repeat of it within one file is another record.
pub(super) struct Identity {
    /// `turn`, `usage`, `plan_snapshot`, `goal_snapshot`, `compaction` or
    /// `raw line` (the `already stored: <what>` report kind).
    pub(super) what: &'static str,
    /// The identity text (HMAC input).
    pub(super) text: String,
    /// A content identity (counted by occurrence), not a name.
    pub(super) repeatable: bool,
}

/// What identifies a turn as a source record: the Claude line's `uuid` (an
/// assistant message merged from several lines: its first line's; a name,
/// not counted), an opencode turn's message id and index (a name),
/// otherwise the turn itself (role, timestamp and blocks: for
/// thClaws one line, for Codex the items of one turn). Never its line number.
///
/// `blocks_json`: the turn's [`Turn::blocks_json`] when the caller made it
/// already; made here (and left there for the caller: the stored content
/// of a `Blocks` entry is the same text) when the identity needs it.
pub(super) fn turn_identity(format: SourceFormat, turn: &Turn, blocks_json: &mut Option<String>) -> Identity {
    if format == SourceFormat::ClaudeCode {
        if let Some(uuid) = turn.extra.get("uuid").and_then(Value::as_str) {
            return Identity { what: "turn", text: format!("claude-uuid\0{uuid}"), repeatable: false };
        }
    }
    if format == SourceFormat::Opencode {
        // An opencode message id and the turn's index within it (a message
        // becomes a turn per step and one for its tool results).
        if let Some(mid) = turn.extra.get("opencode_message_id").and_then(Value::as_str) {
            let k = turn.extra.get("opencode_turn").and_then(Value::as_u64).unwrap_or(0);
            return Identity { what: "turn", text: format!("opencode-msg\0{mid}\0{k}"), repeatable: false };
        }
    }
    let blocks = blocks_json.get_or_insert_with(|| turn.blocks_json());
    // `turn\0<role>\0<timestamp as {:?}>\0<blocks>`, pushed in place (the
    // text issue 14 hashed, byte for byte: `record_ids_are_issue_14_formula_on_both_import_paths`
    // in core/tests/portable_identity.rs).
    let role = turn.role.as_str();
    let mut text = String::with_capacity(blocks.len() + role.len() + 32);
    text.push_str("turn\0");
    text.push_str(role);
    text.push('\0');
    match turn.timestamp_ms {
        Some(ms) => {
            use std::fmt::Write;
            write!(text, "Some({ms})").expect("writing to a String cannot fail");
        }
        None => text.push_str("None"),
    }
    text.push('\0');
    text.push_str(blocks);
    Identity { what: "turn", text, repeatable: true }
}

/// What identifies a usage figure: the Claude `message.id` it was billed
/// for, or the Codex `token_count` event (its cumulative `total_token_usage`).
pub(super) fn usage_identity(u: &Usage) -> Option<Identity> {
    u.record_id.as_ref().map(|idn| Identity { what: "usage", text: format!("usage\0{idn}"), repeatable: false })
}

/// A `plan_snapshot` (`field` = `plan`) or `goal_snapshot` (`goal`) of
/// value `v` (already fitted, [`fit_depth`]).
pub(super) fn snapshot_identity(field: &str, timestamp_ms: Option<i64>, v: &Value) -> Identity {
    let what = if field == "plan" { "plan_snapshot" } else { "goal_snapshot" };
    Identity { what, text: format!("{field}\0{timestamp_ms:?}\0{v}"), repeatable: true }
}

/// A compaction checkpoint: its stored body without its place (`at_seq`,
/// `source_line`).
pub(super) fn compaction_identity(c: &Compaction) -> Identity {
    let mut ident = compaction_body(c, 0);
    if let Value::Object(m) = &mut ident {
        m.remove("at_seq");
        m.remove("source_line");
    }
    Identity { what: "compaction", text: format!("compaction\0{ident}"), repeatable: true }
}

/// A line of unknown kind: its kind and JSON (`raw` already fitted).
pub(super) fn raw_identity(kind: &str, raw: &Value) -> Identity {
    Identity { what: "raw line", text: format!("raw\0{kind}\0{raw}"), repeatable: true }
}

/// The identity of the record an event stores, when it stores one (what
/// [`super::sink::ImportSink`] computes for it).
fn event_identity(format: SourceFormat, event: &Event) -> Option<Identity> {
    match event {
        Event::Turn(t) => Some(turn_identity(format, t, &mut None)),
        Event::Usage(u) => usage_identity(u),
        Event::Plan { plan, timestamp_ms, .. } => Some(snapshot_identity("plan", *timestamp_ms, &fit_depth(plan.clone(), MAX_NESTED_DEPTH - 1))),
        Event::Goal { goal, timestamp_ms, .. } => Some(snapshot_identity("goal", *timestamp_ms, &fit_depth(goal.clone(), MAX_NESTED_DEPTH - 1))),
        Event::Compaction(c) => Some(compaction_identity(c)),
        Event::Other(o) => Some(raw_identity(&o.kind, &fit_depth(o.raw.clone(), MAX_NESTED_DEPTH - 1))),
        Event::Meta(_) | Event::Title { .. } | Event::ProviderState { .. } => None,
    }
}

/// The [`RecordId`] of identity text `text`: the first 16 bytes of its HMAC
/// with the data key, domain [`RECORD_DOMAIN`] (no content in the clear).
pub(super) fn record_id(key: &DataKey, text: &str) -> RecordId {
    RecordIds::new(key).id(text)
}

/// [`record_id`] of many identities under one key: the HMAC's keyed state
/// made once ([`crypto::KeyedDigester`]), the same ids. An import keeps
/// one for the file it reads.
pub(super) struct RecordIds(crypto::KeyedDigester);

impl RecordIds {
    /// The ids of data key `key`.
    pub(super) fn new(key: &DataKey) -> Self {
        RecordIds(crypto::KeyedDigester::new(key, RECORD_DOMAIN))
    }

    /// The [`RecordId`] of identity text `text` (= `record_id(key, text)`).
    pub(super) fn id(&self, text: &str) -> RecordId {
        let digest = self.0.digest(&[text.as_bytes()]);
        let mut id: RecordId = [0; 16];
        id.copy_from_slice(&digest[..16]);
        id
    }
}

/// The identity text of the `k`-th occurrence (from 0) of content `text`.
pub(super) fn nth(text: &str, k: u32) -> String {
    if k == 0 {
        text.to_owned()
    } else {
        format!("{text}\0#{k}")
    }
}

/// How often each content identity (by the [`RecordId`] of its first
/// occurrence) was read so far in this file, per thread.
#[derive(Default)]
pub(super) struct Occurrences {
    counts: HashMap<Thread, HashMap<RecordId, u32>>,
}

impl Occurrences {
    /// Occurrences of `base` read so far in `thread`.
    pub(super) fn get(&self, thread: &Thread, base: &RecordId) -> u32 {
        self.counts.get(thread).and_then(|m| m.get(base)).copied().unwrap_or(0)
    }

    /// Add the counts of `other` (lines read before) to these.
    pub(super) fn add(&mut self, other: Occurrences) {
        for (thread, m) in other.counts {
            let mine = self.counts.entry(thread).or_default();
            for (id, n) in m {
                *mine.entry(id).or_insert(0) += n;
            }
        }
    }

    /// Count one more occurrence of `base`; returns the count before it.
    pub(super) fn bump(&mut self, thread: &Thread, base: RecordId) -> u32 {
        let n = self.counts.entry(thread.clone()).or_default().entry(base).or_insert(0);
        *n += 1;
        *n - 1
    }
}

/// Counts the content identities of the events it receives.
struct CountSink {
    ids: RecordIds,
    format: SourceFormat,
    occ: Occurrences,
}

impl EventSink for CountSink {
    fn event(&mut self, thread: &Thread, event: Event) -> Result<()> {
        if let Some(id) = event_identity(self.format, &event).filter(|i| i.repeatable) {
            self.occ.bump(thread, self.ids.id(&id.text));
        }
        Ok(())
    }
}

/// The occurrence counts of the records of the first `bytes` bytes of the
/// file at `path` (the lines an earlier import consumed), read again with
/// the `format` reader with lines of at most `max_line_bytes` kept (the
/// import's own limit). Errors: [`Error::Io`] reading the file.
pub(super) fn count_prefix(key: &DataKey, format: SourceFormat, path: &Path, bytes: u64, max_line_bytes: u64) -> Result<Occurrences> {
    let f = std::fs::File::open(path).map_err(|e| Error::io("opening a session file", e))?;
    let mut sink = CountSink { ids: RecordIds::new(key), format, occ: Occurrences::default() };
    let opts = ReadOptions { max_line_bytes: Some(max_line_bytes), ..Default::default() };
    read_stream(format, BufReader::with_capacity(256 * 1024, f.take(bytes)), &opts, &mut sink)?;
    Ok(sink.occ)
}
