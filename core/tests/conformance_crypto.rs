//! Runs tests/conformance/crypto.json (shared by every binding).

use sessiondb::crypto::{self, DataKey, EncryptedField};
use sessiondb::Error;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn run(case: &serde_json::Value) -> Result<serde_json::Value, Error> {
    let op = case["op"].as_str().unwrap();
    match op {
        "decrypt_field" => {
            let key = DataKey::from_bytes(&hex(case["key_hex"].as_str().unwrap()))?;
            let env = EncryptedField::from_json(&case["envelope"].to_string())?;
            let pt = crypto::decrypt_field(&key, case["record_id"].as_str().unwrap(), &env)?;
            Ok(serde_json::json!({ "plaintext": String::from_utf8(pt.to_vec()).unwrap() }))
        }
        "workspace_index" => {
            let key = DataKey::from_bytes(&hex(case["key_hex"].as_str().unwrap()))?;
            Ok(serde_json::json!({ "index": crypto::workspace_index(&key, case["path"].as_str().unwrap()) }))
        }
        "aad" => Ok(serde_json::json!({ "aad": crypto::aad_for(case["record_id"].as_str().unwrap(), 1, "aes-256-gcm") })),
        other => panic!("unknown op {other}"),
    }
}

#[test]
fn crypto_conformance_cases() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/conformance/crypto.json");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    for case in cases {
        let got = match run(case) {
            Ok(v) => v,
            Err(e) => serde_json::json!({ "error": e.kind().name() }),
        };
        assert_eq!(got, case["expect"], "case {}", case["name"]);
    }
    eprintln!("crypto conformance: {} cases", cases.len());
    assert_eq!(cases.len(), 19);
}
