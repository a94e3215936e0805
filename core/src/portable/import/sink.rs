//! The import sink: the [`EventSink`] the readers write to, which finds or
//! creates each target session, decides what is stored already (record
//! identity) and prepares the batches. Moved out of `import.rs` as is
//! (issue 31 item 4).

use super::identity::{compaction_identity, count_prefix, nth, raw_identity, snapshot_identity, turn_identity, usage_identity, Identity, Occurrences, RecordIds};
use super::bodies::{compaction_body, fit_depth, MAX_NESTED_DEPTH};
use super::batch::{apply_batch, entry_bytes, seal_batch, Batch, BatchWrite, Op, PendingWrite};
use super::{clip, head_hash, sanitize_id, stored_line_count, ProgressRecord, SessionImport, ALREADY_STORED, BATCH_BYTES, HEAD_BYTES, LINES_PREFIX, SOURCE_COMPACTION_KIND};
use crate::backend::RecordId;
use crate::crypto;
use crate::portable::events::{Event, EventSink, Meta, Thread};
use crate::portable::model::{Block, Compaction, Role, SourceFormat, Turn, Usage};
use crate::store::{ContentFormat, EntryMeta, NewEntry, NewSession, Role as StoreRole, SessionStore, TokenUsage};
use crate::{Error, Result};
use serde_json::{json, Value};
use std::path::PathBuf;

/// A latest-wins snapshot (plan, goal, provider state): the newest one read
/// and whether it is stored yet.
#[derive(Default)]
pub(super) struct Snapshot {
    pub(super) latest: Option<(u64, Value)>,
    pub(super) stored: bool,
}

pub(super) struct Target {
    pub(super) id: String,
    pub(super) created: bool,
    /// Highest source line already stored (turns at or below it are skipped:
    /// a guard for stores written before imports committed their progress
    /// with every batch).
    pub(super) max_stored_line: u64,
    /// Entries in the session before this read + turns emitted so far.
    pub(super) next_seq_base: u64,
    pub(super) stats: SessionImport,
    pub(super) snapshots: [Snapshot; 3],
    /// Identities of the source records the session holds: a turn, usage
    /// figure or extension whose identity is here is not stored again,
    /// whatever file or line it arrives in.
    pub(super) seen: std::collections::HashSet<RecordId>,
    pub(super) provider: Option<String>,
    /// Model and provider on the session row.
    pub(super) stored_model: Option<String>,
}

pub(super) const SNAPSHOT_KINDS: [&str; 3] = ["plan_snapshot", "goal_snapshot", "provider_state"];

/// Where the progress record of the file being imported goes.
pub(super) struct ProgressTarget {
    pub(super) key: String,
    pub(super) format: SourceFormat,
    pub(super) canonical: PathBuf,
    pub(super) canonical_s: String,
    /// Keyed hash of the first HEAD_BYTES of the file, once that many are consumed.
    pub(super) full_head: Option<String>,
}

pub(super) struct ImportSink<'a> {
    pub(super) store: &'a SessionStore,
    /// Source records not stored again, by `already stored: <what>` kind.
    pub(super) duplicates: std::collections::BTreeMap<String, u64>,
    pub(super) format: SourceFormat,
    pub(super) known_main: Option<String>,
    pub(super) fallback: String,
    pub(super) meta: Meta,
    /// Latest model read per thread (a Claude sidechain runs its own model).
    pub(super) models: std::collections::HashMap<Thread, String>,
    /// A title read before the main session was looked up: `(title, line)`.
    pub(super) title: Option<(Option<String>, u64)>,
    pub(super) targets: Vec<(Thread, Target)>,
    pub(super) last_ts: Option<i64>,
    pub(super) pending: Vec<PendingWrite>,
    pub(super) pending_entries: usize,
    pub(super) pending_bytes: usize,
    pub(super) progress: ProgressTarget,
    /// Lines and bytes consumed by the last commit.
    pub(super) committed_lines: u64,
    pub(super) committed_bytes: u64,
    /// The file has a progress record (saying `committed_lines`); each batch
    /// checks it is still that before writing.
    pub(super) progress_recorded: bool,
    /// The queue of the import's pipeline (the sealing stage, then the
    /// writer thread: `batch::seal_batch`, `batch::apply_batch`); `None` =
    /// seal and write on this thread.
    pub(super) writer: Option<std::sync::mpsc::SyncSender<Batch>>,
    /// Entries per batch, at most: `BATCH_ENTRIES`, lowered by the writer
    /// thread so that one batch holds the store's writer about `BATCH_HOLD`
    /// (`adapt_batch` in `import.rs`).
    pub(super) batch_limit: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    /// Content identities read so far in this file (issue 28 item 1).
    pub(super) occ: Occurrences,
    /// Bytes of the file an earlier import consumed (0: read from the start).
    pub(super) resume_bytes: u64,
    /// The occurrences of those bytes are in `occ`.
    pub(super) prefix_counted: bool,
    /// Record ids under the store's key (its HMAC state made once).
    pub(super) ids: RecordIds,
}

