//! thClaws JSONL read into, and written from, plain records: a turn's
//! blocks as JSON text, the figures [`PortableSession`] derives computed
//! once. Kotlin and Swift expose these as they are (`readThclaws`,
//! `writeThclaws`; bridge/api.rs); Python and Node read through
//! [`super::read_thclaws_digest`] and write through
//! [`super::write_thclaws_json`], which share the reading and writing
//! steps below.

use serde_json::Value;

use super::digest::{host_turn, read_one, thclaws_text, turn_role};
use super::{Block, PortableSession, ReadReport, Turn};
use crate::error::{Error, Result};

/// One turn of a portable session.
///
/// One turn of a portable session, in plain fields.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PortableTurn {
    /// `user`, `assistant`, `system` or `tool`.
    pub role: String,
    /// The content blocks as a JSON array of thClaws block objects
    /// (`{"type":"text","text":...}`, `thinking`, `tool_use`, `tool_result`, `image`, others verbatim).
    ///
    /// The content blocks as a JSON array of thClaws block objects
    /// (`{"type":"text","text":...}`, `thinking`, `tool_use`, `tool_result`,
    /// `image`, others verbatim), as [`Block::to_json`] writes them.
    pub blocks_json: String,
    /// Time of the turn, ms since the Unix epoch.
    pub timestamp_ms: Option<i64>,
    /// Model that wrote the turn (assistant turns).
    pub model: Option<String>,
    /// Provider of that model.
    pub provider: Option<String>,
}

impl From<&Turn> for PortableTurn {
    fn from(t: &Turn) -> Self {
        PortableTurn {
            role: t.role.as_str().to_owned(),
            blocks_json: Value::Array(t.blocks.iter().map(Block::to_json).collect()).to_string(),
            timestamp_ms: t.timestamp_ms,
            model: t.model.clone(),
            provider: t.provider.clone(),
        }
    }
}

/// A session read from a thClaws file (seed 002), with the figures the core derives.
///
/// A session read from a thClaws file (seed 002), with the figures
/// [`PortableSession`] derives.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ThclawsSession {
    /// Source session id.
    ///
    /// Source session id (header `id`, else the fallback id).
    pub id: String,
    /// Title (latest `rename` wins).
    pub title: Option<String>,
    /// Model as the source names it (thClaws `provider/model`).
    pub model: Option<String>,
    /// Provider.
    pub provider: Option<String>,
    /// Working directory as written.
    pub cwd: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at_ms: Option<i64>,
    /// Every turn, in order, including turns a later compaction superseded.
    pub turns: Vec<PortableTurn>,
    /// The history a thClaws reader resumes with: the last compaction's
    /// messages, then the turns after it (seed 002, "Compaction").
    ///
    /// The history a thClaws reader resumes with: the last compaction's
    /// messages, then the turns after it ([`PortableSession::active_turns`]).
    pub active_turns: Vec<PortableTurn>,
    /// Tool-use blocks over all turns.
    pub tool_calls: u64,
    /// Tool-result blocks over all turns.
    pub tool_results: u64,
    /// Steps of the latest plan snapshot.
    pub plan_steps: u64,
    /// Compaction checkpoints.
    pub compactions: u64,
    /// Lines of unknown kind kept verbatim.
    pub other_lines: u64,
}

impl From<PortableSession> for ThclawsSession {
    fn from(s: PortableSession) -> Self {
        ThclawsSession {
            turns: s.turns.iter().map(Into::into).collect(),
            active_turns: s.active_turns().iter().map(Into::into).collect(),
            tool_calls: s.tool_calls() as u64,
            tool_results: s.tool_results() as u64,
            plan_steps: s.plan_steps() as u64,
            compactions: s.compactions.len() as u64,
            other_lines: s.other_lines.len() as u64,
            id: s.id,
            title: s.title,
            model: s.model,
            provider: s.provider,
            cwd: s.cwd,
            created_at_ms: s.created_at_ms,
        }
    }
}

/// A thClaws file, read.
///
/// A thClaws file, read: its session and what the reader saw.
#[derive(Debug, Clone, PartialEq)]
pub struct ThclawsRead {
    /// The session in the file.
    pub session: ThclawsSession,
    /// What the reader saw (lines, torn tail, skipped lines...).
    pub report: ReadReport,
}

/// A session to write as thClaws JSONL.
///
/// A session to write as thClaws JSONL ([`write_thclaws_session`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewPortableSession {
    /// Session id.
    pub id: String,
    /// Title (written as a final `rename` line).
    pub title: Option<String>,
    /// Model.
    pub model: Option<String>,
    /// Provider.
    pub provider: Option<String>,
    /// Working directory.
    pub cwd: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at_ms: Option<i64>,
    /// The turns, in order.
    pub turns: Vec<PortableTurn>,
}

