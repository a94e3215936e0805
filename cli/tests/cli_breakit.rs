//! Break-it pass (issues 26, 27 and the headless key file): hostile key
//! files and hostile stored text, each found by running the CLI as a hostile
//! user would; exact outputs.

use std::path::Path;
use std::process::{Command, Output};

const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n";

fn sdb(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sessiondb"));
    c.current_dir(home).args(args);
    for v in ["DBUS_SESSION_BUS_ADDRESS", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "SESSIONDB_DB", "SESSIONDB_APP", "SESSIONDB_KEY_FILE", "SESSIONDB_NO_KEY_FILE", "SESSIONDB_TERM_WIDTH", "SESSIONDB_NOW_MS", "NO_COLOR"] {
        c.env_remove(v);
    }
    c.env("HOME", home).env("XDG_RUNTIME_DIR", home.join("run"));
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

const BAD_KEY_FILE: &str = "sessiondb: invalid input: the --key-file must hold the 32-byte data key as base64 (`sessiondb key init --file FILE` makes one)\n";

/// `--key-file /dev/zero` read the device until memory ran out (the process
/// was killed, exit 137); a huge file was read whole. Now at most 4097
/// bytes are read and the key is refused; a device gets no
/// "chmod 600 /dev/null" warning.
#[cfg(unix)]
#[test]
fn endless_or_huge_key_files_are_refused_without_reading_them_whole() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = h.join("s.db");
    let db = db.to_str().unwrap();
    let huge = h.join("huge.key");
    std::fs::write(&huge, "A".repeat(64 << 20)).unwrap();
    std::fs::set_permissions(&huge, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    // An endless or huge file is refused by its size (cli_privacy.rs has the
    // same message), an empty one as not base64 of 32 bytes.
    let too_big = "sessiondb: invalid input: the --key-file is larger than 4096 bytes: not a key file (it holds the 32-byte data key as base64, 44 characters)\n";
    for (f, want) in [("/dev/zero", too_big), ("/dev/null", BAD_KEY_FILE), (huge.to_str().unwrap(), too_big)] {
        let o = sdb(h, &["--db", db, "--key-file", f, "new", "--name", "x", "--unbound"], &[]);
        assert_eq!((o.status.code(), text(&o.stderr)), (Some(2), want.to_string()), "{f}");
    }
    assert!(!h.join("s.db").exists());
}

/// The headless key file of an existing database replaced by a link to
/// /dev/zero: KeyStoreUnavailable (exit 12) after reading 4097 bytes, not
/// an endless read.
#[cfg(unix)]
#[test]
fn a_headless_key_file_pointing_at_dev_zero_is_key_store_unavailable() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let o = sdb(h, &["new", "--name", "x", "--unbound"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let keys = h.join(".config/sessiondb/keys");
    let kf = std::fs::read_dir(&keys).unwrap().next().unwrap().unwrap().path();
    std::fs::remove_file(&kf).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &kf).unwrap();
    let o = sdb(h, &["list", "--all"], &[]);
    assert_eq!(
        (o.status.code(), text(&o.stderr)),
        (
            Some(12),
            format!(
                "sessiondb: key store unavailable: the key file {}: it does not hold the base64 of a 32-byte data key. restore the original key file; sessiondb never overwrites it\n",
                kf.display()
            )
        )
    );
}

/// Bidi controls (U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT
/// ISOLATE...) in a title or a turn were written raw by `list`, `show` and
/// `search`: the terminal then showed the rest of the line reversed (a
/// title could disguise what follows). Now escaped like control characters;
/// `--json` keeps the text as stored.
#[test]
fn bidi_controls_in_titles_and_text_are_escaped() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    std::fs::write(h.join("key"), KEY).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(h.join("key"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let db = h.join("s.db");
    let base = ["--db", db.to_str().unwrap(), "--key-file", h.join("key").to_str().unwrap().to_string().leak()];
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let all: Vec<&str> = base.iter().copied().chain(args.iter().copied()).collect();
        let o = sdb(h, &all, env);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        text(&o.stdout)
    };
    let id = run(&["new", "--name", "invoice \u{202e}fdp.exe\u{202c} ok", "--unbound"], &[]).trim().to_string();
    run(&["append", &id, "pay \u{2067}now\u{2069} \u{200f}please"], &[]);
    let term = [("SESSIONDB_TERM_WIDTH", "80"), ("SESSIONDB_NOW_MS", "1796406531600")];
    let list = run(&["list", "--all"], &term);
    // The time column depends on the clock of the machine that appended.
    let row = format!("{}  invoice \\u{{202e}}fdp.exe\\u{{202c}} ok  -  1 msg · ", &id[..13]);
    assert!(list.starts_with(&row) && list.lines().count() == 1, "{list}");
    let show = run(&["show", &id], &term);
    assert!(show.starts_with(&format!("{id}  invoice \\u{{202e}}fdp.exe\\u{{202c}} ok\n")), "{show}");
    assert!(show.contains("\n  pay \\u{2067}now\\u{2069} \\u{200f}please\n"), "{show}");
    let found = run(&["search", "please"], &[]);
    assert!(found.contains("\n    pay \\u{2067}now\\u{2069} \\u{200f}please\n"), "{found}");
    assert!(!list.contains('\u{202e}') && !show.contains('\u{202e}') && !show.contains('\u{2067}') && !found.contains('\u{2067}'));
    let json = run(&["--json", "show", &id], &[]);
    assert!(json.contains("fdp.exe\u{202c}") || json.contains("\\u202c"), "{json}");
}

/// `key init` (no --file) on a machine without a keyring told the user to
/// "unset SESSIONDB_NO_KEY_FILE", which was not set and would not have
/// helped (`key init` never makes a key file by itself). Now it names the
/// key file ways; nothing is created.
#[cfg(target_os = "linux")]
#[test]
fn key_init_without_a_keyring_names_the_key_file_remedy() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let o = sdb(h, &["key", "init"], &[]);
    assert_eq!(
        (o.status.code(), text(&o.stderr)),
        (
            Some(12),
            "sessiondb: key store unavailable: Secret Service (D-Bus): not running (no D-Bus session bus: a container, server, CI job or SSH session). \
             Create a key file instead (`sessiondb key init --file FILE`, then --key-file FILE), or let the first `sessiondb new` or `import` create the database and its key file\n"
                .to_string()
        )
    );
    assert!(!h.join(".config").exists());
}

