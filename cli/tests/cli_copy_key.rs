//! `sessiondb copy` and `sessiondb key export|import` end to end (issue 13
//! items 7 and 8). The key-file runs need nothing else; the import into the
//! OS keyring runs under scripts/with-secret-service.sh --unlocked and skips
//! (saying so) without it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Base64 of the bytes 0..=31, and its recovery key (see core/tests/recovery_key.rs).
const KEY_B64: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const KEY_TEXT: &str = "AAAQ-EAYE-AUDA-OCAJ-BIFQ-YDIO-B4IB-CEQT-CQKR-MFYY-DENB-WHA5-DYPU-PUO5";
/// Another key: 32 bytes of 7.
const OTHER_B64: &str = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=";

struct Env {
    dir: tempfile::TempDir,
}

fn set_private(path: &Path) {
    #[cfg(unix)]
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
}

impl Env {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        for (name, k) in [("key", KEY_B64), ("other", OTHER_B64)] {
            std::fs::write(dir.path().join(name), format!("{k}\n")).unwrap();
            set_private(&dir.path().join(name));
        }
        Env { dir }
    }
    fn p(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    /// Run with `--key-file <key_file>` (none when `None`), the given stdin.
    fn run(&self, key_file: Option<&str>, args: &[&str], stdin: Option<&str>) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_sessiondb"));
        c.current_dir(self.dir.path());
        if let Some(k) = key_file {
            c.arg("--key-file").arg(self.p(k));
        }
        c.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        if let Some(s) = stdin {
            use std::io::Write;
            input.write_all(s.as_bytes()).unwrap();
        }
        drop(input);
        child.wait_with_output().unwrap()
    }
    fn ok(&self, key_file: Option<&str>, args: &[&str]) -> String {
        let o = self.run(key_file, args, None);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    }
    fn json(&self, key_file: Option<&str>, args: &[&str]) -> serde_json::Value {
        serde_json::from_str(&self.ok(key_file, args)).unwrap()
    }
}

/// The counts of a `copy --json` report, in a fixed order.
fn counts(r: &serde_json::Value) -> Vec<u64> {
    [
        "sessions_seen",
        "sessions_created",
        "sessions_updated",
        "sessions_deleted",
        "entries",
        "retractions",
        "tokens",
        "extensions",
        "events",
        "open_operations",
        "import_records",
    ]
    .iter()
    .map(|k| r[k].as_u64().unwrap_or_else(|| panic!("{k} in {r}")))
    .collect()
}

#[test]
fn copy_copies_then_nothing_then_only_new_rows_and_refuses_a_diverged_session_with_exit_4() {
    let e = Env::new();
    let k = Some("key");
    let id = e.ok(k, &["--db", "a.db", "new", "--name", "laptop", "--unbound"]).trim().to_string();
    e.ok(k, &["--db", "a.db", "append", &id, "one"]);
    e.ok(k, &["--db", "a.db", "append", &id, "--role", "assistant", "two"]);

    let r = e.json(k, &["--json", "copy", "--from", "a.db", "--to", "b.db"]);
    assert_eq!(counts(&r), [1, 1, 0, 0, 2, 0, 0, 0, 3, 0, 0], "{r}");
    assert_eq!(r["conflicts"], serde_json::json!([]));
    let shown = e.json(k, &["--db", "b.db", "--json", "show", &id]);
    assert_eq!(shown["transcript"][1]["content"], "two");
    assert_eq!(shown["session"]["name"], "laptop");

    let text = e.ok(k, &["copy", "--from", "a.db", "--to", "b.db"]);
    assert_eq!(
        text.trim(),
        "copied a.db → b.db: 1 session(s) seen, 0 created, 0 updated, 0 deleted; 0 entries, 0 retractions, 0 token rows, \
         0 extensions, 0 journal events, 0 open operations, 0 import records"
    );

    e.ok(k, &["--db", "a.db", "append", &id, "three"]);
    let r = e.json(k, &["--json", "copy", "--from", "a.db", "--to", "b.db"]);
    assert_eq!(counts(&r)[4..9], [1, 0, 0, 0, 1], "{r}");

    // Both sides write the session: refused, listed, exit 4; B unchanged.
    e.ok(k, &["--db", "b.db", "append", &id, "in B"]);
    e.ok(k, &["--db", "a.db", "append", &id, "in A"]);
    let o = e.run(k, &["copy", "--from", "a.db", "--to", "b.db"], None);
    assert_eq!(o.status.code(), Some(4));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains(&format!("refused {id} (Conflict): journal event at seq 5 differs")), "{out}");
    assert!(String::from_utf8(o.stderr).unwrap().contains("1 session(s) were refused"));
    let b = e.json(k, &["--db", "b.db", "--json", "show", &id]);
    assert_eq!(b["transcript"].as_array().unwrap().iter().map(|t| t["content"].as_str().unwrap()).collect::<Vec<_>>(), ["one", "two", "three", "in B"]);
}

