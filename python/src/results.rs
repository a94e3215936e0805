//! `ContextItem`, the one context record Python declares by hand (every
//! other record is generated from bridge/api.rs): callers build it, with
//! defaults, or pass a dict, and its `repr` hides the text (user content).
//! `kind` is the core's serde name (`"tool_call"`...). Conversions only.

use pyo3::prelude::*;
use sessiondb::context as core_ctx;

use crate::json::{enum_name, enum_parse};
use crate::records::{conv_from, dict_of};

conv_from!(core_ctx::ContextItem => ContextItem);

const CONTEXT_ITEM_FIELDS: &[&str] = &["seq", "role", "kind", "tokens", "pinned", "text", "call_ids", "compacted"];

/// One item of the active model context (`compact_context` input, also
/// accepted as a dict; `apply_compaction` output). `kind`:
/// message|tool_call|tool_result|system.
#[pyclass(frozen, get_all, eq, module = "sessiondb", name = "ContextItem")]
#[derive(Debug, Clone, PartialEq)]
pub struct ContextItem {
    pub seq: u64,
    pub role: String,
    pub kind: String,
    pub tokens: u64,
    pub pinned: bool,
    pub text: String,
    pub call_ids: Vec<String>,
    pub compacted: bool,
}

#[pymethods]
impl ContextItem {
    #[new]
    #[pyo3(signature = (seq, role, kind, tokens, pinned = false, text = "", call_ids = None, compacted = false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        seq: u64,
        role: String,
        kind: String,
        tokens: u64,
        pinned: bool,
        text: &str,
        call_ids: Option<Vec<String>>,
        compacted: bool,
    ) -> Self {
        ContextItem { seq, role, kind, tokens, pinned, text: text.to_owned(), call_ids: call_ids.unwrap_or_default(), compacted }
    }

    /// The text is not shown (it may be user content), only its length.
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let r = |name: &str| -> PyResult<String> { Ok(slf.getattr(name)?.repr()?.to_string()) };
        Ok(format!(
            "ContextItem(seq={}, role={}, kind={}, tokens={}, pinned={}, text=<{} chars>, call_ids={}, compacted={})",
            r("seq")?,
            r("role")?,
            r("kind")?,
            r("tokens")?,
            r("pinned")?,
            slf.get().text.chars().count(),
            r("call_ids")?,
            r("compacted")?
        ))
    }

    /// The item as plain data: `{attribute: value}` (the dict form `compact_context` accepts).
    fn to_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        dict_of(slf.as_any(), CONTEXT_ITEM_FIELDS)
    }
}

impl From<core_ctx::ContextItem> for ContextItem {
    fn from(i: core_ctx::ContextItem) -> Self {
        ContextItem {
            seq: i.seq,
            role: i.role,
            kind: enum_name(&i.kind),
            tokens: i.tokens,
            pinned: i.pinned,
            text: i.text,
            call_ids: i.call_ids,
            compacted: i.compacted,
        }
    }
}

impl ContextItem {
    pub fn to_core(&self) -> sessiondb::Result<core_ctx::ContextItem> {
        Ok(core_ctx::ContextItem {
            seq: self.seq,
            role: self.role.clone(),
            kind: enum_parse(&self.kind, "context item kind")?,
            tokens: self.tokens,
            pinned: self.pinned,
            text: self.text.clone(),
            call_ids: self.call_ids.clone(),
            compacted: self.compacted,
        })
    }
}