/// A long model name (60 CJK characters, 120 columns) made `show`'s
/// header line 143 columns wide on an 80-column terminal; now the name is
/// cut to fit. Through a pipe nothing is cut.
#[test]
fn a_long_model_name_is_cut_to_the_terminal_width_in_show() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    std::fs::write(h.join("key"), KEY).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(h.join("key"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let db = h.join("s.db");
    let key = h.join("key");
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let all: Vec<&str> = ["--db", db.to_str().unwrap(), "--key-file", key.to_str().unwrap()].into_iter().chain(args.iter().copied()).collect();
        let o = sdb(h, &all, env);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        text(&o.stdout)
    };
    let model = "模".repeat(60);
    let id = run(&["new", "--unbound", "--model", &model], &[]).trim().to_string();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis().to_string();
    let term = run(&["show", &id], &[("SESSIONDB_TERM_WIDTH", "80"), ("SESSIONDB_NOW_MS", &now)]);
    let line = term.lines().nth(1).unwrap();
    // "model " (6) + the name cut to 37 columns ("模" x 18 and "…") + " · 0 entries · last activity just now" (37): 80.
    assert_eq!(line, format!("model {}… · 0 entries · last activity just now", "模".repeat(18)));
    let pipe = run(&["show", &id], &[]);
    assert!(pipe.lines().nth(1).unwrap().starts_with(&format!("model {model} · 0 entries")), "{pipe}");
}
