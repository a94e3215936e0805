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

// `Conv` and `Back`, the conversion rules of every record, are written by
// sessiondb-bridge (bridge/src/conv.rs) into the records below.

/// A compaction run's transformation back into the core's shared `Arc` (a
/// fresh one: the one core type shared this way).
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
// one declaration for every host, generated into bridge/generated/python/records.rs.
use std::collections::BTreeMap;
include!("../../bridge/generated/python/records.rs");
