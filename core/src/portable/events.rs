//! Streaming reader output: readers emit [`Event`]s into an [`EventSink`]
//! so a file of any size is read with bounded memory. [`Collector`] builds
//! [`PortableSession`]s from them; the store importer writes them in batches.

use super::model::{Compaction, OtherLine, PortableSession, SnapshotKind, SourceFormat, SourceInfo, StateSnapshot, Turn, Usage};
use crate::Result;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// Which conversation of a file an event belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Thread {
    /// The file's main session.
    Main,
    /// A Claude Code inline sidechain (Task subagent), by the `uuid` of its root line.
    Sidechain(String),
}

/// Session-level facts; `None` fields leave the current value alone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    /// Source session id (first one wins).
    pub id: Option<String>,
    /// Model (latest wins).
    pub model: Option<String>,
    /// Provider (latest wins).
    pub provider: Option<String>,
    /// Working directory (first one wins).
    pub cwd: Option<String>,
    /// Creation time, ms since the Unix epoch (first one wins).
    pub created_at_ms: Option<i64>,
    /// Source metadata merged into [`SourceInfo::extra`].
    pub extra: Map<String, Value>,
}

/// One thing a reader found.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Session-level facts (header, `session_meta`, `turn_context`...).
    Meta(Meta),
    /// A turn, complete (readers merge split messages before emitting).
    Turn(Turn),
    /// Tokens of one model request.
    Usage(Usage),
    /// `rename` (or Claude `summary`): `None` clears the title. Latest wins.
    Title {
        /// New title.
        title: Option<String>,
        /// 1-based line.
        line: u64,
    },
    /// `plan_snapshot.plan` (may be JSON null). Every one is kept in
    /// order; the latest wins in the restored view.
    Plan {
        /// The plan object (`{id, steps:[...]}`) or null.
        plan: Value,
        /// 1-based line.
        line: u64,
        /// The line's `timestamp`, milliseconds since the Unix epoch.
        timestamp_ms: Option<i64>,
    },
    /// `goal_snapshot.goal` (may be JSON null). Kept as [`Event::Plan`].
    Goal {
        /// The goal or null.
        goal: Value,
        /// 1-based line.
        line: u64,
        /// The line's `timestamp`, milliseconds since the Unix epoch.
        timestamp_ms: Option<i64>,
    },
    /// `provider_state.provider_session_id`. Latest wins.
    ProviderState {
        /// The provider-side conversation id, or `None` when cleared.
        provider_session_id: Option<String>,
        /// 1-based line.
        line: u64,
    },
    /// A compaction checkpoint (its `at_turn` is filled in by the sink).
    Compaction(Compaction),
    /// A line of unknown kind, kept verbatim.
    Other(OtherLine),
}

/// Receives reader events, in file order.
pub trait EventSink {
    /// Called once per event. An error stops the read and is returned by it.
    fn event(&mut self, thread: &Thread, event: Event) -> Result<()>;

    /// Called between lines: every event of lines `1..=lines` has been
    /// delivered (events of later lines may have been too: a reader holding
    /// a split message back passes the line before it). `bytes` is the
    /// offset just past line `lines`. A read resumed with `emit_from_line =
    /// lines + 1` repeats no event of a line `<= lines`, so a sink may commit
    /// the events of those lines together with this position. An error stops
    /// the read.
    fn safe_point(&mut self, _lines: u64, _bytes: u64) -> Result<()> {
        Ok(())
    }
}

/// An [`EventSink`] that builds whole [`PortableSession`]s in memory: the
/// main session first, then one per sidechain in order of appearance.
#[derive(Debug, Default)]
pub struct Collector {
    sessions: Vec<(Thread, PortableSession)>,
    format: Option<SourceFormat>,
    file: Option<PathBuf>,
}

impl Collector {
    /// A collector for sessions of `format` read from `file`.
    pub fn new(format: SourceFormat, file: Option<PathBuf>) -> Collector {
        Collector { sessions: Vec::new(), format: Some(format), file }
    }

