//! Runs the language-neutral context-governance cases in
//! `tests/conformance/context/*.json` against the Rust core.
//!
//! Schema (`"schema": "sessiondb-conformance/1"`): a file names the core
//! `function` it exercises and holds `cases`, each
//! `{"name", "description"?, "input": {...}}` plus either `"expect": {...}`
//! (every field present must equal the output exactly; absent fields are
//! not checked) or `"error": "<ErrorKind name>"` (and, for
//! `ContextOverflow`, `"breakdown": {...}` compared exactly). Every binding
//! runs the same files with its own runner.
//!
//! Set `CONFORMANCE_PRINT=1` to print each case's actual output.

use std::path::PathBuf;

use serde_json::{json, Value};
use sessiondb::context::{
    capacity_breakdown, compact_context, count_tokens, meter, should_compact, CompactionOptions, CompactionPlan,
    ContextItem, CountMethod,
};
use sessiondb::Error;

fn case_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance/context")
}

fn load(file: &str) -> Vec<Value> {
    let path = case_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).expect("case file is valid JSON");
    assert_eq!(doc["schema"], "sessiondb-conformance/1", "{file}");
    doc["cases"].as_array().expect("cases is an array").clone()
}

fn opt_u64(v: &Value) -> Option<u64> {
    if v.is_null() {
        None
    } else {
        Some(v.as_u64().expect("a non-negative integer or null"))
    }
}

fn error_value(e: &Error) -> Value {
    match e {
        Error::ContextOverflow(b) => json!({"error": e.kind().name(), "breakdown": serde_json::to_value(b).expect("serializable")}),
        _ => json!({"error": e.kind().name()}),
    }
}

/// Compare `actual` to a case: `expect` fields must match exactly; `error` must name the kind.
fn check(file: &str, case: &Value, actual: Value) -> usize {
    let name = case["name"].as_str().expect("case has a name");
    if std::env::var_os("CONFORMANCE_PRINT").is_some() {
        println!("{file} {name}: {}", serde_json::to_string(&actual).expect("json"));
    }
    if let Some(kind) = case.get("error") {
        assert_eq!(actual.get("error"), Some(kind), "{file} / {name}: expected error {kind}, got {actual}");
        if let Some(b) = case.get("breakdown") {
            if std::env::var_os("CONFORMANCE_PRINT").is_none() {
                assert_eq!(&actual["breakdown"], b, "{file} / {name}: breakdown");
            }
        }
        return 1;
    }
    assert!(actual.get("error").is_none(), "{file} / {name}: unexpected error {actual}");
    let expect = case["expect"].as_object().unwrap_or_else(|| panic!("{file} / {name}: expect or error"));
    for (key, want) in expect {
        if std::env::var_os("CONFORMANCE_PRINT").is_none() {
            assert_eq!(&actual[key], want, "{file} / {name}: field `{key}`");
        }
    }
    1
}

#[test]
fn capacity_cases() {
    let mut n = 0;
    for case in load("capacity.json") {
        let i = &case["input"];
        let actual = match capacity_breakdown(
            i["raw"].as_u64().expect("raw"),
            opt_u64(&i["output_reserve"]),
            opt_u64(&i["model_max_output"]),
        ) {
            Ok(b) => serde_json::to_value(b).expect("json"),
            Err(e) => error_value(&e),
        };
        n += check("capacity.json", &case, actual);
    }
    assert_eq!(n, 15);
}

#[test]
fn meter_cases() {
    let mut n = 0;
    for case in load("meter.json") {
        let i = &case["input"];
        let (active, capacity) = (i["active_tokens"].as_u64().expect("u64"), i["capacity"].as_u64().expect("u64"));
        let actual = match meter(active, capacity) {
            Ok(m) => {
                let mut v = serde_json::to_value(m).expect("json");
                v["should_compact"] = json!(should_compact(active, capacity));
                v
            }
            Err(e) => error_value(&e),
        };
        n += check("meter.json", &case, actual);
    }
    assert_eq!(n, 16);
}

#[test]
fn token_cases() {
    let mut n = 0;
    for case in load("tokens.json") {
        let i = &case["input"];
        let c = count_tokens(i["model"].as_str().expect("model"), i["text"].as_str().expect("text"), opt_u64(&i["host_count"]));
        let actual = match c.method {
            CountMethod::Exact { encoding } => json!({"tokens": c.tokens, "method": "exact", "encoding": encoding.name()}),
            CountMethod::Estimate => json!({"tokens": c.tokens, "method": "estimate"}),
            CountMethod::Host => json!({"tokens": c.tokens, "method": "host"}),
        };
        n += check("tokens.json", &case, actual);
    }
    assert_eq!(n, 10);
}

fn plan_value(plan: &CompactionPlan) -> Value {
    let mut v = serde_json::to_value(plan).expect("json");
    v["compacted_seqs"] = json!(plan.compacted_seqs());
    v
}

#[test]
fn compaction_cases() {
    let mut n = 0;
    for case in load("compaction.json") {
        let name = case["name"].as_str().expect("name").to_string();
        let i = &case["input"];
        let items: Vec<ContextItem> = serde_json::from_value(i["items"].clone()).expect("items");
        let capacity = i["capacity"].as_u64().expect("capacity");
        let target = opt_u64(&i["target_percent"]).map(|t| u8::try_from(t).expect("target fits u8"));
        let options: CompactionOptions = if i["options"].is_null() {
            CompactionOptions::default()
        } else {
            serde_json::from_value(i["options"].clone()).expect("options")
        };
        let actual = match compact_context(&items, capacity, target, &options) {
            Ok(plan) => {
                // Idempotence is part of every successful case.
                let applied = plan.apply(&items);
                let again = compact_context(&applied, capacity, target, &options).expect("second run succeeds");
                assert!(again.transformations.is_empty(), "compaction.json / {name}: second run changed {:?}", again.compacted_seqs());
                assert_eq!(again.tokens_after, plan.tokens_after, "compaction.json / {name}: second run tokens");
                let mut v = plan_value(&plan);
                v["second_run"] = plan_value(&again);
                if let Some(want) = case["expect"].get("second_run") {
                    for (key, w) in want.as_object().expect("second_run object") {
                        if std::env::var_os("CONFORMANCE_PRINT").is_none() {
                            assert_eq!(&v["second_run"][key], w, "compaction.json / {name}: second_run.{key}");
                        }
                    }
                    if std::env::var_os("CONFORMANCE_PRINT").is_none() {
                        v["second_run"] = want.clone();
                    }
                }
                v
            }
            Err(e) => error_value(&e),
        };
        n += check("compaction.json", &case, actual);
    }
    assert_eq!(n, 17);
}
