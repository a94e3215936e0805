//! Runs the language-neutral portable-session cases in
//! `tests/conformance/portable/*.json` (schema `sessiondb-conformance/1`)
//! against the Rust core. Every field present in `expect` must equal the
//! output exactly; absent fields are not checked. Bindings run the same files.
//!
//! Set `CONFORMANCE_PRINT=1` to print each case's actual output.

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
            (_, Value::String(b)) => data_encoding::BASE64.decode(b.as_bytes()).unwrap(),
            _ => panic!("case `{name}` has no input"),
        };
        let actual = serde_json::to_value(read_thclaws_digest(&bytes, "fallback").unwrap()).unwrap();
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

#[test]
fn write_thclaws_json_takes_integral_floats_as_hosts_send_them() {
    // JavaScript sends 1700000000123 as a float; it must not turn into 0.
    let session = serde_json::json!({"id": "s", "created_at_ms": 1_700_000_000_123.0_f64,
        "turns": [{"role": "user", "blocks": [{"type": "text", "text": "hi"}], "timestamp_ms": 1_700_000_001_000.0_f64}]});
    let text = write_thclaws_json(&session).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with("\"created_at\":1700000000}"), "{}", lines[0]);
    assert_eq!(lines[3], r#"{"type":"user","content":[{"type":"text","text":"hi"}],"timestamp":1700000001}"#);
}
