//! Runs tests/conformance/portable/import_samples.json (shared by every binding).

use sessiondb::portable::import_file;
use sessiondb::*;

#[test]
fn import_samples_conformance_cases() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let samples = root.join("../shared/samples");
    if !samples.exists() {
        eprintln!("SKIP: ../shared/samples is absent; import conformance cases not run");
        return;
    }
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/conformance/portable/import_samples.json")).unwrap()).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    for case in cases {
        let dir = tempfile::tempdir().unwrap();
        let s = SessionStore::open(OpenOptions::at(dir.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[8; 32]).unwrap()))).unwrap();
        let path = samples.join(case["input"]["sample"].as_str().unwrap());
        let rep = import_file(&s, &path, None).unwrap();
        let got = serde_json::to_value(&rep).unwrap();
        let sessions: Vec<serde_json::Value> = got["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                serde_json::json!({"session_id": x["session_id"], "entries": x["entries"], "tool_calls": x["tool_calls"],
                    "tool_results": x["tool_results"], "input_tokens": x["input_tokens"], "output_tokens": x["output_tokens"],
                    "cached_tokens": x["cached_tokens"]})
            })
            .collect();
        let got = serde_json::json!({"format": got["format"], "status": got["status"], "sessions": sessions});
        assert_eq!(got, case["expect"], "case {}", case["name"]);
        let again = import_file(&s, &path, None).unwrap();
        assert_eq!(serde_json::to_value(&again.status).unwrap(), "up_to_date", "case {}", case["name"]);
        assert!(again.sessions.is_empty());
    }
    eprintln!("import conformance: {} cases", cases.len());
    assert_eq!(cases.len(), 9);
}
