//! The neutral, source-independent session model every reader produces and
//! the thClaws writer consumes.
//!
//! Content blocks use the Anthropic-style `type` tag of thClaws
//! (`samples/README.md`, "3. thClaws"): that JSON form is also what the
//! store keeps for `ContentFormat::Blocks` entries, so a block survives
//! import, storage and export unchanged. Anything a reader cannot model is
//! kept as raw JSON ([`Block::Other`], [`OtherLine`], `extra` maps).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Who produced a turn.
///
/// Codex `developer` messages map to [`Role::System`] (with
/// `extra.codex_role = "developer"`). Tool results are carried by
/// [`Role::User`] turns in all three real formats; [`Role::Tool`] is only
/// produced by seed-form `{"type":"message","role":"tool"}` lines and is
/// exported as a `user` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A person, or the harness speaking for them (tool results included).
    User,
    /// The model.
    Assistant,
    /// System or developer instructions, local command output, notices.
    System,
    /// A tool speaking on its own line (seed form only).
    Tool,
}

impl Role {
    /// Lowercase name as written in thClaws lines (`user`, `assistant`, `system`, `tool`).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::Tool => "tool",
        }
    }

    /// Parse a role name; `developer` reads as [`Role::System`]. `None` for anything else.
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "system" | "developer" => Some(Role::System),
            "tool" => Some(Role::Tool),
            _ => None,
        }
    }
}

/// One content block of a turn.
///
/// JSON form (see [`Block::to_json`]) is the thClaws/Anthropic one:
/// `text{text}`, `thinking{content, signature?}` (thClaws keeps the thinking
/// text under `content`; `thinking{thinking}` is read too), `tool_use{id,
/// name, input}`, `tool_result{tool_use_id, content, is_error?}` (left out
/// when false), `image{source}`. Source: `samples/README.md`, "3. thClaws".
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Plain text.
    Text {
        /// The text, whole.
        text: String,
    },
    /// Model reasoning. Codex reasoning summaries land here too.
    Thinking {
        /// The reasoning text.
        text: String,
        /// Opaque provider signature (Claude `signature`, Codex `encrypted_content`).
        signature: Option<String>,
    },
    /// A tool call.
    ToolUse {
        /// Call id, referenced by the matching [`Block::ToolResult`].
        id: String,
        /// Tool name.
        name: String,
        /// Arguments (any JSON; Codex argument strings that are JSON are parsed,
        /// others are kept as a JSON string).
        input: Value,
        /// Gemini-style `thought_signature` (thClaws), kept for round trips.
        thought_signature: Option<String>,
    },
    /// A tool's answer, kept whole.
    ToolResult {
        /// The [`Block::ToolUse`] id it answers.
        tool_use_id: String,
        /// A JSON string, or an array of `text`/`image` blocks, exactly as the source had it.
        content: Value,
        /// True when the tool reported failure.
        is_error: bool,
    },
    /// An image: `source` as the source had it (`{type:"base64",media_type,data}` or `{type:"url",url}`).
    Image {
        /// The image source object.
        source: Value,
    },
    /// Any block this model does not know, kept verbatim.
    Other(Value),
}

