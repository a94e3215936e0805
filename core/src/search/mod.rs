//! Search across the encrypted history (issue 26; DESIGN.md "Search";
//! docs/search.md).
//!
//! * The index is a tantivy index in an [`dir::EncryptedDirectory`]: every
//!   file sealed with AES-256-GCM under a key derived (HKDF-SHA-256, info
//!   [`crate::crypto::SEARCH_INDEX_KEY_INFO`]) from the data key. It holds
//!   postings and positions of the tokens ([`tokenize`]), the session id,
//!   seq, role, model and time of each entry, and no stored text: snippets
//!   are cut from the entry decrypted from the store.
//! * Where: beside a database file, the folder `<db file>.search/`; for a
//!   PostgreSQL store, on the client, `<state dir>/search/<keyed hash of the
//!   URL without password>/` (the server only ever sees ciphertext).
//! * A cache of the store: each search first catches up from the journal
//!   position recorded in the index's commit payload (`ReadTx::journal_changes`),
//!   so every committed entry is found by the next search of any handle, in
//!   any process. Deleted sessions and retracted entries are deleted from the
//!   index, and the segments that held them are merged at once, so their
//!   postings leave the files. Appends do no index work.
//! * Missing, damaged (authentication fails), foreign (another store's) or
//!   unreadable: the index is rebuilt from the store, never an error nor a
//!   wrong answer. One process at a time updates it (an OS file lock).

pub mod dir;
pub mod query;
pub mod tokenize;

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tantivy::collector::{Collector, Count, SegmentCollector, TopDocs};
use tantivy::query::{AllQuery, BooleanQuery, EmptyQuery, Occur, PhraseQuery, Query, RangeQuery, RegexQuery, TermQuery, TermSetQuery};
use tantivy::schema::{Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STRING};
use tantivy::{DocAddress, DocId, Index, IndexReader, IndexWriter, ReloadPolicy, Score, SegmentOrdinal, SegmentReader, TantivyDocument, Term};

use crate::backend::SessionQuery;
use crate::crypto::{self, DataKey};
use crate::error::{Error, Result};
use crate::store::{open_required, open_sealed, SessionStore};
use query::{Atom, Parsed, FIELDS};
use tokenize::{fold, tokenize, TokKind};

/// Format version of the index (in the commit payload); another version is rebuilt.
/// 2: a part too long to index takes its position (version 1 indexes put
/// the words either side of it next to each other).
pub const INDEX_VERSION: u32 = 2;
/// Default hits per page.
pub const DEFAULT_LIMIT: u32 = 20;
/// Most hits per page.
pub const MAX_LIMIT: u32 = 1000;
/// Default snippet length in characters.
pub const DEFAULT_SNIPPET_CHARS: u32 = 160;
/// Memory the indexer may use before it writes a segment (bytes).
pub const WRITER_MEMORY: usize = 32 << 20;
const CHANGES_PAGE: u32 = 5000;
const ENTRY_PAGE: u32 = 500;

/// The unit of highlight offsets (each host asks for its own string indexing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OffsetUnit {
    /// UTF-8 bytes (Rust `str`, the CLI).
    #[default]
    Utf8,
    /// Unicode code points (Python `str`).
    CodePoint,
    /// UTF-16 code units (JavaScript, Kotlin/Java, Swift `String.utf16`/`NSString`).
    Utf16,
}

/// Options of `search`: every field may be left out.
///
/// Options of [`SessionStore::search`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchOptions {
    /// Hits per page, 1..=1000 (none: 20).
    ///
    /// Hits per page (default [`DEFAULT_LIMIT`], at most [`MAX_LIMIT`]).
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page (same query and mode).
    pub cursor: Option<String>,
    /// Best hit per session (a resume picker) instead of every entry.
    pub sessions: bool,
    /// The path `workspace:current` / `workspace:other` compare with (none:
    /// the process's current directory).
    ///
    /// The path `workspace:current` and `workspace:other` compare with
    /// (default: the process's current directory).
    pub workspace_path: Option<String>,
    /// Snippet length in characters, 20..=2000 (none: 160).
    ///
    /// Snippet length in characters (default [`DEFAULT_SNIPPET_CHARS`], 20..=2000).
    pub snippet_chars: Option<u32>,
}

