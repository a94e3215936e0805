//! The conversion rules every generated host module relies on, written
//! once: `Conv` (a core value as the host's type of a result or record
//! field) and, for records callers pass in, `Back` (the host value as the
//! core's). [`conversions`] writes them into the generated records ahead of
//! the records, so each record's conversion is one `Conv::conv` (or
//! `Back::back`) per field.
//!
//! The shared part (options, lists, maps, sets as ascending lists, shared `Arc`
//! values as copies, borrowed text and paths as strings, the identity on
//! the types a host keeps) is one template; each host adds what its type
//! rules need (DESIGN.md "Same API, four hosts"):
//! - Python: tuples kept as tuples (the pairs and triples of text, the
//!   `(f64, f64)` of seconds), maps kept; `Back` reads a frozen class
//!   by reference (`&self`), naming the field in its `InvalidInput` error.
//! - Node: counts as JS numbers (`i64` saturating on the way out, a core
//!   `f64` as it is; `f64` checked by `crate::records::int` on the way
//!   in), bytes as `Buffer`,
//!   seq-keyed maps with string keys; `Back` takes the JS value by value.
//! - Kotlin/Swift: the core types as they are; seq-keyed maps as their
//!   values in seq order, other maps as `HashMap`, `usize` counts as `u32`;
//!   `Back` (twins a caller passes in) is infallible.

use crate::Host;

/// The shared `Conv` rules (every host).
const CONV: &str = "/// A core value as this host's type of a result or record field: the
/// rules of sessiondb-bridge (bridge/src/conv.rs), one impl per type.
pub trait Conv<T> {
    /// Convert.
    fn conv(self) -> T;
}
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
/// Sets cross as lists (ascending).
impl<A: Conv<B>, B> Conv<Vec<B>> for std::collections::BTreeSet<A> {
    fn conv(self) -> Vec<B> {
        self.into_iter().map(Conv::conv).collect()
    }
}
/// A value the core shares (`Arc`) as the host's value (a copy).
impl<A: Clone + Conv<B>, B> Conv<B> for std::sync::Arc<A> {
    fn conv(self) -> B {
        std::sync::Arc::unwrap_or_clone(self).conv()
    }
}
impl<K: Ord, A: Conv<B>, B> Conv<std::collections::BTreeMap<K, B>> for std::collections::BTreeMap<K, A> {
    fn conv(self) -> std::collections::BTreeMap<K, B> {
        self.into_iter().map(|(k, v)| (k, v.conv())).collect()
    }
}
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
";

/// The fallible `Back` rules of Python (`RECV` = `&self`) and Node (`self`).
const BACK: &str = "/// A host value as the core's (the inverse of `Conv`), for records a
/// caller passes in: `what` names the field in the `InvalidInput` error.
pub trait Back<C> {
    /// Convert, or say which field is wrong.
    fn back(RECV, what: &str) -> sessiondb::Result<C>;
}
impl<A: Back<B>, B> Back<Option<B>> for Option<A> {
    fn back(RECV, what: &str) -> sessiondb::Result<Option<B>> {
        OPT.map(|a| a.back(what)).transpose()
    }
}
impl<A: Back<B>, B> Back<Vec<B>> for Vec<A> {
    fn back(RECV, what: &str) -> sessiondb::Result<Vec<B>> {
        ITER.map(|a| a.back(what)).collect()
    }
}
/// Lists back into sets.
impl<A: Back<B>, B: Ord> Back<std::collections::BTreeSet<B>> for Vec<A> {
    fn back(RECV, what: &str) -> sessiondb::Result<std::collections::BTreeSet<B>> {
        ITER.map(|a| a.back(what)).collect()
    }
}
";

