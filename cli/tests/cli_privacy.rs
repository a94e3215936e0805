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

/// A 4 KiB body appended with `--no-compress` or by default (issue 30:
/// off for a database file too) is stored as `v` = 1, with `--compress` as
/// `v` = 2; the last of the two flags given wins.
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
    assert_eq!(versions(&d.path().join("s.db")), vec![1, 2, 1, 1, 2]);
    let o = run(d.path(), &["--json", "show", &id], None);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let contents: Vec<&str> = j["transcript"].as_array().unwrap().iter().map(|e| e["content"].as_str().unwrap()).collect();
    assert_eq!(contents, vec![body.as_str(); 5]);
}

/// Run `sessiondb ARGS` in `dir` with stdin from `stdin`, killed after 120 s
/// (a guard against the old unbounded read, not a timing assertion: a run
/// that needed it fails on its exit status).
fn run_guarded(dir: &Path, args: &[&str], stdin: Stdio) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sessiondb"))
        .current_dir(dir)
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while c.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = c.kill();
    c.wait_with_output().unwrap()
}

fn json_error(o: &Output) -> serde_json::Value {
    serde_json::from_slice::<serde_json::Value>(&o.stderr).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&o.stderr)))["error"].clone()
}

/// `--key-file /dev/zero` read without bound until killed; now it reads at
/// most 4 KiB and fails with InvalidInput (exit 2), creating nothing.
#[cfg(unix)]
#[test]
fn a_key_file_larger_than_4k_is_invalid_input_not_an_endless_read() {
    let d = dir_with_key();
    let o = run_guarded(d.path(), &["--json", "--key-file", "/dev/zero", "--db", "s.db", "new"], Stdio::null());
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let e = json_error(&o);
    assert_eq!(e["kind"], "InvalidInput");
    assert_eq!(
        e["message"],
        "invalid input: the --key-file is larger than 4096 bytes: not a key file (it holds the 32-byte data key as base64, 44 characters)"
    );
    assert!(!d.path().join("s.db").exists());
    // 4096 bytes (the key, then padding newlines) is still read.
    let mut k = std::fs::read_to_string(d.path().join("k")).unwrap();
    k.push_str(&"\n".repeat(4096 - k.len()));
    std::fs::write(d.path().join("k4"), &k).unwrap();
    let o = run_guarded(d.path(), &["--key-file", "k4", "--db", "s.db", "new"], Stdio::null());
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    // A recovery key on stdin is bounded the same way.
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let o = run_guarded(d.path(), &["--json", "--key-file", "k", "--db", "s.db", "key", "import"], Stdio::from(zero));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(json_error(&o)["message"], "invalid input: more than 4096 bytes on stdin: not a recovery key");
}

/// A FIFO (or a device) given to import was walked as a directory ("Not a
/// directory"), and read as a file could block forever; now it is a failed
/// file whose message says it is not a regular file, and nothing blocks.
#[cfg(unix)]
#[test]
fn a_fifo_or_device_given_to_import_is_not_a_regular_file() {
    let d = dir_with_key();
    assert!(Command::new("mkfifo").arg(d.path().join("pipe.jsonl")).status().unwrap().success());
    for path in ["pipe.jsonl", "/dev/zero"] {
        let o = run_guarded(d.path(), &["--json", "--key-file", "k", "--db", "s.db", "import", path], Stdio::null());
        assert_eq!(o.status.code(), Some(7), "{path}: {}", String::from_utf8_lossy(&o.stderr));
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(
            report["files"][0]["status"]["failed"],
            format!("`{path}`: invalid input: not a regular file: a FIFO, socket or device cannot be read as a session file (copy it to a file first)")
        );
    }
}