/// One highlighted range of a snippet, `[start, end)` in the host's own
/// string indexing: Python `str` indices (code points); JavaScript, Kotlin
/// and Swift UTF-16 code units (Swift: `snippet.utf16`).
///
/// One highlighted range of a snippet, `[start, end)` in the unit asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Highlight {
    /// First index.
    ///
    /// First unit.
    pub start: u32,
    /// One past the last index.
    ///
    /// One past the last unit.
    pub end: u32,
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    /// Session id.
    pub session_id: String,
    /// Entry seq; 0 for a hit in the session's title.
    pub seq: u64,
    /// `user`, `assistant`, `tool` or `system`; none for a title hit.
    ///
    /// Entry role (`user`, `assistant`, `tool`, `system`); `None` for a title hit.
    pub role: Option<String>,
    /// Entry time (title: the session's last activity), ms since the Unix epoch.
    ///
    /// Entry time (a title hit: the session's last activity), ms since the epoch.
    pub time_ms: i64,
    /// Relevance (BM25; higher is better).
    pub score: f64,
    /// Where the snippet is from: `text`, `tool`, `output`, `thinking` or `title`.
    ///
    /// Which text the snippet is from: `text`, `tool`, `output`, `thinking`, `title`.
    pub field: String,
    /// A window of that text (`…` where cut, control characters as spaces).
    ///
    /// A window of that text (control characters shown as spaces, `…` where cut).
    pub snippet: String,
    /// The matches in `snippet`.
    ///
    /// The matches in `snippet`: UTF-8 byte offsets from
    /// [`SessionStore::search`], the host's string indexing from
    /// [`SessionStore::search_in_units`] (Python: code points; JavaScript,
    /// Kotlin, Swift: UTF-16 code units).
    pub highlights: Vec<Highlight>,
}

/// A page of search hits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResults {
    /// Hits, best first.
    pub hits: Vec<SearchHit>,
    /// Matching entries (sessions mode: sessions) over all pages.
    pub total: u64,
    /// Pass as `cursor` for the next page; none on the last page.
    ///
    /// Pass as [`SearchOptions::cursor`] for the next page; `None` on the last one.
    pub next_cursor: Option<String>,
}

/// What `rebuild_search_index` did.
///
/// What [`SessionStore::rebuild_search_index`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RebuildReport {
    /// Documents indexed (entries and titles).
    ///
    /// Entries indexed (titles included).
    pub documents: u64,
    /// Plaintext bytes of text indexed.
    ///
    /// Plaintext bytes of content indexed.
    pub content_bytes: u64,
    /// Bytes of the encrypted index files.
    ///
    /// Bytes of the index files on disk.
    pub index_bytes: u64,
}

#[derive(Clone, Copy)]
struct Fields {
    sid: Field,
    seq: Field,
    role: Field,
    model: Field,
    time: Field,
    text: [Field; 5],
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let sid = b.add_text_field("sid", STRING | FAST);
    let seq = b.add_u64_field("seq", NumericOptions::default() | INDEXED | FAST);
    let role = b.add_text_field("role", STRING);
    let model = b.add_text_field("model", STRING);
    let time = b.add_i64_field("time", NumericOptions::default() | INDEXED | FAST);
    let opts = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer(tokenize::TOKENIZER).set_index_option(IndexRecordOption::WithFreqsAndPositions));
    let text = FIELDS.map(|f| b.add_text_field(f, opts.clone()));
    (b.build(), Fields { sid, seq, role, model, time, text })
}

/// The commit payload: where the index stands in the journal.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
struct Position {
    v: u32,
    /// The store it indexes (its `created_at` meta value).
    store: String,
    /// Highest journal position applied.
    pos: u64,
    /// Positions applied within the reorder window below `pos`.
    #[serde(default)]
    seen: Vec<u64>,
}

/// The open index of one store handle.
pub(crate) struct State {
    dir: dir::EncryptedDirectory,
    index: Index,
    reader: IndexReader,
    f: Fields,
    lock: File,
    /// `meta.json`'s stamp when the reader last loaded it (see [`State::reload`]).
    stamp: Option<Stamp>,
}

/// What identifies one version of `meta.json` (it is replaced by rename):
/// length, modification time, inode.
type Stamp = (u64, Option<std::time::SystemTime>, u64);

fn stamp(root: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(root.join("meta.json")).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let ino = 0;
    Some((m.len(), m.modified().ok(), ino))
}

/// The search state a [`SessionStore`] carries (opened at the first search).
#[derive(Default)]
pub(crate) struct Slot(Mutex<Option<State>>);

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

