//! Kotlin/Swift's key forms (issue 27 item 2): `openWithKey` takes the 32
//! bytes (or a key file's bytes), `openWithKeyText` the base64 text of a
//! key file; anything else is `InvalidInput` naming what is wrong.

use sessiondb_ffi::{SessionDbError, SessionStore};

const KEY: [u8; 32] = [7; 32];
const B64: &str = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=";

fn message(e: SessionDbError) -> String {
    match e {
        SessionDbError::InvalidInput { detail, .. } => detail,
        other => panic!("not InvalidInput: {other:?}"),
    }
}

#[test]
fn the_key_is_bytes_or_the_base64_text_of_a_key_file() {
    let dir = std::env::temp_dir().join(format!("sessiondb-ffi-key-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("s.db").to_string_lossy().into_owned();
    let s = SessionStore::open_with_key(Some(db.clone()), KEY.to_vec(), None, None, None, None, None).unwrap();
    assert_eq!(s.key_backend(), "host-provided key bytes");
    drop(s);
    for text in [B64.to_string(), format!("{B64}\n")] {
        SessionStore::open_with_key_text(Some(db.clone()), text.clone(), None, None, None, None, None).unwrap();
        SessionStore::open_with_key(Some(db.clone()), text.into_bytes(), None, None, None, None, None).unwrap();
    }
    let e = SessionStore::open_with_key_text(Some(db.clone()), "not a key!".into(), None, None, None, None, None).err().unwrap();
    assert_eq!(
        message(e),
        "invalid input: key: not the base64 text of a data key (10 characters; a key file holds 44 characters of base64 and a newline) and not 32 bytes"
    );
    let e = SessionStore::open_with_key(Some(db), KEY[..31].to_vec(), None, None, None, None, None).err().unwrap();
    assert_eq!(message(e), "invalid input: key: 31 bytes, neither the 32-byte data key nor its base64 text (a key file's content)");
    std::fs::remove_dir_all(&dir).unwrap();
}
