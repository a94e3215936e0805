//! The index itself: its schema, the open state a store handle keeps, and
//! the catch-up that brings it up to the store's journal (moved out of
//! `search/mod.rs` as is).

use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, FAST};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use super::query::FIELDS;
use super::text::{entry_texts, Texts};
use super::{dir, tokenize, BUILD_MEMORY, BUILD_MIN_BYTES, BUILD_THREADS, CHANGES_PAGE, ENTRY_PAGE, INDEX_VERSION, WRITER_MEMORY};
use crate::crypto::{self, DataKey};
use crate::error::{Error, Result};
use crate::store::{open_required, open_sealed, SessionStore};

#[derive(Clone, Copy)]
pub(super) struct Fields {
    pub(super) sid: Field,
    pub(super) seq: Field,
    pub(super) role: Field,
    pub(super) model: Field,
    pub(super) time: Field,
    pub(super) text: [Field; 5],
}

pub(super) fn schema() -> (Schema, Fields) {
    schema_with(tokenize::TOKENIZER)
}

/// [`schema`] with `tokenizer` on the text fields (the floor of the bench
/// measures tantivy's `default` in our schema).
pub(super) fn schema_with(tokenizer: &str) -> (Schema, Fields) {
    let mut b = Schema::builder();
    // Session id, seq, role and model are filters and delete keys, never
    // scored (constant-score `TermSetQuery`, deletions): no fieldnorms
    // (one byte per document and field), no positions.
    let key = TextOptions::default().set_indexing_options(TextFieldIndexing::default().set_tokenizer("raw").set_index_option(IndexRecordOption::Basic).set_fieldnorms(false));
    let sid = b.add_text_field("sid", key.clone() | FAST);
    let seq = b.add_u64_field("seq", NumericOptions::default().set_indexed().set_fast());
    let role = b.add_text_field("role", key.clone());
    let model = b.add_text_field("model", key);
    let time = b.add_i64_field("time", NumericOptions::default() | FAST);
    let opts = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer(tokenizer).set_index_option(IndexRecordOption::WithFreqsAndPositions));
    let text = FIELDS.map(|f| b.add_text_field(f, opts.clone()));
    (b.build(), Fields { sid, seq, role, model, time, text })
}

/// The commit payload: where the index stands in the journal.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub(super) struct Position {
    pub(super) v: u32,
    /// The store it indexes (its `created_at` meta value).
    pub(super) store: String,
    /// Highest journal position applied.
    pub(super) pos: u64,
    /// Positions applied within the reorder window below `pos`.
    #[serde(default)]
    pub(super) seen: Vec<u64>,
}

/// The open index of one store handle.
pub(crate) struct State {
    pub(super) dir: dir::EncryptedDirectory,
    pub(super) index: Index,
    pub(super) reader: IndexReader,
    pub(super) f: Fields,
    pub(super) lock: File,
    /// `meta.json`'s stamp when the reader last loaded it (see [`State::reload`]).
    pub(super) stamp: Option<Stamp>,
}

/// What identifies one version of `meta.json` (it is replaced by rename):
/// length, modification time, inode.
pub(super) type Stamp = (u64, Option<std::time::SystemTime>, u64);

pub(super) fn stamp(root: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(root.join("meta.json")).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let ino = 0;
    Some((m.len(), m.modified().ok(), ino))
}

/// The open index in a store handle's search slot
/// ([`SessionStore::search_slot`]: the store keeps it without naming this
/// module, which stands above it), if a search opened one.
pub(super) fn state(slot: &mut Option<Box<dyn Any + Send>>) -> Option<&mut State> {
    slot.as_mut().and_then(|s| s.downcast_mut::<State>())
}

/// The search index folder of a store (see the module docs).
/// Errors: `Io` when the state directory cannot be found (PostgreSQL).
pub(crate) fn index_dir(store: &SessionStore) -> Result<PathBuf> {
    if let Some(p) = store.search_dir() {
        return Ok(p.to_path_buf());
    }
    let mut p = store.path().as_os_str().to_owned();
    p.push(".search");
    Ok(PathBuf::from(p))
}

pub(super) fn lock_file(root: &Path) -> Result<File> {
    crate::paths::ensure_private_dir(root)?;
    let mut o = std::fs::OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.create(true)
        .truncate(false)
        .write(true)
        .open(root.join("search.lock"))
        .map_err(|e| Error::io("opening the search index lock", e))
}

pub(super) fn tv(e: impl std::fmt::Display) -> Error {
    Error::corrupt(format!("search index: {e}"))
}