impl Block {
    /// Read one block from its JSON form. Never fails: an object this model
    /// cannot map (wrong field types, unknown `type`) becomes [`Block::Other`].
    pub fn from_json(v: Value) -> Block {
        let Value::Object(mut m) = v else { return Block::Other(v) };
        let ty = m.get("type").and_then(Value::as_str).unwrap_or("");
        match ty {
            "text" => match m.remove("text") {
                Some(Value::String(text)) => Block::Text { text },
                other => {
                    if let Some(o) = other {
                        m.insert("text".into(), o);
                    }
                    Block::Other(Value::Object(m))
                }
            },
            "thinking" | "reasoning" => {
                let key = if m.get("content").is_some_and(Value::is_string) { "content" } else { "thinking" };
                match m.remove(key) {
                    Some(Value::String(text)) => {
                        let signature = match m.remove("signature") {
                            Some(Value::String(s)) => Some(s),
                            _ => None,
                        };
                        Block::Thinking { text, signature }
                    }
                    other => {
                        if let Some(o) = other {
                            m.insert(key.into(), o);
                        }
                        Block::Other(Value::Object(m))
                    }
                }
            }
            "tool_use" => {
                let id = m.get("id").and_then(Value::as_str).map(str::to_owned);
                let name = m.get("name").and_then(Value::as_str).map(str::to_owned);
                match (id, name) {
                    (Some(id), Some(name)) => {
                        let input = m.remove("input").unwrap_or(Value::Object(Map::new()));
                        let thought_signature = match m.remove("thought_signature") {
                            Some(Value::String(s)) => Some(s),
                            _ => None,
                        };
                        Block::ToolUse { id, name, input, thought_signature }
                    }
                    _ => Block::Other(Value::Object(m)),
                }
            }
            "tool_result" => match m.get("tool_use_id").and_then(Value::as_str).map(str::to_owned) {
                Some(tool_use_id) => {
                    let content = m.remove("content").unwrap_or(Value::String(String::new()));
                    let is_error = m.get("is_error").and_then(Value::as_bool).unwrap_or(false);
                    Block::ToolResult { tool_use_id, content, is_error }
                }
                None => Block::Other(Value::Object(m)),
            },
            "image" => match m.remove("source") {
                Some(source) => Block::Image { source },
                None => Block::Other(Value::Object(m)),
            },
            _ => Block::Other(Value::Object(m)),
        }
    }

    /// The block's JSON form as written to thClaws files and stored in the
    /// store's `Blocks` entries (field order: `type` first).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        match self {
            Block::Text { text } => {
                m.insert("type".into(), "text".into());
                m.insert("text".into(), text.clone().into());
            }
            Block::Thinking { text, signature } => {
                m.insert("type".into(), "thinking".into());
                m.insert("content".into(), text.clone().into());
                if let Some(s) = signature {
                    m.insert("signature".into(), s.clone().into());
                }
            }
            Block::ToolUse { id, name, input, thought_signature } => {
                m.insert("type".into(), "tool_use".into());
                m.insert("id".into(), id.clone().into());
                m.insert("name".into(), name.clone().into());
                m.insert("input".into(), input.clone());
                if let Some(s) = thought_signature {
                    m.insert("thought_signature".into(), s.clone().into());
                }
            }
            Block::ToolResult { tool_use_id, content, is_error } => {
                m.insert("type".into(), "tool_result".into());
                m.insert("tool_use_id".into(), tool_use_id.clone().into());
                m.insert("content".into(), content.clone());
                if *is_error {
                    m.insert("is_error".into(), true.into());
                }
            }
            Block::Image { source } => {
                m.insert("type".into(), "image".into());
                m.insert("source".into(), source.clone());
            }
            Block::Other(v) => return v.clone(),
        }
        Value::Object(m)
    }
}

/// Serializes to the same JSON as [`Block::to_json`], with fields in the
/// order real thClaws writes them (`type` first), without building a map.
impl Serialize for Block {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Block::Text { text } => {
                let mut m = ser.serialize_map(Some(2))?;
                m.serialize_entry("type", "text")?;
                m.serialize_entry("text", text)?;
                m.end()
            }
            Block::Thinking { text, signature } => {
                let mut m = ser.serialize_map(None)?;
                m.serialize_entry("type", "thinking")?;
                m.serialize_entry("content", text)?;
                if let Some(sig) = signature {
                    m.serialize_entry("signature", sig)?;
                }
                m.end()
            }
            Block::ToolUse { id, name, input, thought_signature } => {
                let mut m = ser.serialize_map(None)?;
                m.serialize_entry("type", "tool_use")?;
                m.serialize_entry("id", id)?;
                m.serialize_entry("name", name)?;
                m.serialize_entry("input", input)?;
                if let Some(sig) = thought_signature {
                    m.serialize_entry("thought_signature", sig)?;
                }
                m.end()
            }
            Block::ToolResult { tool_use_id, content, is_error } => {
                let mut m = ser.serialize_map(None)?;
                m.serialize_entry("type", "tool_result")?;
                m.serialize_entry("tool_use_id", tool_use_id)?;
                m.serialize_entry("content", content)?;
                if *is_error {
                    m.serialize_entry("is_error", &true)?;
                }
                m.end()
            }
            Block::Image { source } => {
                let mut m = ser.serialize_map(Some(2))?;
                m.serialize_entry("type", "image")?;
                m.serialize_entry("source", source)?;
                m.end()
            }
            Block::Other(v) => v.serialize(ser),
        }
    }
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// Who spoke.
    pub role: Role,
    /// Content blocks, in order.
    pub blocks: Vec<Block>,
    /// When, in milliseconds since the Unix epoch (thClaws stores seconds: ×1000).
    pub timestamp_ms: Option<i64>,
    /// 1-based line of the source file where this turn starts (provenance).
    pub source_line: u64,
    /// Model that produced it (assistant turns), as the source names it.
    pub model: Option<String>,
    /// Provider that served it (assistant turns).
    pub provider: Option<String>,
    /// Source-specific provenance kept verbatim (Claude `uuid`, `message_id`,
    /// `is_meta`, `tool_use_result`; Codex `codex_role`, `phase`...). Empty for thClaws.
    pub extra: Map<String, Value>,
}