fn lock_file(root: &Path) -> Result<File> {
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

fn tv(e: impl std::fmt::Display) -> Error {
    Error::corrupt(format!("search index: {e}"))
}

impl State {
    /// Open the index at `root`, creating (or recreating) it when it is
    /// missing or unreadable.
    fn open(root: &Path, key: &DataKey) -> Result<State> {
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
    fn create(d: &dir::EncryptedDirectory, schema: Schema) -> Result<Index> {
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
    fn reload(&mut self, force: bool) -> Result<()> {
        let now = stamp(self.dir.root());
        if force || now.is_none() || now != self.stamp {
            self.reader.reload().map_err(tv)?;
            self.stamp = now;
        }
        Ok(())
    }

    fn position(&self) -> Option<Position> {
        let meta = self.index.load_metas().ok()?;
        serde_json::from_str::<Position>(meta.payload.as_deref()?).ok().filter(|p| p.v == INDEX_VERSION)
    }
}

/// The text fields of one entry, in [`FIELDS`] order.
type Texts = [String; 5];

/// Split an entry's content into text, tool calls, tool outputs and
/// thinking (title empty). `blocks` content is a JSON array of blocks
/// (`text`, `thinking`, `tool_use` with `name` and `input`, `tool_result`
/// with `content`); anything else is text (role `tool`: output).
pub fn entry_texts(role: &str, format: &str, content: &str) -> [String; 5] {
    let mut t: Texts = Default::default();
    let main = if role == "tool" { 2 } else { 0 };
    let push = |t: &mut Texts, i: usize, s: &str| {
        if !s.is_empty() {
            if !t[i].is_empty() {
                t[i].push('\n');
            }
            t[i].push_str(s);
        }
    };
    fn leaves(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::String(s) => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(s);
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| leaves(x, out)),
            serde_json::Value::Object(o) => {
                // A content block (`{"type":"text","text":..}`) gives its
                // strings; an argument object `key: value` lines.
                let block = o.contains_key("type");
                for (k, x) in o {
                    if matches!(k.as_str(), "type" | "id" | "tool_use_id" | "signature" | "cache_control") {
                        continue;
                    }
                    match x {
                        serde_json::Value::String(s) if !block => {
                            if !out.is_empty() {
                                out.push('\n');
                            }
                            out.push_str(k);
                            out.push_str(": ");
                            out.push_str(s);
                        }
                        _ => leaves(x, out),
                    }
                }
            }
            serde_json::Value::Number(n) => {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(&n.to_string());
            }
            _ => {}
        }
    }
    let blocks = (format == "blocks").then(|| serde_json::from_str::<Vec<serde_json::Value>>(content).ok()).flatten();
    let Some(blocks) = blocks else {
        push(&mut t, main, content);
        return t;
    };
    for b in &blocks {
        let kind = b.get("type").and_then(|v| v.as_str()).unwrap_or("");
        match (kind, b) {
            ("text", _) => push(&mut t, main, b.get("text").and_then(|v| v.as_str()).unwrap_or("")),
            ("thinking", _) => push(&mut t, 3, b.get("thinking").and_then(|v| v.as_str()).unwrap_or("")),
            ("redacted_thinking", _) => {}
            ("tool_use", _) => {
                let mut s = b.get("name").and_then(|v| v.as_str()).unwrap_or("").to_string();
                if let Some(input) = b.get("input") {
                    let mut args = String::new();
                    leaves(input, &mut args);
                    if !args.is_empty() {
                        s.push('\n');
                        s.push_str(&args);
                    }
                }
                push(&mut t, 1, &s);
            }
            ("tool_result", _) => {
                let mut s = String::new();
                if let Some(c) = b.get("content") {
                    leaves(c, &mut s);
                }
                push(&mut t, 2, &s);
            }
            (_, serde_json::Value::String(s)) => push(&mut t, main, s),
            _ => {
                let mut s = String::new();
                leaves(b, &mut s);
                push(&mut t, main, &s);
            }
        }
    }
    t
}

/// Register our tokenizer on `index` (the tokenizer manager is not stored in the index).
fn with_tokenizer(index: Index) -> Index {
    index.tokenizers().register(tokenize::TOKENIZER, tokenize::SdbTokenizer);
    index
}

struct EntryDoc<'a> {
    sid: &'a str,
    seq: u64,
    role: &'a str,
    model: Option<&'a str>,
    time: i64,
    texts: Texts,
}

