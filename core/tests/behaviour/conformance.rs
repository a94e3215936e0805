//! Runner of the store conformance cases (`tests/conformance/store/*.json`,
//! issue 11 item 5): sequences of store calls with expected results and
//! error kinds. The same files are run by every host's test suite; here they
//! run through [`store_behaviour_suite!`] on every backend. Result shapes
//! follow the core's serde forms (snake_case keys), which the hosts produce
//! too; see the file's `description` for the call vocabulary.

use std::collections::HashMap;

use serde_json::{json, Value};
use sessiondb::journal::OperationOutcome;
use sessiondb::portable::fork_session;
use sessiondb::{EntryMeta, NewEntry, NewEvent, Role, SessionStore, TokenUsage};

/// Every case file under `tests/conformance/store/`, parsed.
pub fn case_files() -> Vec<(String, Value)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance/store");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("tests/conformance/store exists").map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| (p.display().to_string(), serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()))
        .collect()
}

/// Replace every `"$name"` string by the id saved under `name`.
pub fn subst(v: &Value, saved: &HashMap<String, String>) -> Value {
    match v {
        Value::String(s) if s.starts_with('$') => Value::String(saved.get(&s[1..]).cloned().unwrap_or_else(|| panic!("unknown {s}"))),
        Value::Array(a) => Value::Array(a.iter().map(|x| subst(x, saved)).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), subst(x, saved))).collect()),
        other => other.clone(),
    }
}

/// An expected object matches when each of its keys is equal; an expected
/// array when the lengths are equal and each item matches. Returns what differs.
pub fn mismatch(expected: &Value, actual: &Value, at: &str) -> Option<String> {
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

fn s<'a>(args: &'a Value, k: &str) -> &'a str {
    args[k].as_str().unwrap_or_else(|| panic!("arg {k} missing"))
}
fn u(args: &Value, k: &str) -> Option<u64> {
    args.get(k).and_then(Value::as_u64)
}
fn session(r: sessiondb::SessionRecord) -> Value {
    let mut v = serde_json::to_value(r).unwrap();
    v.as_object_mut().unwrap().entry("unreadable").or_insert(json!([]));
    v
}

fn to<T: serde::Serialize>(v: sessiondb::Result<T>) -> Result<Value, String> {
    v.map(|x| serde_json::to_value(x).unwrap()).map_err(|e| e.kind().name().to_string())
}

/// One call on `store`. `Ok(json)` or `Err(error kind name)`.
fn call(store: &SessionStore, name: &str, a: &Value) -> Result<Value, String> {
    let kind = |e: sessiondb::Error| e.kind().name().to_string();
    let page = |a: &Value| (u(a, "from_seq").unwrap_or(1), u(a, "limit").map_or(sessiondb::store::DEFAULT_PAGE, |l| l as u32));
    match name {
        "create_session" => store.create_session(a.get("name").and_then(Value::as_str).map(Into::into), None).map(session).map_err(kind),
        "get_session" => store.get_session(s(a, "id")).map(session).map_err(kind),
        "rename_session" => store.rename_session(s(a, "id"), a["name"].as_str().map(Into::into)).map(session).map_err(kind),
        "append_transcript" => to(store.append_transcript(s(a, "session_id"), Role::parse(s(a, "role")).unwrap(), s(a, "content").into())),
        "append_generated" => {
            let role = Role::parse(s(a, "role")).unwrap();
            let entries = (1..=u(a, "count").unwrap()).map(|i| NewEntry::text(role, s(a, "content").replace("{i}", &i.to_string()))).collect();
            to(store.append_entries(s(a, "session_id"), entries).map(|_| ()))
        }
        "get_transcript" => {
            let (from, limit) = page(a);
            to(store.get_transcript(s(a, "session_id"), from, limit))
        }
        "retract_entry" => to(store.retract_entry(s(a, "session_id"), u(a, "seq").unwrap())),
        "retract_last_entry" => to(store.retract_last_entry(s(a, "session_id"))),
        "get_transcript_tail" => to(store.get_transcript_tail(s(a, "session_id"), u(a, "limit").map_or(1000, |l| l as u32))),
        "append_with_item" => {
            let entry = NewEntry::text(Role::parse(s(a, "role")).unwrap(), s(a, "content"));
            let meta = EntryMeta::default().with_item(s(a, "item"));
            to(store.append_entries_with_meta(s(a, "session_id"), vec![(entry, meta)]).map(|mut v| v.pop()))
        }
        "get_transcript_tail_with_meta" => store
            .get_transcript_tail_with_meta(s(a, "session_id"), u(a, "limit").map_or(sessiondb::store::DEFAULT_PAGE, |l| l as u32))
            .map(|v| v.into_iter().map(|(e, m)| json!({"entry": e, "meta": {"model": m.model, "provider": m.provider, "item": m.item}})).collect())
            .map_err(kind),
        "active_context" => to(sessiondb::context::active_context(store, s(a, "session_id"), u(a, "raw_window").unwrap(), None, None)),
        "fork_session" => fork_session(store, s(a, "session_id"), u(a, "at_seq"), None).map(session).map_err(kind),
        "record_tokens" => {
            let usage = TokenUsage { input: u(a, "input").unwrap(), output: u(a, "output").unwrap(), cached: u(a, "cached").unwrap(), model: None, provider: None };
            to(store.record_tokens(s(a, "session_id"), usage))
        }
        "token_totals" => to(store.token_totals(s(a, "session_id"))),
        "recovery_key_text" => {
            let hex = s(a, "key_hex");
            let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")).collect();
            to(sessiondb::DataKey::from_bytes(&bytes).map(|k| sessiondb::keys::recovery_key_text(&k)))
        }
        "parse_recovery_key" => to(sessiondb::keys::parse_recovery_key(s(a, "text"))
            .map(|k| k.expose_bytes().iter().map(|b| format!("{b:02x}")).collect::<String>())),
        "journal_append" => to(store.journal_append(NewEvent {
            event_id: s(a, "event_id").into(),
            session_id: s(a, "session_id").into(),
            kind: s(a, "kind").into(),
            operation_id: None,
            payload: a["payload"].clone(),
        })),
        "journal_events" => to(store.journal_events(s(a, "session_id"), 1, sessiondb::store::DEFAULT_PAGE)),
        "dispatch_operation" => to(store.dispatch_operation(s(a, "session_id"), s(a, "operation_id"), json!({}))),
        "complete_operation" => {
            let outcome = OperationOutcome::parse(s(a, "outcome")).map_err(kind)?;
            to(store.complete_operation(s(a, "session_id"), s(a, "operation_id"), outcome, json!({})))
        }
        "open_operations" => store
            .open_operations()
            .map(|ops| ops.into_iter().map(|(sid, op, _owner)| json!({"session_id": sid, "operation_id": op})).collect())
            .map_err(kind),
        "open_recovery_report" => Ok(serde_json::to_value(store.open_recovery_report()).unwrap()),
        other => panic!("unknown call {other}"),
    }
}