impl Turn {
    /// A turn with no model/provider/extra.
    pub fn new(role: Role, blocks: Vec<Block>, timestamp_ms: Option<i64>, source_line: u64) -> Turn {
        Turn { role, blocks, timestamp_ms, source_line, model: None, provider: None, extra: Map::new() }
    }

    /// The blocks as a JSON array text (the store's `Blocks` content form).
    pub fn blocks_json(&self) -> String {
        serde_json::to_string(&self.blocks).expect("blocks serialize to JSON")
    }

    /// Number of [`Block::ToolUse`] blocks.
    pub fn tool_calls(&self) -> usize {
        self.blocks.iter().filter(|b| matches!(b, Block::ToolUse { .. })).count()
    }

    /// Number of [`Block::ToolResult`] blocks.
    pub fn tool_results(&self) -> usize {
        self.blocks.iter().filter(|b| matches!(b, Block::ToolResult { .. })).count()
    }
}

/// Tokens of one model request, as reported by the source.
///
/// Units: tokens. `input` includes cached input (`cached` is the part of
/// `input` served from a prompt cache): Codex `input_tokens` already does;
/// for Claude `input = input_tokens + cache_creation_input_tokens +
/// cache_read_input_tokens` and `cached = cache_read_input_tokens`.
/// `output` includes reasoning tokens (Codex `output_tokens` already does).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens, cached ones included.
    pub input: u64,
    /// Output tokens, reasoning included.
    pub output: u64,
    /// The part of `input` read from cache.
    pub cached: u64,
    /// Model that was billed, when known.
    pub model: Option<String>,
    /// 1-based source line the figure came from.
    pub source_line: u64,
    /// When, milliseconds since the Unix epoch.
    pub timestamp_ms: Option<i64>,
    /// What identifies the figure as a source record, so that it is counted
    /// once whatever file it arrives in (issue 14 item 2): the Claude
    /// `message.id` it bills, or the Codex `token_count` event's cumulative
    /// `total_token_usage`. `None`: no identity (counted as read).
    #[serde(default)]
    pub record_id: Option<String>,
    /// The figures `[input, output, cached]` of the earlier lines of the
    /// same message, when the source splits one message over several lines
    /// that each carry its usage so far (Claude Code): what a copy cut
    /// before the message's last line counted. An import that finds one of
    /// them counted adds only the difference (issue 28 item 4). In order,
    /// without the final figures; empty for a message of one line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partials: Vec<[u64; 3]>,
}

/// A compaction checkpoint.
///
/// thClaws `compaction{messages, replaces_count}`: the reader resets history
/// to `messages` at this point (seed 002, "Compaction"; samples README §3).
/// Codex `compacted{message, replacement_history}`. Claude Code
/// `system/compact_boundary{compactMetadata}` (no messages: the summary
/// arrives as the next user turn with `extra.is_compact_summary`).
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction {
    /// Number of [`PortableSession::turns`] that precede it (it supersedes them).
    pub at_turn: usize,
    /// 1-based source line.
    pub source_line: u64,
    /// When, milliseconds since the Unix epoch.
    pub timestamp_ms: Option<i64>,
    /// Summary text, when the source has one (Codex `message`).
    pub summary: Option<String>,
    /// thClaws `replaces_count`: how many messages it replaced.
    pub replaces_count: Option<u64>,
    /// The history that replaces everything before it.
    pub messages: Vec<Turn>,
    /// Source metadata not modelled above (Claude `compactMetadata`...).
    pub raw: Option<Value>,
}

