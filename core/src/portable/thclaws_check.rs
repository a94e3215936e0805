//! Our own check of thClaws JSONL lines against the serde shapes real thClaws
//! deserializes (issue 14 item 1; DESIGN.md "Portable sessions").
//!
//! The types below mirror, field for field, thClaws' `crates/core/src/types.rs`
//! (`ContentBlock`, `ImageSource`, `ToolResultContent`, `ToolResultBlock`,
//! `Role`) and `crates/core/src/session.rs` (`SessionHeader`, `MessageEvent`,
//! `RenameEvent`, `PlanSnapshotEvent`, `GoalSnapshotEvent`,
//! `ProviderStateEvent`, `CompactionEvent`, `CompactedMessage`), with
//! `Plan`/`PlanStep`/`StepStatus` of `crates/core/src/tools/plan_state.rs`
//! and `GoalState`/`GoalStatus` of `crates/core/src/goal_state.rs`
//! (thClaws/thClaws on GitHub, read in Dec 2026). The same serde attributes
//! give the same answers: an internally tagged `type` enum rejects an
//! unknown variant (`image` with a `url` source, `web_search_call`,
//! `redacted_thinking`...), unknown fields are ignored, `timestamp` must be
//! a non-negative integer.
//!
//! [`load_check`] replays a whole file the way thClaws' `Session::load_from`
//! does: a line that fails its type is skipped (for a message line thClaws
//! drops that whole message), a `compaction` line resets the history to its
//! `messages`, an unknown `type` is read as a message event (and fails).

use serde::Deserialize;

