//! JSON-level entry points over the thClaws reader and writer, in the shape
//! of the language-neutral cases in `tests/conformance/portable/`
//! (`read_thclaws.json`, `write_thclaws.json`), so every host runs those
//! cases through one thin call.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::{read_thclaws, write_thclaws, Block, Collector, PortableSession, ReadOptions, ReadReport, Role, SourceFormat, Turn};
use crate::error::{Error, Result};

/// An integer from JSON, also when a host sent it as an integral float
/// (JavaScript numbers above 2^31 arrive that way).
fn int(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e18).map(|f| f as i64))
}

fn texts<'a>(turns: impl Iterator<Item = &'a Turn>) -> Vec<String> {
    turns.flat_map(|t| &t.blocks).filter_map(|b| if let Block::Text { text } = b { Some(text.clone()) } else { None }).collect()
}

/// A line the thClaws reader skipped, as the digest reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DigestSkippedLine {
    /// 1-based line number.
    pub line: u64,
    /// As in `SkippedLine`.
    ///
    /// `torn_tail`, `invalid_utf8`, `invalid_json` or `not_an_object` (the
    /// `reason` tag of [`super::SkipReason`]).
    pub reason: String,
}

/// What the thClaws reader saw in one file (`read_thclaws_digest`; the
/// fields of tests/conformance/portable/read_thclaws.json).
///
/// What the thClaws reader saw in one file (the fields of
/// `tests/conformance/portable/read_thclaws.json`); its serde form is the
/// JSON those cases compare.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThclawsDigest {
    /// Session id (header `id`, else the fallback id).
    pub id: String,
    /// Title (latest `rename`).
    pub title: Option<String>,
    /// Model as the file names it.
    pub model: Option<String>,
    /// Provider.
    pub provider: Option<String>,
    /// Working directory.
    pub cwd: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at_ms: Option<i64>,
    /// Every turn's role, in order.
    pub roles: Vec<String>,
    /// Every text block, in order.
    pub texts: Vec<String>,
    /// Text blocks of the active history (after the last compaction).
    pub active_texts: Vec<String>,
    /// Tool-use blocks.
    pub tool_calls: u64,
    /// Tool-result blocks.
    pub tool_results: u64,
    /// Steps of the latest plan.
    pub plan_steps: u64,
    /// Compaction checkpoints.
    pub compactions: u64,
    /// Lines seen, skipped ones included.
    pub lines: u64,
    /// Offset after the last complete line.
    pub bytes: u64,
    /// Lines that could not be read.
    pub skipped: Vec<DigestSkippedLine>,
    /// Lines where a lone surrogate escape became U+FFFD.
    pub surrogates_replaced: Vec<u64>,
    /// The last line was complete JSON without its final newline.
    ///
    /// The last line was complete JSON without its final `\n`.
    pub missing_final_newline: bool,
    /// Lines of unknown kind kept verbatim, by kind.
    pub kept_raw: BTreeMap<String, u64>,
    /// Lines of unknown kind kept in the session.
    pub other_lines: u64,
}

/// The one session of thClaws JSONL `bytes` (`fallback_id` names a file
/// without a header id) and the reader's report. Errors: `InvalidInput`
/// "the data holds no thClaws session".
pub(super) fn read_one(bytes: &[u8], fallback_id: &str) -> Result<(PortableSession, ReadReport)> {
    let mut sink = Collector::new(SourceFormat::Thclaws, None);
    let rep = read_thclaws(bytes, &ReadOptions::default(), &mut sink)?;
    let s = sink.finish(fallback_id).into_iter().next().ok_or_else(|| Error::invalid("the data holds no thClaws session"))?;
    Ok((s, rep))
}

/// The role of a turn given by name. Errors: `InvalidInput` for none or an
/// unknown name.
pub(super) fn turn_role(name: Option<&str>) -> Result<Role> {
    name.and_then(Role::parse).ok_or_else(|| Error::invalid("turn role must be user, assistant, system or tool"))
}