impl State {
    /// Open the index at `root`, creating (or recreating) it when it is
    /// missing or unreadable.
    pub(super) fn open(root: &Path, key: &DataKey) -> Result<State> {
        let lock = lock_file(root)?;
        let index_key = crypto::derive_key(key, b"", crypto::SEARCH_INDEX_KEY_INFO);
        let d = dir::EncryptedDirectory::open(root, index_key).map_err(|e| Error::io("opening the search index", e))?;
        let (schema, f) = schema();
        let index = match Index::open(d.clone()) {
            Ok(i) if i.schema() == schema => with_tokenizer(i),
            _ => {
                lock.lock().map_err(|e| Error::io("locking the search index", e))?;
                let r = Self::create(&d, schema);
                let _ = lock.unlock();
                r?
            }
        };
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(tv)?;
        Ok(State { dir: d, index, reader, f, lock, stamp: None })
    }

    /// Erase every index file and create an empty index (call under the lock).
    pub(super) fn create(d: &dir::EncryptedDirectory, schema: Schema) -> Result<Index> {
        if let Ok(rd) = std::fs::read_dir(d.root()) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if !name.ends_with(".lock") {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        Index::create(d.clone(), schema, Default::default()).map(with_tokenizer).map_err(tv)
    }

    /// Reload the reader when `meta.json` changed since the last load
    /// (another handle or process committed); otherwise keep the open
    /// segments (and their decrypted chunks in the cache).
    pub(super) fn reload(&mut self, force: bool) -> Result<()> {
        let now = stamp(self.dir.root());
        if force || now.is_none() || now != self.stamp {
            self.reader.reload().map_err(tv)?;
            self.stamp = now;
        }
        Ok(())
    }

    pub(super) fn position(&self) -> Option<Position> {
        let meta = self.index.load_metas().ok()?;
        serde_json::from_str::<Position>(meta.payload.as_deref()?).ok().filter(|p| p.v == INDEX_VERSION)
    }
}

/// Register our tokenizer on `index` (the tokenizer manager is not stored in the index).
pub(super) fn with_tokenizer(index: Index) -> Index {
    index.tokenizers().register(tokenize::TOKENIZER, tokenize::SdbTokenizer::default());
    index
}

pub(super) struct EntryDoc<'a> {
    pub(super) sid: &'a str,
    pub(super) seq: u64,
    pub(super) role: &'a str,
    pub(super) model: Option<&'a str>,
    pub(super) time: i64,
    pub(super) texts: Texts,
}

pub(super) fn add_doc(w: &IndexWriter, f: &Fields, d: EntryDoc<'_>) -> Result<u64> {
    let mut doc = TantivyDocument::default();
    doc.add_text(f.sid, d.sid);
    doc.add_u64(f.seq, d.seq);
    doc.add_text(f.role, d.role);
    if let Some(m) = d.model {
        doc.add_text(f.model, m.to_lowercase());
    }
    doc.add_i64(f.time, d.time);
    let mut bytes = 0u64;
    for (i, t) in d.texts.into_iter().enumerate() {
        if !t.is_empty() {
            bytes += t.len() as u64;
            doc.add_text(f.text[i], t);
        }
    }
    w.add_document(doc).map_err(tv)?;
    Ok(bytes)
}

pub(super) fn entry_query(f: &Fields, sid: &str, seq: u64) -> Box<dyn Query> {
    Box::new(BooleanQuery::new(vec![
        (Occur::Must, Box::new(TermQuery::new(Term::from_field_text(f.sid, sid), IndexRecordOption::Basic)) as Box<dyn Query>),
        (Occur::Must, Box::new(TermQuery::new(Term::from_field_u64(f.seq, seq), IndexRecordOption::Basic))),
    ]))
}

/// The index writer of a catch-up: one thread and [`WRITER_MEMORY`] to add
/// to an index or build a small one; [`BUILD_THREADS`] and [`BUILD_MEMORY`]
/// to build one from empty of a store of at least [`BUILD_MIN_BYTES`]
/// (a small store's first search would only pay for the bigger
/// hash tables and the merge of the threads' segments).
fn new_writer(index: &Index, from_empty: bool, large: bool) -> Result<IndexWriter> {
    let (threads, memory) = if from_empty && large {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        (BUILD_THREADS.min(cpus).max(1), BUILD_MEMORY)
    } else {
        (1, WRITER_MEMORY)
    };
    let w: IndexWriter = index.writer_with_num_threads(threads, memory).map_err(tv)?;
    if from_empty {
        // No merges while building: one merge of everything at the end
        // (see `catch_up`) instead of merging merged segments again.
        w.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
    }
    Ok(w)
}

