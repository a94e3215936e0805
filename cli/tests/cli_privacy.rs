//! CLI privacy switches and bounds (issue 30): `--compress` / `--no-compress`.
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A temp dir holding a 0600 key file `k`.
fn dir_with_key() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("k"), "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.path().join("k"), std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    d
}

/// Run `sessiondb --key-file k --db s.db ARGS` in `dir` with `stdin`.
fn run(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    use std::io::Write;
    let mut c = Command::new(env!("CARGO_BIN_EXE_sessiondb"))
        .current_dir(dir)
        .args(["--key-file", "k", "--db", "s.db"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = c.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    c.wait_with_output().unwrap()
}

/// The envelope version byte of every stored content, in seq order.
fn versions(db: &Path) -> Vec<u8> {
    let c = rusqlite::Connection::open(db).unwrap();
    let v: Vec<Vec<u8>> = c
        .prepare("SELECT content_enc FROM entry_envelopes ORDER BY seq")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|x| x.unwrap())
        .collect();
    v.iter().map(|e| e[0]).collect()
}

/// A 4 KiB body appended with `--no-compress` is stored as `v` = 1, with
/// `--compress` or by default (a database file) as `v` = 2; the last of the
/// two flags given wins.
#[test]
fn no_compress_stores_a_4k_body_uncompressed() {
    let d = dir_with_key();
    let body = "tool output line, repeated\n".repeat(152)[..4096].to_string();
    let o = run(d.path(), &["new"], None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let id = String::from_utf8(o.stdout).unwrap().trim().to_string();
    for flags in [&["--no-compress"][..], &["--compress"], &[], &["--compress", "--no-compress"], &["--no-compress", "--compress"]] {
        let args: Vec<&str> = flags.iter().copied().chain(["append", id.as_str()]).collect();
        let o = run(d.path(), &args, Some(&body));
        assert_eq!(o.status.code(), Some(0), "{flags:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
    assert_eq!(versions(&d.path().join("s.db")), vec![1, 2, 2, 1, 2]);
    let o = run(d.path(), &["--json", "show", &id], None);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let contents: Vec<&str> = j["transcript"].as_array().unwrap().iter().map(|e| e["content"].as_str().unwrap()).collect();
    assert_eq!(contents, vec![body.as_str(); 5]);
}