impl<'a> ImportSink<'a> {
    fn main_id(&self) -> String {
        self.known_main.clone().or_else(|| self.meta.id.clone()).map(|s| sanitize_id(&s)).unwrap_or_else(|| sanitize_id(&self.fallback))
    }

    /// The thread's session id as the source has it, before [`sanitize_id`]
    /// (recorded in `import_source` as `source_id`).
    fn source_id(&self, thread: &Thread) -> String {
        let main = self.known_main.clone().or_else(|| self.meta.id.clone()).unwrap_or_else(|| self.fallback.clone());
        match thread {
            Thread::Main => main,
            Thread::Sidechain(root) => format!("{main}.sidechain.{root}"),
        }
    }

    fn target(&mut self, thread: &Thread) -> Result<usize> {
        if let Some(i) = self.targets.iter().position(|(t, _)| t == thread) {
            return Ok(i);
        }
        if *thread != Thread::Main && !self.targets.iter().any(|(t, _)| *t == Thread::Main) {
            self.target(&Thread::Main)?;
        }
        let main = self.main_id();
        let id = match thread {
            Thread::Main => main.clone(),
            Thread::Sidechain(root) => sanitize_id(&format!("{main}.sidechain.{root}")),
        };
        let (created, rec) = match self.store.get_session(&id) {
            Ok(rec) => {
                // Only a session imported from the same format continues: a
                // native session, or one imported from another format, that
                // happens to have this id is never appended to.
                let same_source = self.store.list_context_extensions(&id)?.iter().any(|x| {
                    x.kind == "import_source"
                        && serde_json::from_str::<Value>(&x.body).ok().and_then(|b| b.get("format").and_then(Value::as_str).map(str::to_owned))
                            == Some(self.format.as_str().to_owned())
                });
                if !same_source {
                    return Err(Error::conflict(format!(
                        "session `{id}` already exists and was not imported from a {} file; nothing of this file was added to it",
                        self.format.as_str()
                    )));
                }
                // Two source ids that sanitize to one store id (`a b`, `a_b`)
                // are two sessions: the first keeps the id. Sessions imported
                // before `source_id` was recorded continue as before.
                if self.known_main.is_none() {
                    let source = self.source_id(thread);
                    let recorded = self.store.list_context_extensions(&id)?.iter().find_map(|x| {
                        (x.kind == "import_source")
                            .then(|| serde_json::from_str::<Value>(&x.body).ok()?.get("source_id")?.as_str().map(str::to_owned))
                            .flatten()
                    });
                    if let Some(recorded) = recorded.filter(|r| *r != source) {
                        return Err(Error::conflict(format!(
                            "session `{id}` was imported from source session `{recorded}`, not `{source}`; nothing of this file was added to it"
                        )));
                    }
                }
                (false, rec)
            }
            Err(Error::NotFound { .. }) => {
                let title = if *thread == Thread::Main { self.title.take().and_then(|(t, _)| t) } else { None };
                let new = NewSession {
                    id: Some(id.clone()),
                    name: title.map(|t| clip(&t, 1024)).filter(|t| !t.trim().is_empty()),
                    // A cwd that is not absolute (here, or as a Windows path: a
                    // session recorded on Windows, issue 28 item 5) is not
                    // bound: it would resolve against our own directory. It
                    // stays in the `import_source` extension.
                    workspace_path: self.meta.cwd.clone().filter(|c| !c.is_empty() && crate::paths::is_absolute_anywhere(c)),
                    model: self.models.get(thread).cloned().or_else(|| self.meta.model.clone()).map(|m| clip(&m, 256)),
                    provider: self.meta.provider.clone().map(|p| clip(&p, 256)),
                    work_mode: None,
                    created_at_ms: self.meta.created_at_ms.or(self.last_ts),
                    // A forked Codex rollout names its parent (`session_meta.forked_from_id`).
                    forked_from: if *thread == Thread::Main { self.meta.extra.get("forked_from_id").and_then(Value::as_str).filter(|p| !p.is_empty()).map(sanitize_id) } else { None },
                    forked_at_seq: None,
                };
                let mut src = json!({"format": self.format.as_str(), "cwd": self.meta.cwd, "extra": Value::Object(self.meta.extra.clone()), "source_id": self.source_id(thread)});
                if *thread != Thread::Main {
                    src["sidechain_of"] = Value::String(main.clone());
                }
                let prepared = self.store.prepare_session(&new)?;
                // The session and its provenance in one transaction.
                let made = self.store.write_batch(|t| {
                    let rec = t.create_session(&prepared, &new)?;
                    t.append_context_extension(prepared.id(), "import_source", &src.to_string())?;
                    Ok(rec)
                });
                match made {
                    Ok(rec) => (true, rec),
                    // Another import of the same source created it just now.
                    Err(Error::Conflict { .. }) => (false, self.store.get_session(&id)?),
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
        };
        let mut seen = std::collections::HashSet::new();
        if !created {
            self.store.read(|c, _| {
                c.import_records(&id, &mut |r| {
                    seen.insert(r);
                    Ok(())
                })
            })?;
        }
        let max_stored_line = if created || !seen.is_empty() {
            // Record identities decide what is stored already; line numbers
            // are only the guard of sessions imported before issue 14.
            0
        } else {
            let last_entry = self.store.get_transcript_tail(&id, 1)?.first().and_then(|e| e.source_line).unwrap_or(0);
            // Lines of a source file already imported into this session, from
            // whatever path (a rollout moved to `archived_sessions/`, a copy).
            let key = format!("{LINES_PREFIX}{id}");
            let lines = self.store.read(|c, _| c.meta(&key))?;
            last_entry.max(stored_line_count(&lines))
        };
        let stats = SessionImport { session_id: id.clone(), created, context_extensions: u64::from(created), ..Default::default() };
        // A title read before an existing main session was looked up is a
        // rename at its own line (committed with the lines around it).
        let parked = if *thread == Thread::Main { self.title.take() } else { None };
        self.targets.push((
            thread.clone(),
            Target {
                id,
                created,
                max_stored_line,
                next_seq_base: self.store.last_seq(&rec.id)?,
                stats,
                snapshots: Default::default(),
                seen,
                provider: rec.provider.clone(),
                stored_model: rec.model.clone(),
            },
        ));
        let i = self.targets.len() - 1;
        if let Some((title, line)) = parked {
            self.push(line, i, Op::Rename(title.map(|t| clip(&t, 1024)).filter(|t| !t.trim().is_empty())));
        }
        Ok(i)
    }

    /// The [`RecordId`] of source record `id` in target `target` (for a
    /// content identity, of its occurrence in this file: see
    /// [`super::identity`]), remembered as held; `None` (and counted in
    /// [`ReadReport::not_imported`] as `already stored: <what>`) when the
    /// session holds it already. Errors: reading the file's earlier lines
    /// again (a resumed import whose new record repeats stored content).
    ///
    /// [`ReadReport::not_imported`]: crate::portable::ReadReport::not_imported
    fn record(&mut self, target: usize, id: Identity) -> Result<Option<RecordId>> {
        let key = self.store.key();
        let rid = if id.repeatable {
            let thread = &self.targets[target].0;
            let base = self.ids.id(&id.text);
            if self.occ.get(thread, &base) == 0 && self.resume_bytes > 0 && !self.prefix_counted && self.targets[target].1.seen.contains(&base) {
                self.prefix_counted = true;
                self.occ.add(count_prefix(key, self.format, &self.progress.canonical, self.resume_bytes, self.store.max_line_bytes())?);
            }
            match self.occ.bump(thread, base) {
                0 => base,
                k => self.ids.id(&nth(&id.text, k)),
            }
        } else {
            self.ids.id(&id.text)
        };
        if self.targets[target].1.seen.insert(rid) {
            Ok(Some(rid))
        } else {
            *self.duplicates.entry(format!("{ALREADY_STORED}{}", id.what)).or_default() += 1;
            Ok(None)
        }
    }

    /// The records of the usage `u` of one Claude message (identity `idn`,
    /// its `message.id`), counted once per message whatever order its copies
    /// arrive in (issue 28 item 4): each figure the message had (its
    /// [`Usage::partials`] and the final one) is a record `idn ‖ figures`.
    /// The final figure held: `None` (already counted). One of the partial
    /// figures held (a copy cut inside the message came first): `u` becomes
    /// the difference to the latest of them. A message counted before issue
    /// 28 (the record `idn` alone) is counted already.
    ///
    /// [`Usage::partials`]: crate::portable::Usage::partials
    fn message_usage(&mut self, target: usize, idn: &Identity, u: &mut Usage) -> Option<Vec<RecordId>> {
        let ids = &self.ids;
        let figs = |f: [u64; 3]| ids.id(&format!("{}\0{}/{}/{}", idn.text, f[0], f[1], f[2]));
        let last = figs([u.input, u.output, u.cached]);
        let seen = &mut self.targets[target].1.seen;
        if seen.contains(&ids.id(&idn.text)) || seen.contains(&last) {
            *self.duplicates.entry(format!("{ALREADY_STORED}usage")).or_default() += 1;
            return None;
        }
        if let Some(p) = u.partials.iter().rev().find(|p| seen.contains(&figs(**p))) {
            u.input = u.input.saturating_sub(p[0]);
            u.output = u.output.saturating_sub(p[1]);
            u.cached = u.cached.saturating_sub(p[2]);
        }
        let mut ids: Vec<RecordId> = u.partials.iter().map(|p| figs(*p)).filter(|id| !seen.contains(id)).collect();
        ids.push(last);
        seen.extend(ids.iter().copied());
        Some(ids)
    }

    /// A `plan_snapshot` (k = 0) or `goal_snapshot` (k = 1): every one is a
    /// context extension of its kind, in order, with the number of entries
    /// before it (`at_seq`) and its timestamp (issue 14 item 3).
    fn state_snapshot(&mut self, target: usize, k: usize, line: u64, v: Value, timestamp_ms: Option<i64>) -> Result<()> {
        let at_seq = self.targets[target].1.next_seq_base;
        let field = if k == 0 { "plan" } else { "goal" };
        let v = fit_depth(v, MAX_NESTED_DEPTH - 1);
        let Some(record) = self.record(target, snapshot_identity(field, timestamp_ms, &v))? else { return Ok(()) };
        let body = json!({ field: v, "at_seq": at_seq, "timestamp_ms": timestamp_ms });
        self.push(line, target, Op::Ext { kind: SNAPSHOT_KINDS[k], body: body.to_string(), record: Some(record) });
        Ok(())
    }

    fn push(&mut self, line: u64, target: usize, op: Op) {
        let t = &self.targets[target].1;
        if !t.created && line <= t.max_stored_line && !matches!(op, Op::Entry { .. }) {
            // Already in the session (imported before from this or another path).
            return;
        }
        if let Op::Entry { entry, meta, .. } = &op {
            self.pending_entries += 1;
            self.pending_bytes += entry_bytes(entry, meta);
        }
        self.pending.push(PendingWrite { line, target, op });
    }

    /// Commit every pending write from lines `<= upto` (in the order they
    /// were read), the snapshots read up to there, the session model, and
    /// the progress record `(lines, bytes)`, as one transaction: a crash
    /// before it leaves the store as the previous commit did; after it, a
    /// re-import resumes at line `lines + 1`. The batch is prepared here
    /// (entries with the seqs they will get); its entries are sealed and
    /// counted by the sealing stage and it is written by the writer thread
    /// when there are those (`batch::seal_batch`, `batch::apply_batch`), so
    /// reading the next lines overlaps both; else both run here.
    fn commit(&mut self, upto: u64, lines: u64, bytes: u64) -> Result<()> {
        let mut batch = self.prepare(upto, lines, bytes)?;
        match &self.writer {
            Some(tx) => tx.send(batch).map_err(|_| Error::Database("the import writer stopped".into())),
            None => {
                seal_batch(self.store, &mut batch, false);
                apply_batch(self.store, batch)
            }
        }
    }

    fn prepare(&mut self, upto: u64, lines: u64, bytes: u64) -> Result<Batch> {
        let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending).into_iter().partition(|w| w.line <= upto);
        self.pending = later;
        self.pending_entries = self.pending.iter().filter(|w| matches!(w.op, Op::Entry { .. })).count();
        self.pending_bytes = self.pending.iter().map(|w| if let Op::Entry { entry, meta, .. } = &w.op { entry_bytes(entry, meta) } else { 0 }).sum();

        let key = self.store.key();
        let mut writes: Vec<BatchWrite> = vec![BatchWrite::CheckProgress { key: self.progress.key.clone(), expected: self.progress_recorded.then_some(self.committed_lines) }];
        let mut entries_now = 0u64;
        // One Entries write (one TranscriptAppended event) and one Usage
        // write per session and batch: a Claude message's usage or a Codex
        // token count between turns no longer splits the batch's entries
        // into one journal event per turn (the journal was 12% of the database).
        let mut entries_at: std::collections::HashMap<String, usize> = Default::default();
        let mut usage_at: std::collections::HashMap<String, usize> = Default::default();
        let mut records: std::collections::BTreeMap<String, Vec<RecordId>> = Default::default();
        for w in now {
            let (thread, tg) = &mut self.targets[w.target];
            // The model the session holds once this batch is written (a
            // `Model` write below stores the latest one read): its tokenizer
            // counts the entries here, beside the writer (issue 33 item 7).
            let encoding = self.models.get(thread).map(String::as_str).or(tg.stored_model.as_deref()).and_then(crate::context::encoding_for_model);
            let st = &mut tg.stats;
            match w.op {
                Op::Entry { entry, meta, seq, tool_calls, tool_results, record } => {
                    // Redaction, sealing and token counts are the sealing
                    // stage's (`batch::seal_batch`), off this thread.
                    records.entry(tg.id.clone()).or_default().extend(record);
                    st.entries += 1;
                    st.tool_calls += tool_calls;
                    st.tool_results += tool_results;
                    entries_now += 1;
                    match entries_at.get(&tg.id).map(|&i| &mut writes[i]) {
                        Some(BatchWrite::Entries { first_seq, entries, metas, encodings, .. }) if *first_seq + entries.len() as u64 == seq => {
                            entries.push(entry);
                            metas.push(meta);
                            encodings.push(encoding);
                        }
                        _ => {
                            entries_at.insert(tg.id.clone(), writes.len());
                            writes.push(BatchWrite::Entries {
                                sid: tg.id.clone(),
                                first_seq: seq,
                                entries: vec![entry],
                                metas: vec![meta],
                                encodings: vec![encoding],
                                sealed: Vec::new(),
                                counted: Vec::new(),
                            });
                        }
                    }
                }
                Op::Usage(mut u, ids) => {
                    records.entry(tg.id.clone()).or_default().extend(ids);
                    // The ledger holds at most i64::MAX per count (an INTEGER
                    // column, refused above): a source's absurd count is
                    // stored clamped, never failing the whole import.
                    for c in [&mut u.input, &mut u.output, &mut u.cached] {
                        *c = (*c).min(i64::MAX as u64);
                    }
                    st.usage_records += 1;
                    st.input_tokens = st.input_tokens.saturating_add(u.input);
                    st.output_tokens = st.output_tokens.saturating_add(u.output);
                    st.cached_tokens = st.cached_tokens.saturating_add(u.cached);
                    let at = u.timestamp_ms;
                    let usage = TokenUsage { input: u.input, output: u.output, cached: u.cached, model: u.model, provider: tg.provider.clone() };
                    match usage_at.get(&tg.id).map(|&i| &mut writes[i]) {
                        Some(BatchWrite::Usage { usages, times, .. }) => {
                            usages.push(usage);
                            times.push(at);
                        }
                        _ => {
                            usage_at.insert(tg.id.clone(), writes.len());
                            writes.push(BatchWrite::Usage { sid: tg.id.clone(), usages: vec![usage], times: vec![at] });
                        }
                    }
                }
                Op::Ext { kind, body, record } => {
                    records.entry(tg.id.clone()).or_default().extend(record);
                    st.context_extensions += 1;
                    let body = self.store.redact_text_on_write(&body).unwrap_or(body);
                    writes.push(BatchWrite::Ext { sid: tg.id.clone(), kind, body });
                }
                Op::Rename(title) => writes.push(BatchWrite::Rename { sid: tg.id.clone(), title }),
            }
        }
        for (sid, ids) in records {
            writes.push(BatchWrite::Records { sid, ids });
        }
        for (thread, t) in self.targets.iter_mut() {
            let model = self.models.get(thread).map(|m| clip(m, 256));
            for (k, s) in t.snapshots.iter_mut().enumerate() {
                if let (Some((line, v)), false) = (&s.latest, s.stored) {
                    if *line <= upto {
                        let body = match k {
                            0 => json!({ "plan": v }),
                            1 => json!({ "goal": v }),
                            _ => json!({ "provider_session_id": v }),
                        };
                        writes.push(BatchWrite::Ext { sid: t.id.clone(), kind: SNAPSHOT_KINDS[k], body: body.to_string() });
                        t.stats.context_extensions += 1;
                        s.stored = true;
                    }
                }
            }
            // The model may be known only after the session was created (a
            // Codex turn_context follows the first messages) or may have changed.
            if model.is_some() && t.stored_model != model {
                writes.push(BatchWrite::Model { sid: t.id.clone(), model: model.clone(), provider: t.provider.clone() });
                t.stored_model = model.clone();
            }
        }
        let head = match &self.progress.full_head {
            Some(h) => h.clone(),
            None => {
                let h = head_hash(self.store, &self.progress.canonical, bytes)?;
                if bytes >= HEAD_BYTES as u64 {
                    self.progress.full_head = Some(h.clone());
                }
                h
            }
        };
        if let Some((_, main)) = self.targets.first() {
            let p = &self.progress;
            let record = ProgressRecord {
                format: p.format.as_str().to_owned(),
                session_id: main.id.clone(),
                path: p.canonical_s.clone(),
                head_hash: head,
                lines,
                bytes,
                updated_at_ms: crate::store::now_ms(),
            };
            let from_line = self.committed_lines + 1;
            writes.push(BatchWrite::Progress {
                sid: main.id.clone(),
                key: p.key.clone(),
                record: crypto::seal_str(key, &p.key, &serde_json::to_string(&record).expect("progress record serializes")),
                event: json!({"format": p.format.as_str(), "from_line": from_line, "lines": lines, "bytes": bytes, "entries": entries_now}),
            });
        }
        for (_, t) in &self.targets {
            writes.push(BatchWrite::Lines { sid: t.id.clone(), lines });
        }
        if !self.targets.is_empty() {
            self.progress_recorded = true;
        }
        self.committed_lines = lines;
        self.committed_bytes = bytes;
        Ok(Batch { writes })
    }

    /// Keep snapshot `k` (plan, goal, provider state) read at `line`, unless
    /// the session already holds that line.
    fn snapshot(&mut self, target: usize, k: usize, line: u64, v: Value) {
        let t = &mut self.targets[target].1;
        if t.created || line > t.max_stored_line {
            t.snapshots[k] = Snapshot { latest: Some((line, v)), stored: false };
        }
    }

    /// Commit everything left after the reader's last line.
    pub(super) fn finish(mut self, lines: u64, bytes: u64) -> Result<Vec<SessionImport>> {
        if self.targets.is_empty() {
            // A header-only file still becomes a (empty) session, and a file
            // that grew only by lines that make no event (bookkeeping lines, a
            // completed last newline) still gets its progress recorded.
            self.target(&Thread::Main)?;
        }
        // (A title still parked is pushed by `target` with its line.)
        // A last line that only gained its newline moves the bytes, not the lines.
        if lines > self.committed_lines || bytes > self.committed_bytes || !self.pending.is_empty() || self.targets.iter().any(|(_, t)| t.snapshots.iter().any(|s| s.latest.is_some() && !s.stored)) {
            self.commit(u64::MAX, lines, bytes)?;
        }
        Ok(self.targets.into_iter().map(|(_, t)| t.stats).collect())
    }
}

impl EventSink for ImportSink<'_> {
    fn event(&mut self, thread: &Thread, event: Event) -> Result<()> {
        match event {
            Event::Meta(m) => {
                if let Some(model) = &m.model {
                    self.models.insert(thread.clone(), model.clone());
                }
                if *thread != Thread::Main {
                    // Only a model is thread-specific; the rest is the file's.
                    return Ok(());
                }
                if self.meta.id.is_none() {
                    self.meta.id = m.id;
                }
                if m.model.is_some() {
                    self.meta.model = m.model;
                }
                if m.provider.is_some() {
                    self.meta.provider = m.provider;
                }
                if self.meta.cwd.is_none() {
                    self.meta.cwd = m.cwd;
                }
                if self.meta.created_at_ms.is_none() {
                    self.meta.created_at_ms = m.created_at_ms;
                }
                self.meta.extra.extend(m.extra);
            }
            Event::Title { title, line } => {
                let main_known = self.targets.iter().any(|(t, _)| *t == Thread::Main);
                if *thread == Thread::Main && !main_known && self.known_main.is_none() {
                    // The main session's id may not be known yet (a Claude
                    // summary line comes before the first sessionId): it
                    // takes this title when it is created or looked up.
                    self.title = Some((title, line));
                } else {
                    let i = self.target(thread)?;
                    let title = title.map(|t| clip(&t, 1024)).filter(|t| !t.trim().is_empty());
                    crate::store::check_title(&title)?;
                    self.push(line, i, Op::Rename(title));
                }
            }
            Event::Turn(turn) => {
                if turn.timestamp_ms.is_some() {
                    self.last_ts = turn.timestamp_ms;
                }
                let i = self.target(thread)?;
                let ts = turn.timestamp_ms.or(self.last_ts);
                let t = &mut self.targets[i].1;
                if turn.source_line <= t.max_stored_line {
                    t.stats.skipped_already_stored += 1;
                    return Ok(());
                }
                let (line, tool_calls, tool_results) = (turn.source_line, turn.tool_calls() as u64, turn.tool_results() as u64);
                // The blocks' JSON, made at most once: the identity and a
                // `Blocks` entry's content are the same text.
                let mut blocks_json = None;
                let Some(record) = self.record(i, turn_identity(self.format, &turn, &mut blocks_json))? else {
                    self.targets[i].1.stats.skipped_already_stored += 1;
                    return Ok(());
                };
                // Entries are committed in the order they are pushed, so this
                // is the seq the entry gets (checked when it is written).
                let t = &mut self.targets[i].1;
                t.next_seq_base += 1;
                let seq = t.next_seq_base;
                let (entry, meta) = to_entry(turn, ts, blocks_json);
                self.push(line, i, Op::Entry { entry, meta, seq, tool_calls, tool_results, record: Some(record) });
            }
            Event::Usage(mut u) => {
                u.model = u.model.map(|m| clip(&m, 256));
                let i = self.target(thread)?;
                let records = match usage_identity(&u) {
                    Some(idn) if u.record_id.as_deref().is_some_and(|r| r.starts_with("claude-msg\0")) => match self.message_usage(i, &idn, &mut u) {
                        Some(r) => r,
                        None => return Ok(()),
                    },
                    Some(idn) => match self.record(i, idn)? {
                        Some(r) => vec![r],
                        None => return Ok(()),
                    },
                    None => Vec::new(),
                };
                self.push(u.source_line, i, Op::Usage(u, records));
            }
            Event::Plan { plan, line, timestamp_ms } => {
                let i = self.target(thread)?;
                self.state_snapshot(i, 0, line, plan, timestamp_ms)?;
            }
            Event::Goal { goal, line, timestamp_ms } => {
                let i = self.target(thread)?;
                self.state_snapshot(i, 1, line, goal, timestamp_ms)?;
            }
            Event::ProviderState { provider_session_id, line } => {
                let i = self.target(thread)?;
                let v = provider_session_id.map(Value::String).unwrap_or(Value::Null);
                self.snapshot(i, 2, line, v);
            }
            Event::Compaction(c) => {
                let i = self.target(thread)?;
                let body = compaction_body(&c, self.targets[i].1.next_seq_base);
                let Some(record) = self.record(i, compaction_identity(&c))? else { return Ok(()) };
                self.push(c.source_line, i, Op::Ext { kind: SOURCE_COMPACTION_KIND, body: body.to_string(), record: Some(record) });
                let model = self.models.get(thread).cloned().or_else(|| self.meta.model.clone()).unwrap_or_default();
                if let Some((kind, body)) = resume_point(&c, self.targets[i].1.next_seq_base, &model) {
                    self.push(c.source_line, i, Op::Ext { kind, body, record: None });
                }
            }
            Event::Other(o) => {
                let i = self.target(thread)?;
                let body = json!({"line": o.line, "kind": o.kind, "raw": fit_depth(o.raw, MAX_NESTED_DEPTH - 1)});
                let Some(record) = self.record(i, raw_identity(&o.kind, &body["raw"]))? else { return Ok(()) };
                self.push(o.line, i, Op::Ext { kind: "import_raw_line", body: body.to_string(), record: Some(record) });
            }
        }
        Ok(())
    }

