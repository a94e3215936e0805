//! What an imported source value becomes as a stored JSON body (a
//! compaction's context-extension body, a snapshot or unknown record kept
//! as it was): bounded to the nesting depth the store reads back. Shared by
//! the sink, which writes the bodies, and the identities, which hash them.

use crate::portable::model::{Block, Compaction};
use serde_json::{json, Value};

/// The context-extension body of compaction `c`, `at_seq` the number of
/// entries before it (what the sink stores and the identity hashes).
pub(super) fn compaction_body(c: &Compaction, at_seq: u64) -> Value {
    json!({
        "at_seq": at_seq,
        "source_line": c.source_line,
        "timestamp_ms": c.timestamp_ms,
        "summary": c.summary,
        "replaces_count": c.replaces_count,
        "messages": fit_depth(
            Value::Array(c.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.blocks.iter().map(Block::to_json).collect::<Vec<_>>()})).collect()),
            MAX_NESTED_DEPTH - 1
        ),
        "raw": c.raw.clone().map(|r| fit_depth(r, MAX_NESTED_DEPTH - 1)),
    })
}

/// Deepest nesting of arrays and objects serde_json reads back (its
/// recursion limit of 128 stops at the 128th level), and so the deepest
/// context-extension body the store takes.
pub(super) const MAX_NESTED_DEPTH: usize = 127;

/// Arrays and objects nested in `v` (a scalar is 0).
pub(super) fn json_depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(json_depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(json_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// `v` itself when it nests at most `max` levels, else its JSON text: a
/// source value already near the reader's limit, wrapped in an extension
/// body, would nest one level too deep to be stored and read back. Nothing
/// is dropped; the value is kept as text.
pub(super) fn fit_depth(v: Value, max: usize) -> Value {
    if json_depth(&v) > max {
        Value::String(v.to_string())
    } else {
        v
    }
}

