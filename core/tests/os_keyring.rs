//! The OS credential store for real: a gnome-keyring Secret Service on a
//! private D-Bus session, started by `scripts/with-secret-service.sh`, which
//! sets `SESSIONDB_SECRET_SERVICE` to `unlocked`, `locked` or `none`.
//! `scripts/test-all.sh` runs this file in all three modes; run alone
//! without the script, it skips and says so.
#![cfg(target_os = "linux")]

use sessiondb::keys::{KeyProvider, KeyringProvider, KEY_ACCOUNT};
use sessiondb::*;

fn open_os(path: &std::path::Path, app: &str) -> Result<SessionStore> {
    SessionStore::open(OpenOptions { path: Some(path.to_path_buf().into()), app: app.into(), key: KeySource::OsKeyring, ..Default::default() })
}

const LOCKTEST_APP: &str = "sessiondb-locktest";

#[test]
fn os_keyring_secret_service() {
    let Ok(mode) = std::env::var("SESSIONDB_SECRET_SERVICE") else {
        eprintln!("SKIP: not under scripts/with-secret-service.sh (no private Secret Service)");
        return;
    };
    // Key files of the headless fallback go to a config home of this run.
    let config = tempfile::tempdir().unwrap();
    std::env::set_var("XDG_CONFIG_HOME", config.path());
    std::env::remove_var(sessiondb::keys::NO_KEY_FILE_ENV);
    match mode.as_str() {
        "unlocked" | "existing" => {
            unlocked();
            a_database_created_without_a_keyring_keeps_its_key_file_once_one_appears(config.path());
            a_key_stored_under_the_libdbus_stores_attributes_is_read_and_found_by_them();
        }
        "locked" => locked(),
        "none" => none(),
        other => panic!("unknown SESSIONDB_SECRET_SERVICE={other}"),
    }
}

fn unlocked() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let app = format!("sessiondb-test-{}", std::process::id());
    // First open: a 32-byte key is created in the Secret Service.
    let s = open_os(&db, &app).unwrap();
    assert_eq!(s.key_backend(), "Secret Service (D-Bus)");
    let id = s.create_session(Some("kept".into()), None).unwrap().id;
    drop(s);
    let provider = KeyringProvider::native(&app).unwrap();
    let stored = provider.get_key().unwrap().expect("key stored under service=<app>, account=session-data-key");
    assert_eq!(stored.len(), 32);
    // Reopen reads the same key.
    assert_eq!(open_os(&db, &app).unwrap().get_session(&id).unwrap().name.as_deref(), Some("kept"));
    // Remove the key: the database exists, so it is RecoveryLocked and no new key appears.
    let store = zbus_secret_service_keyring_store::Store::new().unwrap();
    keyring_core::Entry::new_in_store(&(store.clone() as std::sync::Arc<keyring_core::CredentialStore>), &app, KEY_ACCOUNT)
        .unwrap()
        .delete_credential()
        .unwrap();
    let e = open_os(&db, &app).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RecoveryLocked, "{e}");
    assert_eq!(provider.get_key().unwrap(), None, "no new key was written");
    // Prepare the locked-keyring test of the next run, when asked to.
    if let Ok(lockdir) = std::env::var("SESSIONDB_LOCKTEST_DIR") {
        let p = std::path::Path::new(&lockdir).join("sessions.db");
        let s = open_os(&p, LOCKTEST_APP).unwrap();
        s.create_session(Some("behind a lock".into()), None).unwrap();
    }
}

/// Keys written before the switch from the libdbus-based
/// `dbus-secret-service-keyring-store` to the zbus one: an item with that
/// store's attributes (`service` = app, `username` = `session-data-key`,
/// label `keyring:session-data-key@<app>`), written here by libsecret's
/// `secret-tool`, is the key the store opens with; and a key the store
/// creates is found by those attributes.
fn a_key_stored_under_the_libdbus_stores_attributes_is_read_and_found_by_them() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    if Command::new("secret-tool").arg("--version").output().is_err() {
        eprintln!("SKIP (part): secret-tool absent (apt-get install libsecret-tools)");
        return;
    }
    let app = format!("sessiondb-compat-{}", std::process::id());
    let key = DataKey::from_bytes(&[7u8; 32]).unwrap();
    let mut child = Command::new("secret-tool")
        .args(["store", "--label", &format!("keyring:{KEY_ACCOUNT}@{app}"), "service", &app, "username", KEY_ACCOUNT])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(key.to_base64().as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let s = open_os(&db, &app).unwrap();
    let id = s.create_session(Some("old key".into()), None).unwrap().id;
    s.close();
    // The same database opens with those bytes handed in: the store used the item's key.
    let with_bytes = SessionStore::open(OpenOptions { path: Some(db.clone().into()), key: KeySource::Bytes(key.clone()), ..Default::default() }).unwrap();
    assert_eq!(with_bytes.get_session(&id).unwrap().name.as_deref(), Some("old key"));
    // A key created by the store is found under the same attributes.
    let fresh = format!("sessiondb-compat-new-{}", std::process::id());
    open_os(&dir.path().join("fresh.db"), &fresh).unwrap();
    let out = Command::new("secret-tool").args(["lookup", "service", &fresh, "username", KEY_ACCOUNT]).output().unwrap();
    assert!(out.status.success());
    let b64 = String::from_utf8(out.stdout).unwrap();
    assert_eq!(DataKey::from_base64(b64.trim()).unwrap().expose_bytes().len(), 32);
    assert_eq!(KeyringProvider::native(&fresh).unwrap().get_key().unwrap().unwrap(), DataKey::from_base64(b64.trim()).unwrap().expose_bytes().to_vec());
}

