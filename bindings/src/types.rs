//! Records and enums of the store API.
//!
//! Core types whose fields are all FFI types are exposed as they are
//! (`#[uniffi::remote]`: the declaration below must match the core's field
//! for field, so a change in the core that the bindings miss fails to
//! compile). Types holding JSON values or tuples get an FFI twin here, with a
//! `From` conversion and nothing else.

use sessiondb::{
    NewEntry,
};

use crate::error::{bad_json, Result, SessionDbError};

/// Per-entry metadata (see `appendEntriesWithMeta`, `getTranscriptWithMeta`):
/// the model and provider that produced an entry, the source's other
/// fields as one JSON object (Claude `tool_use_result`, `uuid`; Codex
/// `phase`...) and a structured item (`item`: a framework item's JSON text,
/// kept byte-exact and encrypted; the entry's content is the text that
/// counts for tokens).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct EntryMeta {
    /// Model that produced the entry (at most 256 bytes).
    #[uniffi(default)]
    pub model: Option<String>,
    /// Provider that served it (at most 256 bytes).
    #[uniffi(default)]
    pub provider: Option<String>,
    /// The source-specific fields as compact JSON object text (`{}` when
    /// there are none; stored encrypted).
    #[uniffi(default = "{}")]
    pub extra_json: String,
    /// A structured item's JSON text (e.g. an Agents SDK item), returned
    /// byte-exact; `null`/`nil` when there is none. `InvalidInput` on append
    /// when it is not the JSON text of one value.
    #[uniffi(default)]
    pub item: Option<String>,
}

impl From<sessiondb::EntryMeta> for EntryMeta {
    fn from(m: sessiondb::EntryMeta) -> Self {
        EntryMeta {
            model: m.model,
            provider: m.provider,
            extra_json: serde_json::Value::Object(m.extra).to_string(),
            item: m.item,
        }
    }
}

impl TryFrom<EntryMeta> for sessiondb::EntryMeta {
    type Error = SessionDbError;
    fn try_from(m: EntryMeta) -> Result<Self> {
        let extra = parse_json(&m.extra_json, "extraJson")?;
        Ok(sessiondb::EntryMeta { item: m.item, ..sessiondb::EntryMeta::from_json_extra(m.model, m.provider, extra, "extraJson")? })
    }
}

/// One entry to append with its metadata (`appendEntriesWithMeta`).
#[derive(Debug, Clone, uniffi::Record)]
pub struct NewEntryWithMeta {
    /// The entry.
    pub entry: NewEntry,
    /// Its metadata.
    pub meta: EntryMeta,
}

/// Parse host-supplied JSON text; `InvalidInput` when it is not JSON.
pub(crate) fn parse_json(text: &str, what: &str) -> Result<serde_json::Value> {
    serde_json::from_str(text).map_err(|_| bad_json(what))
}
