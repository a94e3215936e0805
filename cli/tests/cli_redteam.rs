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
