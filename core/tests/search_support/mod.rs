//! Runner of the search conformance cases (tests/conformance/search/*.json;
//! the file's `description` gives the calls and result shapes), shared by
//! core/tests/search.rs (SQLite) and core/tests/search_postgres.rs.

use std::collections::HashMap;

use serde_json::{json, Value};
use sessiondb::{OffsetUnit, Role, SearchOptions, SessionStore};

fn subst(v: &Value, saved: &HashMap<String, String>) -> Value {
    match v {
        Value::String(s) if s.starts_with('$') => Value::String(saved.get(&s[1..]).cloned().unwrap_or_else(|| panic!("unknown {s}"))),
        Value::Array(a) => Value::Array(a.iter().map(|x| subst(x, saved)).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), subst(x, saved))).collect()),
        other => other.clone(),
    }
}

fn mismatch(expected: &Value, actual: &Value, at: &str) -> Option<String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e.iter().find_map(|(k, ev)| match a.get(k) {
            Some(av) => mismatch(ev, av, &format!("{at}.{k}")),
            None => Some(format!("{at}.{k}: missing in {actual}")),
        }),
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            e.iter().zip(a).enumerate().find_map(|(i, (ev, av))| mismatch(ev, av, &format!("{at}[{i}]")))
        }
        (e, a) if e == a => None,
        (e, a) => Some(format!("{at}: expected {e}, got {a}")),
    }
}

fn call(store: &SessionStore, name: &str, a: &Value) -> sessiondb::Result<Value> {
    let s = |k: &str| a[k].as_str().unwrap_or_else(|| panic!("arg {k}")).to_string();
    Ok(match name {
        "create_session" => serde_json::to_value(store.create_session(a.get("name").and_then(Value::as_str).map(str::to_string), None)?).unwrap(),
        "append_transcript" => serde_json::to_value(store.append_transcript(&s("session_id"), Role::parse(&s("role"))?, s("content"))?).unwrap(),
        "retract_entry" => serde_json::to_value(store.retract_entry(&s("session_id"), a["seq"].as_u64().unwrap())?).unwrap(),
        "delete_session" => {
            store.delete_session(&s("id"))?;
            Value::Null
        }
        "search" => {
            let opts = SearchOptions {
                limit: a.get("limit").and_then(Value::as_u64).map(|l| l as u32),
                sessions: a.get("sessions").and_then(Value::as_bool).unwrap_or(false),
                ..Default::default()
            };
            // Rust slices its strings by UTF-8 offsets.
            let r = store.search_in_units(&s("query"), &opts, OffsetUnit::Utf8)?;
            let mut hits: Vec<Value> = r
                .hits
                .iter()
                .map(|h| {
                    let marked: Vec<&str> = h.highlights.iter().map(|x| &h.snippet[x.start as usize..x.end as usize]).collect();
                    json!({"session_id": h.session_id, "seq": h.seq, "role": h.role, "field": h.field, "snippet": h.snippet, "marked": marked})
                })
                .collect();
            hits.sort_by(|x, y| (x["session_id"].as_str(), x["seq"].as_u64()).cmp(&(y["session_id"].as_str(), y["seq"].as_u64())));
            json!({"total": r.total, "hits": hits})
        }
        other => panic!("unknown call {other}"),
    })
}

/// Run every case of tests/conformance/search/ on fresh stores from `fresh`.
pub fn run_search_cases(fresh: &dyn Fn() -> SessionStore) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance/search/search.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut ran = 0;
    for case in file["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let store = fresh();
        let mut saved = HashMap::new();
        for (i, step) in case["steps"].as_array().unwrap().iter().enumerate() {
            let at = format!("{name} step {i} ({})", step["call"]);
            let args = subst(&step["args"], &saved);
            match (call(&store, step["call"].as_str().unwrap(), &args), step.get("error")) {
                (Ok(v), None) => {
                    if let Some(n) = step.get("as").and_then(Value::as_str) {
                        saved.insert(n.to_string(), v["id"].as_str().unwrap().to_string());
                    }
                    if let Some(e) = step.get("expect") {
                        if let Some(m) = mismatch(&subst(e, &saved), &v, "result") {
                            panic!("{at}: {m}");
                        }
                    }
                }
                (Err(e), Some(kind)) => assert_eq!(e.kind().name(), kind.as_str().unwrap(), "{at}: {e}"),
                (Ok(v), Some(kind)) => panic!("{at}: expected {kind}, got {v}"),
                (Err(e), None) => panic!("{at}: {e}"),
            }
        }
        ran += 1;
    }
    assert_eq!(ran, 2);
}
