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
//!   postings leave the files; a deletion does this before it returns
//!   (`SessionStore::scrub_search_index`, issue 30). Appends do no index
//!   work.
//! * Missing, damaged (authentication fails), foreign (another store's) or
//!   unreadable: the index is rebuilt from the store, never an error nor a
//!   wrong answer. One process at a time updates it (an OS file lock).

#[doc(hidden)]
pub mod bench;
pub mod dir;
mod index;
pub mod query;
mod rank;
mod text;
pub mod tokenize;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tantivy::collector::{Count, TopDocs};
use tantivy::{DocAddress, Index, IndexReader, ReloadPolicy, Score, Term};

use crate::backend::SessionQuery;
use crate::crypto;
use crate::error::{Error, Result};
use crate::store::{open_required, open_sealed, SessionStore};
use index::{catch_up, dir_bytes, index_dir, lock_file, schema, tv, with_tokenizer, State};
use query::{Parsed, FIELDS};
use rank::{build, cursor, doc_key, parse_cursor, BestPerSession, Found, Marks};
pub use text::{convert_offset, entry_texts, snippet};
use text::Texts;

/// Format version of the index (in the commit payload); another version is rebuilt.
/// 2: a part too long to index takes its position (version 1 indexes put
/// the words either side of it next to each other).
/// 3: `time` is a fast field only (filters read the column; no term per
/// distinct time in the dictionary).
/// 4: no fieldnorms on session id, seq, role and model (never scored).
pub const INDEX_VERSION: u32 = 4;
/// Default hits per page.
pub const DEFAULT_LIMIT: u32 = 20;
/// Most hits per page.
pub const MAX_LIMIT: u32 = 1000;
/// Default snippet length in characters.
pub const DEFAULT_SNIPPET_CHARS: u32 = 160;
/// Memory the indexer may use before it writes a segment (bytes): a
/// catch-up that adds to an index.
pub const WRITER_MEMORY: usize = 32 << 20;
/// Memory of a build from empty (a rebuild, the first search after a large
/// import), shared by its [`BUILD_THREADS`] indexing threads: bigger
/// segments, fewer merges, a smaller index (measured in docs/search.md).
pub const BUILD_MEMORY: usize = 256 << 20;
/// Indexing threads of a build from empty (at most the CPUs available);
/// the reading, decryption and parsing of entries run on the calling thread.
/// One: a second thread writes segments of its own, which the build's final
/// merge then costs (100 MB: 7.30 against 4.84 CPU s in `search_floor`, the
/// machine loaded), and the calling thread already keeps a second core
/// busy. With both cores idle the second thread bought 11 % of wall time
/// for that CPU (docs/search.md, "How fast against the floor").
pub const BUILD_THREADS: usize = 1;
/// Database file size from which a build from empty uses [`BUILD_THREADS`]
/// and [`BUILD_MEMORY`] (journal events do not tell: one import is one event).
pub const BUILD_MIN_BYTES: u64 = 32 << 20;
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
                let filter = crate::store::WorkspaceFilter::from_scope(scope, path)?;
                let index = match &filter {
                    crate::store::WorkspaceFilter::Current(p) | crate::store::WorkspaceFilter::Other(p) => Some(crate::store::sessions::workspace_binding(self.key(), p)?.1),
                    _ => None,
                };
                let q = match (&filter, index.as_deref()) {
                    (crate::store::WorkspaceFilter::Current(_), Some(i)) => SessionQuery::Index(i),
                    (crate::store::WorkspaceFilter::Other(_), Some(i)) => SessionQuery::OtherThan(i),
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
        let mut slot = crate::backend::lock(self.search_slot());
        let run = std::panic::AssertUnwindSafe(|| -> Result<Found> {
            if slot.is_none() {
                *slot = Some(Box::new(State::open(&index_dir(self)?, self.key())?));
            }
            let st = index::state(&mut slot).expect("just opened");
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
                Ok(Some((Some(e.role.to_string()), e.created_at, entry_texts(&e.role, &e.format, &content))))
            })?;
            // Gone since the index caught up (deleted, retracted): never shown.
            let Some((role, time, texts)) = got else { continue };
            let is_match = |t: &str| marks.matches(t);
            let mut chosen = None;
            for (i, t) in texts.iter().enumerate() {
                if !t.is_empty() && tokenize::any_token(t, |k, _, _| is_match(k)) {
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
        let mut slot = crate::backend::lock(self.search_slot());
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

    /// After deletions committed (`delete_session`, `prune`, a copy that
    /// deletes): when this store has a search index on disk, bring it up to
    /// the store now, so the deleted sessions' documents are deleted and the
    /// segments that held them merged and their old files removed before
    /// the deletion returns (issue 30 "Deletion leaves nothing"), whether or
    /// not this handle ever searched. No index folder (or no `meta.json` in
    /// it): nothing to do, nothing created. An index that cannot be brought
    /// up (damaged, foreign) is erased instead; the next search rebuilds it.
    /// Errors: `Io` when the index folder can be neither brought up nor
    /// erased; the store's own (`Closed`, `Busy`).
    pub(crate) fn scrub_search_index(&self) -> Result<()> {
        let root = index_dir(self)?;
        if !root.join("meta.json").exists() {
            return Ok(());
        }
        let mut slot = crate::backend::lock(self.search_slot());
        let run = std::panic::AssertUnwindSafe(|| -> Result<()> {
            if index::state(&mut slot).is_none() {
                *slot = Some(Box::new(State::open(&root, self.key())?));
            }
            let st = index::state(&mut slot).expect("just opened");
            st.lock.lock().map_err(|e| Error::io("locking the search index", e))?;
            let caught = catch_up(self, st, &mut |_, _| {});
            let _ = st.lock.unlock();
            caught.map(|_| ())
        });
        let r = std::panic::catch_unwind(run).unwrap_or_else(|_| {
            *slot = None;
            Err(Error::corrupt("search index: a scrub panicked"))
        });
        drop(slot);
        match r {
            Err(e @ (Error::Closed | Error::Busy { .. })) => Err(e),
            // Damaged, unreadable or not writable: erase it (its files go
            // with their postings); when that fails too, its `Io` error.
            Err(_) => self.discard_search_index(),
            Ok(()) => Ok(()),
        }
    }

    /// Rebuild the search index from the store (`sessiondb search --rebuild`).
    /// `progress(done, total)` is called as journal positions are applied.
    /// Errors: `Io` (index folder), the store's errors.
    pub fn rebuild_search_index(&self, progress: &mut dyn FnMut(u64, u64)) -> Result<RebuildReport> {
        self.discard_search_index()?;
        let mut slot = crate::backend::lock(self.search_slot());
        let root = index_dir(self)?;
        *slot = Some(Box::new(State::open(&root, self.key())?));
        let st = index::state(&mut slot).expect("just opened");
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

/// Search every session's messages, tool calls and outputs, thinking and
/// titles (docs/search.md gives the query language: words, "phrases",
/// prefix*, -excluded, OR, role:, session:, model:, after:, before:,
/// in:, workspace:). The encrypted index catches up with the store first:
/// every committed entry of any handle is found, deleted and retracted
/// content never is. Highlights count code points (Python `str` indices).
///
/// [`SessionStore::search`] with highlights in code points (the Python
/// binding's `search`; Python `str` indices). Errors: as `search`.
pub fn search_code_points(store: &SessionStore, query: &str, options: &SearchOptions) -> Result<SearchResults> {
    store.search_in_units(query, options, OffsetUnit::CodePoint)
}

/// Search every session's messages, tool calls and outputs, thinking and
/// titles (docs/search.md gives the query language). The encrypted index
/// catches up with the store first: every committed entry of any handle
/// is found, deleted and retracted content never is. Highlights count
/// UTF-16 code units (JavaScript and Kotlin string indices, Swift `utf16`).
///
/// [`SessionStore::search`] with highlights in UTF-16 code units (the Node,
/// Kotlin and Swift bindings' `search`). Errors: as `search`.
pub fn search_utf16(store: &SessionStore, query: &str, options: &SearchOptions) -> Result<SearchResults> {
    store.search_in_units(query, options, OffsetUnit::Utf16)
}

/// Rebuild the encrypted search index from the store (it is a cache:
/// searching never needs this; after it, searches start from a fresh index).
///
/// [`SessionStore::rebuild_search_index`] without a progress callback (the
/// hosts' `rebuild_search_index`). Errors: as it.
pub fn rebuild_search_index(store: &SessionStore) -> Result<RebuildReport> {
    store.rebuild_search_index(&mut |_, _| {})
}
