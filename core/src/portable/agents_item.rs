//! The transcript role and content of an OpenAI Agents SDK item: a port of
//! the Python adapter's `item_role` and `item_text`
//! (`python/python/sessiondb/agents.py`), so that an imported SDK database
//! (`import/sdk.rs`) stores the entries the adapter's `add_items` would.
//!
//! `item_text` falls back to `json.dumps(item, ensure_ascii=False)`, so the
//! item is read into [`PyJson`], which keeps what Python's `json.loads`
//! keeps: object key order (a repeated key keeps its first place and last
//! value, as a `dict` does), integers as written (Python ints are exact),
//! floats as `f64` written back as Python's `repr` does (`1.0`, `1e-05`,
//! `1e+16`).
//!
//! Known differences from Python, for items the adapter could not store
//! either (Python raises on them in `add_items`): a non-string truthy
//! `text`/`refusal` in a content part, or a non-string `text` in a reasoning
//! summary, is treated as absent (Python's `"\n".join` raises `TypeError`).
//! `NaN`/`Infinity` literals (which Python's `json.loads` accepts) are not
//! JSON here: such an item is rejected by [`agents_item_entry`].

use crate::store::{EntryMeta, NewEntry, Role, SessionStore};
use crate::{Error, Result};

/// A JSON value as Python's `json.loads` gives it (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub enum PyJson {
    /// `null` (`None`).
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer literal, its text as written (`-0` is `0`).
    Int(String),
    /// A number with a fraction or exponent.
    Float(f64),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<PyJson>),
    /// An object, keys in first-seen order.
    Object(Vec<(String, PyJson)>),
}