/// `prune`: refuses to run without a limit; `--dry-run` lists exactly what
/// the real run deletes; each deletion is in the session's journal with its
/// reason; named and newest sessions are kept.
#[test]
fn prune_dry_run_lists_what_prune_deletes_and_the_journal_keeps_the_reason() {
    let d = dir_with_key();
    for (id, t) in [("old1", 1_700_000_000), ("old2", 1_700_100_000)] {
        std::fs::write(
            d.path().join(format!("{id}.jsonl")),
            format!(
                "{{\"type\":\"header\",\"id\":\"{id}\",\"model\":\"m\",\"cwd\":\"/w\",\"created_at\":{t}}}\n\
                 {{\"type\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"hi\"}}],\"timestamp\":{}}}\n",
                t + 1
            ),
        )
        .unwrap();
    }
    assert_eq!(run(d.path(), &["import", "old1.jsonl", "old2.jsonl"], None).status.code(), Some(0));
    assert_eq!(run(d.path(), &["new", "--name", "named"], None).status.code(), Some(0));
    assert_eq!(run(d.path(), &["new"], None).status.code(), Some(0));
    let o = run(d.path(), &["--json", "prune"], None);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(json_error(&o)["message"], "invalid input: prune needs a limit: --max-age-days N and/or --max-sessions N");
    let lines = |verb: &str| {
        format!(
            "{verb} old1  max_age_days  last activity 2023-11-14T22:13:21Z  1 entries\n\
             {verb} old2  max_age_days  last activity 2023-11-16T02:00:01Z  1 entries\n"
        )
    };
    let o = run(d.path(), &["prune", "--max-age-days", "30", "--dry-run"], None);
    assert_eq!(String::from_utf8(o.stdout).unwrap(), lines("would delete") + "2 session(s) would be deleted (dry run)\n");
    let o = run(d.path(), &["--json", "prune", "--max-sessions", "1", "--dry-run"], None);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let got: Vec<(&str, &str)> = j["sessions"].as_array().unwrap().iter().map(|p| (p["session_id"].as_str().unwrap(), p["reason"].as_str().unwrap())).collect();
    assert_eq!(got, [("old1", "max_sessions"), ("old2", "max_sessions")]);
    assert_eq!(j["dry_run"], true);
    let o = run(d.path(), &["prune", "--max-age-days", "30"], None);
    assert_eq!(String::from_utf8(o.stdout).unwrap(), lines("deleted") + "2 session(s) deleted\n");
    let o = run(d.path(), &["--json", "journal", "old1"], None);
    let ev: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let last = ev.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["kind"], "SessionDeleted");
    assert_eq!(last["payload"], serde_json::json!({"entries": 1, "reason": "max_age_days", "title": null, "updated_at_ms": 1_700_000_001_000i64}));
    let o = run(d.path(), &["--json", "list", "--all"], None);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j.as_array().map_or_else(|| j["sessions"].as_array().unwrap().len(), Vec::len), 2);
}