/// Which thClaws state line a [`StateSnapshot`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotKind {
    /// `plan_snapshot{plan, timestamp}` (thClaws `session.rs` `PlanSnapshotEvent`).
    Plan,
    /// `goal_snapshot{goal, timestamp}` (thClaws `session.rs` `GoalSnapshotEvent`).
    Goal,
}

/// One `plan_snapshot` or `goal_snapshot` line, kept in order (thClaws keeps
/// every one on disk; its loader lets the latest win).
#[derive(Debug, Clone, PartialEq)]
pub struct StateSnapshot {
    /// Plan or goal.
    pub kind: SnapshotKind,
    /// Number of [`PortableSession::turns`] before it.
    pub at_turn: usize,
    /// The plan or goal object, or JSON null (cleared).
    pub value: Value,
    /// When, milliseconds since the Unix epoch.
    pub timestamp_ms: Option<i64>,
}

/// A source line this model does not understand, kept verbatim.
#[derive(Debug, Clone, PartialEq)]
pub struct OtherLine {
    /// 1-based line number.
    pub line: u64,
    /// Its kind as reported (`type`, or `type/payload.type`).
    pub kind: String,
    /// The whole line's JSON.
    pub raw: Value,
}

/// The file format a session came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SourceFormat {
    /// thClaws JSONL (seed 002).
    ///
    /// thClaws JSONL (seed 002; samples README §3).
    #[serde(rename = "thclaws")]
    Thclaws,
    /// OpenAI Codex rollout.
    ///
    /// OpenAI Codex rollout (samples README §1).
    #[serde(rename = "codex")]
    Codex,
    /// Claude Code transcript.
    ///
    /// Claude Code transcript (samples README §2).
    #[serde(rename = "claude-code")]
    ClaudeCode,
    /// Gemini CLI chat recording.
    ///
    /// Gemini CLI chat recording: the append-only JSONL or the older JSON
    /// document under `~/.gemini/tmp/<project>/chats/` ([`super::gemini`]).
    #[serde(rename = "gemini-cli")]
    GeminiCli,
    /// opencode session storage (its JSON-file tree or its SQLite database).
    ///
    /// opencode (sst/opencode, now anomalyco/opencode): the
    /// `storage/{session,message,part}` JSON-file tree or the `opencode.db`
    /// database of newer releases ([`crate::portable::opencode`]).
    #[serde(rename = "opencode")]
    Opencode,
    /// An OpenAI Agents SDK `SQLiteSession` database.
    ///
    /// An OpenAI Agents SDK `SQLiteSession` database (`agent_sessions` /
    /// `agent_messages`; openai-agents 0.24.0 `agents/memory/sqlite_session.py`),
    /// imported read-only, each SDK session under its own id
    /// ([`crate::portable::import`]'s `sdk` module; issue 29 item 3).
    #[serde(rename = "agents-sdk")]
    AgentsSdk,
}

impl SourceFormat {
    /// `thclaws`, `codex`, `claude-code`, `gemini-cli`, `opencode` or `agents-sdk`.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceFormat::Thclaws => "thclaws",
            SourceFormat::Codex => "codex",
            SourceFormat::ClaudeCode => "claude-code",
            SourceFormat::GeminiCli => "gemini-cli",
            SourceFormat::Opencode => "opencode",
            SourceFormat::AgentsSdk => "agents-sdk",
        }
    }

    /// Parse `thclaws`, `codex`, `claude-code`, `gemini-cli`, `opencode` or `agents-sdk` (what hosts pass).
    /// Errors: `InvalidInput`.
    pub fn parse(s: &str) -> crate::Result<Self> {
        match s {
            "thclaws" => Ok(SourceFormat::Thclaws),
            "codex" => Ok(SourceFormat::Codex),
            "claude-code" => Ok(SourceFormat::ClaudeCode),
            "gemini-cli" => Ok(SourceFormat::GeminiCli),
            "opencode" => Ok(SourceFormat::Opencode),
            "agents-sdk" => Ok(SourceFormat::AgentsSdk),
            _ => Err(crate::Error::invalid("format must be one of thclaws, codex, claude-code, gemini-cli, opencode, agents-sdk")),
        }
    }
}