impl PyJson {
    /// Parse one JSON text. Errors: `InvalidInput` when it is not JSON
    /// (checked by `serde_json` first, which also rejects `NaN`).
    pub fn parse(text: &str) -> Result<PyJson> {
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|e| Error::invalid(format!("not JSON (line {}, column {})", e.line(), e.column())))?;
        let b = text.as_bytes();
        let mut i = 0;
        let v = parse_value(b, &mut i)?;
        Ok(v)
    }

    fn get(&self, key: &str) -> Option<&PyJson> {
        match self {
            PyJson::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            PyJson::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Python truthiness.
    fn truthy(&self) -> bool {
        match self {
            PyJson::Null => false,
            PyJson::Bool(b) => *b,
            PyJson::Int(s) => s.trim_start_matches('-').bytes().any(|c| c != b'0'),
            PyJson::Float(f) => *f != 0.0,
            PyJson::Str(s) => !s.is_empty(),
            PyJson::Array(a) => !a.is_empty(),
            PyJson::Object(m) => !m.is_empty(),
        }
    }

    /// `str(value)` in Python, for what f-strings format: a string itself,
    /// `None`, `True`/`False`, numbers; containers as their JSON (Python
    /// would write a `repr`: not an item the SDK makes).
    fn py_str(&self) -> String {
        match self {
            PyJson::Null => "None".to_owned(),
            PyJson::Bool(true) => "True".to_owned(),
            PyJson::Bool(false) => "False".to_owned(),
            PyJson::Str(s) => s.clone(),
            other => other.dumps(),
        }
    }

    /// `json.dumps(value, ensure_ascii=False)`: separators `", "` and
    /// `": "`, keys in order, floats as Python's `repr`.
    pub fn dumps(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            PyJson::Null => out.push_str("null"),
            PyJson::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            PyJson::Int(s) => out.push_str(s),
            PyJson::Float(f) => out.push_str(&py_float(*f)),
            PyJson::Str(s) => write_str(s, out),
            PyJson::Array(a) => {
                out.push('[');
                for (n, v) in a.iter().enumerate() {
                    if n > 0 {
                        out.push_str(", ");
                    }
                    v.write(out);
                }
                out.push(']');
            }
            PyJson::Object(m) => {
                out.push('{');
                for (n, (k, v)) in m.iter().enumerate() {
                    if n > 0 {
                        out.push_str(", ");
                    }
                    write_str(k, out);
                    out.push_str(": ");
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// Python's `repr(float)` (finite values: JSON has no others).
fn py_float(f: f64) -> String {
    let sci = format!("{f:e}"); // shortest round-trip digits, e.g. `1.5e-7`
    let (mant, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
    if (-4..16).contains(&exp) {
        let s = format!("{f}");
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    }
}

/// A JSON string as Python's encoder writes it with `ensure_ascii=False`.
fn write_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn skip_ws(b: &[u8], i: &mut usize) {
    while *i < b.len() && matches!(b[*i], b' ' | b'\t' | b'\n' | b'\r') {
        *i += 1;
    }
}

fn bad() -> Error {
    Error::invalid("not JSON")
}

// The text was checked by serde_json: this parser only has to be right on JSON.
fn parse_value(b: &[u8], i: &mut usize) -> Result<PyJson> {
    skip_ws(b, i);
    let v = match b.get(*i).ok_or_else(bad)? {
        b'n' => {
            *i += 4;
            PyJson::Null
        }
        b't' => {
            *i += 4;
            PyJson::Bool(true)
        }
        b'f' => {
            *i += 5;
            PyJson::Bool(false)
        }
        b'"' => PyJson::Str(parse_string(b, i)?),
        b'[' => {
            *i += 1;
            let mut a = Vec::new();
            skip_ws(b, i);
            if b.get(*i) == Some(&b']') {
                *i += 1;
            } else {
                loop {
                    a.push(parse_value(b, i)?);
                    skip_ws(b, i);
                    match b.get(*i) {
                        Some(b',') => *i += 1,
                        Some(b']') => {
                            *i += 1;
                            break;
                        }
                        _ => return Err(bad()),
                    }
                }
            }
            PyJson::Array(a)
        }
        b'{' => {
            *i += 1;
            let mut m: Vec<(String, PyJson)> = Vec::new();
            skip_ws(b, i);
            if b.get(*i) == Some(&b'}') {
                *i += 1;
            } else {
                loop {
                    skip_ws(b, i);
                    let k = parse_string(b, i)?;
                    skip_ws(b, i);
                    if b.get(*i) != Some(&b':') {
                        return Err(bad());
                    }
                    *i += 1;
                    let v = parse_value(b, i)?;
                    // A dict keeps a repeated key in its first place, with the last value.
                    match m.iter_mut().find(|(k2, _)| *k2 == k) {
                        Some(slot) => slot.1 = v,
                        None => m.push((k, v)),
                    }
                    skip_ws(b, i);
                    match b.get(*i) {
                        Some(b',') => *i += 1,
                        Some(b'}') => {
                            *i += 1;
                            break;
                        }
                        _ => return Err(bad()),
                    }
                }
            }
            PyJson::Object(m)
        }
        _ => {
            let start = *i;
            while *i < b.len() && matches!(b[*i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                *i += 1;
            }
            let lit = std::str::from_utf8(&b[start..*i]).map_err(|_| bad())?;
            if lit.contains(['.', 'e', 'E']) {
                PyJson::Float(lit.parse::<f64>().map_err(|_| bad())?)
            } else if lit == "-0" {
                PyJson::Int("0".to_owned())
            } else {
                PyJson::Int(lit.to_owned())
            }
        }
    };
    Ok(v)
}

fn parse_string(b: &[u8], i: &mut usize) -> Result<String> {
    let start = *i;
    *i += 1;
    while *i < b.len() {
        match b[*i] {
            b'\\' => *i += 2,
            b'"' => {
                *i += 1;
                // serde_json decodes escapes (lone surrogates are rejected
                // by the check before; Python would keep them).
                return serde_json::from_slice::<String>(&b[start..*i]).map_err(|_| bad());
            }
            _ => *i += 1,
        }
    }
    Err(bad())
}

/// `item_role(item)`: the message `role` (`developer` is `system`), `tool`
/// for an item whose `type` ends in `_output`, else `assistant`.
pub fn agents_item_role(item: &PyJson) -> Role {
    match item.get("role").and_then(PyJson::as_str) {
        Some("user") => return Role::User,
        Some("assistant") => return Role::Assistant,
        Some("system" | "developer") => return Role::System,
        _ => {}
    }
    // `str(item.get("type", ""))`
    let kind = item.get("type").map(PyJson::py_str).unwrap_or_default();
    if kind.ends_with("_output") {
        Role::Tool
    } else {
        Role::Assistant
    }
}

/// `item_text(item)`: a string `content`; the non-empty `text` (else
/// `refusal`) of the content parts, joined by `\n`; a `function_call`'s
/// `name(arguments)`; a tool output's `output` (a string, else its
/// `json.dumps`); a `reasoning` item's summary texts joined by `\n`; any
/// other item its `json.dumps(item, ensure_ascii=False)`.
pub fn agents_item_text(item: &PyJson) -> String {
    match item.get("content") {
        Some(PyJson::Str(s)) => return s.clone(),
        Some(PyJson::Array(parts)) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|p| matches!(p, PyJson::Object(_)))
                .map(|p| {
                    let pick = |k: &str| p.get(k).filter(|v| v.truthy()).and_then(PyJson::as_str);
                    pick("text").or_else(|| pick("refusal")).unwrap_or("")
                })
                .collect();
            if texts.iter().any(|t| !t.is_empty()) {
                return texts.into_iter().filter(|t| !t.is_empty()).collect::<Vec<_>>().join("\n");
            }
        }
        _ => {}
    }
    let kind = item.get("type").and_then(PyJson::as_str).unwrap_or("");
    match kind {
        "function_call" => {
            let f = |k: &str| item.get(k).map_or(String::new(), PyJson::py_str);
            format!("{}({})", f("name"), f("arguments"))
        }
        "function_call_output" | "custom_tool_call_output" | "computer_call_output" => match item.get("output") {
            Some(PyJson::Str(s)) => s.clone(),
            Some(v) => v.dumps(),
            None => "null".to_owned(),
        },
        "reasoning" => match item.get("summary") {
            Some(PyJson::Array(s)) => s
                .iter()
                .filter(|v| matches!(v, PyJson::Object(_)))
                .map(|v| v.get("text").and_then(PyJson::as_str).unwrap_or(""))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        },
        _ => item.dumps(),
    }
}

/// The role and content the Python adapter stores for the SDK item whose
/// JSON text is `item_json` (`item_role`, `item_text`).
/// Errors: `InvalidInput` when it is not JSON or not a JSON object.
pub fn agents_item_entry(item_json: &str) -> Result<(Role, String)> {
    let item = PyJson::parse(item_json)?;
    if !matches!(item, PyJson::Object(_)) {
        return Err(Error::invalid("an Agents SDK item must be a JSON object"));
    }
    Ok((agents_item_role(&item), agents_item_text(&item)))
}

/// Append Agents SDK items to a session in one transaction (all or none),
/// as the Python adapter's `add_items` stores them: each item's JSON text
/// (`items`, e.g. `json.dumps(item, ensure_ascii=False)`) kept whole as the
/// entry's structured item ([`crate::EntryMeta::item`]), the entry's role and
/// content from [`agents_item_entry`], its time `created_at_ms` (ms since
/// the epoch; `None`: now). One `TranscriptAppended` journal event, under
/// `idempotency_key` when given (a retry with the same key and items stores
/// them once: [`SessionStore::append_entries_with_meta_keyed`]).
///
/// One native call instead of a role, a text and two records built per
/// item by the host (measured in docs/benchmarks.md, "The Agents SDK
/// adapter"). Returns the seq of the first item (the first call's on a
/// retry; 0 for no items, nothing written).
/// Errors: `InvalidInput` (an item that is not a JSON object, a bad key),
/// `NotFound` (session), `Conflict` (the key used for other items).
pub fn append_agents_items(store: &SessionStore, session_id: &str, items: Vec<String>, idempotency_key: Option<&str>, created_at_ms: Option<i64>) -> Result<u64> {
    let rows = items
        .into_iter()
        .map(|json| {
            let (role, content) = agents_item_entry(&json)?;
            let entry = NewEntry { created_at_ms, ..NewEntry::text(role, content) };
            Ok((entry, EntryMeta::default().with_item(json)))
        })
        .collect::<Result<Vec<_>>>()?;
    let stored = store.append_entries_with_meta_keyed(session_id, rows, idempotency_key)?;
    Ok(stored.first().map_or(0, |e| e.seq))
}
