//! CLI checks from the red-team pass of 2026-12-01 (each was a bug, fixed).
use std::process::Command;

/// A PostgreSQL URL without a host (`postgres://`, `postgres://@/`) was a
/// `Database` error ("postgres: invalid configuration", exit 1) where every
/// other malformed URL is invalid input (exit 2).
#[test]
fn a_postgres_url_without_a_host_is_invalid_input() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("k"), "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.path().join("k"), std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    for url in ["postgres://", "postgres://@/", "postgresql:///db"] {
        let o = Command::new(env!("CARGO_BIN_EXE_sessiondb"))
            .current_dir(d.path())
            .args(["--key-file", "k", "--json", "--db", url, "list", "--all"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{url}: {}", String::from_utf8_lossy(&o.stderr));
        let err: serde_json::Value = serde_json::from_slice(&o.stderr).unwrap();
        assert_eq!(err["error"]["kind"], "InvalidInput", "{url}");
        assert_eq!(
            err["error"]["message"],
            "invalid input: the PostgreSQL URL names no host (postgres://user[:password]@host[:port]/database[?options])"
        );
    }
}

/// `show` printed stored text raw: an imported session file (or any host
/// write) with terminal escapes in a turn or in its `cwd` ran them in the
/// user's terminal (OSC 52 writes the clipboard, `ESC[2J` clears the screen,
/// a bare `\r` overwrites a line). Control characters other than newline and
/// tab are now escaped in the text output; `--json` and `export` are unchanged.
#[test]
fn show_escapes_terminal_control_characters_in_contents_and_workspace() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("k"), "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.path().join("k"), std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    std::fs::write(
        d.path().join("evil.jsonl"),
        "{\"type\":\"header\",\"id\":\"evil\",\"cwd\":\"/w\\u001b[2J\",\"created_at\":1}\n\
         {\"type\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\\u001b]52;c;cm0gLXJmIH4=\\u0007\\r\\nline\\ttab\"}],\"timestamp\":1}\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sessiondb")).current_dir(d.path()).args(["--key-file", "k", "--db", "s.db"]).args(args).output().unwrap()
    };
    assert_eq!(run(&["import", "evil.jsonl"]).status.code(), Some(0));
    let o = run(&["show", "evil"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    // The title (the first prompt, on one line), the workspace and the turn, escaped.
    assert_eq!(
        out,
        "evil  hi\\u{1b}]52;c;cm0gLXJmIH4=\\u{7} line tab\n\
         model - · 1 entries · last activity 1970-01-01T00:00:01Z\n\
         workspace: /w\\u{1b}[2J\n\
         tokens: input 0 · output 0 · cached 0\n\
         \n\
         #1 user · 1970-01-01T00:00:01Z\n\
         \x20 hi\\u{1b}]52;c;cm0gLXJmIH4=\\u{7}\n\
         \x20 line\ttab\n"
    );
    // --raw: the stored text with its escapes (a lone \r shown as \r).
    let raw = String::from_utf8(run(&["show", "evil", "--raw"]).stdout).unwrap();
    assert!(raw.ends_with("--- #1 user (1970-01-01T00:00:01Z)\nhi\\u{1b}]52;c;cm0gLXJmIH4=\\u{7}\\r\nline\ttab\n"), "{raw:?}");
    for text in [&out, &raw] {
        assert!(!text.contains('\x1b') && !text.contains('\r') && !text.contains('\x07'), "{text:?}");
    }
    // The stored text is unchanged: --json gives it verbatim.
    let j: serde_json::Value = serde_json::from_slice(&run(&["--json", "show", "evil"]).stdout).unwrap();
    assert_eq!(j["transcript"][0]["content"], "hi\x1b]52;c;cm0gLXJmIH4=\x07\r\nline\ttab");
}