#[derive(Deserialize)]
#[allow(dead_code)]
struct SessionHeader {
    #[serde(rename = "type")]
    kind: String,
    id: String,
    model: String,
    cwd: String,
    created_at: u64,
    #[serde(default)]
    shell: Option<ShellMeta>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct ShellMeta {
    id: String,
    version: String,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct MessageEvent {
    #[serde(rename = "type")]
    kind: String,
    content: Vec<ContentBlock>,
    timestamp: u64,
    #[serde(default)]
    provider: Option<String>,
    #[serde(default)]
    model: Option<String>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(dead_code)]
enum ContentBlock {
    Text {
        text: String,
    },
    Thinking {
        content: String,
        #[serde(default)]
        signature: Option<String>,
    },
    ToolUse {
        id: String,
        name: String,
        input: serde_json::Value,
        #[serde(default)]
        thought_signature: Option<String>,
    },
    ToolResult {
        tool_use_id: String,
        content: ToolResultContent,
        #[serde(default)]
        is_error: bool,
    },
    Image {
        source: ImageSource,
    },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(dead_code)]
enum ImageSource {
    Base64 { media_type: String, data: String },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(dead_code)]
enum ToolResultBlock {
    Text { text: String },
    Image { source: ImageSource },
}

#[derive(Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
enum ToolResultContent {
    Text(String),
    Blocks(Vec<ToolResultBlock>),
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct RenameEvent {
    #[serde(rename = "type")]
    kind: String,
    title: String,
    timestamp: u64,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct PlanSnapshotEvent {
    #[serde(rename = "type")]
    kind: String,
    plan: Option<Plan>,
    timestamp: u64,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Plan {
    id: String,
    steps: Vec<PlanStep>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct PlanStep {
    id: String,
    title: String,
    description: String,
    status: StepStatus,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    output: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum StepStatus {
    Todo,
    InProgress,
    Done,
    Failed,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct GoalSnapshotEvent {
    #[serde(rename = "type")]
    kind: String,
    goal: Option<GoalState>,
    timestamp: u64,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct GoalState {
    objective: String,
    started_at: u64,
    budget_tokens: Option<u64>,
    budget_time_secs: Option<u64>,
    tokens_used: u64,
    iterations_done: u64,
    status: GoalStatus,
    last_audit: Option<String>,
    last_message: Option<String>,
    completed_at: Option<u64>,
    #[serde(default)]
    auto_continue: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum GoalStatus {
    Active,
    Complete,
    Abandoned,
    Blocked,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct ProviderStateEvent {
    #[serde(rename = "type")]
    kind: String,
    provider_session_id: Option<String>,
    timestamp: u64,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct CompactionEvent {
    #[serde(rename = "type")]
    kind: String,
    messages: Vec<CompactedMessage>,
    #[serde(default)]
    replaces_count: usize,
    timestamp: u64,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct CompactedMessage {
    role: String,
    content: Vec<ContentBlock>,
}

/// What one line is to thClaws' loader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineVerdict {
    /// A `header` line thClaws accepts.
    Header,
    /// A `user`/`assistant`/`system` message thClaws loads.
    Message,
    /// A `compaction` checkpoint thClaws accepts, with its message count
    /// (messages of an unknown role are dropped by thClaws and not counted).
    Compaction(usize),
    /// A `plan_snapshot`, `goal_snapshot`, `rename`, `provider_state`,
    /// `model` or `turn_usage` line thClaws accepts.
    State(&'static str),
    /// A blank line (thClaws ignores it).
    Blank,
    /// A line thClaws skips; for a message line that means the whole
    /// message is lost. The reason is serde's message (no content).
    Rejected(String),
}

/// Check one line (without its `\n`) against thClaws' types, dispatching on
/// `type` exactly as `Session::load_from` does.
pub fn check_line(line: &str) -> LineVerdict {
    let line = line.trim();
    if line.is_empty() {
        return LineVerdict::Blank;
    }
    let val: serde_json::Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return LineVerdict::Rejected(format!("malformed JSON: {e}")),
    };
    let kind = val.get("type").and_then(|v| v.as_str()).unwrap_or("").to_owned();
    fn verdict<T: for<'de> Deserialize<'de>>(val: serde_json::Value, ok: LineVerdict) -> LineVerdict {
        match serde_json::from_value::<T>(val) {
            Ok(_) => ok,
            Err(e) => LineVerdict::Rejected(e.to_string()),
        }
    }
    match kind.as_str() {
        "header" => verdict::<SessionHeader>(val, LineVerdict::Header),
        "rename" => verdict::<RenameEvent>(val, LineVerdict::State("rename")),
        // thClaws ignores a turn_usage line it cannot read and never fails on it.
        "turn_usage" => LineVerdict::State("turn_usage"),
        "plan_snapshot" => verdict::<PlanSnapshotEvent>(val, LineVerdict::State("plan_snapshot")),
        "goal_snapshot" => verdict::<GoalSnapshotEvent>(val, LineVerdict::State("goal_snapshot")),
        "provider_state" => verdict::<ProviderStateEvent>(val, LineVerdict::State("provider_state")),
        "model" => LineVerdict::State("model"),
        "compaction" => match serde_json::from_value::<CompactionEvent>(val) {
            Ok(ev) => LineVerdict::Compaction(ev.messages.iter().filter(|m| matches!(m.role.as_str(), "user" | "assistant" | "system")).count()),
            Err(e) => LineVerdict::Rejected(e.to_string()),
        },
        _ => match serde_json::from_value::<MessageEvent>(val) {
            Ok(ev) if matches!(ev.kind.as_str(), "user" | "assistant" | "system") => LineVerdict::Message,
            Ok(_) => LineVerdict::Rejected(format!("unknown role `{kind}`")),
            Err(e) => LineVerdict::Rejected(e.to_string()),
        },
    }
}

/// What thClaws' `Session::load_from` would make of a whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThclawsLoad {
    /// Messages thClaws resumes with (after the last compaction's reset).
    pub messages: usize,
    /// Message lines written (`user`/`assistant`/`system` or unknown types).
    pub message_lines: usize,
    /// Lines thClaws skips: 1-based line number and serde's reason.
    pub rejected: Vec<(u64, String)>,
    /// Whether a valid header line was seen.
    pub header: bool,
    /// `plan_snapshot` lines accepted.
    pub plan_snapshots: usize,
    /// `goal_snapshot` lines accepted.
    pub goal_snapshots: usize,
    /// `compaction` lines accepted.
    pub compactions: usize,
}

/// Replay `text` (a whole thClaws JSONL file) as thClaws' loader does, line by
/// line (split on `\n`): see the module docs.
pub fn load_check(text: &str) -> ThclawsLoad {
    let mut out = ThclawsLoad::default();
    for (i, line) in text.split('\n').enumerate() {
        let n = i as u64 + 1;
        let kind_is_message = {
            let t = line.trim();
            !t.is_empty() && !is_state_kind(t)
        };
        match check_line(line) {
            LineVerdict::Header => out.header = true,
            LineVerdict::Message => {
                out.messages += 1;
                out.message_lines += 1;
            }
            LineVerdict::Compaction(k) => {
                out.messages = k;
                out.compactions += 1;
            }
            LineVerdict::State("plan_snapshot") => out.plan_snapshots += 1,
            LineVerdict::State("goal_snapshot") => out.goal_snapshots += 1,
            LineVerdict::State(_) | LineVerdict::Blank => {}
            LineVerdict::Rejected(r) => {
                if kind_is_message {
                    out.message_lines += 1;
                }
                out.rejected.push((n, r));
            }
        }
    }
    out
}

fn is_state_kind(line: &str) -> bool {
    let kind = serde_json::from_str::<serde_json::Value>(line).ok().and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned));
    matches!(kind.as_deref(), Some("header" | "rename" | "turn_usage" | "plan_snapshot" | "goal_snapshot" | "provider_state" | "model" | "compaction"))
}
