//! Recovery keys (issue 13 item 8, DESIGN.md "Keys"): the exact text of a
//! known key, tolerant parsing, a mistyped key refused by its checksum
//! (`InvalidInput`, never `KeyMismatch`), another database's key refused as
//! `KeyMismatch`, and the import into a credential store: a host provider
//! always, the real Secret Service under scripts/with-secret-service.sh.

use std::sync::{Arc, Mutex};

use sessiondb::keys::{parse_recovery_key, recovery_key_text, KeyProvider, RECOVERY_KEY_CHARS};
use sessiondb::*;

fn key(b: u8) -> DataKey {
    DataKey::from_bytes(&[b; 32]).unwrap()
}

/// The 32 bytes 0, 1, ..., 31.
fn counting_key() -> DataKey {
    DataKey::from_bytes(&(0u8..32).collect::<Vec<_>>()).unwrap()
}

/// Computed independently: `base64.b32encode(k + sha256(b"sessiondb recovery key v1\0" + k)[:3])` in Python.
const COUNTING_TEXT: &str = "AAAQ-EAYE-AUDA-OCAJ-BIFQ-YDIO-B4IB-CEQT-CQKR-MFYY-DENB-WHA5-DYPU-PUO5";
const FORTY_TWO_TEXT: &str = "FIVC-UKRK-FIVC-UKRK-FIVC-UKRK-FIVC-UKRK-FIVC-UKRK-FIVC-UKRK-FIVB-NITD";

#[test]
fn a_known_key_has_its_exact_recovery_text() {
    assert_eq!(recovery_key_text(&counting_key()), COUNTING_TEXT);
    assert_eq!(recovery_key_text(&key(42)), FORTY_TWO_TEXT);
    let t = recovery_key_text(&key(42));
    assert_eq!(t.len(), RECOVERY_KEY_CHARS + 13, "14 groups of 4 joined by 13 dashes");
    assert!(t.split('-').all(|g| g.len() == 4));
}

#[test]
fn parsing_tolerates_case_whitespace_and_grouping() {
    let t = COUNTING_TEXT;
    for variant in [
        t.to_string(),
        t.to_lowercase(),
        t.replace('-', ""),
        t.replace('-', " "),
        format!("  {}\n", t.replace('-', "\n")),
        t.replace('-', " - "),
    ] {
        assert_eq!(parse_recovery_key(&variant).unwrap().expose_bytes(), counting_key().expose_bytes(), "{variant:?}");
    }
}

#[test]
fn a_one_character_typo_is_the_checksum_error() {
    // A substitution anywhere (key part or checksum part) is caught.
    let t: Vec<char> = COUNTING_TEXT.chars().collect();
    for pos in [0usize, 1, 2, 3, 30, 68] {
        let mut typo = t.clone();
        typo[pos] = if typo[pos] == 'Q' { 'R' } else { 'Q' };
        let typo: String = typo.into_iter().collect();
        let e = parse_recovery_key(&typo).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{typo}");
        assert_eq!(
            e.to_string(),
            "invalid input: recovery key checksum mismatch: a character was mistyped or left out; compare it group by group with the exported text"
        );
    }
}

#[test]
fn a_wrong_length_or_character_is_named() {
    let short = &COUNTING_TEXT[..COUNTING_TEXT.len() - 5];
    assert_eq!(
        parse_recovery_key(short).unwrap_err().to_string(),
        "invalid input: recovery key: 52 characters, a recovery key has 56 (14 groups of 4)"
    );
    let bad = COUNTING_TEXT.replacen(&COUNTING_TEXT[5..6], "0", 1);
    let e = parse_recovery_key(&bad).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("is not in its alphabet"), "{e}");
}

#[test]
fn a_store_exports_its_own_key() {
    let dir = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions::at(dir.path().join("a.db"), KeySource::Bytes(counting_key()))).unwrap();
    assert_eq!(s.recovery_key(), COUNTING_TEXT);
}

/// An in-memory host key provider.
#[derive(Default)]
struct Memory(Mutex<Option<Vec<u8>>>);

impl KeyProvider for Memory {
    fn get_key(&self) -> Result<Option<Vec<u8>>> {
        Ok(self.0.lock().unwrap().clone())
    }
    fn set_key(&self, key: &[u8]) -> Result<()> {
        *self.0.lock().unwrap() = Some(key.to_vec());
        Ok(())
    }
}

fn via(provider: &Arc<Memory>, path: &std::path::Path) -> OpenOptions {
    OpenOptions::at(path, KeySource::Provider(provider.clone()))
}

