//! CLI checks from an adversarial review (both were bugs, fixed).
use std::process::Command;

fn run(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::fs::write(dir.join("k"), "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n").unwrap();
    Command::new(env!("CARGO_BIN_EXE_sessiondb")).current_dir(dir).arg("--key-file").arg("k").args(args).output().unwrap()
}

/// A read command on an empty (0-byte) --db file turns it into a database
/// (with OsKeyring it would also create a data key).
#[test]
fn read_command_on_an_empty_db_file_creates_nothing() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("s.db"), b"").unwrap();
    let o = run(d.path(), &["--db", "s.db", "list", "--all"]);
    let len = std::fs::metadata(d.path().join("s.db")).unwrap().len();
    assert_eq!(len, 0, "list initialised the empty file (exit {:?})", o.status.code());
}

/// Control characters in a path are echoed raw (terminal escapes) in the
/// missing-db message and in the import report, while session references are escaped.
#[test]
fn paths_in_messages_have_control_characters_escaped() {
    let d = tempfile::tempdir().unwrap();
    let o = run(d.path(), &["--db", "a\x1b[31m\n/s.db", "list", "--all"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(!String::from_utf8_lossy(&o.stderr).contains('\x1b'), "missing-db message: {:?}", String::from_utf8_lossy(&o.stderr));
    std::fs::create_dir(d.path().join("w")).unwrap();
    std::fs::write(d.path().join("w").join("x\x1b]0;pwn\x07.jsonl"), "{\"foo\":1}\n").unwrap();
    let o = run(d.path(), &["--db", "i.db", "import", "w"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains('\x1b'), "import report: {out:?}");
}
