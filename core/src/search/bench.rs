//! Measurement hooks of `core/examples/search_floor.rs` (the floor of the
//! index build in docs/search.md "How fast"): the documents a rebuild
//! indexes, decrypted up front, and the index build of our schema and
//! tokenizer into any tantivy directory (no encryption). Not an API.

use tantivy::directory::Directory;
use tantivy::{Index, IndexWriter};

use super::index::{add_doc, schema_with, tv, with_tokenizer, EntryDoc};
use super::text::{entry_texts, Texts};
use crate::error::Result;
use crate::store::{open_required, open_sealed, SessionStore};

/// One document of the index: an entry, or a session's title (seq 0).
#[derive(Debug, Clone)]
pub struct Doc {
    /// Session id.
    pub sid: String,
    /// Entry seq (0: the title document).
    pub seq: u64,
    /// Role (`title` for the title document).
    pub role: String,
    /// Model.
    pub model: Option<String>,
    /// Time.
    pub time: i64,
    /// The text fields, in [`FIELDS`](super::query::FIELDS) order.
    pub texts: [String; 5],
}

/// Every document a rebuild of `store`'s index adds, in its order,
/// decrypted (what `catch_up` reads from an empty index, without the
/// journal walk).
pub fn documents(store: &SessionStore) -> Result<Vec<Doc>> {
    let mut out = Vec::new();
    for s in store.list_sessions(None)? {
        let sid = s.id.as_str();
        let Some(row) = store.read(|r, _| r.session(sid))? else { continue };
        let mut texts: Texts = Default::default();
        if let Some(n) = open_sealed(store.key(), &row.name, &format!("session:{sid}:name")).ok().flatten() {
            texts[4] = n;
        }
        out.push(Doc { sid: sid.to_string(), seq: 0, role: "title".into(), model: row.model.clone(), time: row.updated_at, texts });
        let mut last = 0;
        loop {
            let rows = store.read(|r, _| r.entries(sid, last + 1, super::ENTRY_PAGE, true))?;
            let Some(end) = rows.last().map(|r| r.seq) else { break };
            for e in rows {
                let content = open_required(store.key(), &e.content, &format!("transcript:{sid}:{}:content", e.seq)).unwrap_or_default();
                let texts = entry_texts(&e.role, &e.format, &content);
                let model = e.meta.as_ref().and_then(|m| m.model.clone()).or_else(|| row.model.clone());
                out.push(Doc { sid: sid.to_string(), seq: e.seq, role: e.role.to_string(), model, time: e.created_at, texts });
            }
            last = end;
        }
    }
    Ok(out)
}

/// Build an index of `docs` in `dir` as a rebuild does (our schema and
/// tokenizer, `threads` indexing threads sharing `memory` bytes, no merge
/// while building, one merge into one segment at the end), without
/// encryption. `tokenizer`: ours ([`TOKENIZER`](super::tokenize::TOKENIZER))
/// or one of tantivy's (`default`). Returns the text bytes indexed.
pub fn build(dir: impl Directory, docs: &[Doc], tokenizer: &str, threads: usize, memory: usize) -> Result<u64> {
    let (schema, f) = schema_with(tokenizer);
    let index = with_tokenizer(Index::create(dir, schema, Default::default()).map_err(tv)?);
    let mut w: IndexWriter = index.writer_with_num_threads(threads, memory).map_err(tv)?;
    w.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
    let mut bytes = 0;
    for d in docs {
        let texts = d.texts.clone();
        bytes += add_doc(&w, &f, EntryDoc { sid: &d.sid, seq: d.seq, role: &d.role, model: d.model.as_deref(), time: d.time, texts })?;
    }
    w.commit().map_err(tv)?;
    let ids = index.searchable_segment_ids().map_err(tv)?;
    if ids.len() > 1 {
        w.merge(&ids).wait().map_err(tv)?;
    }
    w.wait_merging_threads().map_err(tv)?;
    Ok(bytes)
}
