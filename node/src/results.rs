//! The context records Node declares by hand (every other record is
//! generated from bridge/api.rs): `ContextItem`, which callers build with
//! optional fields, and the planner's `CompactionOptions`. Plain JS objects
//! (`#[napi(object)]`, camelCase fields); `kind` is the core's serde name
//! (`'tool_call'`...); counts are JS numbers (exact below 2^53).

use napi_derive::napi;
use sessiondb::context as core_ctx;

use crate::records::{conv_from, n, u};

conv_from!(core_ctx::ContextItem => ContextItem);

/// The serde name of a unit enum variant of the core.
fn enum_name<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

/// A core unit enum from its serde name. Errors: `InvalidInput` naming `what`.
pub(crate) fn enum_parse<T: serde::de::DeserializeOwned>(name: &str, what: &str) -> sessiondb::Result<T> {
    serde_json::from_value(serde_json::Value::String(name.to_owned()))
        .map_err(|_| sessiondb::Error::invalid(format!("{what} is not one of its known values")))
}

/// One item of the active model context, in the order it would be sent
/// (`compactContext` input, `applyCompaction` output). Missing optional
/// fields are `false` / `''` / `[]`.
#[napi(object)]
pub struct ContextItem {
    pub seq: i64,
    /// `user`, `assistant`, `tool`, `system`...
    pub role: String,
    #[napi(ts_type = "'message' | 'tool_call' | 'tool_result' | 'system'")]
    pub kind: String,
    pub tokens: i64,
    pub pinned: Option<bool>,
    pub text: Option<String>,
    /// Tool-call ids linking calls and results.
    pub call_ids: Option<Vec<String>>,
    /// Already a summary from an earlier compaction.
    pub compacted: Option<bool>,
}

impl From<core_ctx::ContextItem> for ContextItem {
    fn from(i: core_ctx::ContextItem) -> Self {
        ContextItem {
            seq: n(i.seq),
            role: i.role,
            kind: enum_name(&i.kind),
            tokens: n(i.tokens),
            pinned: Some(i.pinned),
            text: Some(i.text),
            call_ids: Some(i.call_ids),
            compacted: Some(i.compacted),
        }
    }
}

impl ContextItem {
    pub fn into_core(self) -> sessiondb::Result<core_ctx::ContextItem> {
        Ok(core_ctx::ContextItem {
            seq: u(self.seq, "seq")?,
            role: self.role,
            kind: enum_parse(&self.kind, "context item kind")?,
            tokens: u(self.tokens, "tokens")?,
            pinned: self.pinned.unwrap_or(false),
            text: self.text.unwrap_or_default(),
            call_ids: self.call_ids.unwrap_or_default(),
            compacted: self.compacted.unwrap_or(false),
        })
    }
}

/// Planner options: user turns kept verbatim (default 2), model whose
/// tokenizer counts the summaries (default: the estimate ⌈UTF-8 bytes / 3⌉).
#[napi(object, object_to_js = false)]
pub struct CompactionOptions {
    pub recent_user_turns: Option<u32>,
    pub model: Option<String>,
}

impl From<CompactionOptions> for core_ctx::CompactionOptions {
    fn from(o: CompactionOptions) -> Self {
        let d = core_ctx::CompactionOptions::default();
        core_ctx::CompactionOptions {
            recent_user_turns: o.recent_user_turns.map_or(d.recent_user_turns, |t| t as usize),
            model: o.model,
        }
    }
}