fn add_doc(w: &IndexWriter, f: &Fields, d: EntryDoc<'_>) -> Result<u64> {
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

fn entry_query(f: &Fields, sid: &str, seq: u64) -> Box<dyn Query> {
    Box::new(BooleanQuery::new(vec![
        (Occur::Must, Box::new(TermQuery::new(Term::from_field_text(f.sid, sid), IndexRecordOption::Basic)) as Box<dyn Query>),
        (Occur::Must, Box::new(TermQuery::new(Term::from_field_u64(f.seq, seq), IndexRecordOption::Basic))),
    ]))
}

/// What one search found: `(session, seq, score)` of the page's hits, the
/// total and the marks to highlight.
type Found = (Vec<(String, u64, f64)>, u64, Marks);

/// Counters of one catch-up.
#[derive(Default)]
struct Applied {
    docs: u64,
    bytes: u64,
    deletes: bool,
}

/// Bring the index up to the store (under the index lock). Returns what it did.
fn catch_up(store: &SessionStore, st: &mut State, progress: &mut dyn FnMut(u64, u64)) -> Result<Applied> {
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
            None => writer.insert(st.index.writer_with_num_threads(1, WRITER_MEMORY).map_err(tv)?),
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
fn sync_session(
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
    if kinds.contains("EntryRetracted") {
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

/// Terms a query's atoms look for, for highlighting.
#[derive(Default)]
struct Marks {
    terms: HashSet<String>,
    prefixes: Vec<String>,
}

impl Marks {
    fn matches(&self, t: &str) -> bool {
        self.terms.contains(t) || self.prefixes.iter().any(|p| t.starts_with(p.as_str()))
    }
}

/// What a word or phrase asks for: one term, or a phrase of parts.
enum Want {
    Term(String),
    Phrase(Vec<(usize, String)>),
}

fn analyse(text: &str, phrase: bool) -> Want {
    let toks = tokenize(text);
    let parts: Vec<_> = toks.iter().filter(|t| t.kind == TokKind::Part).collect();
    let wholes: Vec<_> = toks.iter().filter(|t| t.kind == TokKind::Whole && t.pos == 0).collect();
    let covers = |w: &&tokenize::Tok| parts.iter().all(|p| p.from >= w.from && p.to <= w.to);
    if !phrase {
        if let Some(w) = wholes.iter().find(|w| covers(w)) {
            return Want::Term(w.text.clone());
        }
    }
    if parts.len() == 1 {
        return Want::Term(parts[0].text.clone());
    }
    let base = parts.first().map_or(0, |p| p.pos);
    Want::Phrase(parts.iter().map(|p| (p.pos - base, p.text.clone())).collect())
}

fn atom_query(a: &Atom, fields: &[Field], marks: &mut Marks) -> Result<Box<dyn Query>> {
    let mut per_field: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    match a {
        Atom::Word(t) | Atom::Phrase(t) => {
            let want = analyse(t, matches!(a, Atom::Phrase(_)));
            for &fld in fields {
                let q: Box<dyn Query> = match &want {
                    Want::Term(t) => Box::new(TermQuery::new(Term::from_field_text(fld, t), IndexRecordOption::WithFreqs)),
                    Want::Phrase(p) => Box::new(PhraseQuery::new_with_offset(p.iter().map(|(o, t)| (*o, Term::from_field_text(fld, t))).collect())),
                };
                per_field.push((Occur::Should, q));
            }
            match want {
                Want::Term(t) => {
                    marks.terms.insert(t);
                }
                Want::Phrase(p) => marks.terms.extend(p.into_iter().map(|(_, t)| t)),
            }
        }
        Atom::Prefix(t) => {
            let folded = fold(t.trim_matches(tokenize::is_connector));
            let pattern = format!("{}.*", regex_escape(&folded));
            for &fld in fields {
                let q = RegexQuery::from_pattern(&pattern, fld).map_err(|e| Error::invalid(format!("search query: prefix `{t}`: {e}")))?;
                per_field.push((Occur::Should, Box::new(q)));
            }
            marks.prefixes.push(folded);
        }
    }
    Ok(Box::new(BooleanQuery::new(per_field)))
}

fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~\"@<>".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Build the tantivy query of a parsed query. `sessions_in`: the session
/// ids the workspace filter allows (`None`: all).
fn build(p: &Parsed, f: &Fields, sessions_in: Option<Vec<String>>, marks: &mut Marks) -> Result<Box<dyn Query>> {
    let fields: Vec<Field> = if p.fields.is_empty() {
        f.text.to_vec()
    } else {
        p.fields.iter().map(|n| f.text[FIELDS.iter().position(|x| x == n).expect("checked by the parser")]).collect()
    };
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for g in &p.groups {
        let mut any = Vec::new();
        for a in g {
            any.push((Occur::Should, atom_query(a, &fields, marks)?));
        }
        clauses.push((Occur::Must, Box::new(BooleanQuery::new(any))));
    }
    if p.groups.is_empty() {
        clauses.push((Occur::Must, Box::new(AllQuery)));
    }
    for a in &p.excluded {
        let mut ignore = Marks::default();
        // An excluded word is excluded from every field, not only the `in:` ones.
        clauses.push((Occur::MustNot, atom_query(a, &f.text, &mut ignore)?));
    }
    let set = |field: Field, v: &[String]| -> Box<dyn Query> { Box::new(TermSetQuery::new(v.iter().map(|x| Term::from_field_text(field, x)))) };
    if !p.roles.is_empty() {
        clauses.push((Occur::Must, set(f.role, &p.roles)));
    }
    if !p.sessions.is_empty() {
        clauses.push((Occur::Must, set(f.sid, &p.sessions)));
    }
    if !p.models.is_empty() {
        clauses.push((Occur::Must, set(f.model, &p.models)));
    }
    if p.after_ms.is_some() || p.before_ms.is_some() {
        let lo = p.after_ms.map_or(Bound::Unbounded, |t| Bound::Included(Term::from_field_i64(f.time, t)));
        let hi = p.before_ms.map_or(Bound::Unbounded, |t| Bound::Excluded(Term::from_field_i64(f.time, t)));
        clauses.push((Occur::Must, Box::new(RangeQuery::new(lo, hi))));
    }
    if !p.fields.contains(&"title".to_string()) && !p.fields.is_empty() {
        // `in:` without title: title documents cannot match anyway.
    }
    if let Some(ids) = sessions_in {
        if ids.is_empty() {
            return Ok(Box::new(EmptyQuery));
        }
        clauses.push((Occur::Must, set(f.sid, &ids)));
    }
    Ok(Box::new(BooleanQuery::new(clauses)))
}

/// Best hit per session: `(score, doc)` per session id, over all matches.
struct BestPerSession;
struct BestSeg {
    ord: SegmentOrdinal,
    col: Option<tantivy::columnar::StrColumn>,
    best: HashMap<u64, (Score, DocId)>,
}

impl Collector for BestPerSession {
    type Fruit = HashMap<String, (Score, DocAddress)>;
    type Child = BestSeg;
    fn for_segment(&self, ord: SegmentOrdinal, r: &SegmentReader) -> tantivy::Result<BestSeg> {
        Ok(BestSeg { ord, col: r.fast_fields().str("sid")?, best: HashMap::new() })
    }
    fn requires_scoring(&self) -> bool {
        true
    }
    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        let mut out: Self::Fruit = HashMap::new();
        for fr in fruits {
            for (k, v) in fr {
                let e = out.entry(k).or_insert(v);
                if v.0 > e.0 {
                    *e = v;
                }
            }
        }
        Ok(out)
    }
}

impl SegmentCollector for BestSeg {
    type Fruit = HashMap<String, (Score, DocAddress)>;
    fn collect(&mut self, doc: DocId, score: Score) {
        let Some(col) = &self.col else { return };
        if let Some(o) = col.term_ords(doc).next() {
            let e = self.best.entry(o).or_insert((score, doc));
            if score > e.0 {
                *e = (score, doc);
            }
        }
    }
    fn harvest(self) -> Self::Fruit {
        let mut out = HashMap::new();
        if let Some(col) = &self.col {
            for (o, (s, d)) in self.best {
                let mut id = String::new();
                if col.ord_to_str(o, &mut id).unwrap_or(false) {
                    out.insert(id, (s, DocAddress::new(self.ord, d)));
                }
            }
        }
        out
    }
}

fn doc_key(searcher: &tantivy::Searcher, a: DocAddress) -> Result<(String, u64)> {
    let r = searcher.segment_reader(a.segment_ord);
    let ff = r.fast_fields();
    let seq = ff.u64("seq").map_err(tv)?.first(a.doc_id).unwrap_or(0);
    let col = ff.str("sid").map_err(tv)?.ok_or_else(|| tv("no sid column"))?;
    let mut sid = String::new();
    if let Some(o) = col.term_ords(a.doc_id).next() {
        col.ord_to_str(o, &mut sid).map_err(tv)?;
    }
    Ok((sid, seq))
}

/// Cursor: `s1.<offset>.<query hash>` in URL-safe base64.
fn cursor(offset: u64, qhash: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("s1.{offset}.{qhash}"))
}

fn parse_cursor(c: &str, qhash: &str) -> Result<u64> {
    use base64::Engine as _;
    let bad = || Error::invalid("search cursor: not a cursor of this query (pass the next_cursor of the previous page, with the same query and mode)");
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(c).map_err(|_| bad())?;
    let s = String::from_utf8(raw).map_err(|_| bad())?;
    let mut it = s.splitn(3, '.');
    match (it.next(), it.next().and_then(|o| o.parse().ok()), it.next()) {
        (Some("s1"), Some(o), Some(h)) if h == qhash => Ok(o),
        _ => Err(bad()),
    }
}

/// Cut a snippet of about `chars` characters around the best window of
/// matches; returns the snippet and its highlight byte ranges.
pub fn snippet(text: &str, is_match: &dyn Fn(&str) -> bool, chars: usize) -> (String, Vec<(usize, usize)>) {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for t in tokenize(text) {
        if is_match(&t.text) {
            ranges.push((t.from, t.to));
        }
    }
    ranges.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for r in ranges {
        match merged.last_mut() {
            Some(l) if r.0 <= l.1 => l.1 = l.1.max(r.1),
            _ => merged.push(r),
        }
    }
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len())).collect();
    let nchars = bounds.len() - 1;
    let char_at = |byte: usize| bounds.partition_point(|&b| b < byte);
    // Window start: the match that has the most matches within `chars` after it.
    let mut best = (0usize, 0usize);
    for (i, m) in merged.iter().enumerate() {
        let c0 = char_at(m.0);
        let n = merged[i..].iter().take_while(|x| char_at(x.1) <= c0 + chars).count();
        if n > best.1 {
            best = (c0, n);
        }
    }
    let mut start = if merged.is_empty() { 0 } else { best.0.saturating_sub(chars / 4) };
    // Back up to a word start (at most 10 characters).
    let cs: Vec<char> = text.chars().collect();
    let mut back = 0;
    while start > 0 && back < 10 && !cs[start - 1].is_whitespace() {
        start -= 1;
        back += 1;
    }
    let end = (start + chars).min(nchars);
    let (b0, b1) = (bounds[start], bounds[end]);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let shift = out.len() as isize - b0 as isize;
    out.extend(text[b0..b1].chars().map(|c| if c.is_control() { ' ' } else { c }));
    if end < nchars {
        out.push('…');
    }
    let hl = merged
        .into_iter()
        .filter(|r| r.0 >= b0 && r.1 <= b1)
        .map(|r| ((r.0 as isize + shift) as usize, (r.1 as isize + shift) as usize))
        .collect();
    (out, hl)
}

