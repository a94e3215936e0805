//! Typed result classes: one frozen Python class per core record type, with
//! read-only attributes, `__repr__` and `__eq__`. Conversions only.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// `Name(field=repr, ...)` from the object's own attributes; a `redact`
/// field (text that may be user content) shows as `<N chars>`.
pub(crate) fn repr_of(obj: &Bound<'_, PyAny>, name: &str, fields: &[&str], redact: &[&str]) -> PyResult<String> {
    let mut parts = Vec::with_capacity(fields.len());
    for f in fields {
        let v = obj.getattr(*f)?;
        if redact.contains(f) {
            parts.push(format!("{f}=<{} chars>", v.len()?));
        } else {
            parts.push(format!("{f}={}", v.repr()?));
        }
    }
    Ok(format!("{name}({})", parts.join(", ")))
}

/// An attribute value as plain Python data: a record becomes its
/// `to_dict()`, lists and dicts are converted item by item, the rest is
/// returned as is.
fn plain<'py>(v: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = v.py();
    if let Ok(list) = v.cast::<PyList>() {
        let out = PyList::empty(py);
        for x in list.iter() {
            out.append(plain(x)?)?;
        }
        return Ok(out.into_any());
    }
    if let Ok(dict) = v.cast::<PyDict>() {
        let out = PyDict::new(py);
        for (k, x) in dict.iter() {
            out.set_item(k, plain(x)?)?;
        }
        return Ok(out.into_any());
    }
    if v.hasattr(intern!(py, "to_dict"))? {
        return v.call_method0(intern!(py, "to_dict"));
    }
    Ok(v)
}

/// `{field: plain value}` of the object's own attributes (`to_dict()`).
pub(crate) fn dict_of<'py>(obj: &Bound<'py, PyAny>, fields: &[&str]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(obj.py());
    for f in fields {
        d.set_item(*f, plain(obj.getattr(*f)?)?)?;
    }
    Ok(d)
}

/// A core value as the type of a Python record field. Written once per
/// type (below), so `record! { Name = "Name" from core::Type { ... } }`
/// generates each record's `From<core::Type>` field by field.
pub(crate) trait Conv<T> {
    fn conv(self) -> T;
}

macro_rules! conv_same {
    ($($t:ty),*) => { $(impl Conv<$t> for $t { fn conv(self) -> $t { self } })* };
}
conv_same!((), String, u64, i64, u32, u8, bool, (String, String), (String, String, String));
impl Conv<String> for &str {
    fn conv(self) -> String {
        self.to_owned()
    }
}
impl Conv<String> for &std::path::Path {
    fn conv(self) -> String {
        self.to_string_lossy().into_owned()
    }
}

/// A Python record field as the core's value (the inverse of [`Conv`]), for
/// records a caller passes back in (`record_compaction(plan)`,
/// `governance_turns(governance)`...): the generator writes each record's
/// and enum's impl; `what` names the field in the `InvalidInput` error.
pub(crate) trait Back<C> {
    fn back(&self, what: &str) -> sessiondb::Result<C>;
}

macro_rules! back_same {
    ($($t:ty),*) => { $(impl Back<$t> for $t { fn back(&self, _: &str) -> sessiondb::Result<$t> { Ok(self.clone()) } })* };
}
back_same!(String, u64, i64, u32, u8, bool);
impl<A: Back<B>, B> Back<Option<B>> for Option<A> {
    fn back(&self, what: &str) -> sessiondb::Result<Option<B>> {
        self.as_ref().map(|a| a.back(what)).transpose()
    }
}
impl<A: Back<B>, B> Back<Vec<B>> for Vec<A> {
    fn back(&self, what: &str) -> sessiondb::Result<Vec<B>> {
        self.iter().map(|a| a.back(what)).collect()
    }
}
impl<A: Back<B>, B: Ord> Back<std::collections::BTreeSet<B>> for Vec<A> {
    fn back(&self, what: &str) -> sessiondb::Result<std::collections::BTreeSet<B>> {
        self.iter().map(|a| a.back(what)).collect()
    }
}
impl<A: Back<B>, B> Back<std::collections::BTreeMap<u64, B>> for std::collections::BTreeMap<u64, A> {
    fn back(&self, what: &str) -> sessiondb::Result<std::collections::BTreeMap<u64, B>> {
        self.iter().map(|(k, a)| Ok((*k, a.back(what)?))).collect()
    }
}

/// A value the core shares (`Arc`, e.g. a compaction run's transformation)
/// as the Python field's value (a copy).
impl<A: Clone + Conv<B>, B> Conv<B> for std::sync::Arc<A> {
    fn conv(self) -> B {
        std::sync::Arc::unwrap_or_clone(self).conv()
    }
}
/// And back: a fresh `Arc` of the core value (a compaction run's
/// transformation: the one core type shared this way).
impl Back<std::sync::Arc<sessiondb::context::Transformation>> for Transformation {
    fn back(&self, what: &str) -> sessiondb::Result<std::sync::Arc<sessiondb::context::Transformation>> {
        Back::<sessiondb::context::Transformation>::back(self, what).map(std::sync::Arc::new)
    }
}

/// `impl Conv<Py> for Core` from an existing `From<Core> for Py`.
macro_rules! conv_from {
    ($($core:ty => $py:ty),* $(,)?) => { $(impl $crate::records::Conv<$py> for $core { fn conv(self) -> $py { self.into() } })* };
}
pub(crate) use conv_from;