#[test]
fn import_checks_the_key_check_value_then_stores_the_key_and_opens() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("laptop.db");
    let laptop = SessionStore::open(OpenOptions::at(&db, KeySource::Bytes(counting_key()))).unwrap();
    let sid = laptop.create_session(Some("from the laptop".into()), None).unwrap().id;
    let text = laptop.recovery_key();
    drop(laptop);

    // A mistyped key: the checksum error, nothing stored.
    let device = Arc::new(Memory::default());
    let typo = text.replacen(&text[..1], if text.starts_with('A') { "B" } else { "A" }, 1);
    let e = SessionStore::import_recovery_key(via(&device, &db), &typo).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("checksum"), "{e}");
    assert_eq!(device.get_key().unwrap(), None);

    // Another database's (valid) recovery key: KeyMismatch, nothing stored.
    let e = SessionStore::import_recovery_key(via(&device, &db), &recovery_key_text(&key(7))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KeyMismatch);
    assert!(e.to_string().contains("the recovery key (it belongs to another database)"), "{e}");
    assert_eq!(device.get_key().unwrap(), None);

    // The right one: stored, and the store opens from the provider.
    let s = SessionStore::import_recovery_key(via(&device, &db), &text.to_lowercase().replace('-', " ")).unwrap();
    assert_eq!(s.get_session(&sid).unwrap().name.as_deref(), Some("from the laptop"));
    assert_eq!(device.get_key().unwrap().as_deref(), Some(counting_key().expose_bytes().as_slice()));
    drop(s);
    assert!(SessionStore::open(via(&device, &db)).is_ok());
    // Importing the same key again is a no-op.
    assert!(SessionStore::import_recovery_key(via(&device, &db), &text).is_ok());

    // A provider that already holds another key: Conflict, nothing overwritten.
    let busy = Arc::new(Memory(Mutex::new(Some(vec![9u8; 32]))));
    let e = SessionStore::import_recovery_key(via(&busy, &db), &text).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
    assert_eq!(busy.get_key().unwrap(), Some(vec![9u8; 32]));

    // No database there: NotFound, nothing created.
    let missing = dir.path().join("missing.db");
    let e = SessionStore::import_recovery_key(via(&Arc::new(Memory::default()), &missing), &text).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(!missing.exists());
}

#[cfg(target_os = "linux")]
#[test]
fn import_into_the_real_secret_service() {
    if std::env::var("SESSIONDB_SECRET_SERVICE").as_deref() != Ok("unlocked") {
        eprintln!("SKIP: not under scripts/with-secret-service.sh --unlocked (no private Secret Service)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let app = format!("sessiondb-recovery-test-{}", std::process::id());
    let laptop = SessionStore::open(OpenOptions::at(&db, KeySource::Bytes(key(5)))).unwrap();
    let sid = laptop.create_session(Some("synced".into()), None).unwrap().id;
    let text = laptop.recovery_key();
    drop(laptop);
    let os = OpenOptions { path: Some(db.clone().into()), app: app.clone(), key: KeySource::OsKeyring, ..Default::default() };
    assert_eq!(SessionStore::open(os.clone()).unwrap_err().kind(), ErrorKind::RecoveryLocked);
    let s = SessionStore::import_recovery_key(os.clone(), &text).unwrap();
    assert_eq!(s.key_backend(), "Secret Service (D-Bus)");
    assert_eq!(s.get_session(&sid).unwrap().name.as_deref(), Some("synced"));
    drop(s);
    let stored = sessiondb::keys::KeyringProvider::native(&app).unwrap().get_key().unwrap();
    assert_eq!(stored.as_deref(), Some(key(5).expose_bytes().as_slice()));
    assert!(SessionStore::open(os.clone()).is_ok(), "the store now opens from the Secret Service");
    // A valid key of another database: KeyMismatch, the entry is unchanged.
    assert_eq!(SessionStore::import_recovery_key(os, &recovery_key_text(&key(6))).unwrap_err().kind(), ErrorKind::KeyMismatch);
    let entry = sessiondb::keys::KeyringProvider::native(&app).unwrap();
    assert_eq!(entry.get_key().unwrap().as_deref(), Some(key(5).expose_bytes().as_slice()));
    let store = zbus_secret_service_keyring_store::Store::new().unwrap();
    keyring_core::Entry::new_in_store(&(store as Arc<keyring_core::CredentialStore>), &app, sessiondb::keys::KEY_ACCOUNT)
        .unwrap()
        .delete_credential()
        .unwrap();
}