/// Counters of one catch-up.
#[derive(Default)]
pub(super) struct Applied {
    pub(super) docs: u64,
    pub(super) bytes: u64,
    pub(super) deletes: bool,
}

/// Bring the index up to the store (under the index lock). Returns what it did.
pub(super) fn catch_up(store: &SessionStore, st: &mut State, progress: &mut dyn FnMut(u64, u64)) -> Result<Applied> {
    let store_id = store.read(|r, _| Ok(match r.meta("created_at")? {
        crate::backend::Sealed::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
        _ => String::new(),
    }))?;
    let (top, window) = store.read(|r, _| Ok((r.journal_position()?, r.journal_reorder_window())))?;
    let mut pos = match st.position() {
        Some(p) if p.store == store_id && p.pos <= top => p,
        other => {
            // Empty, another store's, or ahead of the journal (the database
            // was replaced): start over.
            if other.is_some() || !st.index.searchable_segment_ids().map_err(tv)?.is_empty() {
                let (schema, _) = schema();
                st.index = State::create(&st.dir, schema)?;
                st.reader = st.index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(tv)?;
                st.stamp = None;
            }
            Position { v: INDEX_VERSION, store: store_id.clone(), pos: 0, seen: Vec::new() }
        }
    };
    if pos.pos == top && window == 0 {
        // Another handle may have brought the index here: read its commit.
        st.reload(false)?;
        return Ok(Applied::default());
    }
    let mut applied = Applied::default();
    let from_empty = pos.pos == 0;
    let mut writer: Option<IndexWriter> = None;
    let searcher = st.reader.searcher();
    let f = st.f;
    // Highest seq indexed per session during this catch-up.
    let mut high: HashMap<String, u64> = HashMap::new();
    let seen: HashSet<u64> = pos.seen.iter().copied().collect();
    let mut after = pos.pos.saturating_sub(window);
    let mut new_seen: Vec<u64> = Vec::new();
    let mut max = pos.pos;
    loop {
        let changes = store.read(|r, _| r.journal_changes(after, CHANGES_PAGE))?;
        if changes.is_empty() {
            break;
        }
        after = changes.last().map_or(after, |c| c.position);
        // Sessions touched, with the kinds of their new events, in first-seen order.
        let mut order: Vec<String> = Vec::new();
        let mut kinds: HashMap<String, HashSet<String>> = HashMap::new();
        for c in changes {
            if c.position <= pos.pos && (seen.contains(&c.position) || c.position + window <= pos.pos) {
                continue;
            }
            if window > 0 {
                new_seen.push(c.position);
            }
            max = max.max(c.position);
            let e = kinds.entry(c.session_id.clone()).or_insert_with(|| {
                order.push(c.session_id.clone());
                HashSet::new()
            });
            e.insert(c.kind);
        }
        if order.is_empty() {
            continue;
        }
        let w = match &mut writer {
            Some(w) => w,
            None => {
                // Large: a database file of at least BUILD_MIN_BYTES, or not a file (PostgreSQL).
                let large = std::fs::metadata(store.path()).map_or(true, |m| m.len() >= BUILD_MIN_BYTES);
                writer.insert(new_writer(&st.index, from_empty, large)?)
            }
        };
        for sid in order {
            let k = &kinds[&sid];
            sync_session(store, w, &f, &searcher, &mut high, &sid, k, &mut applied)?;
        }
        progress(after.min(top), top);
    }
    pos.pos = max;
    let mut keep: Vec<u64> = seen.into_iter().chain(new_seen).filter(|p| *p + window > max).collect();
    keep.sort_unstable();
    keep.dedup();
    pos.seen = keep;
    if let Some(mut w) = writer {
        let mut prepared = w.prepare_commit().map_err(tv)?;
        prepared.set_payload(&serde_json::to_string(&pos).expect("a position serializes"));
        prepared.commit().map_err(tv)?;
        if applied.deletes {
            // Postings of deleted content leave the files now, not at some later merge.
            let with_deletes: Vec<_> = st.index.searchable_segment_metas().map_err(tv)?.into_iter().filter(|m| m.has_deletes()).map(|m| m.id()).collect();
            if !with_deletes.is_empty() {
                let _ = w.merge(&with_deletes).wait().map_err(tv)?;
            }
        }
        if from_empty {
            // A build from empty ends as one segment: one term dictionary
            // (a smaller index) and one segment for every query to read.
            let ids = st.index.searchable_segment_ids().map_err(tv)?;
            if ids.len() > 1 {
                // Committed already: a merge that fails leaves a correct
                // index of several segments.
                let _ = w.merge(&ids).wait();
            }
        }
        w.wait_merging_threads().map_err(tv)?;
    } else if pos.pos != st.position().map_or(0, |p| p.pos) {
        // Only events that need no index change: record the position so the
        // next search does not read them again.
        let mut w: IndexWriter = st.index.writer_with_num_threads(1, WRITER_MEMORY).map_err(tv)?;
        let mut prepared = w.prepare_commit().map_err(tv)?;
        prepared.set_payload(&serde_json::to_string(&pos).expect("a position serializes"));
        prepared.commit().map_err(tv)?;
        w.wait_merging_threads().map_err(tv)?;
    }
    st.reload(true)?;
    Ok(applied)
}

