//! docs/search.md's shell block runs as written, and every line of its
//! query block is a valid query (issue 26 item 7: every code block of the
//! docs is run by a test).

use std::process::Command;

fn block(text: &str, lang: &str) -> String {
    let start = text.find(&format!("\n```{lang}\n")).unwrap_or_else(|| panic!("no ```{lang} block")) + lang.len() + 5;
    let end = start + text[start..].find("\n```").unwrap();
    text[start..end].to_string()
}

#[test]
fn the_shell_and_query_blocks_of_docs_search_md_run() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/search.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_sessiondb"), bin.join("sessiondb")).unwrap();
    std::fs::write(dir.path().join("key"), "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n").unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(dir.path().join("key"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let run = |script: &str| {
        Command::new("sh")
            .args(["-e", "-c", script])
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("SESSIONDB_DB", dir.path().join("sessions.db"))
            .env("SESSIONDB_KEY_FILE", dir.path().join("key"))
            .output()
            .unwrap()
    };
    let o = run(&block(&doc, "sh"));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("    retry_busy fails in openDatabase with ERR_SOCKET_TIMEOUT\n1 of 1 match(es)\n"), "{out}");
    assert!(out.contains("\"total\":1"), "{out}");
    assert!(out.contains("loaded Flaky migration hunt ("), "{out}");
    assert!(out.contains("indexed 2 documents"), "{out}");
    let queries = block(&doc, "search");
    assert_eq!(queries.lines().count(), 8);
    for q in queries.lines() {
        let o = run(&format!("sessiondb search --json '{q}'"));
        assert!(o.status.success(), "{q}: {}", String::from_utf8_lossy(&o.stderr));
    }
}