    fn safe_point(&mut self, lines: u64, bytes: u64) -> Result<()> {
        let limit = self.batch_limit.load(std::sync::atomic::Ordering::Relaxed);
        if lines > self.committed_lines && (self.pending_entries >= limit || self.pending_bytes >= BATCH_BYTES) {
            self.commit(lines, lines, bytes)?;
        }
        Ok(())
    }
}

/// The context-governance record that makes an imported session's active
/// context start where its source agent resumes after compaction `c`
/// (DESIGN.md "Context governance"; issue 14 item 4), `at_seq` being the
/// number of entries before it; the saved transcript keeps everything.
///
/// - No replacement messages (a Claude `compact_boundary`, whose summary is
///   the next, `isCompactSummary`, user turn; a Codex `compacted` with an
///   empty history): `exclude` seqs `1..=at_seq`, so the context starts at
///   the turn after the boundary, as Claude Code resumes.
/// - Replacement messages (thClaws `compaction.messages`, Codex
///   `replacement_history`), k of them: a `compaction` plan whose runs cover
///   `1..=at_seq`, one run per message, in order (runs `1`, `2`, ...,
///   `k-1` of one entry each and a last run to `at_seq`), each run's summary
///   the message's text whole (the source's summary, not a 240-character
///   one of ours) and its `tokens_after` that text's [`count_tokens`] for
///   the session's model. The active context then holds exactly the k
///   messages thClaws loads, then the turns after. With fewer entries
///   before it than messages (n < k), the last run holds messages n to k
///   (the context has all their text and tokens, in n items).
/// - No entry before it: nothing to record (`None`).
///
/// [`count_tokens`]: crate::context::count_tokens
pub(super) fn resume_point(c: &Compaction, at_seq: u64, model: &str) -> Option<(&'static str, String)> {
    if at_seq == 0 {
        return None;
    }
    if c.messages.is_empty() {
        let seqs: Vec<u64> = (1..=at_seq).collect();
        return Some((crate::context::governance::KIND_EXCLUDE, json!({ "seqs": seqs }).to_string()));
    }
    let texts: Vec<String> = c.messages.iter().map(|m| format!("{}: {}", m.role.as_str(), message_text(&m.blocks))).collect();
    let k = (texts.len() as u64).min(at_seq);
    let mut groups: Vec<String> = texts[..(k as usize - 1)].to_vec();
    groups.push(texts[k as usize - 1..].join("\n\n"));
    let mut transformations = Vec::with_capacity(groups.len());
    for (i, summary) in groups.into_iter().enumerate() {
        let seq = i as u64 + 1;
        let last = if seq == k { at_seq } else { seq };
        let tokens_after = crate::context::count_tokens(model, &summary, None).tokens;
        transformations.push(crate::context::Transformation {
            seq,
            last_seq: Some(last),
            action: crate::context::CompactionAction::Summarized,
            tokens_before: 0,
            tokens_after,
            summary,
        });
    }
    let tokens_after = transformations.iter().map(|t| t.tokens_after).sum();
    let plan = crate::context::CompactionPlan { capacity: 0, target_percent: 0, target_tokens: 0, tokens_before: 0, tokens_after, reached_target: true, transformations };
    Some((crate::context::governance::KIND_COMPACTION, serde_json::to_string(&plan).expect("a plan serializes")))
}