/// Convert a UTF-8 byte offset of `s` to `unit`.
pub fn convert_offset(s: &str, byte: usize, unit: OffsetUnit) -> u32 {
    let pre = &s[..byte];
    (match unit {
        OffsetUnit::Utf8 => byte,
        OffsetUnit::CodePoint => pre.chars().count(),
        OffsetUnit::Utf16 => pre.encode_utf16().count(),
    }) as u32
}

impl SessionStore {
    /// Search every entry and title of the store (issue 26; docs/search.md
    /// gives the query language). The index catches up with the store
    /// first, so every entry committed before the call, by any handle or
    /// process, is found; deleted and retracted content never is. A
    /// missing or damaged index is rebuilt, never an error.
    ///
    /// Errors: `InvalidInput` for a malformed query (naming the character
    /// position), a cursor of another query, a limit or snippet length out
    /// of range, a workspace filter without a usable path; `Io` when the
    /// index folder cannot be written; the store's own errors (`Closed`, `Busy`).
    pub fn search(&self, query: &str, options: &SearchOptions) -> Result<SearchResults> {
        self.search_in_units(query, options, OffsetUnit::Utf8)
    }

    /// [`search`](Self::search) with highlight offsets in `unit` (each host
    /// its own string indexing). Errors: as `search`.
    pub fn search_in_units(&self, query: &str, options: &SearchOptions, unit: OffsetUnit) -> Result<SearchResults> {
        let parsed = query::parse(query, crate::store::now_ms())?;
        let limit = options.limit.unwrap_or(DEFAULT_LIMIT);
        if limit == 0 || limit > MAX_LIMIT {
            return Err(Error::invalid(format!("search limit must be 1..={MAX_LIMIT}, got {limit}")));
        }
        let chars = options.snippet_chars.unwrap_or(DEFAULT_SNIPPET_CHARS);
        if !(20..=2000).contains(&chars) {
            return Err(Error::invalid(format!("snippet_chars must be 20..=2000, got {chars}")));
        }
        let qhash = crypto::keyed_hash(self.key(), "search-cursor", format!("{}\0{query}", options.sessions).as_bytes())[..12].to_string();
        let offset = match &options.cursor {
            Some(c) => parse_cursor(c, &qhash)?,
            None => 0,
        };
        let sessions_in = match parsed.workspace.as_deref() {
            None | Some("all") => None,
            Some(scope) => {
                let path = match &options.workspace_path {
                    Some(p) => Some(p.clone()),
                    None if matches!(scope, "current" | "other") => Some(
                        std::env::current_dir().map_err(|e| Error::io("reading the current directory", e))?.to_string_lossy().into_owned(),
                    ),
                    None => None,
                };
                let filter = crate::WorkspaceFilter::from_scope(scope, path)?;
                let index = match &filter {
                    crate::WorkspaceFilter::Current(p) | crate::WorkspaceFilter::Other(p) => Some(crate::store::sessions::workspace_binding(self.key(), p)?.1),
                    _ => None,
                };
                let q = match (&filter, index.as_deref()) {
                    (crate::WorkspaceFilter::Current(_), Some(i)) => SessionQuery::Index(i),
                    (crate::WorkspaceFilter::Other(_), Some(i)) => SessionQuery::OtherThan(i),
                    _ => SessionQuery::Unbound,
                };
                Some(self.read(|r, _| Ok(r.sessions(q, None)?.into_iter().map(|s| s.id).collect::<Vec<_>>()))?)
            }
        };
        // One retry after a rebuild: a damaged index never reaches the caller.
        let mut attempt = 0;
        loop {
            match self.search_once(&parsed, &sessions_in, options, limit, offset) {
                Ok(found) => return self.finish(found, unit, chars as usize, offset, limit, &qhash),
                Err(e) if attempt == 0 && !matches!(e, Error::InvalidInput { .. } | Error::Closed | Error::Busy { .. }) => {
                    attempt += 1;
                    self.discard_search_index()?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Catch up and run the query: hits as `(session, seq, score)`, the total
    /// and the marks to highlight.
    fn search_once(&self, parsed: &Parsed, sessions_in: &Option<Vec<String>>, options: &SearchOptions, limit: u32, offset: u64) -> Result<Found> {
        let mut slot = crate::backend::lock(&self.search_slot().0);
        let run = std::panic::AssertUnwindSafe(|| -> Result<Found> {
            if slot.is_none() {
                *slot = Some(State::open(&index_dir(self)?, self.key())?);
            }
            let st = slot.as_mut().expect("just opened");
            st.lock.lock().map_err(|e| Error::io("locking the search index", e))?;
            let caught = catch_up(self, st, &mut |_, _| {});
            let _ = st.lock.unlock();
            caught?;
            let mut marks = Marks::default();
            let q = build(parsed, &st.f, sessions_in.clone(), &mut marks)?;
            let searcher = st.reader.searcher();
            let (keys, total) = if options.sessions {
                let best = searcher.search(&*q, &BestPerSession).map_err(tv)?;
                let total = best.len() as u64;
                let mut v: Vec<(String, (Score, DocAddress))> = best.into_iter().collect();
                v.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0).then_with(|| a.0.cmp(&b.0)));
                let page: Vec<_> = v.into_iter().skip(offset as usize).take(limit as usize).collect();
                let mut keys = Vec::new();
                for (_, (s, a)) in page {
                    let (sid, seq) = doc_key(&searcher, a)?;
                    keys.push((sid, seq, s as f64));
                }
                (keys, total)
            } else {
                let top = TopDocs::with_limit(limit as usize).and_offset(offset as usize).order_by_score();
                let (docs, total) = searcher.search(&*q, &(top, Count)).map_err(tv)?;
                let mut keys = Vec::new();
                for (s, a) in docs {
                    let (sid, seq) = doc_key(&searcher, a)?;
                    keys.push((sid, seq, s as f64));
                }
                (keys, total as u64)
            };
            Ok((keys, total, marks))
        });
        match std::panic::catch_unwind(run) {
            Ok(r) => r,
            Err(_) => {
                *slot = None;
                Err(Error::corrupt("search index: a read panicked"))
            }
        }
    }

    /// Snippets and highlights for the hits, read from the store.
    fn finish(&self, found: Found, unit: OffsetUnit, chars: usize, offset: u64, limit: u32, qhash: &str) -> Result<SearchResults> {
        let (keys, total, marks) = found;
        let n = keys.len() as u64;
        let mut hits = Vec::with_capacity(keys.len());
        for (sid, seq, score) in keys {
            let got = self.read(|r, key| {
                let Some(row) = r.session(&sid)? else { return Ok(None) };
                if seq == 0 {
                    let name = open_sealed(key, &row.name, &format!("session:{sid}:name"))?.unwrap_or_default();
                    let mut t: Texts = Default::default();
                    t[4] = name;
                    return Ok(Some((None, row.updated_at, t)));
                }
                let e = r.entries(&sid, seq, 1, false)?;
                let Some(e) = e.into_iter().next().filter(|e| e.seq == seq) else { return Ok(None) };
                let content = open_required(key, &e.content, &format!("transcript:{sid}:{seq}:content"))?;
                Ok(Some((Some(e.role.clone()), e.created_at, entry_texts(&e.role, &e.format, &content))))
            })?;
            // Gone since the index caught up (deleted, retracted): never shown.
            let Some((role, time, texts)) = got else { continue };
            let is_match = |t: &str| marks.matches(t);
            let mut chosen = None;
            for (i, t) in texts.iter().enumerate() {
                if !t.is_empty() && tokenize(t).iter().any(|k| is_match(&k.text)) {
                    chosen = Some(i);
                    break;
                }
            }
            let i = chosen.or_else(|| texts.iter().position(|t| !t.is_empty())).unwrap_or(0);
            let (snip, ranges) = snippet(&texts[i], &is_match, chars);
            let highlights = ranges
                .into_iter()
                .map(|(a, b)| Highlight { start: convert_offset(&snip, a, unit), end: convert_offset(&snip, b, unit) })
                .collect();
            hits.push(SearchHit { session_id: sid, seq, role, time_ms: time, score, field: FIELDS[i].to_string(), snippet: snip, highlights });
        }
        let next = offset + n;
        let next_cursor = (n == limit as u64 && next < total).then(|| cursor(next, qhash));
        Ok(SearchResults { hits, total, next_cursor })
    }

    /// Drop the open index and erase its files (the next search rebuilds it).
    fn discard_search_index(&self) -> Result<()> {
        let mut slot = crate::backend::lock(&self.search_slot().0);
        *slot = None;
        let root = index_dir(self)?;
        let lock = lock_file(&root)?;
        lock.lock().map_err(|e| Error::io("locking the search index", e))?;
        if let Ok(rd) = std::fs::read_dir(&root) {
            for e in rd.flatten() {
                if !e.file_name().to_string_lossy().ends_with(".lock") {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        let _ = lock.unlock();
        Ok(())
    }

    /// Rebuild the search index from the store (`sessiondb search --rebuild`).
    /// `progress(done, total)` is called as journal positions are applied.
    /// Errors: `Io` (index folder), the store's errors.
    pub fn rebuild_search_index(&self, progress: &mut dyn FnMut(u64, u64)) -> Result<RebuildReport> {
        self.discard_search_index()?;
        let mut slot = crate::backend::lock(&self.search_slot().0);
        let root = index_dir(self)?;
        *slot = Some(State::open(&root, self.key())?);
        let st = slot.as_mut().expect("just opened");
        st.lock.lock().map_err(|e| Error::io("locking the search index", e))?;
        let applied = catch_up(self, st, progress);
        let _ = st.lock.unlock();
        let applied = applied?;
        Ok(RebuildReport { documents: applied.docs, content_bytes: applied.bytes, index_bytes: dir_bytes(&root) })
    }

    /// The search index folder and its size in bytes (for `doctor` and the bench).
    pub fn search_index_location(&self) -> Result<(PathBuf, u64)> {
        let root = index_dir(self)?;
        let n = dir_bytes(&root);
        Ok((root, n))
    }

    /// Test and audit hook: is the folded `term` in the term dictionary of
    /// any segment on disk, deleted documents included (after a merge, a
    /// deleted session's terms must be gone, not only hidden)?
    /// Errors: `Corrupt` when the index cannot be read.
    #[doc(hidden)]
    pub fn search_index_has_term(&self, term: &str) -> Result<bool> {
        let root = index_dir(self)?;
        let index_key = crypto::derive_key(self.key(), b"", crypto::SEARCH_INDEX_KEY_INFO);
        let d = dir::EncryptedDirectory::open(&root, index_key).map_err(|e| Error::io("opening the search index", e))?;
        let index = with_tokenizer(Index::open(d).map_err(tv)?);
        let (_, f) = schema();
        let reader: IndexReader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(tv)?;
        let searcher = reader.searcher();
        for seg in searcher.segment_readers() {
            for fld in f.text {
                let inv = seg.inverted_index(fld).map_err(tv)?;
                let t = Term::from_field_text(fld, term);
                if inv.get_term_info(&t).map_err(tv)?.is_some() {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Test and audit hook: decrypt every file of the search index and
    /// return `(name, plaintext)` pairs (the canary scan of what the index
    /// holds after a merge). Errors: `Io`; `Corrupt` for a file that does
    /// not authenticate.
    #[doc(hidden)]
    pub fn search_index_plaintext(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let root = index_dir(self)?;
        let index_key = crypto::derive_key(self.key(), b"", crypto::SEARCH_INDEX_KEY_INFO);
        let d = dir::EncryptedDirectory::open(&root, index_key).map_err(|e| Error::io("opening the search index", e))?;
        let mut out = Vec::new();
        for e in std::fs::read_dir(&root).map_err(|e| Error::io("listing the search index", e))?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".lock") {
                continue;
            }
            out.push((name.clone(), d.read_plaintext(&name).map_err(|e| Error::corrupt(e.to_string()))?));
        }
        out.sort();
        Ok(out)
    }
}

/// [`SessionStore::search`] with highlights in code points (the Python
/// binding's `search`; Python `str` indices). Errors: as `search`.
pub fn search_code_points(store: &SessionStore, query: &str, options: &SearchOptions) -> Result<SearchResults> {
    store.search_in_units(query, options, OffsetUnit::CodePoint)
}

/// [`SessionStore::search`] with highlights in UTF-16 code units (the
/// Node, Kotlin and Swift bindings' `search`). Errors: as `search`.
pub fn search_utf16(store: &SessionStore, query: &str, options: &SearchOptions) -> Result<SearchResults> {
    store.search_in_units(query, options, OffsetUnit::Utf16)
}

/// [`SessionStore::rebuild_search_index`] without a progress callback (the
/// hosts' `rebuild_search_index`). Errors: as it.
pub fn rebuild_search_index(store: &SessionStore) -> Result<RebuildReport> {
    store.rebuild_search_index(&mut |_, _| {})
}

fn dir_bytes(root: &Path) -> u64 {
    std::fs::read_dir(root).map(|rd| rd.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_texts_split_blocks() {
        let c = r#"[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"bash","input":{"command":"ls -la"}},{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"out"}]}]"#;
        let t = entry_texts("assistant", "blocks", c);
        assert_eq!(t, ["hi".to_string(), "bash\ncommand: ls -la".into(), "out".into(), "hmm".into(), String::new()]);
        assert_eq!(entry_texts("tool", "text", "x"), [String::new(), String::new(), "x".into(), String::new(), String::new()]);
    }

    #[test]
    fn snippet_windows_and_offsets() {
        let text = "alpha beta gamma delta";
        let (s, h) = snippet(text, &|t| t == "gamma", 160);
        assert_eq!((s.as_str(), h), ("alpha beta gamma delta", vec![(11, 16)]));
        let long = format!("{} needle {}", "x ".repeat(100), "y ".repeat(100));
        let (s, h) = snippet(&long, &|t| t == "needle", 40);
        assert_eq!(&s[h[0].0..h[0].1], "needle");
        assert!(s.starts_with('…') && s.ends_with('…'));
        let e = "😀 数据 x";
        assert_eq!(convert_offset(e, e.find('x').unwrap(), OffsetUnit::Utf16), 6);
        assert_eq!(convert_offset(e, e.find('x').unwrap(), OffsetUnit::CodePoint), 5);
        assert_eq!(convert_offset(e, e.find('x').unwrap(), OffsetUnit::Utf8), 12);
    }
}