    fn session(&mut self, thread: &Thread) -> &mut PortableSession {
        if let Some(i) = self.sessions.iter().position(|(t, _)| t == thread) {
            return &mut self.sessions[i].1;
        }
        if *thread != Thread::Main && !self.sessions.iter().any(|(t, _)| *t == Thread::Main) {
            self.new_session(Thread::Main);
        }
        self.new_session(thread.clone());
        &mut self.sessions.last_mut().expect("just pushed").1
    }

    fn new_session(&mut self, thread: Thread) {
        let mut s = PortableSession {
            source: SourceInfo { format: self.format, file: self.file.clone(), ..Default::default() },
            ..Default::default()
        };
        if let (Thread::Sidechain(_), Some((_, main))) = (&thread, self.sessions.iter().find(|(t, _)| *t == Thread::Main)) {
            s.model = main.model.clone();
            s.provider = main.provider.clone();
            s.cwd = main.cwd.clone();
            s.source.extra = main.source.extra.clone();
        }
        self.sessions.push((thread, s));
    }

    /// The sessions read, main first. Each sidechain gets the id
    /// `<main id>.sidechain.<root uuid>` and `source.sidechain_of = main id`.
    /// A file with no id gets `fallback_id` (e.g. the file stem).
    pub fn finish(mut self, fallback_id: &str) -> Vec<PortableSession> {
        if self.sessions.is_empty() {
            self.new_session(Thread::Main);
        }
        let main_id = self
            .sessions
            .iter()
            .find(|(t, _)| *t == Thread::Main)
            .and_then(|(_, s)| (!s.id.is_empty()).then(|| s.id.clone()))
            .unwrap_or_else(|| fallback_id.to_owned());
        self.sessions
            .into_iter()
            .map(|(t, mut s)| {
                match t {
                    Thread::Main => {
                        if s.id.is_empty() {
                            s.id = main_id.clone();
                        }
                    }
                    Thread::Sidechain(root) => {
                        s.id = format!("{main_id}.sidechain.{root}");
                        s.source.sidechain_of = Some(main_id.clone());
                    }
                }
                s
            })
            .collect()
    }
}

impl EventSink for Collector {
    fn event(&mut self, thread: &Thread, event: Event) -> Result<()> {
        let s = self.session(thread);
        match event {
            Event::Meta(m) => apply_meta(s, m, *thread == Thread::Main),
            Event::Turn(t) => {
                if s.created_at_ms.is_none() {
                    s.created_at_ms = t.timestamp_ms;
                }
                s.turns.push(t)
            }
            Event::Usage(u) => s.usage.push(u),
            Event::Title { title, .. } => s.title = title,
            Event::Plan { plan, timestamp_ms, .. } => {
                s.snapshots.push(StateSnapshot { kind: SnapshotKind::Plan, at_turn: s.turns.len(), value: plan.clone(), timestamp_ms });
                s.plan = Some(plan)
            }
            Event::Goal { goal, timestamp_ms, .. } => {
                s.snapshots.push(StateSnapshot { kind: SnapshotKind::Goal, at_turn: s.turns.len(), value: goal.clone(), timestamp_ms });
                s.goal = Some(goal)
            }
            Event::ProviderState { provider_session_id, .. } => s.provider_state = Some(provider_session_id),
            Event::Compaction(mut c) => {
                c.at_turn = s.turns.len();
                s.compactions.push(c)
            }
            Event::Other(o) => s.other_lines.push(o),
        }
        Ok(())
    }
}

/// Merge [`Meta`] into a session (first id/cwd/created win, latest model/provider win).
pub(crate) fn apply_meta(s: &mut PortableSession, m: Meta, set_id: bool) {
    if set_id && s.id.is_empty() {
        if let Some(id) = m.id {
            s.id = id;
        }
    }
    if m.model.is_some() {
        s.model = m.model;
    }
    if m.provider.is_some() {
        s.provider = m.provider;
    }
    if s.cwd.is_none() {
        s.cwd = m.cwd;
    }
    if s.created_at_ms.is_none() {
        s.created_at_ms = m.created_at_ms;
    }
    s.source.extra.extend(m.extra);
}