#[test]
fn copy_into_a_store_with_another_key_exits_11_and_leaves_it_unchanged() {
    let e = Env::new();
    let id = e.ok(Some("key"), &["--db", "a.db", "new", "--unbound"]).trim().to_string();
    e.ok(Some("key"), &["--db", "a.db", "append", &id, "secret"]);
    let other = e.ok(Some("other"), &["--db", "b.db", "new", "--name", "B's own", "--unbound"]).trim().to_string();
    let before = std::fs::read(e.p("b.db")).unwrap();
    let o = e.run(Some("key"), &["--json", "copy", "--from", "a.db", "--to", "b.db"], None);
    assert_eq!(o.status.code(), Some(11));
    let err: serde_json::Value = serde_json::from_str(String::from_utf8(o.stderr).unwrap().trim()).unwrap();
    assert_eq!(err["error"]["kind"], "KeyMismatch");
    assert_eq!(std::fs::read(e.p("b.db")).unwrap(), before);
    let list = e.json(Some("other"), &["--db", "b.db", "--json", "list", "--all"]);
    assert_eq!(list.as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect::<Vec<_>>(), [other.as_str()]);
    // A missing source is exit 3 and creates nothing.
    let o = e.run(Some("key"), &["copy", "--from", "missing.db", "--to", "c.db"], None);
    assert_eq!(o.status.code(), Some(3));
    assert!(!e.p("missing.db").exists() && !e.p("c.db").exists());
}

#[test]
fn key_export_prints_the_recovery_key_and_warns_on_stderr() {
    let e = Env::new();
    e.ok(Some("key"), &["--db", "a.db", "new", "--unbound"]);
    let o = e.run(Some("key"), &["--db", "a.db", "key", "export"], None);
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), format!("{KEY_TEXT}\n"));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.starts_with("sessiondb: warning: this recovery key decrypts every session of this store"), "{err}");
    let j = e.json(Some("key"), &["--db", "a.db", "--json", "key", "export"]);
    assert_eq!(j["recovery_key"], KEY_TEXT);
    // No database: exit 3.
    assert_eq!(e.run(Some("key"), &["--db", "none.db", "key", "export"], None).status.code(), Some(3));
}

#[test]
fn key_import_refuses_a_typo_with_exit_2_and_key_bytes_as_a_target() {
    let e = Env::new();
    e.ok(Some("key"), &["--db", "a.db", "new", "--unbound"]);
    let typo = KEY_TEXT.replacen("AAAQ", "AAAR", 1);
    let o = e.run(None, &["--db", "a.db", "--app", "sessiondb-cli-typo", "key", "import", &typo], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8(o.stderr).unwrap().contains("recovery key checksum mismatch"));
    let o = e.run(Some("key"), &["--db", "a.db", "key", "import", KEY_TEXT], None);
    assert_eq!(o.status.code(), Some(2), "a --key-file is not a credential store");
}

#[test]
fn key_import_stores_the_key_in_the_secret_service_then_the_store_opens_without_a_key_file() {
    if std::env::var("SESSIONDB_SECRET_SERVICE").as_deref() != Ok("unlocked") {
        eprintln!("SKIP: not under scripts/with-secret-service.sh --unlocked (no private Secret Service)");
        return;
    }
    let e = Env::new();
    let app = format!("sessiondb-cli-import-{}", std::process::id());
    let id = e.ok(Some("key"), &["--db", "a.db", "new", "--name", "laptop", "--unbound"]).trim().to_string();
    // This machine has no key for the app yet: recovery locked.
    assert_eq!(e.run(None, &["--db", "a.db", "--app", &app, "list", "--all"], None).status.code(), Some(10));
    // Another database's recovery key: exit 11, nothing stored.
    e.ok(Some("other"), &["--db", "b.db", "new", "--unbound"]);
    let other = e.ok(Some("other"), &["--db", "b.db", "key", "export"]);
    let o = e.run(None, &["--db", "a.db", "--app", &app, "key", "import", other.trim()], None);
    assert_eq!(o.status.code(), Some(11), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(e.run(None, &["--db", "a.db", "--app", &app, "list", "--all"], None).status.code(), Some(10));
    // The right one, typed in lower case on stdin.
    let o = e.run(None, &["--db", "a.db", "--app", &app, "key", "import"], Some(&format!("{}\n", KEY_TEXT.to_lowercase())));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8(o.stdout).unwrap().contains("stored in Secret Service (D-Bus)"));
    let list = e.json(None, &["--db", "a.db", "--app", &app, "--json", "list", "--all"]);
    assert_eq!(list[0]["id"], id.as_str());
    assert_eq!(list[0]["name"], "laptop");
}