/// Read thClaws JSONL `data` (seed 002; the real format and the seed's
/// `message` form): its session and the reader's report. A torn last line
/// and bad lines are reported, never fatal; `fallback_id` names a file
/// without a header id. Pure parsing.
///
/// Errors: `InvalidInput` "the data holds no thClaws session".
pub fn read_thclaws_session(data: &[u8], fallback_id: &str) -> Result<ThclawsRead> {
    let (session, report) = read_one(data, fallback_id)?;
    Ok(ThclawsRead { session: session.into(), report })
}

/// Write `session` as thClaws JSONL text (what real thClaws reads), its
/// turns checked in order.
///
/// Errors: `InvalidInput` "turn role must be user, assistant, system or
/// tool" for an unknown role, "blocksJson must be a JSON array of block
/// objects" for blocks that are not JSON or not an array.
pub fn write_thclaws_session(session: NewPortableSession) -> Result<String> {
    let mut turns = Vec::with_capacity(session.turns.len());
    for t in session.turns {
        let role = turn_role(Some(&t.role))?;
        let Ok(Value::Array(blocks)) = serde_json::from_str::<Value>(&t.blocks_json) else {
            return Err(Error::invalid("blocksJson must be a JSON array of block objects"));
        };
        turns.push(host_turn(role, blocks, t.timestamp_ms, t.model, t.provider));
    }
    thclaws_text(&PortableSession {
        id: session.id,
        title: session.title,
        model: session.model,
        provider: session.provider,
        cwd: session.cwd,
        created_at_ms: session.created_at_ms,
        turns,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(role: &str, blocks_json: &str) -> PortableTurn {
        PortableTurn { role: role.into(), blocks_json: blocks_json.into(), ..Default::default() }
    }

    /// A written session reads back with its turns, blocks as JSON text and figures.
    #[test]
    fn write_then_read_round_trips_the_turns_and_figures() {
        let new = NewPortableSession {
            id: "s1".into(),
            title: Some("T".into()),
            turns: vec![
                turn("user", r#"[{"type":"text","text":"hi"}]"#),
                PortableTurn {
                    model: Some("m".into()),
                    timestamp_ms: Some(1_700_000_000_000),
                    ..turn("assistant", r#"[{"type":"tool_use","id":"t1","name":"bash","input":{}}]"#)
                },
                turn("user", r#"[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]"#),
            ],
            ..Default::default()
        };
        let text = write_thclaws_session(new).unwrap();
        let read = read_thclaws_session(text.as_bytes(), "fallback").unwrap();
        let s = read.session;
        assert_eq!((s.id.as_str(), s.title.as_deref()), ("s1", Some("T")));
        assert_eq!(s.turns.iter().map(|t| t.role.as_str()).collect::<Vec<_>>(), ["user", "assistant", "user"]);
        // Keys in serde_json's order (sorted), as the bindings always gave them.
        assert_eq!(s.turns[0].blocks_json, r#"[{"text":"hi","type":"text"}]"#);
        assert_eq!((s.turns[1].timestamp_ms, s.turns[1].model.as_deref()), (Some(1_700_000_000_000), Some("m")));
        assert_eq!((s.tool_calls, s.tool_results, s.plan_steps, s.compactions, s.other_lines), (1, 1, 0, 0, 0));
        assert_eq!(s.active_turns, s.turns);
        assert_eq!(read.report.lines, 7, "{text}");
    }

    /// Empty data is an empty session of the fallback id; the exact write
    /// errors: an unknown role, blocks not a JSON array (the role is checked first).
    #[test]
    fn errors_name_what_is_wrong() {
        let msg = |e: Error| e.to_string();
        let empty = read_thclaws_session(b"", "x").unwrap();
        assert_eq!((empty.session, empty.report.lines), (ThclawsSession { id: "x".into(), ..Default::default() }, 0));
        let one = |t: PortableTurn| write_thclaws_session(NewPortableSession { id: "s".into(), turns: vec![t], ..Default::default() });
        for bad in ["not json", r#"{"type":"text"}"#] {
            assert_eq!(msg(one(turn("user", bad)).unwrap_err()), "invalid input: blocksJson must be a JSON array of block objects", "{bad}");
        }
        assert_eq!(msg(one(turn("robot", "not json")).unwrap_err()), "invalid input: turn role must be user, assistant, system or tool");
    }
}