/// Run every case of every file, each on a fresh location from `temp`,
/// opened (and reopened) by `open` with key byte 7.
pub fn run_store_cases<G, L>(temp: impl Fn() -> (G, L), open: impl Fn(&L, u8) -> SessionStore) {
    let mut ran = 0;
    for (file, doc) in case_files() {
        for case in doc["cases"].as_array().unwrap() {
            let name = case["name"].as_str().unwrap();
            let (_guard, loc) = temp();
            let mut store = open(&loc, 7);
            let mut saved = HashMap::new();
            for (i, step) in case["steps"].as_array().unwrap().iter().enumerate() {
                let what = format!("{file} case {name} step {i} ({})", step["call"]);
                let call_name = step["call"].as_str().unwrap();
                if call_name == "reopen" {
                    store.close();
                    store = open(&loc, 7);
                    continue;
                }
                let got = call(&store, call_name, &subst(&step["args"], &saved));
                match (got, step.get("error").and_then(Value::as_str)) {
                    (Err(k), Some(want)) => assert_eq!(k, want, "{what}"),
                    (Ok(v), Some(want)) => panic!("{what}: expected {want}, got {v}"),
                    (Err(k), None) => panic!("{what}: failed with {k}"),
                    (Ok(v), None) => {
                        if let Some(n) = step.get("as").and_then(Value::as_str) {
                            saved.insert(n.to_string(), v["id"].as_str().unwrap().to_string());
                        }
                        if let Some(e) = step.get("expect") {
                            if let Some(m) = mismatch(&subst(e, &saved), &v, "result") {
                                panic!("{what}: {m}");
                            }
                        }
                        if let Some(n) = step.get("expect_len") {
                            assert_eq!(v.as_array().unwrap().len() as u64, n.as_u64().unwrap(), "{what}");
                        }
                        for (k, idx) in [("expect_first", 0usize), ("expect_last", usize::MAX)] {
                            if let Some(e) = step.get(k) {
                                let arr = v.as_array().unwrap();
                                let item = if idx == 0 { arr.first() } else { arr.last() }.expect("non-empty");
                                if let Some(m) = mismatch(&subst(e, &saved), item, k) {
                                    panic!("{what}: {m}");
                                }
                            }
                        }
                    }
                }
            }
            store.close();
            ran += 1;
        }
    }
    assert!(ran >= 8, "store conformance cases found: {ran}");
}
