//! The first run on a machine with no keyring (issue 27 item 1): no D-Bus
//! session bus and a fresh HOME, as a container, CI job or SSH session has.
//! `new` works at once (the key goes to a key file under
//! ~/.config/sessiondb/keys/, with one warning), every later command finds
//! it, `key init` creates keys explicitly, and with the fallback off the
//! error is short and says what to do.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Machine {
    home: tempfile::TempDir,
}

impl Machine {
    fn new() -> Self {
        Machine { home: tempfile::tempdir().unwrap() }
    }
    fn home(&self) -> &Path {
        self.home.path()
    }
    fn key_dir(&self) -> PathBuf {
        self.home().join(".config/sessiondb/keys")
    }
    fn key_files(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.key_dir()).map(|r| r.map(|e| e.unwrap().path()).collect()).unwrap_or_default()
    }
    /// `sessiondb ARGS` as on a headless machine: no D-Bus, HOME here, no XDG overrides.
    fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_sessiondb"));
        c.current_dir(self.home()).args(args);
        for v in ["DBUS_SESSION_BUS_ADDRESS", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "SESSIONDB_DB", "SESSIONDB_APP", "SESSIONDB_KEY_FILE", "SESSIONDB_NO_KEY_FILE"] {
            c.env_remove(v);
        }
        // No /run/user/<uid>/bus either (zbus's default address).
        c.env("HOME", self.home()).env("XDG_RUNTIME_DIR", self.home().join("run"));
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }
    fn run(&self, args: &[&str]) -> Output {
        self.run_env(args, &[])
    }
    fn ok(&self, args: &[&str]) -> (String, String) {
        let o = self.run(args);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        (String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap())
    }
}

fn warning(key_file: &Path) -> String {
    format!(
        "sessiondb: warning: no OS keyring is reachable, so the data key of this new database is in the key file {} (mode 0600). \
         Back it up (`sessiondb key export`): without it the sessions are lost. SESSIONDB_NO_KEY_FILE=1 turns this off.\n",
        key_file.display()
    )
}

#[test]
fn the_first_run_without_a_keyring_works_and_later_runs_find_the_key() {
    let m = Machine::new();
    let (out, err) = m.ok(&["new", "--name", "first", "--unbound"]);
    let id = out.trim().to_string();
    assert_eq!(id.len(), 36, "{out}");
    let files = m.key_files();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(err, warning(&files[0]), "the warning, once");
    assert_eq!(std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::metadata(m.key_dir()).unwrap().permissions().mode() & 0o777, 0o700);
    // Later commands: the same key, no warning.
    assert_eq!(m.ok(&["append", &id, "hello from a container"]).1, "");
    let (out, err) = m.ok(&["show", &id, "--json"]);
    assert_eq!(err, "");
    assert!(out.contains("hello from a container"), "{out}");
    let (out, err) = m.ok(&["doctor", "--json"]);
    assert_eq!(err, "");
    let st: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(st["key_backend"], "file");
    assert_eq!(st["key_file"], files[0].to_str().unwrap());
    assert_eq!(st["sessions"], 1);
    let (out, _) = m.ok(&["doctor"]);
    assert!(out.contains(&format!("key backend     file\nkey file        {}\n", files[0].display())), "{out}");
    assert_eq!(m.key_files(), files, "no second key file");
    // The key file is what --key-file reads.
    let (out, err) = m.ok(&["--key-file", files[0].to_str().unwrap(), "list", "--all", "--json"]);
    assert_eq!(err, "");
    assert!(out.contains(&id), "{out}");
    // The database folder copied to another machine (no key file there): exit 10, nothing created.
    let other = Machine::new();
    let dst = other.home().join("copied.db");
    std::fs::copy(m.home().join(".local/state/sessiondb/sessions.db"), &dst).unwrap();
    let o = other.run(&["--db", dst.to_str().unwrap(), "list", "--all"]);
    assert_eq!(o.status.code(), Some(10), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(other.key_files().is_empty());
}

#[test]
fn json_mode_gives_the_warning_as_a_json_line() {
    let m = Machine::new();
    let o = m.run(&["--json", "new", "--name", "j", "--unbound"]);
    assert!(o.status.success());
    let err = String::from_utf8(o.stderr).unwrap();
    let v: serde_json::Value = serde_json::from_str(err.trim()).unwrap();
    assert_eq!(v["warning"]["kind"], "KeyFileCreated");
    assert_eq!(format!("sessiondb: warning: {}\n", v["warning"]["message"].as_str().unwrap()), warning(&m.key_files()[0]));
}

#[test]
fn with_the_fallback_off_the_error_is_short_and_nothing_is_created() {
    let m = Machine::new();
    let o = m.run_env(&["new", "--name", "x"], &[("SESSIONDB_NO_KEY_FILE", "1")]);
    assert_eq!(o.status.code(), Some(12));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(
        err,
        "sessiondb: key store unavailable: Secret Service (D-Bus): not running (no D-Bus session bus: a container, server, CI job or SSH session). \
         Pass the key yourself (CLI --key-file FILE, made by `sessiondb key init --file FILE`; hosts: the `key` option), or allow the key file (unset SESSIONDB_NO_KEY_FILE)\n"
    );
    assert!(err.len() < 330, "{}", err.len());
    assert!(!m.home().join(".local/state/sessiondb/sessions.db").exists());
    assert!(!m.home().join(".config").exists());
}

#[test]
fn key_init_creates_a_key_file_or_a_keyring_key_and_never_overwrites() {
    let m = Machine::new();
    let (out, err) = m.ok(&["key", "init", "--file", "my.key"]);
    let p = m.home().join("my.key");
    assert_eq!(err, "");
    assert_eq!(
        out,
        "created a data key in the key file my.key (mode 0600); open with --key-file my.key (or SESSIONDB_KEY_FILE); keep a copy: without it the sessions are lost\n"
    );
    let text = std::fs::read_to_string(&p).unwrap();
    assert_eq!((text.len(), std::fs::metadata(&p).unwrap().permissions().mode() & 0o777), (45, 0o600));
    let o = m.run(&["key", "init", "--file", "my.key"]);
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(String::from_utf8(o.stderr).unwrap(), "sessiondb: conflict: the key file my.key already exists; nothing was overwritten\n");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), text, "not overwritten");
    // The file opens a new database; no fallback key file, no warning.
    let (_, err) = m.ok(&["--key-file", "my.key", "new", "--name", "k", "--unbound"]);
    assert_eq!(err, "");
    assert!(m.key_files().is_empty());
    let (out, _) = m.ok(&["--key-file", "my.key", "doctor", "--json"]);
    let st: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((st["key_backend"].as_str(), st["key_file"].as_str()), (Some("host-provided key bytes"), None));
    // JSON form.
    let (out, _) = m.ok(&["--json", "key", "init", "--file", "second.key"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["created"].as_bool(), v["key_backend"].as_str(), v["key_file"].as_str()), (Some(true), Some("file"), Some("second.key")));
    // Without --file on a machine with no keyring: exit 12, naming --file.
    let o = m.run(&["key", "init"]);
    assert_eq!(o.status.code(), Some(12));
    assert!(String::from_utf8(o.stderr).unwrap().contains("`sessiondb key init --file FILE`"));
}

