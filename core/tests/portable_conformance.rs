//! Runs the language-neutral portable-session cases in
//! `tests/conformance/portable/*.json` (schema `sessiondb-conformance/1`)
//! against the Rust core. Every field present in `expect` must equal the
//! output exactly; absent fields are not checked. Bindings run the same files.
//!
//! Set `CONFORMANCE_PRINT=1` to print each case's actual output.

use base64::Engine;
use serde_json::{json, Value};
use sessiondb::portable::{read_thclaws, write_thclaws, Block, Collector, PortableSession, ReadOptions, Role, SourceFormat, Turn};
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

fn texts<'a>(turns: impl Iterator<Item = &'a Turn>) -> Vec<String> {
    turns.flat_map(|t| &t.blocks).filter_map(|b| if let Block::Text { text } = b { Some(text.clone()) } else { None }).collect()
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
        let mut sink = Collector::new(SourceFormat::Thclaws, None);
        let rep = read_thclaws(&bytes[..], &ReadOptions::default(), &mut sink).unwrap();
        let s = sink.finish("fallback").remove(0);
        let skipped: Vec<Value> = rep
            .skipped
            .iter()
            .map(|k| json!({"line": k.line, "reason": serde_json::to_value(&k.reason).unwrap()["reason"].clone()}))
            .collect();
        let actual = json!({
            "id": s.id, "title": s.title, "model": s.model, "provider": s.provider, "cwd": s.cwd, "created_at_ms": s.created_at_ms,
            "roles": s.turns.iter().map(|t| t.role.as_str()).collect::<Vec<_>>(),
            "texts": texts(s.turns.iter()),
            "active_texts": texts(s.active_turns().iter()),
            "tool_calls": s.tool_calls(), "tool_results": s.tool_results(), "plan_steps": s.plan_steps(),
            "compactions": s.compactions.len(), "lines": rep.lines, "bytes": rep.bytes, "skipped": skipped,
            "surrogates_replaced": rep.surrogates_replaced, "missing_final_newline": rep.missing_final_newline,
            "kept_raw": rep.kept_raw, "other_lines": s.other_lines.len(),
        });
        check(name, &actual, &c["expect"]);
    }
}

#[test]
fn write_thclaws_cases() {
    for c in load("write_thclaws.json") {
        let name = c["name"].as_str().unwrap();
        let i = &c["input"]["session"];
        let st = |k: &str| i[k].as_str().map(str::to_owned);
        let s = PortableSession {
            id: st("id").unwrap(),
            title: st("title"),
            model: st("model"),
            provider: st("provider"),
            cwd: st("cwd"),
            created_at_ms: i["created_at_ms"].as_i64(),
            turns: i["turns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    let blocks = t["blocks"].as_array().unwrap().iter().cloned().map(Block::from_json).collect();
                    let mut turn = Turn::new(Role::parse(t["role"].as_str().unwrap()).unwrap(), blocks, t["timestamp_ms"].as_i64(), 0);
                    turn.model = t["model"].as_str().map(str::to_owned);
                    turn.provider = t["provider"].as_str().map(str::to_owned);
                    turn
                })
                .collect(),
            ..Default::default()
        };
        let mut out = Vec::new();
        write_thclaws(&s, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with('\n'));
        let lines: Vec<&str> = text.split('\n').filter(|l| !l.is_empty()).collect();
        check(name, &json!({ "lines": lines }), &c["expect"]);
    }
}
