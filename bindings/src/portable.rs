//! Portable sessions (seed 002; DESIGN.md "Portable sessions"): import
//! thClaws JSONL, Codex rollouts and Claude Code transcripts into the store,
//! export a stored session as thClaws JSONL, fork, resolve, list. Thin
//! wrappers over `sessiondb::portable`.

use std::path::PathBuf;
use std::sync::Arc;

use sessiondb::portable::{self as core_pt, SourceFormat};

use crate::error::Result;
use crate::records::{Conv, FileImport, ReadReport};
use crate::store::SessionStore;

/// Progress of `importPaths`, implemented by the host (e.g. a progress bar).
#[uniffi::export(with_foreign)]
pub trait ImportProgressListener: Send + Sync {
    /// Called after each file: files finished of the total, bytes of finished files of the total.
    fn on_progress(&self, files_done: u64, files_total: u64, bytes_done: u64, bytes_total: u64);
}

#[uniffi::export]
impl SessionStore {

    /// Import every session file under `paths` (files or directory trees;
    /// `*.jsonl` inside directories), one report per file in walk order;
    /// `progress` is called after each file. Problems with one file are in
    /// its report and the rest go on; a given path that cannot be read or
    /// walked at all is a report of that path with status `Failed` (the
    /// message names the path).
    #[uniffi::method(default(progress = None))]
    pub fn import_paths(
        &self,
        paths: Vec<String>,
        progress: Option<Arc<dyn ImportProgressListener>>,
    ) -> Result<Vec<FileImport>> {
        let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
        let mut report = |p: core_pt::ImportProgress| {
            if let Some(l) = &progress {
                l.on_progress(
                    p.files_done as u64,
                    p.files_total as u64,
                    p.bytes_done,
                    p.bytes_total,
                );
            }
        };
        Ok(core_pt::import_paths(self.core(), &paths, &mut report)?
            .files
            .conv())
    }

}

/// One turn of a portable session.
#[derive(Debug, Clone, uniffi::Record)]
pub struct PortableTurn {
    /// `user`, `assistant`, `system` or `tool`.
    pub role: String,
    /// The content blocks as a JSON array of thClaws block objects
    /// (`{"type":"text","text":...}`, `thinking`, `tool_use`, `tool_result`, `image`, others verbatim).
    pub blocks_json: String,
    /// Time of the turn, ms since the Unix epoch.
    #[uniffi(default)]
    pub timestamp_ms: Option<i64>,
    /// Model that wrote the turn (assistant turns).
    #[uniffi(default)]
    pub model: Option<String>,
    /// Provider of that model.
    #[uniffi(default)]
    pub provider: Option<String>,
}

impl From<&core_pt::Turn> for PortableTurn {
    fn from(t: &core_pt::Turn) -> Self {
        let blocks: Vec<serde_json::Value> = t.blocks.iter().map(core_pt::Block::to_json).collect();
        PortableTurn {
            role: t.role.as_str().to_string(),
            blocks_json: serde_json::Value::Array(blocks).to_string(),
            timestamp_ms: t.timestamp_ms,
            model: t.model.clone(),
            provider: t.provider.clone(),
        }
    }
}

/// A session read from a thClaws file (seed 002), with the figures the core derives.
#[derive(Debug, Clone, uniffi::Record)]
pub struct PortableSession {
    /// Source session id.
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

impl From<core_pt::PortableSession> for PortableSession {
    fn from(s: core_pt::PortableSession) -> Self {
        PortableSession {
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
#[derive(Debug, Clone, uniffi::Record)]
pub struct ThclawsRead {
    /// The session in the file.
    pub session: PortableSession,
    /// What the reader saw (lines, torn tail, skipped lines...).
    pub report: ReadReport,
}

/// A session to write as thClaws JSONL.
#[derive(Debug, Clone, uniffi::Record)]
pub struct NewPortableSession {
    /// Session id.
    pub id: String,
    /// Title (written as a final `rename` line).
    #[uniffi(default)]
    pub title: Option<String>,
    /// Model.
    #[uniffi(default)]
    pub model: Option<String>,
    /// Provider.
    #[uniffi(default)]
    pub provider: Option<String>,
    /// Working directory.
    #[uniffi(default)]
    pub cwd: Option<String>,
    /// Creation time, ms since the Unix epoch.
    #[uniffi(default)]
    pub created_at_ms: Option<i64>,
    /// The turns, in order.
    pub turns: Vec<PortableTurn>,
}

/// Read thClaws JSONL bytes (seed 002; the real format and the seed's
/// `message` form). A torn last line and bad lines are reported, never fatal.
/// `fallbackId` names a file without a header id. Errors: `InvalidInput`.
#[uniffi::export(default(fallback_id = "session"))]
pub fn read_thclaws(data: Vec<u8>, fallback_id: String) -> Result<ThclawsRead> {
    let mut sink = core_pt::Collector::new(SourceFormat::Thclaws, None);
    let report = core_pt::read_thclaws(&data[..], &core_pt::ReadOptions::default(), &mut sink)?;
    let session = sink
        .finish(&fallback_id)
        .into_iter()
        .next()
        .ok_or_else(|| sessiondb::Error::invalid("the data holds no thClaws session"))?;
    Ok(ThclawsRead {
        session: session.into(),
        report: report.conv(),
    })
}

/// Write a session as thClaws JSONL text (what real thClaws reads).
/// Errors: `InvalidInput` (unknown role, blocks not a JSON array).
#[uniffi::export]
pub fn write_thclaws(session: NewPortableSession) -> Result<String> {
    let mut turns = Vec::with_capacity(session.turns.len());
    for t in session.turns {
        let role = core_pt::Role::parse(&t.role).ok_or_else(|| {
            sessiondb::Error::invalid("turn role must be user, assistant, system or tool")
        })?;
        let blocks = match serde_json::from_str::<serde_json::Value>(&t.blocks_json) {
            Ok(serde_json::Value::Array(a)) => {
                a.into_iter().map(core_pt::Block::from_json).collect()
            }
            _ => {
                return Err(sessiondb::Error::invalid(
                    "blocksJson must be a JSON array of block objects",
                )
                .into())
            }
        };
        let mut turn = core_pt::Turn::new(role, blocks, t.timestamp_ms, 0);
        turn.model = t.model;
        turn.provider = t.provider;
        turns.push(turn);
    }
    let s = core_pt::PortableSession {
        id: session.id,
        title: session.title,
        model: session.model,
        provider: session.provider,
        cwd: session.cwd,
        created_at_ms: session.created_at_ms,
        turns,
        ..Default::default()
    };
    let mut out = Vec::new();
    core_pt::write_thclaws(&s, &mut out)?;
    Ok(String::from_utf8(out)
        .map_err(|_| sessiondb::Error::corrupt("writer produced invalid UTF-8"))?)
}
