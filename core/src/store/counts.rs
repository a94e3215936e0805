//! Token counts taken on the write path (issue 33 item 7): each entry's
//! token count with the tokenizer of its session's model, counted where the
//! content is already in hand (a host append, before it joins the group
//! commit; the import's preparing stage, beside the writer) and stored with
//! the entry (`counted_tokens`, see `context::tokens::pack_counted`), so
//! `context` reads counts instead of decrypting and tokenizing every entry.
//!
//! The tokenizer lives in `context::tokens`, a leaf module (it imports
//! nothing else of ours). A stored count names its encoding, so a count
//! taken with a model this handle no longer knows to be current (another
//! handle changed it) is never used as the new model's: `context` counts
//! again, as for entries written without a count.

use std::collections::HashMap;

use super::{lock, NewEntry, SessionStore};
use crate::context::tokens::{count_for_storage, encoding_for_model, Encoding};
use crate::error::Result;

/// Sessions whose encoding a handle keeps at most; past it the map starts over.
const MAX_CACHED: usize = 4096;

/// The encoding of each session's model as this handle last read it.
pub(crate) type EncodingCache = std::sync::Mutex<HashMap<String, Option<Encoding>>>;

impl SessionStore {
    /// The tokenizer encoding of `session_id`'s model (`None`: none, or the
    /// model has no tokenizer), read once per session and handle.
    /// Errors: `NotFound` (session), those of a read.
    pub(crate) fn session_encoding(&self, session_id: &str) -> Result<Option<Encoding>> {
        if let Some(e) = lock(&self.encodings).get(session_id) {
            return Ok(*e);
        }
        let encoding = self.get_session(session_id)?.model.as_deref().and_then(encoding_for_model);
        let mut cache = lock(&self.encodings);
        if cache.len() >= MAX_CACHED {
            cache.clear();
        }
        cache.insert(session_id.to_owned(), encoding);
        Ok(encoding)
    }

    /// Forget the encoding kept for `session_id` (its model changed).
    pub(crate) fn forget_session_encoding(&self, session_id: &str) {
        lock(&self.encodings).remove(session_id);
    }

    /// The `counted_tokens` value of each of `entries` appended to
    /// `session_id`: empty when the session's model has no tokenizer (or the
    /// session cannot be read: the append itself then reports it), else one
    /// per entry (`None` for an entry with a host count).
    pub(crate) fn counts_for_storage(&self, session_id: &str, entries: &[NewEntry]) -> Vec<Option<u64>> {
        match self.session_encoding(session_id) {
            Ok(Some(encoding)) => entries.iter().map(|e| count_for_storage(Some(encoding), &e.content, e.tokens)).collect(),
            _ => Vec::new(),
        }
    }
}