impl<A: Conv<B>, B> Conv<Option<B>> for Option<A> {
    fn conv(self) -> Option<B> {
        self.map(Conv::conv)
    }
}
impl<A: Conv<B>, B> Conv<Vec<B>> for Vec<A> {
    fn conv(self) -> Vec<B> {
        self.into_iter().map(Conv::conv).collect()
    }
}
impl<A: Conv<B>, B> Conv<Vec<B>> for std::collections::BTreeSet<A> {
    fn conv(self) -> Vec<B> {
        self.into_iter().map(Conv::conv).collect()
    }
}
impl<K: Ord, A: Conv<B>, B> Conv<std::collections::BTreeMap<K, B>> for std::collections::BTreeMap<K, A> {
    fn conv(self) -> std::collections::BTreeMap<K, B> {
        self.into_iter().map(|(k, v)| (k, v.conv())).collect()
    }
}

/// A frozen record class: read-only attributes, `==`, `__repr__` and
/// `to_dict()` (the attributes as plain dicts, lists and scalars). With
/// `from core::Type`, also `From<core::Type>` (each field by [`Conv`]).
macro_rules! record {
    ($(#[$m:meta])* $name:ident = $pyname:literal from $core:path { $($(#[$fm:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $crate::records::record! { $(#[$m])* $name = $pyname { $($(#[$fm])* $field : $ty),* } }

        impl From<$core> for $name {
            fn from(c: $core) -> Self {
                $name { $($field: $crate::records::Conv::conv(c.$field)),* }
            }
        }
        $crate::records::conv_from!($core => $name);
    };
    ($(#[$m:meta])* $name:ident = $pyname:literal $(redact($($red:ident),*))? { $($(#[$fm:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$m])*
        #[pyclass(frozen, get_all, eq, module = "sessiondb", name = $pyname)]
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name { $($(#[$fm])* pub $field: $ty),* }

        #[pymethods]
        impl $name {
            fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
                $crate::records::repr_of(slf.as_any(), $pyname, &[$(stringify!($field)),*], &[$($(stringify!($red)),*)?])
            }

            /// The record as plain data: `{attribute: value}`, nested records as dicts.
            fn to_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
                $crate::records::dict_of(slf.as_any(), &[$(stringify!($field)),*])
            }
        }
    };
}
pub(crate) use record;

// The records of bridge/api.rs (Session, TranscriptEntry, ContextMeter...):
// one declaration for every host, generated by build.rs.
use std::collections::BTreeMap;
include!(concat!(env!("OUT_DIR"), "/bridge_records.rs"));

impl Conv<(TranscriptEntry, EntryMeta)> for (sessiondb::TranscriptEntry, sessiondb::EntryMeta) {
    fn conv(self) -> (TranscriptEntry, EntryMeta) {
        (self.0.into(), EntryMeta(self.1))
    }
}

const ENTRY_META_FIELDS: &[&str] = &["model", "provider", "extra", "item"];

/// Per-entry metadata (`append_entries_with_meta`, `get_transcript_with_meta`):
/// the model and provider that produced the entry, the source's other
/// fields (`extra`, a dict of JSON values: Claude `tool_use_result`, Codex
/// `phase`...) and a structured item (`item`: a framework item's JSON text,
/// e.g. an Agents SDK item, kept byte-exact and encrypted; the entry's
/// content is the text that counts for tokens). Empty metadata is `EntryMeta()`.
#[pyclass(frozen, eq, module = "sessiondb", name = "EntryMeta")]
#[derive(Debug, Clone, PartialEq)]
pub struct EntryMeta(pub sessiondb::EntryMeta);

#[pymethods]
impl EntryMeta {
    /// `extra`: a dict of JSON-serialisable values (None = empty); `item`:
    /// JSON text of one value, stored as given (checked when appended:
    /// InvalidInputError if it is not JSON).
    /// Raises InvalidInputError when `extra` is not a dict (JSON object),
    /// TypeError when it is not JSON-serialisable.
    #[new]
    #[pyo3(signature = (model = None, provider = None, extra = None, item = None))]
    fn new(model: Option<String>, provider: Option<String>, extra: Option<&Bound<'_, PyAny>>, item: Option<String>) -> PyResult<Self> {
        let extra = match extra {
            None => serde_json::Map::new(),
            Some(v) => crate::json::de(v, "extra")?,
        };
        Ok(EntryMeta(sessiondb::EntryMeta { model, provider, extra, item }))
    }
    /// The structured item's JSON text, byte-exact as appended (None: none).
    #[getter]
    fn item(&self) -> Option<&str> {
        self.0.item.as_deref()
    }
    #[getter]
    fn model(&self) -> Option<&str> {
        self.0.model.as_deref()
    }
    #[getter]
    fn provider(&self) -> Option<&str> {
        self.0.provider.as_deref()
    }
    /// The source fields as a new dict (JSON values) on each read.
    #[getter]
    fn extra<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::json::to_py(py, &serde_json::Value::Object(self.0.extra.clone()))
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(slf.as_any(), "EntryMeta", ENTRY_META_FIELDS, &[])
    }
    /// The metadata as plain data: `{"model", "provider", "extra", "item"}`.
    fn to_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        dict_of(slf.as_any(), ENTRY_META_FIELDS)
    }
}