/// A database created while no Secret Service ran (its key went to a key
/// file) keeps reading that file once a keyring is there: the store records
/// its key backend (`meta` `key_file`), so it never asks the keyring, and
/// nothing is written to the keyring.
fn a_database_created_without_a_keyring_keeps_its_key_file_once_one_appears(config: &std::path::Path) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let app = format!("sessiondb-appears-{}", std::process::id());
    let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").unwrap();
    std::env::set_var("DBUS_SESSION_BUS_ADDRESS", format!("unix:path={}", dir.path().join("no-bus").display()));
    let s = open_os(&db, &app).unwrap();
    std::env::set_var("DBUS_SESSION_BUS_ADDRESS", bus);
    assert_eq!(s.key_backend(), "file");
    let kf = s.key_file().unwrap().to_path_buf();
    assert!(kf.starts_with(config.join(&app).join("keys")), "{}", kf.display());
    let id = s.create_session(Some("before the keyring".into()), None).unwrap().id;
    drop(s);
    // The keyring answers now: the database still opens with its file.
    let s = open_os(&db, &app).unwrap();
    assert_eq!((s.key_backend(), s.key_file()), ("file", Some(kf.as_path())));
    assert_eq!(s.get_session(&id).unwrap().name.as_deref(), Some("before the keyring"));
    assert_eq!(KeyringProvider::native(&app).unwrap().get_key().unwrap(), None, "nothing was written to the keyring");
    // And a new database of that app, with the keyring there, uses the keyring.
    assert_eq!(open_os(&dir.path().join("new.db"), &app).unwrap().key_backend(), "Secret Service (D-Bus)");
}

fn locked() {
    // A fresh database cannot store its key in a locked collection: an
    // error, not a silent key, and no key file (locked is not absent).
    let dir = tempfile::tempdir().unwrap();
    let e = open_os(&dir.path().join("sessions.db"), "sessiondb-locked-fresh").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KeyStoreUnavailable, "{e}");
    let config = std::path::PathBuf::from(std::env::var_os("XDG_CONFIG_HOME").unwrap());
    assert!(!config.join("sessiondb-locked-fresh").exists(), "no key file for a locked keyring");
    // An existing database whose key sits in the locked collection: KeyStoreUnavailable, never RecoveryLocked.
    let Ok(lockdir) = std::env::var("SESSIONDB_LOCKTEST_DIR") else {
        eprintln!("SKIP (part): SESSIONDB_LOCKTEST_DIR unset, the key-behind-a-lock case needs the unlocked run first");
        return;
    };
    let p = std::path::Path::new(&lockdir).join("sessions.db");
    let before = std::fs::read(&p).unwrap();
    let e = open_os(&p, LOCKTEST_APP).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KeyStoreUnavailable, "{e}");
    assert_eq!(std::fs::read(&p).unwrap(), before, "nothing changed");
}

/// A D-Bus session with no Secret Service on it (nothing owns
/// org.freedesktop.secrets): no credential store, so a new database gets a
/// key file; with the fallback off, a short KeyStoreUnavailable.
fn none() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let off = OpenOptions { path: Some(db.clone().into()), app: "sessiondb-none".into(), key_file_fallback: false, ..Default::default() };
    let e = SessionStore::open(off).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KeyStoreUnavailable, "{e}");
    assert_eq!(
        e.to_string(),
        "key store unavailable: Secret Service (D-Bus): not running (nothing provides org.freedesktop.secrets on the D-Bus session bus). \
         Pass the key yourself (CLI --key-file FILE, made by `sessiondb key init --file FILE`; hosts: the `key` option), or allow the key file (unset SESSIONDB_NO_KEY_FILE)"
    );
    assert!(!db.exists(), "no database file is created without a key");
    let s = open_os(&db, "sessiondb-none").unwrap();
    assert_eq!(s.key_backend(), "file");
    let config = std::path::PathBuf::from(std::env::var_os("XDG_CONFIG_HOME").unwrap());
    assert!(s.key_file().unwrap().starts_with(config.join("sessiondb-none/keys")));
}