/// Python and Node: a JSON object field back from the host's JSON value
/// (`null`: an empty object; anything else but an object: `InvalidInput`).
const JSON_OBJECT_BACK: &str = "impl Back<serde_json::Map<String, serde_json::Value>> for FROM {
    fn back(RECV, what: &str) -> sessiondb::Result<serde_json::Map<String, serde_json::Value>> {
        match VALUE {
            serde_json::Value::Object(m) => Ok(MAP),
            serde_json::Value::Null => Ok(serde_json::Map::new()),
            _ => Err(sessiondb::Error::invalid(format!(\"{what} must be a JSON object\"))),
        }
    }
}
";

/// The identity on each of `types` (`Conv<T> for T`).
fn same(types: &[&str]) -> String {
    types
        .iter()
        .map(|t| format!("impl Conv<{t}> for {t} {{\n    fn conv(self) -> {t} {{\n        self\n    }}\n}}\n"))
        .collect()
}

/// `Conv<To> for From` by `body` (of `self`), for each `(from, to, body)`.
fn convs(rules: &[(&str, &str, &str)]) -> String {
    rules
        .iter()
        .map(|(from, to, body)| format!("impl Conv<{to}> for {from} {{\n    fn conv(self) -> {to} {{\n        {body}\n    }}\n}}\n"))
        .collect()
}

/// The identity `Back<T> for T` on each of `types`, by reference (Python) or value.
fn back_same(types: &[&str], by_ref: bool) -> String {
    let (recv, value) = if by_ref { ("&self", "self.clone()") } else { ("self", "self") };
    types
        .iter()
        .map(|t| format!("impl Back<{t}> for {t} {{\n    fn back({recv}, _: &str) -> sessiondb::Result<{t}> {{\n        Ok({value})\n    }}\n}}\n"))
        .collect()
}

/// The `Conv`/`Back` rules of `host`, for the generated records (`same`: the
/// core types Kotlin/Swift expose as they are, by their paths).
pub(crate) fn conversions(host: Host, same_types: &[String]) -> String {
    let mut out = String::from(CONV);
    match host {
        Host::Python => {
            out.push_str(&same(&["()", "String", "u64", "i64", "u32", "u8", "bool", "f64"]));
            out.push_str(&BACK.replace("RECV", "&self").replace("OPT", "self.as_ref()").replace("ITER", "self.iter()"));
            out.push_str(&back_same(&["String", "u64", "i64", "u32", "u8", "bool"], true));
            // JSON values and objects as Python values (`crate::json::Json`:
            // a new value on each read, as `json.loads` gives).
            out.push_str(&convs(&[
                ("serde_json::Value", "crate::json::Json", "crate::json::Json(self)"),
                ("serde_json::Map<String, serde_json::Value>", "crate::json::Json", "crate::json::Json(serde_json::Value::Object(self))"),
            ]));
            out.push_str(&JSON_OBJECT_BACK.replace("RECV", "&self").replace("FROM", "crate::json::Json").replace("VALUE", "&self.0").replace("MAP", "m.clone()"));
            out.push_str("impl<A: Back<B>, B> Back<std::collections::BTreeMap<u64, B>> for std::collections::BTreeMap<u64, A> {\n    fn back(&self, what: &str) -> sessiondb::Result<std::collections::BTreeMap<u64, B>> {\n        self.iter().map(|(k, a)| Ok((*k, a.back(what)?))).collect()\n    }\n}\n");
        }
        Host::Node => {
            out.push_str(&same(&["()", "String", "i64", "u32", "u8", "bool", "f64", "serde_json::Value"]));
            out.push_str(&convs(&[
                // Counts as JS numbers, exact below 2^53 (saturating).
                ("u64", "i64", "crate::records::n(self)"),
                ("u8", "u32", "u32::from(self)"),
                ("Vec<u8>", "napi::bindgen_prelude::Buffer", "self.into()"),
                ("u64", "f64", "self as f64"),
                ("i64", "f64", "self as f64"),
                ("usize", "f64", "self as f64"),
                ("u32", "f64", "f64::from(self)"),
                ("u8", "f64", "f64::from(self)"),
            ]));
            out.push_str("/// Seq-keyed maps: JS object keys are strings.\nimpl<A: Conv<B>, B> Conv<std::collections::BTreeMap<String, B>> for std::collections::BTreeMap<u64, A> {\n    fn conv(self) -> std::collections::BTreeMap<String, B> {\n        self.into_iter().map(|(k, v)| (k.to_string(), v.conv())).collect()\n    }\n}\n");
            out.push_str(&BACK.replace("RECV", "self").replace("OPT", "self").replace("ITER", "self.into_iter()"));
            out.push_str(&back_same(&["String", "i64", "u32", "u8", "bool", "serde_json::Value"], false));
            out.push_str(&convs(&[("serde_json::Map<String, serde_json::Value>", "serde_json::Value", "serde_json::Value::Object(self)")]));
            out.push_str(&JSON_OBJECT_BACK.replace("RECV", "self").replace("FROM", "serde_json::Value").replace("VALUE", "self").replace("MAP", "m"));
            out.push_str("impl Back<u64> for i64 {\n    fn back(self, what: &str) -> sessiondb::Result<u64> {\n        crate::records::u(self, what)\n    }\n}\n");
            // The numbers of a record a caller passes in: JS numbers, checked
            // into the integer (finite, whole, at most 2^53 - 1, in range).
            for t in ["u64", "i64", "u32", "u8", "usize"] {
                out.push_str(&format!("impl Back<{t}> for f64 {{\n    fn back(self, what: &str) -> sessiondb::Result<{t}> {{\n        crate::records::int(self, what)\n    }}\n}}\n"));
            }
            out.push_str("/// Seq-keyed maps: JS object keys are decimal strings.\nimpl<A: Back<B>, B> Back<std::collections::BTreeMap<u64, B>> for std::collections::BTreeMap<String, A> {\n    fn back(self, what: &str) -> sessiondb::Result<std::collections::BTreeMap<u64, B>> {\n        self.into_iter()\n            .map(|(k, a)| {\n                let seq = k.parse::<u64>().map_err(|_| sessiondb::Error::invalid(format!(\"{what} keys must be seqs, not {k:?}\")))?;\n                Ok((seq, a.back(what)?))\n            })\n            .collect()\n    }\n}\n");
        }
        Host::Uniffi => {
            let mut types: Vec<&str> = vec!["()", "String", "u64", "i64", "u32", "u8", "bool"];
            types.extend(same_types.iter().map(String::as_str));
            out.push_str(&same(&types));
            out.push_str(&convs(&[
                // A count the core keeps as `usize`, as the FFI's `u32` (saturating).
                ("usize", "u32", "u32::try_from(self).unwrap_or(u32::MAX)"),
                // A JSON value as its text (a twin's `<name>_json` field).
                ("serde_json::Value", "String", "self.to_string()"),
                ("serde_json::Map<String, serde_json::Value>", "String", "serde_json::Value::Object(self).to_string()"),
            ]));
            out.push_str("/// A seq-keyed map as its values in seq order.\nimpl<A: Conv<B>, B> Conv<Vec<B>> for std::collections::BTreeMap<u64, A> {\n    fn conv(self) -> Vec<B> {\n        self.into_values().map(Conv::conv).collect()\n    }\n}\n");
            out.push_str("impl<K: std::hash::Hash + Eq, A: Conv<B>, B> Conv<std::collections::HashMap<K, B>> for std::collections::BTreeMap<K, A> {\n    fn conv(self) -> std::collections::HashMap<K, B> {\n        self.into_iter().map(|(k, v)| (k, v.conv())).collect()\n    }\n}\n");
            out.push_str("/// An FFI value as the core's (the inverse of `Conv`, for the twins a\n/// caller passes in): the identity on the types exposed as they are.\npub trait Back<C> {\n    /// Convert.\n    fn back(self) -> C;\n}\nimpl<A: Back<B>, B> Back<Option<B>> for Option<A> {\n    fn back(self) -> Option<B> {\n        self.map(Back::back)\n    }\n}\nimpl<A: Back<B>, B> Back<Vec<B>> for Vec<A> {\n    fn back(self) -> Vec<B> {\n        self.into_iter().map(Back::back).collect()\n    }\n}\nimpl<A: Back<B>, B: Ord> Back<std::collections::BTreeSet<B>> for Vec<A> {\n    fn back(self) -> std::collections::BTreeSet<B> {\n        self.into_iter().map(Back::back).collect()\n    }\n}\n/// A value the core shares (`Arc`): a fresh one.\nimpl<A: Back<B>, B> Back<std::sync::Arc<B>> for A {\n    fn back(self) -> std::sync::Arc<B> {\n        std::sync::Arc::new(self.back())\n    }\n}\nimpl Back<usize> for u32 {\n    fn back(self) -> usize {\n        self as usize\n    }\n}\n");
            for t in &types {
                out.push_str(&format!("impl Back<{t}> for {t} {{\n    fn back(self) -> {t} {{\n        self\n    }}\n}}\n"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One template, each host's receiver and number rules.
    #[test]
    fn each_host_gets_the_shared_rules_and_its_own() {
        let py = conversions(Host::Python, &[]);
        let node = conversions(Host::Node, &[]);
        let ffi = conversions(Host::Uniffi, &["sessiondb::Role".to_string()]);
        for out in [&py, &node, &ffi] {
            assert!(out.starts_with(CONV), "{out}");
            assert_eq!(out.matches("pub trait Conv<T>").count(), 1);
        }
        assert!(py.contains("impl<A: Back<B>, B> Back<Vec<B>> for Vec<A> {\n    fn back(&self, what: &str) -> sessiondb::Result<Vec<B>> {\n        self.iter().map(|a| a.back(what)).collect()\n"), "{py}");
        assert!(py.contains("impl Back<u64> for u64 {\n    fn back(&self, _: &str) -> sessiondb::Result<u64> {\n        Ok(self.clone())\n"), "{py}");
        assert!(node.contains("impl<A: Back<B>, B> Back<Option<B>> for Option<A> {\n    fn back(self, what: &str) -> sessiondb::Result<Option<B>> {\n        self.map(|a| a.back(what)).transpose()\n"), "{node}");
        assert!(node.contains("impl Back<u32> for f64 {\n    fn back(self, what: &str) -> sessiondb::Result<u32> {\n        crate::records::int(self, what)\n"), "{node}");
        assert!(node.contains("impl Conv<i64> for u64 {\n    fn conv(self) -> i64 {\n        crate::records::n(self)\n"), "{node}");
        assert!(!node.contains("impl Back<u64> for u64"), "Node numbers come in as JS numbers");
        // Seconds (`f64`) cross as they are (a `tuple` record's pair in
        // Python is the record's own `Conv`, bridge/src/lib.rs).
        assert!(py.contains("impl Conv<f64> for f64 {\n    fn conv(self) -> f64 {\n        self\n"), "{py}");
        assert!(node.contains("impl Conv<f64> for f64 {\n    fn conv(self) -> f64 {\n        self\n"), "{node}");
        assert!(ffi.contains("impl Conv<sessiondb::Role> for sessiondb::Role {\n") && ffi.contains("impl Back<sessiondb::Role> for sessiondb::Role {\n    fn back(self) -> sessiondb::Role {\n"), "{ffi}");
    }
}