/// A turn built from the host's parts (no source line).
pub(super) fn host_turn(role: Role, blocks: Vec<Value>, timestamp_ms: Option<i64>, model: Option<String>, provider: Option<String>) -> Turn {
    let mut turn = Turn::new(role, blocks.into_iter().map(Block::from_json).collect(), timestamp_ms, 0);
    turn.model = model;
    turn.provider = provider;
    turn
}

/// `s` as thClaws JSONL text.
pub(super) fn thclaws_text(s: &PortableSession) -> Result<String> {
    let mut out = Vec::new();
    write_thclaws(s, &mut out)?;
    String::from_utf8(out).map_err(|_| Error::corrupt("the writer produced invalid UTF-8"))
}

/// Read thClaws JSONL bytes and return what the reader saw (the fields
/// of tests/conformance/portable/read_thclaws.json). Pure parsing.
/// `InvalidInput`: the bytes hold no session.
///
/// [`ThclawsDigest`]; `fallback_id` names a file without a header id.
///
/// Errors: `InvalidInput` when the bytes hold no session.
pub fn read_thclaws_digest(bytes: &[u8], fallback_id: &str) -> Result<ThclawsDigest> {
    let (s, rep) = read_one(bytes, fallback_id)?;
    let skipped = rep
        .skipped
        .iter()
        .map(|k| DigestSkippedLine {
            line: k.line,
            reason: serde_json::to_value(&k.reason).unwrap_or_default()["reason"].as_str().unwrap_or_default().to_owned(),
        })
        .collect();
    Ok(ThclawsDigest {
        roles: s.turns.iter().map(|t| t.role.as_str().to_owned()).collect(),
        texts: texts(s.turns.iter()),
        active_texts: texts(s.active_turns().iter()),
        tool_calls: s.tool_calls() as u64,
        tool_results: s.tool_results() as u64,
        plan_steps: s.plan_steps() as u64,
        compactions: s.compactions.len() as u64,
        lines: rep.lines,
        bytes: rep.bytes,
        skipped,
        surrogates_replaced: rep.surrogates_replaced,
        missing_final_newline: rep.missing_final_newline,
        kept_raw: rep.kept_raw,
        other_lines: s.other_lines.len() as u64,
        id: s.id,
        title: s.title,
        model: s.model,
        provider: s.provider,
        cwd: s.cwd,
        created_at_ms: s.created_at_ms,
    })
}

/// Write a session given as JSON `{id, title?, model?, provider?, cwd?,
/// created_at_ms?, turns: [{role, blocks (thClaws block objects),
/// timestamp_ms?, model?, provider?}]}` as thClaws JSONL text.
///
/// Errors: `InvalidInput` for a missing id, an unknown role or blocks that
/// are not an array.
pub fn write_thclaws_json(session: &Value) -> Result<String> {
    let st = |k: &str| session[k].as_str().map(str::to_owned);
    let id = st("id").ok_or_else(|| Error::invalid("session.id is required"))?;
    let mut turns = Vec::new();
    for t in session["turns"].as_array().ok_or_else(|| Error::invalid("session.turns must be an array"))? {
        let role = turn_role(t["role"].as_str())?;
        let blocks = t["blocks"].as_array().ok_or_else(|| Error::invalid("turn blocks must be an array"))?;
        let (model, provider) = (t["model"].as_str().map(str::to_owned), t["provider"].as_str().map(str::to_owned));
        turns.push(host_turn(role, blocks.clone(), int(&t["timestamp_ms"]), model, provider));
    }
    let s = PortableSession {
        id,
        title: st("title"),
        model: st("model"),
        provider: st("provider"),
        cwd: st("cwd"),
        created_at_ms: int(&session["created_at_ms"]),
        turns,
        ..Default::default()
    };
    thclaws_text(&s)
}
