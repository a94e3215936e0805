//! Every fenced code block of the README, `docs/*.md` and the package
//! READMEs (Python, npm, Kotlin, Swift) says how it is tested, in an HTML
//! comment on the line before its opening fence, and this test holds it to
//! that (issue 27 item 5: no block escapes):
//!
//! - `<!-- check: run-cli -->`: a shell block run here, as written, with
//!   `sessiondb` on `PATH` (this build), a fresh `HOME`, and the store in a
//!   temporary directory (`SESSIONDB_DB`, `SESSIONDB_KEY_FILE`); it must exit 0.
//! - `<!-- check: verbatim PATH -->`: a test file that runs the block as
//!   written; every non-blank line of the block is a line of PATH.
//! - `<!-- check: extracted PATH -->`: a test file that reads the block out
//!   of this document and runs it; PATH names this document.
//! - `<!-- check: same-as DOC -->`: the same block, character for character,
//!   is in DOC (whose blocks are checked in turn).
//! - `<!-- check: output -->`: not code: a usage synopsis or a sample of
//!   output (no language, or `text`).
//! - `<!-- check: not-run REASON -->`: a block this suite cannot run (a
//!   PostgreSQL server, two machines, the whole build), with the reason;
//!   they are counted and printed.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The documents whose blocks are checked.
fn documents() -> Vec<PathBuf> {
    let root = repo();
    let mut docs: Vec<PathBuf> = ["README.md", "python/README.md", "node/README.md", "bindings/kotlin/README.md", "bindings/swift/README.md"]
        .iter()
        .map(|p| root.join(p))
        .collect();
    let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

#[derive(Debug)]
struct Block {
    doc: PathBuf,
    line: usize,
    lang: String,
    text: String,
    check: Option<String>,
}

/// The fenced blocks of one document, each with the `check:` comment on the
/// line before it (if any).
fn blocks(doc: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(doc).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(lang) = lines[i].strip_prefix("```") {
            let start = i;
            let mut body = Vec::new();
            i += 1;
            while i < lines.len() && lines[i] != "```" {
                body.push(lines[i]);
                i += 1;
            }
            assert!(i < lines.len(), "{}:{}: unclosed code block", doc.display(), start + 1);
            let check = start
                .checked_sub(1)
                .and_then(|p| lines[p].trim().strip_prefix("<!-- check:"))
                .and_then(|c| c.strip_suffix("-->"))
                .map(|c| c.trim().to_string());
            out.push(Block { doc: doc.to_path_buf(), line: start + 1, lang: lang.trim().to_string(), text: body.join("\n") + "\n", check });
        }
        i += 1;
    }
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(repo()).unwrap_or(p).display().to_string()
}