/// Issue 30 item 2 in the CLI: `--redact on-write` stores markers and says
/// so on stderr; the thClaws export is exact by default and redacted with
/// `--redact on-export`; the Markdown export redacts unless `--no-redact`;
/// `copy` refuses with on-export (it cannot redact ciphertext).
#[test]
fn redact_policies_in_the_cli() {
    const GH: &str = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5";
    let d = dir_with_key();
    let text = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
    let err = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
    let o = run(d.path(), &["new", "--unbound"], None);
    let id = text(&o).trim().to_string();
    // Off (default): stored exactly, exported exactly.
    let o = run(d.path(), &["append", &id, &format!("token {GH}")], None);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(err(&o), "");
    let o = run(d.path(), &["export", &id, "-o", "-"], None);
    assert!(text(&o).contains(GH));
    // On export: markers, and the report.
    let o = run(d.path(), &["--redact", "on-export", "export", &id, "-o", "-"], None);
    assert!(!text(&o).contains(GH) && text(&o).contains("[REDACTED:github-pat:"), "{}", text(&o));
    assert_eq!(err(&o), "redacted 1 secret(s): github-pat ×1\n");
    let o = run(d.path(), &["--redact", "on-export", "export", &id, "-o", "-", "--no-redact"], None);
    assert!(text(&o).contains(GH));
    // Markdown: redacted whatever the policy, unless --no-redact.
    let o = run(d.path(), &["export", &id, "-o", "-", "--format", "markdown"], None);
    assert!(!text(&o).contains(GH) && text(&o).contains("[REDACTED:github-pat:"), "{}", text(&o));
    let o = run(d.path(), &["export", &id, "-o", "-", "--format", "markdown", "--no-redact"], None);
    assert!(text(&o).contains(GH));
    // `md` is `markdown`; JSON follows the policy like thClaws JSONL.
    let o = run(d.path(), &["export", &id, "-o", "-", "--format", "md"], None);
    assert_eq!((text(&o).contains(GH), err(&o)), (false, "redacted 1 secret(s): github-pat ×1\n".to_string()));
    let o = run(d.path(), &["export", &id, "-o", "-", "--format", "json"], None);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((j["id"].as_str(), j["turns"][0]["blocks"].clone(), err(&o)), (Some(id.as_str()), serde_json::json!([{"type": "text", "text": format!("token {GH}")}]), String::new()));
    let o = run(d.path(), &["--redact", "on-export", "export", &id, "-o", "-", "--format", "json"], None);
    assert!(!text(&o).contains(GH) && text(&o).contains("[REDACTED:github-pat:"), "{}", text(&o));
    let o = run(d.path(), &["export", &id, "-o", "-", "--format", "html"], None);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    // On write: the stored content holds the marker.
    let o = run(d.path(), &["--redact", "on-write", "--json", "append", &id, &format!("again {GH}")], None);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let r: serde_json::Value = serde_json::from_str(err(&o).trim()).unwrap();
    assert_eq!(r, serde_json::json!({"kind": "Redacted", "total": 1, "by_rule": {"github-pat": 1}}));
    let o = run(d.path(), &["--json", "show", &id], None);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let second = j["transcript"][1]["content"].as_str().unwrap();
    assert!(second.starts_with("again [REDACTED:github-pat:") && !second.contains(GH), "{second}");
    // A bad policy is exit 2; copy with on-export is refused.
    assert_eq!(run(d.path(), &["--redact", "sometimes", "list", "--all"], None).status.code(), Some(2));
    let o = run(d.path(), &["--redact", "on-export", "copy", "--from", "s.db", "--to", "t.db"], None);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(!d.path().join("t.db").exists());
}

/// Run `sessiondb --json --key-file k --db DB ARGS` in `dir` under an
/// address-space limit of `limit_mib` MiB (`prlimit --as`, set by the test)
/// through GNU `time`, which writes the child's peak RSS in KiB to `rss`.
/// Returns the output and the peak RSS in KiB.
#[cfg(target_os = "linux")]
fn run_limited(dir: &Path, limit_mib: u64, db: &str, args: &[&str]) -> (Output, u64) {
    let rss = dir.join("rss");
    let o = Command::new("prlimit")
        .current_dir(dir)
        .arg(format!("--as={}", limit_mib << 20))
        .args(["--", "/usr/bin/time", "-f", "%M", "-o"])
        .arg(&rss)
        .arg(env!("CARGO_BIN_EXE_sessiondb"))
        .args(["--json", "--key-file", "k", "--db", db])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let peak = std::fs::read_to_string(&rss).unwrap().lines().last().unwrap().trim().parse().unwrap();
    (o, peak)
}

