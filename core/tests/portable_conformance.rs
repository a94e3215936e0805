//! Runs the language-neutral portable-session cases in
//! `tests/conformance/portable/*.json` (schema `sessiondb-conformance/1`)
//! against the Rust core. Every field present in `expect` must equal the
//! output exactly; absent fields are not checked. Bindings run the same files.
//!
//! Set `CONFORMANCE_PRINT=1` to print each case's actual output.

use base64::Engine;
use serde_json::{json, Value};
use sessiondb::portable::{read_thclaws_digest, write_thclaws_json};
use std::path::PathBuf;

fn load(file: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance/portable").join(file);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("case file")).expect("valid JSON");
    assert_eq!(doc["schema"], "sessiondb-conformance/1");
    doc["cases"].as_array().expect("cases").clone()
}

fn check(name: &str, actual: &Value, expect: &Value) {
    if std::env::var_os("CONFORMANCE_PRINT").is_some() {
        println!("{name}: {actual}");
    }
    for (k, want) in expect.as_object().expect("expect is an object") {
        assert_eq!(&actual[k], want, "case `{name}`, field `{k}`");
    }
}

#[test]
fn read_thclaws_cases() {
    for c in load("read_thclaws.json") {
        let name = c["name"].as_str().unwrap();
        let bytes = match (&c["input"]["text"], &c["input"]["base64"]) {
            (Value::String(t), _) => t.clone().into_bytes(),
            (_, Value::String(b)) => base64::engine::general_purpose::STANDARD.decode(b).unwrap(),
            _ => panic!("case `{name}` has no input"),
        };
        let actual = read_thclaws_digest(&bytes, "fallback").unwrap();
        check(name, &actual, &c["expect"]);
    }
}

#[test]
fn write_thclaws_cases() {
    for c in load("write_thclaws.json") {
        let name = c["name"].as_str().unwrap();
        let text = write_thclaws_json(&c["input"]["session"]).unwrap();
        assert!(text.ends_with('\n'));
        let lines: Vec<&str> = text.split('\n').filter(|l| !l.is_empty()).collect();
        check(name, &json!({ "lines": lines }), &c["expect"]);
    }
}