/// `key init` in a real keyring (under scripts/with-secret-service.sh
/// --unlocked; skips, saying so, elsewhere): creates the app's key once,
/// then refuses (exit 4); a new database of that app opens with it.
#[test]
fn key_init_in_the_os_keyring_creates_once_and_never_overwrites() {
    if std::env::var("SESSIONDB_SECRET_SERVICE").as_deref() != Ok("unlocked") {
        eprintln!("SKIP: needs scripts/with-secret-service.sh --unlocked");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let app = format!("sessiondb-keyinit-{}", std::process::id());
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sessiondb"))
            .current_dir(dir.path())
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .args(["--app", &app])
            .args(args)
            .output()
            .unwrap()
    };
    let o = run(&["key", "init"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        format!("created the data key of `{app}` in Secret Service (D-Bus) (service `{app}`, account `session-data-key`); new databases of --app {app} use it\n")
    );
    let o = run(&["key", "init"]);
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        format!("sessiondb: conflict: Secret Service (D-Bus) already holds a data key for `{app}` (service `{app}`, account `session-data-key`); nothing was overwritten\n")
    );
    let o = run(&["--db", "s.db", "--json", "new", "--unbound"]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["--db", "s.db", "--json", "doctor"]);
    let st: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((st["key_backend"].as_str(), st["key_file"].as_str()), (Some("Secret Service (D-Bus)"), None));
    assert!(!dir.path().join("config").exists(), "no key file with a keyring");
}

/// `copy` to a new destination on a machine without a keyring: the
/// destination shares the source's key file (copy needs one key), with no
/// second key file and no warning; later opens of either find it.
#[test]
fn copy_to_a_new_store_without_a_keyring_shares_the_sources_key_file() {
    let m = Machine::new();
    let (out, _) = m.ok(&["--db", "a.db", "new", "--name", "x", "--unbound"]);
    let id = out.trim().to_string();
    let files = m.key_files();
    assert_eq!(files.len(), 1);
    let (out, err) = m.ok(&["copy", "--from", "a.db", "--to", "b.db"]);
    assert_eq!(err, "");
    assert!(out.starts_with("copied "), "{out}");
    assert_eq!(m.key_files(), files, "no second key file");
    let (out, _) = m.ok(&["--db", "b.db", "doctor", "--json"]);
    let st: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((st["key_backend"].as_str(), st["key_file"].as_str(), st["sessions"].as_u64()), (Some("file"), files[0].to_str(), Some(1)));
    let (out, _) = m.ok(&["--db", "b.db", "list", "--all", "--json"]);
    assert!(out.contains(&id), "{out}");
}
