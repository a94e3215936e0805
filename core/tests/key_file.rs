//! The headless key-file fallback (DESIGN.md "Keys", issue 27 item 1): no
//! credential store on the machine (here: a D-Bus address whose socket does
//! not exist, as in a container or an SSH session) and a new database => the
//! key goes to `$XDG_CONFIG_HOME/<app>/keys/<id>.key` with one warning;
//! every rule of "Keys" still holds. One test function: it sets the process
//! environment (HOME, XDG_CONFIG_HOME, DBUS_SESSION_BUS_ADDRESS) once,
//! before any other thread runs, and walks the cases in order.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sessiondb::keys::{self, KeyInput};
use sessiondb::*;

fn open_os(db: &Path, app: &str) -> Result<SessionStore> {
    SessionStore::open(OpenOptions { path: Some(db.to_path_buf().into()), app: app.into(), ..Default::default() })
}

fn key_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).map(|r| r.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    v.sort();
    v
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn s2_id(db: &Path, app: &str) -> String {
    open_os(db, app).unwrap().key_file_id().unwrap().to_string()
}

#[test]
fn headless_key_file_rules() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config");
    std::env::set_var("HOME", home.path());
    std::env::set_var("XDG_CONFIG_HOME", &config);
    std::env::set_var("XDG_STATE_HOME", home.path().join("state"));
    std::env::set_var("DBUS_SESSION_BUS_ADDRESS", format!("unix:path={}", home.path().join("no-bus").display()));
    std::env::remove_var(keys::NO_KEY_FILE_ENV);
    let warnings: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let w = warnings.clone();
    keys::set_warning_handler(move |kind, msg| w.lock().unwrap().push((kind.to_string(), msg.to_string())));

    let app = "sessiondb-keyfile-test";
    let key_dir = config.join(app).join("keys");
    let data = tempfile::tempdir().unwrap();
    let db = data.path().join("proj").join("sessions.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();

    // 1. First open: the key is created in a key file, with one warning.
    let s = open_os(&db, app).unwrap();
    assert_eq!(s.key_backend(), "file");
    let files = key_files(&key_dir);
    assert_eq!(files.len(), 1, "{files:?}");
    let kf = &files[0];
    assert_eq!(s.key_file(), Some(kf.as_path()));
    assert_eq!(s.stats().unwrap().key_file.as_deref(), Some(kf.to_str().unwrap()));
    assert_eq!(s.stats().unwrap().key_backend, "file");
    let name = kf.file_name().unwrap().to_str().unwrap();
    assert_eq!(name.len(), 36, "32 hex digits + .key: {name}");
    assert!(name.ends_with(".key") && name[..32].bytes().all(|b| b.is_ascii_hexdigit()), "{name}");
    assert_eq!(mode(kf), 0o600);
    assert_eq!(mode(&key_dir), 0o700);
    let text = std::fs::read_to_string(kf).unwrap();
    assert_eq!((text.len(), text.ends_with('\n')), (45, true), "44 characters of base64 and a newline");
    assert!(!kf.starts_with(db.parent().unwrap()), "never beside the database");
    {
        let w = warnings.lock().unwrap();
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].0, "KeyFileCreated");
        assert_eq!(
            w[0].1,
            format!(
                "no OS keyring is reachable, so the data key of this new database is in the key file {} (mode 0600). \
                 Back it up (`sessiondb key export`): without it the sessions are lost. SESSIONDB_NO_KEY_FILE=1 turns this off.",
                kf.display()
            )
        );
    }
    let id = s.create_session(Some("headless".into()), None).unwrap().id;
    s.append_transcript(&id, Role::User, "hello".to_string()).unwrap();
    drop(s);

    // The database holds no key, only the file's id; the file is its key.
    let raw = std::fs::read(&db).unwrap();
    assert!(!raw.windows(44).any(|w| w == text.trim().as_bytes()), "the key is not in the database");
    let with_text = SessionStore::open(OpenOptions::at(&db, KeySource::for_host(Some(KeyInput::Text(&text)), None, ("key", "kp")).unwrap())).unwrap();
    assert_eq!(with_text.get_session(&id).unwrap().name.as_deref(), Some("headless"));
    drop(with_text);

    // 2. Every later open reads it: same key, no new file, no new warning.
    for _ in 0..2 {
        let s = open_os(&db, app).unwrap();
        assert_eq!((s.key_backend(), s.key_file()), ("file", Some(kf.as_path())));
        assert_eq!(s.get_transcript(&id, 0, 100).unwrap().len(), 1);
    }
    assert_eq!(key_files(&key_dir), vec![kf.clone()]);
    assert_eq!(warnings.lock().unwrap().len(), 1);

    // A copy of the database folder on this machine opens with the same file.
    let copy = data.path().join("copy").join("sessions.db");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(&db, &copy).unwrap();
    assert_eq!(open_os(&copy, app).unwrap().key_file(), Some(kf.as_path()));

    // 3. Two new databases get two key files.
    let db2 = data.path().join("other.db");
    let s2 = open_os(&db2, app).unwrap();
    assert_eq!(key_files(&key_dir).len(), 2);
    assert_ne!(s2.key_file(), Some(kf.as_path()));
    drop(s2);
    assert_eq!(warnings.lock().unwrap().len(), 2);

    // 4. The copied folder on a machine without the key file (another
    // config home): RecoveryLocked naming the file, never a new key.
    let elsewhere = home.path().join("elsewhere");
    std::env::set_var("XDG_CONFIG_HOME", &elsewhere);
    let e = open_os(&copy, app).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RecoveryLocked, "{e}");
    let other_kf = elsewhere.join(app).join("keys").join(name);
    assert_eq!(
        e.to_string(),
        format!(
            "recovery locked: the session database exists but its data key is missing from the key file {}; copy that key file back from where the database came from (or import its recovery key: `sessiondb key import`) or open another database. No new key was created, because it could never decrypt the existing sessions",
            other_kf.display()
        )
    );
    assert!(!elsewhere.exists(), "nothing was created");
    // The recovery key restores the file there.
    std::env::set_var("XDG_CONFIG_HOME", &config);
    let recovery = open_os(&db, app).unwrap().recovery_key();
    std::env::set_var("XDG_CONFIG_HOME", &elsewhere);
    let s = SessionStore::import_recovery_key(OpenOptions { path: Some(copy.clone().into()), app: app.into(), ..Default::default() }, &recovery).unwrap();
    assert_eq!((s.key_backend(), s.key_file()), ("file", Some(other_kf.as_path())));
    assert_eq!(std::fs::read_to_string(&other_kf).unwrap(), text);
    assert_eq!(mode(&other_kf), 0o600);
    drop(s);
    std::env::set_var("XDG_CONFIG_HOME", &config);

    // 5. The key file deleted: RecoveryLocked, no new key file.
    let saved = std::fs::read(kf).unwrap();
    std::fs::remove_file(kf).unwrap();
    assert_eq!(open_os(&db, app).unwrap_err().kind(), ErrorKind::RecoveryLocked);
    assert!(!kf.exists());
    // A damaged key file: KeyStoreUnavailable, and it is left as it is.
    std::fs::write(kf, b"not a key\n").unwrap();
    let e = open_os(&db, app).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KeyStoreUnavailable, "{e}");
    assert_eq!(std::fs::read(kf).unwrap(), b"not a key\n");
    // Another valid key in the file: KeyMismatch.
    std::fs::write(kf, format!("{}\n", DataKey::generate().to_base64().as_str())).unwrap();
    assert_eq!(open_os(&db, app).unwrap_err().kind(), ErrorKind::KeyMismatch);
    std::fs::write(kf, &saved).unwrap();
    assert_eq!(open_os(&db, app).unwrap().get_session(&id).unwrap().name.as_deref(), Some("headless"));

    // 6. The fallback off (setting or env): KeyStoreUnavailable, short and
    // actionable; nothing is created.
    let before = key_files(&key_dir);
    let fresh = data.path().join("fresh.db");
    let off = OpenOptions { path: Some(fresh.clone().into()), app: app.into(), key_file_fallback: false, ..Default::default() };
    let e = SessionStore::open(off).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KeyStoreUnavailable);
    assert_eq!(
        e.to_string(),
        "key store unavailable: Secret Service (D-Bus): not running (no D-Bus session bus: a container, server, CI job or SSH session). \
         Pass the key yourself (CLI --key-file FILE, made by `sessiondb key init --file FILE`; hosts: the `key` option), or allow the key file (unset SESSIONDB_NO_KEY_FILE)"
    );
    assert!(e.to_string().len() < 330, "{}", e.to_string().len());
    for (value, allowed) in [("1", false), ("yes", false), ("0", true), ("", true)] {
        std::env::set_var(keys::NO_KEY_FILE_ENV, value);
        let r = open_os(&fresh, app);
        assert_eq!(r.as_ref().err().map(|e| e.kind()), if allowed { None } else { Some(ErrorKind::KeyStoreUnavailable) }, "{value:?}");
        if allowed {
            drop(r);
            std::fs::remove_file(&fresh).unwrap();
        }
        assert!(!fresh.exists() || allowed);
    }
    std::env::remove_var(keys::NO_KEY_FILE_ENV);
    assert_eq!(key_files(&key_dir).len(), before.len() + 2, "one key file per allowed creation");
    // With the fallback off, a database already keyed by a file still opens.
    assert_eq!(
        SessionStore::open(OpenOptions { path: Some(db.clone().into()), app: app.into(), key_file_fallback: false, ..Default::default() }).unwrap().key_backend(),
        "file"
    );

    // 7. An existing database whose key is in an OS keyring (no key-file
    // id), opened where there is none: KeyStoreUnavailable, never a new key.
    let kr = data.path().join("keyring.db");
    drop(SessionStore::open(OpenOptions::at(&kr, KeySource::Bytes(DataKey::generate()))).unwrap());
    let before = key_files(&key_dir);
    let e = open_os(&kr, app).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KeyStoreUnavailable, "{e}");
    assert!(e.to_string().contains("This database's key is in an OS keyring"), "{e}");
    assert_eq!(key_files(&key_dir), before);

    // 8. Key bytes and host providers never fall back to a file.
    let p = data.path().join("bytes.db");
    assert_eq!(SessionStore::open(OpenOptions::at(&p, KeySource::Bytes(DataKey::generate()))).unwrap().key_backend(), "host-provided key bytes");
    assert_eq!(key_files(&key_dir), before);

    // 9. `key init --file`: a new file, never over an existing one.
    let explicit = home.path().join("mine").join("k.key");
    let k = keys::create_key_file(&explicit).unwrap();
    assert_eq!(std::fs::read_to_string(&explicit).unwrap(), format!("{}\n", k.to_base64().as_str()));
    assert_eq!((mode(&explicit), mode(explicit.parent().unwrap())), (0o600, 0o700));
    let e = keys::create_key_file(&explicit).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict);
    assert_eq!(std::fs::read_to_string(&explicit).unwrap(), format!("{}\n", k.to_base64().as_str()), "not overwritten");
    // 10. A new database sharing another's key file (OpenOptions::key_file_id,
    // what `sessiondb copy` does): the same key, the same file, recorded.
    let kf_id = open_os(&db, app).unwrap().key_file_id().unwrap().to_string();
    assert_eq!(kf.file_stem().unwrap().to_str(), Some(kf_id.as_str()));
    let shared = data.path().join("shared.db");
    let before = key_files(&key_dir);
    let share = || OpenOptions { path: Some(shared.clone().into()), app: app.into(), key_file_id: Some(kf_id.clone()), ..Default::default() };
    let s = SessionStore::open(share()).unwrap();
    assert_eq!((s.key_backend(), s.key_file()), ("file", Some(kf.as_path())));
    drop(s);
    assert_eq!(open_os(&shared, app).unwrap().key_file(), Some(kf.as_path()), "recorded in its meta");
    assert_eq!(key_files(&key_dir), before, "no new key file");
    // Ignored for an existing database; a missing file is InvalidInput.
    let other_id = s2_id(&db2, app);
    assert_eq!(SessionStore::open(OpenOptions { path: Some(db2.clone().into()), key_file_id: Some(kf_id.clone()), app: app.into(), ..Default::default() }).unwrap().key_file_id(), Some(other_id.as_str()));
    let missing = OpenOptions { path: Some(data.path().join("nofile.db").into()), app: app.into(), key_file_id: Some("0".repeat(32)), ..Default::default() };
    assert_eq!(SessionStore::open(missing).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert!(!data.path().join("nofile.db").exists());

    // No keyring: `key init` without --file says so.
    assert_eq!(keys::create_os_keyring_key(app).unwrap_err().kind(), ErrorKind::KeyStoreUnavailable);
}