/// `(line, reason)` of every skipped line of file `i` of an import report.
fn skipped(report: &serde_json::Value, i: usize) -> Vec<(u64, String)> {
    report["files"][i]["read"]["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["line"].as_u64().unwrap(), s["reason"].to_string()))
        .collect()
}

/// Issue 30 item 5, with the memory limit set by the test: `import` of a
/// 2 GiB sparse file of NULs (the red-team pass saw 2 GiB of RSS, killed)
/// and of a file with a 300 MB line (a 580 MB peak) runs under a 256 MiB
/// address-space limit, with exact reports: the NULs are refused at their
/// first byte (not a session file), the long line is skipped as too long
/// with its line number and the lines around it are imported; a smaller
/// `--max-line-bytes` skips a shorter line, and 0 is `InvalidInput`.
#[cfg(target_os = "linux")]
#[test]
fn import_stays_within_a_memory_limit_for_a_2gib_file_of_nuls_and_a_300mb_line() {
    use std::io::Write;
    let d = dir_with_key();
    let header = r#"{"type":"header","id":"sess-00000000000000bb","model":"m","cwd":"/w","created_at":1700000000}"#;
    let user = |t: &str, ts: u64| format!(r#"{{"type":"user","content":[{{"type":"text","text":"{t}"}}],"timestamp":{ts}}}"#);
    std::fs::File::create(d.path().join("nuls.jsonl")).unwrap().set_len(2 << 30).unwrap();
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(d.path().join("long.jsonl")).unwrap());
        writeln!(f, "{header}\n{}", user("before", 1700000001)).unwrap();
        f.write_all(br#"{"type":"user","content":[{"type":"text","text":""#).unwrap();
        let chunk = vec![b'y'; 1 << 20];
        for _ in 0..300 {
            f.write_all(&chunk).unwrap();
        }
        writeln!(f, r#""}}],"timestamp":1700000002}}"#).unwrap();
        writeln!(f, "{}", user("after", 1700000003)).unwrap();
    }
    const LIMIT_MIB: u64 = 256;
    // The NULs: not a session file (exit 2, the explicit path's failure).
    let (o, peak_nuls) = run_limited(d.path(), LIMIT_MIB, "s.db", &["import", "nuls.jsonl"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(json_error(&o)["message"], "invalid input: not a thClaws, Codex, Claude Code, Gemini CLI or opencode session file: nuls.jsonl");
    // The 300 MB line: skipped as line 3, the lines around it imported.
    let (o, peak_long) = run_limited(d.path(), LIMIT_MIB, "s.db", &["import", "long.jsonl"]);
    eprintln!("import under --as={LIMIT_MIB} MiB: peak RSS {peak_nuls} KiB (2 GiB of NULs), {peak_long} KiB (300 MB line)");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["files"][0]["status"], "imported", "{report}");
    assert_eq!(skipped(&report, 0), vec![(3, "\"too_long\"".to_string())]);
    assert_eq!(report["files"][0]["sessions"][0]["entries"], 2);
    assert!(peak_nuls < LIMIT_MIB << 10 && peak_long < LIMIT_MIB << 10, "peak RSS {peak_nuls} / {peak_long} KiB");
    // The limit is what bounds it: with the line limit at 1 GiB the same
    // import runs out of the address space and aborts (SIGABRT: `time`
    // exits 128 + 6), so the test above can fail.
    let (o, _) = run_limited(d.path(), LIMIT_MIB, "v.db", &["--max-line-bytes", "1073741824", "import", "long.jsonl"]);
    assert_eq!(o.status.code(), Some(134), "{}", String::from_utf8_lossy(&o.stderr));

    // Configurable: a 2,000-byte line is too long for --max-line-bytes 1000.
    std::fs::write(d.path().join("small.jsonl"), format!("{header}\n{}\n{}\n", user(&"z".repeat(2000), 1700000004), user("kept", 1700000005))).unwrap();
    let (o, _) = run_limited(d.path(), LIMIT_MIB, "t.db", &["--max-line-bytes", "1000", "import", "small.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((skipped(&report, 0), report["files"][0]["sessions"][0]["entries"].clone()), (vec![(2, "\"too_long\"".to_string())], serde_json::json!(1)));
    let (o, _) = run_limited(d.path(), LIMIT_MIB, "u.db", &["--max-line-bytes", "0", "import", "small.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(json_error(&o)["message"], "invalid input: max_line_bytes must be 1..=1073741824 bytes, got 0");
    assert!(!d.path().join("u.db").exists());
}

/// Every 32-byte window at offsets 0, 32, ... and the last of each of `blobs`.
fn windows32(blobs: &[Vec<u8>]) -> std::collections::BTreeSet<Vec<u8>> {
    let mut out = std::collections::BTreeSet::new();
    for b in blobs.iter().filter(|b| b.len() >= 32) {
        out.extend(b.chunks_exact(32).map(<[u8]>::to_vec));
        out.insert(b[b.len() - 32..].to_vec());
    }
    out
}

/// The windows of `needles` found anywhere in any file under `dir`.
fn found(dir: &Path, needles: &std::collections::BTreeSet<Vec<u8>>) -> std::collections::BTreeSet<Vec<u8>> {
    let mut hits = std::collections::BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                hits.extend(bytes.windows(32).filter(|w| needles.contains(*w)).map(<[u8]>::to_vec));
            }
        }
    }
    hits
}