/// Where a session came from (provenance).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SourceInfo {
    /// Source format (`None` only for sessions built in memory).
    pub format: Option<SourceFormat>,
    /// File it was read from, when read from a file.
    pub file: Option<PathBuf>,
    /// For a Claude Code inline sidechain: the id of the main session it belongs to.
    pub sidechain_of: Option<String>,
    /// Source metadata kept verbatim (Codex `originator`, `cli_version`,
    /// `git`, `base_instructions`; Claude `version`, `gitBranch`...).
    pub extra: Map<String, Value>,
}

/// One session in the neutral model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PortableSession {
    /// Source session id (thClaws `sess-<hex>`, Codex uuid, Claude `sessionId`;
    /// a sidechain gets `<main id>.sidechain.<root uuid>` (store ids may not contain `:`)).
    pub id: String,
    /// Human title (latest `rename` wins; Claude `summary`).
    pub title: Option<String>,
    /// Model, as the source names it (thClaws `provider/model`; latest Codex `turn_context.model`).
    pub model: Option<String>,
    /// Provider (thClaws: the prefix of `model`; Codex `model_provider`; Claude: `anthropic`).
    pub provider: Option<String>,
    /// Working directory as the source wrote it (becomes the workspace binding on import).
    pub cwd: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at_ms: Option<i64>,
    /// Every turn, in order, including turns a later compaction superseded.
    pub turns: Vec<Turn>,
    /// Latest `plan_snapshot.plan` (JSON null when the latest snapshot was null; `None` when none).
    pub plan: Option<Value>,
    /// Latest `goal_snapshot.goal`, as `plan`.
    pub goal: Option<Value>,
    /// Every `plan_snapshot` and `goal_snapshot`, in file order (issue 14
    /// item 3); `plan` and `goal` are the latest of them. Empty for a session
    /// built in memory or stored before issue 14 with no snapshot.
    pub snapshots: Vec<StateSnapshot>,
    /// Latest `provider_state.provider_session_id` (`Some(None)` when cleared).
    pub provider_state: Option<Option<String>>,
    /// Compaction checkpoints, in order.
    pub compactions: Vec<Compaction>,
    /// Token usage records, one per model request, never double counted.
    pub usage: Vec<Usage>,
    /// Lines of unknown kind, kept verbatim.
    pub other_lines: Vec<OtherLine>,
    /// Provenance.
    pub source: SourceInfo,
}

impl PortableSession {
    /// The history a thClaws reader resumes with: the last compaction's
    /// `messages` followed by the turns after it (seed 002, "Compaction").
    pub fn active_turns(&self) -> Vec<Turn> {
        match self.compactions.last() {
            None => self.turns.clone(),
            Some(c) => c.messages.iter().cloned().chain(self.turns[c.at_turn.min(self.turns.len())..].iter().cloned()).collect(),
        }
    }

    /// Total tool-use blocks over [`Self::turns`].
    pub fn tool_calls(&self) -> usize {
        self.turns.iter().map(Turn::tool_calls).sum()
    }

    /// Total tool-result blocks over [`Self::turns`].
    pub fn tool_results(&self) -> usize {
        self.turns.iter().map(Turn::tool_results).sum()
    }

    /// Sum of all [`Usage`] records (model left `None`).
    pub fn usage_total(&self) -> Usage {
        let mut t = Usage::default();
        for u in &self.usage {
            t.input = t.input.saturating_add(u.input);
            t.output = t.output.saturating_add(u.output);
            t.cached = t.cached.saturating_add(u.cached);
        }
        t
    }

    /// Number of steps of the current plan (`plan.steps` length; 0 without a plan).
    pub fn plan_steps(&self) -> usize {
        self.plan.as_ref().and_then(|p| p.get("steps")).and_then(Value::as_array).map_or(0, Vec::len)
    }
}