/// The text of a message's blocks as a model is sent them: text as is,
/// anything else as its JSON.
pub(super) fn message_text(blocks: &[Block]) -> String {
    blocks
        .iter()
        .map(|b| match b {
            Block::Text { text } => text.clone(),
            Block::Thinking { text, .. } => text.clone(),
            other => other.to_json().to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The store entry of a turn and its metadata (model and provider clipped
/// to 256 bytes without control characters, as session names are);
/// `blocks_json`: the turn's [`Turn::blocks_json`] when made already.
pub(super) fn to_entry(mut turn: Turn, ts: Option<i64>, blocks_json: Option<String>) -> (NewEntry, EntryMeta) {
    let role = match turn.role {
        Role::User => StoreRole::User,
        Role::Assistant => StoreRole::Assistant,
        Role::System => StoreRole::System,
        Role::Tool => StoreRole::Tool,
    };
    let (format, content) = match (turn.blocks.len(), turn.blocks.pop(), blocks_json) {
        // A single text block is stored as its text (moved, not copied).
        (1, Some(Block::Text { text }), _) => (ContentFormat::Text, text),
        (_, last, Some(json)) => {
            drop(last);
            (ContentFormat::Blocks, json)
        }
        (_, last, None) => {
            turn.blocks.extend(last);
            (ContentFormat::Blocks, turn.blocks_json())
        }
    };
    let meta = EntryMeta { model: turn.model.map(|m| clip(&m, 256)), provider: turn.provider.map(|p| clip(&p, 256)), extra: turn.extra, item: None };
    (NewEntry { role, content, format, created_at_ms: ts, tokens: None, source_line: Some(turn.source_line) }, meta)
}