/// Make the index hold exactly what the store holds of session `sid`.
#[allow(clippy::too_many_arguments)]
pub(super) fn sync_session(
    store: &SessionStore,
    w: &IndexWriter,
    f: &Fields,
    searcher: &tantivy::Searcher,
    high: &mut HashMap<String, u64>,
    sid: &str,
    kinds: &HashSet<String>,
    applied: &mut Applied,
) -> Result<()> {
    let row = store.read(|r, _| r.session(sid))?;
    let Some(row) = row else {
        w.delete_term(Term::from_field_text(f.sid, sid));
        high.insert(sid.to_string(), 0);
        applied.deletes = true;
        return Ok(());
    };
    let first_time = !high.contains_key(sid);
    let mut last = match high.get(sid) {
        Some(&h) => h,
        None => {
            let q = TermQuery::new(Term::from_field_text(f.sid, sid), IndexRecordOption::Basic);
            let top = searcher.search(&q, &TopDocs::with_limit(1).order_by_u64_field("seq", tantivy::Order::Desc)).map_err(tv)?;
            top.first().and_then(|(s, _)| *s).unwrap_or(0)
        }
    };
    if kinds.contains("SessionDeleted") {
        // Deleted, then created again under the same id (a copy, a restore).
        w.delete_term(Term::from_field_text(f.sid, sid));
        applied.deletes = true;
        last = 0;
    }
    // Retractions: `pop_item`, and the tail a history transaction replaced.
    if kinds.contains("EntryRetracted") || kinds.contains("TranscriptTailReplaced") {
        for seq in store.read(|r, _| r.retracted_seqs(sid))? {
            w.delete_query(entry_query(f, sid, seq)).map_err(tv)?;
        }
        applied.deletes = true;
    }
    let title_kinds = ["SessionCreated", "SessionRenamed", "SessionImported", "SessionDeleted"];
    if last == 0 || (first_time && title_kinds.iter().any(|k| kinds.contains(*k))) || title_kinds.iter().any(|k| kinds.contains(*k)) {
        w.delete_query(entry_query(f, sid, 0)).map_err(tv)?;
        let name = open_sealed(store.key(), &row.name, &format!("session:{sid}:name")).ok().flatten();
        let mut texts: Texts = Default::default();
        if let Some(n) = name {
            texts[4] = n;
        }
        applied.bytes += add_doc(w, f, EntryDoc { sid, seq: 0, role: "title", model: row.model.as_deref(), time: row.updated_at, texts })?;
        applied.docs += 1;
    }
    loop {
        let rows = store.read(|r, _| r.entries(sid, last + 1, ENTRY_PAGE, true))?;
        let Some(end) = rows.last().map(|r| r.seq) else { break };
        for e in rows {
            let rec = format!("transcript:{sid}:{}:content", e.seq);
            // An entry whose envelope does not open is indexed without text
            // (the store reports it as damaged elsewhere).
            let content = open_required(store.key(), &e.content, &rec).unwrap_or_default();
            let texts = entry_texts(&e.role, &e.format, &content);
            let model = e.meta.as_ref().and_then(|m| m.model.as_deref()).or(row.model.as_deref());
            applied.bytes += add_doc(w, f, EntryDoc { sid, seq: e.seq, role: &e.role, model, time: e.created_at, texts })?;
            applied.docs += 1;
        }
        last = end;
    }
    high.insert(sid.to_string(), last);
    Ok(())
}

pub(super) fn dir_bytes(root: &Path) -> u64 {
    std::fs::read_dir(root).map(|rd| rd.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum()).unwrap_or(0)
}