/// Why a line was not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum SkipReason {
    /// The last line had no newline and did not parse (a write cut short).
    ///
    /// The last line had no newline and did not parse: a write was cut short
    /// (mid-object or mid UTF-8 sequence). [`super::thclaws::repair_tail`] removes it.
    TornTail,
    /// Not valid UTF-8.
    ///
    /// Not valid UTF-8 (a complete line).
    InvalidUtf8,
    /// Not valid JSON.
    ///
    /// Not valid JSON; `column` is 1-based within the line.
    InvalidJson {
        /// 1-based column where parsing failed.
        column: u64,
    },
    /// Valid JSON but not an object.
    NotAnObject,
    /// Longer than the line limit (64 MiB by default): read past, not kept.
    ///
    /// Longer than the readers' line limit ([`super::ReadOptions::max_line_bytes`],
    /// default [`super::DEFAULT_MAX_LINE_BYTES`], 64 MiB): read past, not kept.
    TooLong,
}

impl SkipReason {
    /// The reason's name as hosts show it (its serde tag): `torn_tail`,
    /// `invalid_utf8`, `invalid_json`, `not_an_object` or `too_long`.
    pub fn name(&self) -> &'static str {
        match self {
            SkipReason::TornTail => "torn_tail",
            SkipReason::InvalidUtf8 => "invalid_utf8",
            SkipReason::InvalidJson { .. } => "invalid_json",
            SkipReason::NotAnObject => "not_an_object",
            SkipReason::TooLong => "too_long",
        }
    }

    /// The 1-based column where parsing failed, for `InvalidJson` only.
    pub fn column(&self) -> Option<u64> {
        match self {
            SkipReason::InvalidJson { column } => Some(*column),
            _ => None,
        }
    }
}

/// A line a reader skipped.
///
/// A line that was skipped, with its 1-based number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedLine {
    /// 1-based line number.
    pub line: u64,
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// Why: `torn_tail`, `invalid_utf8`, `invalid_json`, `not_an_object` or
    /// `too_long` (Kotlin/Swift: the `SkipReason`, the column in `InvalidJson`).
    #[serde(flatten)]
    pub reason: SkipReason,
}

/// What a reader saw in one file: every line is imported or counted here.
///
/// What a reader saw in one file. Nothing is dropped silently: every line is
/// either in the session(s) or counted here by kind.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadReport {
    /// Format read.
    pub format: Option<SourceFormat>,
    /// Lines seen, skipped ones included.
    ///
    /// Lines seen, skipped ones included (a final line without `\n` counts).
    pub lines: u64,
    /// Bytes up to the end of the last whole line (where an incremental import resumes).
    ///
    /// Bytes up to the end of the last line that was read whole (the offset
    /// an incremental import resumes from; a torn tail is not included).
    pub bytes: u64,
    /// Every parsed line by kind.
    ///
    /// Every parsed line by kind (`type`, or `type/payload.type` for Codex,
    /// `system/<subtype>` for Claude; for Gemini CLI `session`,
    /// `message/<type>`, `$set <keys>`, `$rewindTo`, and `document` for each
    /// line of a JSON chat file), before deciding what to do with it.
    pub kinds: BTreeMap<String, u64>,
    /// Lines counted but not imported (duplicates, bookkeeping), by kind.
    ///
    /// Lines counted but not imported, by kind: duplicates (Codex `event_msg`
    /// copies of `response_item` text), progress/bookkeeping lines.
    pub not_imported: BTreeMap<String, u64>,
    /// Lines of unknown kind kept verbatim, by kind.
    ///
    /// Lines of unknown kind kept verbatim in [`PortableSession::other_lines`], by kind.
    pub kept_raw: BTreeMap<String, u64>,
    /// Lines that could not be read, with line numbers and reasons.
    pub skipped: Vec<SkippedLine>,
    /// Lines where a lone UTF-16 surrogate escape was replaced by U+FFFD.
    ///
    /// Lines where a lone UTF-16 surrogate escape (`\ud800`...) was replaced by U+FFFD.
    pub surrogates_replaced: Vec<u64>,
    /// Blank lines (ignored).
    pub blank_lines: u64,
    /// The last line was complete JSON without its final newline.
    ///
    /// True when the last line was complete JSON without its final `\n`.
    pub missing_final_newline: bool,
    /// Lines already imported by an earlier import.
    ///
    /// Lines before `ReadOptions::emit_from_line` (already imported earlier).
    pub already_imported_lines: u64,
    /// Claude Code: assistant lines merged into an earlier line of the same message id.
    pub merged_lines: u64,
    /// Claude Code: usage figures not counted again for an already counted message id.
    pub duplicate_usage: u64,
}