/// Run a `run-cli` block in a fresh directory with this build's `sessiondb`.
fn run_cli(b: &Block) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = (dir.path().join("home"), dir.path().join("work"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let key = dir.path().join("key");
    std::fs::write(&key, "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n").unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_sessiondb")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()))).unwrap();
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!("set -euo pipefail\n{}", b.text))
        .current_dir(&work)
        .env("PATH", path)
        .env("HOME", &home)
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("SESSIONDB_DB", dir.path().join("db").join("sessions.db"))
        .env("SESSIONDB_KEY_FILE", &key)
        .output()
        .unwrap();
    if o.status.success() {
        Ok(())
    } else {
        Err(format!("exit {:?}\nstdout:\n{}\nstderr:\n{}", o.status.code(), String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
    }
}

/// Check one block against its `check:` comment.
fn check(b: &Block, all: &[Block]) -> Result<Option<String>, String> {
    let Some(c) = &b.check else {
        return Err("no `<!-- check: ... -->` comment on the line before it".into());
    };
    let (kind, arg) = c.split_once(' ').map_or((c.as_str(), ""), |(k, a)| (k, a.trim()));
    let file = |p: &str| -> Result<String, String> { std::fs::read_to_string(repo().join(p)).map_err(|e| format!("{p}: {e}")) };
    match kind {
        "run-cli" => {
            if b.lang != "sh" {
                return Err(format!("run-cli needs a sh block, not `{}`", b.lang));
            }
            run_cli(b).map(|()| None)
        }
        "verbatim" => {
            let text = file(arg)?;
            let lines: std::collections::HashSet<&str> = text.lines().map(str::trim).collect();
            let missing: Vec<&str> = b.text.lines().map(str::trim).filter(|l| !l.is_empty() && !lines.contains(l)).collect();
            if missing.is_empty() {
                Ok(None)
            } else {
                Err(format!("lines not in {arg}: {missing:#?}"))
            }
        }
        "extracted" => {
            let name = b.doc.file_name().unwrap().to_string_lossy().into_owned();
            if file(arg)?.contains(&name) {
                Ok(None)
            } else {
                Err(format!("{arg} does not read {name}"))
            }
        }
        "same-as" => {
            let other = repo().join(arg);
            if all.iter().any(|o| o.doc == other && o.text == b.text && o.lang == b.lang) {
                Ok(None)
            } else {
                Err(format!("no identical block in {arg}"))
            }
        }
        "output" => {
            if b.lang.is_empty() || b.lang == "text" {
                Ok(None)
            } else {
                Err(format!("an `output` block has no language (or `text`), not `{}`", b.lang))
            }
        }
        "not-run" if !arg.is_empty() => Ok(Some(arg.to_string())),
        _ => Err(format!("unknown check `{c}` (not-run needs a reason)")),
    }
}

#[test]
fn every_code_block_in_the_readme_docs_and_package_readmes_is_tested() {
    let all: Vec<Block> = documents().iter().flat_map(|d| blocks(d)).collect();
    assert!(all.len() >= 20, "{} blocks found", all.len());
    let mut failures = Vec::new();
    let mut not_run = Vec::new();
    for b in &all {
        match check(b, &all) {
            Ok(None) => {}
            Ok(Some(reason)) => not_run.push(format!("{}:{}: {reason}", rel(&b.doc), b.line)),
            Err(e) => failures.push(format!("{}:{} ({}): {e}", rel(&b.doc), b.line, b.lang)),
        }
    }
    eprintln!("{} code blocks; not run here ({}):\n  {}", all.len(), not_run.len(), not_run.join("\n  "));
    assert!(failures.is_empty(), "{} block(s) fail their check:\n{}", failures.len(), failures.join("\n\n"));
}

/// The checker itself: a block without a comment, an unknown kind, a
/// verbatim block whose line is missing, and a failing run-cli block fail.
#[test]
fn the_checker_refuses_what_it_should() {
    let doc = repo().join("README.md");
    let block = |check: Option<&str>, lang: &str, text: &str| Block {
        doc: doc.clone(),
        line: 1,
        lang: lang.into(),
        text: text.into(),
        check: check.map(str::to_string),
    };
    assert!(check(&block(None, "sh", "true\n"), &[]).is_err());
    assert!(check(&block(Some("maybe"), "sh", "true\n"), &[]).is_err());
    assert!(check(&block(Some("not-run"), "sh", "true\n"), &[]).is_err());
    assert!(check(&block(Some("output"), "python", "x\n"), &[]).is_err());
    assert!(check(&block(Some("verbatim cli/tests/doc_blocks.rs"), "rust", "fn repo() -> PathBuf {\nno such line here 1234\n"), &[]).is_err());
    assert!(check(&block(Some("verbatim cli/tests/doc_blocks.rs"), "rust", "fn repo() -> PathBuf {\n"), &[]).unwrap().is_none());
    assert!(check(&block(Some("run-cli"), "sh", "sessiondb show nope\n"), &[]).unwrap_err().contains("exit Some(3)"));
    assert!(check(&block(Some("run-cli"), "sh", "sessiondb new --name t >/dev/null\nsessiondb list --all | grep -q '  t · '\n"), &[]).unwrap().is_none());
    assert!(check(&block(Some("same-as README.md"), "sh", "not in the README\n"), &[]).is_err());
}