/// Issue 30 "Deletion leaves nothing", through the CLI: after `sessiondb
/// search` built the index, `sessiondb delete` (a process that never
/// searches) leaves none of the session's stored envelopes and none of the
/// sealed index files that held its postings in any file of the directory
/// (db, -wal, -shm, `s.db.search/`): every piece is found before, none after.
#[test]
fn cli_delete_leaves_no_envelope_and_no_old_index_file_byte() {
    let d = dir_with_key();
    let id = String::from_utf8(run(d.path(), &["new", "--name", "Zanzibarcanary plans", "--unbound"], None).stdout).unwrap().trim().to_string();
    // Under a page (1 KiB): no 32-byte window of it straddles two pages.
    let body = "tool output with Xylophonecanary in it\n".repeat(10);
    assert_eq!(run(d.path(), &["append", &id, "--role", "tool"], Some(&body)).status.code(), Some(0));
    let o = run(d.path(), &["--json", "search", "xylophonecanary"], None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let db = d.path().join("s.db");
    let envelopes: Vec<Vec<u8>> = {
        let c = rusqlite::Connection::open(&db).unwrap();
        let mut v: Vec<Vec<u8>> = c.query_row("SELECT name_enc FROM sessions WHERE id = ?1", [&id], |r| r.get(0)).map(|x| vec![x]).unwrap();
        v.extend(
            c.prepare("SELECT content_enc FROM entry_envelopes WHERE session_id = ?1").unwrap().query_map([&id], |r| r.get::<_, Vec<u8>>(0)).unwrap().map(|x| x.unwrap()),
        );
        v
    };
    let index: Vec<Vec<u8>> = std::fs::read_dir(d.path().join("s.db.search"))
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .filter(|b| b.len() > 8)
        .map(|b| b[8..].to_vec())
        .collect();
    let (envs, index) = (windows32(&envelopes), windows32(&index));
    assert_eq!((found(d.path(), &envs).len(), found(d.path(), &index).len()), (envs.len(), index.len()), "before");
    eprintln!("before delete: {} envelope pieces, {} index file pieces found", envs.len(), index.len());
    let o = run(d.path(), &["delete", &id], None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!((found(d.path(), &envs).len(), found(d.path(), &index).len()), (0, 0), "after delete");
    let o = run(d.path(), &["--json", "search", "xylophonecanary OR zanzibarcanary"], None);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["hits"], serde_json::json!([]));
}

/// `append` with its content on stdin reads at most `--max-line-bytes`
/// (default 64 MiB, the import line limit) and one byte more: `append <
/// /dev/zero` was read until memory ran out; now it is `InvalidInput`, exit
/// 2, and nothing is appended. Exactly the limit is appended.
#[cfg(unix)]
#[test]
fn append_from_an_endless_stdin_is_refused_and_appends_nothing() {
    let d = dir_with_key();
    let id = String::from_utf8(run(d.path(), &["new", "--unbound"], None).stdout).unwrap().trim().to_string();
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let o = run_guarded(d.path(), &["--json", "--key-file", "k", "--db", "s.db", "append", &id], Stdio::from(zero));
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(json_error(&o)["message"], "invalid input: content on stdin is over 67108864 bytes (--max-line-bytes): nothing was appended");
    let o = run(d.path(), &["--max-line-bytes", "10", "append", &id], Some("0123456789"));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(d.path(), &["--json", "--max-line-bytes", "10", "append", &id], Some("0123456789x"));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(json_error(&o)["message"], "invalid input: content on stdin is over 10 bytes (--max-line-bytes): nothing was appended");
    let o = run(d.path(), &["--json", "show", &id], None);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let contents: Vec<&str> = j["transcript"].as_array().unwrap().iter().map(|e| e["content"].as_str().unwrap()).collect();
    assert_eq!(contents, vec!["0123456789"]);
}