/// Every line of a file by what became of it (issue 28 item 8), from a
/// [`ReadReport`] ([`ReadReport::line_account`]): each line is in exactly
/// one place, so [`LineAccount::total`] equals [`ReadReport::lines`], the
/// file's line count (`\n`-separated; a last line without `\n` counts).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct LineAccount {
    /// Lines that are part of the session, by kind (as [`ReadReport::kinds`]):
    /// turns, session facts (header, `session_meta`, titles, models), usage,
    /// snapshots, compactions, and lines merged into an earlier line's entry
    /// (Claude Code parts of one message).
    pub in_session: BTreeMap<String, u64>,
    /// Lines of a kind this model does not know, kept verbatim with the
    /// session (exported again), by kind.
    pub kept_raw: BTreeMap<String, u64>,
    /// Lines read and deliberately not imported (copies of other lines,
    /// progress and bookkeeping), by kind.
    pub not_imported: BTreeMap<String, u64>,
    /// Lines that could not be read, by [`SkipReason`] name (`torn_tail`,
    /// `invalid_utf8`, `invalid_json`, `not_an_object`, `too_long`).
    pub unreadable: BTreeMap<String, u64>,
    /// Blank (whitespace-only) lines.
    pub blank: u64,
    /// Lines imported by an earlier import of the file (a resumed import).
    pub already_imported: u64,
}

impl LineAccount {
    /// Lines accounted for, over every place: the file's line count.
    pub fn total(&self) -> u64 {
        let sum = |m: &BTreeMap<String, u64>| m.values().sum::<u64>();
        sum(&self.in_session) + sum(&self.kept_raw) + sum(&self.not_imported) + sum(&self.unreadable) + self.blank + self.already_imported
    }
}

impl ReadReport {
    /// Every line by what became of it ([`LineAccount`]): a parsed line of
    /// kind `k` is in the session unless counted in
    /// [`ReadReport::not_imported`] or [`ReadReport::kept_raw`]; unreadable
    /// lines come from [`ReadReport::skipped`]. Readers count a line of an
    /// earlier import only in [`ReadReport::already_imported_lines`], never
    /// by kind too, so `line_account().total() == lines` for every file
    /// (tested per format and on every sample, `core/tests/portable_line_account.rs`).
    pub fn line_account(&self) -> LineAccount {
        let mut a = LineAccount { kept_raw: self.kept_raw.clone(), not_imported: self.not_imported.clone(), blank: self.blank_lines, already_imported: self.already_imported_lines, ..Default::default() };
        for (k, n) in &self.kinds {
            let out = self.kept_raw.get(k).copied().unwrap_or(0) + self.not_imported.get(k).copied().unwrap_or(0);
            // A reader that counted a line in two places shows as a total
            // that differs from `lines` (the tests compare them), never as
            // a negative count.
            let n = n.saturating_sub(out);
            if n > 0 {
                a.in_session.insert(k.clone(), n);
            }
        }
        for s in &self.skipped {
            *a.unreadable.entry(s.reason.name().to_owned()).or_default() += 1;
        }
        a
    }

    /// The torn tail, if the file had one.
    pub fn torn_tail(&self) -> Option<&SkippedLine> {
        self.skipped.iter().find(|s| s.reason == SkipReason::TornTail)
    }

    pub(crate) fn kind(&mut self, k: &str) {
        *self.kinds.entry(k.to_owned()).or_default() += 1;
    }

    pub(crate) fn not_imported(&mut self, k: &str) {
        *self.not_imported.entry(k.to_owned()).or_default() += 1;
    }

    pub(crate) fn kept_raw(&mut self, k: &str) {
        *self.kept_raw.entry(k.to_owned()).or_default() += 1;
    }
}
