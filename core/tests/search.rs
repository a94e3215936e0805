//! Search across the encrypted history (issue 26): a fixed corpus with
//! fixed queries and their exact hits, the query language's errors, the
//! canary scan of the index, deletion and retraction, a damaged index, two
//! handles and two processes, and SIGKILL during indexing. The test binary
//! re-executes itself as a child (SEARCH_CHILD=append|rebuild).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use sessiondb::*;

const KEY: [u8; 32] = [5u8; 32];

fn open(path: &Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, KeySource::Bytes(DataKey::from_bytes(&KEY).unwrap()))).unwrap()
}

#[test]
fn child_entry() {
    let Ok(what) = std::env::var("SEARCH_CHILD") else { return };
    let db = PathBuf::from(std::env::var("SEARCH_DB").unwrap());
    let store = open(&db);
    match what.as_str() {
        "append" => {
            let sid = std::env::var("SEARCH_SID").unwrap();
            store.append_transcript(&sid, Role::User, "written by the child process: quokka".into()).unwrap();
        }
        "rebuild" => {
            store.rebuild_search_index(&mut |_, _| {}).unwrap();
        }
        _ => panic!("unknown child"),
    }
}

fn child(what: &str, db: &Path, envs: &[(&str, &str)]) -> std::process::Child {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", "child_entry", "--nocapture", "--test-threads=1"]).env("SEARCH_CHILD", what).env("SEARCH_DB", db);
    for (k, v) in envs {
        c.env(k, v);
    }
    c.stdout(Stdio::null()).stderr(Stdio::inherit()).spawn().unwrap()
}

/// `(session, seq)` of every hit, in order.
fn keys(r: &SearchResults) -> Vec<(String, u64)> {
    r.hits.iter().map(|h| (h.session_id.clone(), h.seq)).collect()
}

fn find(store: &SessionStore, q: &str) -> Vec<(String, u64)> {
    let mut k = keys(&store.search(q, &SearchOptions { limit: Some(100), ..Default::default() }).unwrap());
    k.sort();
    k
}

struct Corpus {
    _dir: tempfile::TempDir,
    db: PathBuf,
    store: SessionStore,
    a: String,
    b: String,
}

const DAY: i64 = 86_400_000;

/// Two sessions: `a` (titled, bound to a workspace, model opus) and `b`.
fn corpus() -> Corpus {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let store = open(&db);
    let ws = dir.path().join("proj");
    std::fs::create_dir_all(&ws).unwrap();
    let a = store
        .create_session_with(NewSession {
            name: Some("Flaky migration hunt".into()),
            workspace_path: Some(ws.to_string_lossy().into_owned()),
            model: Some("claude-opus".into()),
            ..Default::default()
        })
        .unwrap()
        .id;
    let b = store.create_session(None, None).unwrap().id;
    let at = |role, content: &str, day: i64| NewEntry { created_at_ms: Some(1_767_225_600_000 + day * DAY), ..NewEntry::text(role, content) };
    let blocks = |content: &str, day: i64| NewEntry { format: ContentFormat::Blocks, ..at(Role::Assistant, content, day) };
    store
        .append_entries(
            &a,
            vec![
                at(Role::User, "Why does retry_busy fail in openDatabase?", 0),
                blocks(r#"[{"type":"thinking","thinking":"Probably the busy handler."},{"type":"text","text":"Look at core/src/store/mod.rs first."},{"type":"tool_use","id":"t1","name":"grep","input":{"pattern":"ERR_SOCKET_TIMEOUT"}}]"#, 1),
                NewEntry { format: ContentFormat::Blocks, ..at(Role::Tool, r#"[{"type":"tool_result","tool_use_id":"t1","content":"src/net.rs:12: ERR_SOCKET_TIMEOUT at 0x7f3a"}]"#, 1) },
                at(Role::Assistant, "The flaky migration is fixed: exact phrase here. Café au lait.", 2),
            ],
        )
        .unwrap();
    store
        .append_entries(
            &b,
            vec![
                at(Role::User, "数据库迁移失败了 😀 please retry", 5),
                at(Role::Assistant, "Migration retried; the exact words differ. Retrying helps.", 6),
                at(Role::System, "system notice about migration", 7),
            ],
        )
        .unwrap();
    Corpus { _dir: dir, db, store, a, b }
}

#[test]
fn fixed_queries_give_exact_hits() {
    let c = corpus();
    let (a, b) = (c.a.clone(), c.b.clone());
    let s = &c.store;
    let e = |sid: &str, seqs: &[u64]| seqs.iter().map(|q| (sid.to_string(), *q)).collect::<Vec<_>>();
    let ab = |x: Vec<(String, u64)>, y: Vec<(String, u64)>| {
        let mut v = [x, y].concat();
        v.sort();
        v
    };
    // Identifiers: split and whole.
    assert_eq!(find(s, "retry_busy"), e(&a, &[1]));
    assert_eq!(find(s, "busy"), e(&a, &[1, 2]), "the word and the part of retry_busy; thinking is searched");
    assert_eq!(find(s, "opendatabase"), e(&a, &[1]));
    assert_eq!(find(s, "database"), e(&a, &[1]));
    assert_eq!(find(s, "OpenDatabase"), e(&a, &[1]));
    // Paths and error codes as written.
    assert_eq!(find(s, "core/src/store/mod.rs"), e(&a, &[2]));
    assert_eq!(find(s, "store"), e(&a, &[2]));
    assert_eq!(find(s, "ERR_SOCKET_TIMEOUT"), e(&a, &[2, 3]));
    assert_eq!(find(s, "socket"), e(&a, &[2, 3]));
    assert_eq!(find(s, "0x7f3a"), e(&a, &[3]));
    // Phrases, prefixes, exclusion, OR.
    assert_eq!(find(s, "\"exact phrase\""), e(&a, &[4]));
    assert_eq!(find(s, "exact"), ab(e(&a, &[4]), e(&b, &[2])));
    assert_eq!(find(s, "retr*"), ab(e(&a, &[1]), e(&b, &[1, 2])));
    assert_eq!(find(s, "migration -flaky"), ab(e(&b, &[2, 3]), vec![]));
    // Excluded phrases (CJK words are phrases of their characters).
    assert_eq!(find(s, "retry -迁移"), e(&a, &[1]));
    assert_eq!(find(s, "migration -\"flaky migration\""), e(&b, &[2, 3]));
    assert_eq!(find(s, "retr* -\"please retry\""), ab(e(&a, &[1]), e(&b, &[2])));
    assert_eq!(find(s, "flaky OR retried"), ab(e(&a, &[0, 4]), e(&b, &[2])), "the title is a hit (seq 0)");
    // Folding: case and diacritics.
    assert_eq!(find(s, "CAFE"), e(&a, &[4]));
    assert_eq!(find(s, "café"), e(&a, &[4]));
    // CJK: a word is a phrase of its characters; one character alone matches too.
    assert_eq!(find(s, "迁移"), e(&b, &[1]));
    assert_eq!(find(s, "数据库迁移"), e(&b, &[1]));
    assert_eq!(find(s, "库据"), vec![]);
    // Filters.
    assert_eq!(find(s, "migration role:system"), e(&b, &[3]));
    assert_eq!(find(s, "migration role:user role:system"), e(&b, &[3]));
    assert_eq!(find(s, &format!("migration session:{b}")), e(&b, &[2, 3]));
    assert_eq!(find(s, "migration model:Claude-Opus"), e(&a, &[0, 4]));
    assert_eq!(find(s, "migration after:2026-01-06"), ab(e(&a, &[0]), e(&b, &[2, 3])), "entry times: day 5 is 2026-01-06; a title has its session's last activity (now)");
    assert_eq!(find(s, "migration before:2026-01-06"), e(&a, &[4]));
    assert_eq!(find(s, "grep in:tool"), e(&a, &[2]));
    assert_eq!(find(s, "ERR_SOCKET_TIMEOUT in:output"), e(&a, &[3]));
    assert_eq!(find(s, "busy in:thinking"), e(&a, &[2]));
    assert_eq!(find(s, "hunt in:title"), e(&a, &[0]));
    let ws = c.db.parent().unwrap().join("proj").to_string_lossy().into_owned();
    let opts = |p: &str| SearchOptions { workspace_path: Some(p.into()), limit: Some(100), ..Default::default() };
    let mut k = keys(&s.search("migration workspace:current", &opts(&ws)).unwrap());
    k.sort();
    assert_eq!(k, e(&a, &[0, 4]));
    let mut k = keys(&s.search("migration workspace:unbound", &opts(&ws)).unwrap());
    k.sort();
    assert_eq!(k, e(&b, &[2, 3]));
    let mut k = keys(&s.search("migration workspace:other", &opts(&ws)).unwrap());
    k.sort();
    assert_eq!(k, vec![]);
    // Roles, times and fields of a hit.
    let r = s.search("0x7f3a", &SearchOptions::default()).unwrap();
    assert_eq!(r.total, 1);
    let h = &r.hits[0];
    assert_eq!((h.role.as_deref(), h.time_ms, h.field.as_str()), (Some("tool"), 1_767_225_600_000 + DAY, "output"));
    assert_eq!(h.snippet, "src/net.rs:12: ERR_SOCKET_TIMEOUT at 0x7f3a");
    assert_eq!(h.highlights, vec![Highlight { start: 37, end: 43 }]);
}

#[test]
fn highlights_in_each_host_unit() {
    let c = corpus();
    for (unit, want) in [(OffsetUnit::Utf8, (37u32, 42u32)), (OffsetUnit::CodePoint, (18, 23)), (OffsetUnit::Utf16, (19, 24))] {
        let r = c.store.search_in_units("retry", &SearchOptions::default(), unit).unwrap();
        let h = r.hits.iter().find(|h| h.snippet.starts_with("数据库")).unwrap();
        assert_eq!(h.snippet, "数据库迁移失败了 😀 please retry");
        assert_eq!((h.highlights[0].start, h.highlights[0].end), want, "{unit:?}");
        // Each unit slices the snippet to the match.
        let got: String = match unit {
            OffsetUnit::Utf8 => h.snippet[want.0 as usize..want.1 as usize].to_string(),
            OffsetUnit::CodePoint => h.snippet.chars().skip(want.0 as usize).take((want.1 - want.0) as usize).collect(),
            OffsetUnit::Utf16 => String::from_utf16(&h.snippet.encode_utf16().collect::<Vec<_>>()[want.0 as usize..want.1 as usize]).unwrap(),
        };
        assert_eq!(got, "retry");
    }
}

#[test]
fn pages_and_sessions_mode() {
    let c = corpus();
    let s = &c.store;
    let p1 = s.search("migration", &SearchOptions { limit: Some(3), ..Default::default() }).unwrap();
    assert_eq!((p1.total, p1.hits.len()), (4, 3));
    let p2 = s.search("migration", &SearchOptions { limit: Some(3), cursor: p1.next_cursor.clone(), ..Default::default() }).unwrap();
    assert_eq!((p2.hits.len(), p2.next_cursor.is_none()), (1, true));
    let mut all: Vec<_> = [keys(&p1), keys(&p2)].concat();
    all.sort();
    all.dedup();
    assert_eq!(all, find(s, "migration"));
    assert_eq!(all.len(), 4);
    let e = s.search("migration", &SearchOptions { cursor: p1.next_cursor.clone(), limit: Some(2), sessions: true, ..Default::default() }).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    let r = s.search("migration", &SearchOptions { sessions: true, ..Default::default() }).unwrap();
    assert_eq!(r.total, 2);
    let mut sids: Vec<_> = r.hits.iter().map(|h| h.session_id.clone()).collect();
    sids.sort();
    let mut want = vec![c.a.clone(), c.b.clone()];
    want.sort();
    assert_eq!(sids, want);
}

#[test]
fn bad_and_absurd_queries_are_invalid_input() {
    let c = corpus();
    for (q, msg) in [
        ("\"open", "invalid input: search query: unclosed quote at character 1"),
        ("x role:bot", "invalid input: search query: role must be user, assistant, tool or system at character 8"),
        ("x OR", "invalid input: search query: OR needs a word after it at character 3"),
    ] {
        let e = c.store.search(q, &SearchOptions::default()).unwrap_err();
        assert_eq!((e.kind(), e.to_string()), (ErrorKind::InvalidInput, msg.to_string()));
    }
    let t = std::time::Instant::now();
    let many = vec!["word"; 10_000].join(" ");
    assert_eq!(c.store.search(&many, &SearchOptions::default()).unwrap_err().kind(), ErrorKind::InvalidInput);
    let huge = "a".repeat(1 << 20);
    assert_eq!(c.store.search(&huge, &SearchOptions::default()).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert!(t.elapsed() < Duration::from_secs(2), "refused quickly: {:?}", t.elapsed());
    assert_eq!(c.store.search("x", &SearchOptions { limit: Some(0), ..Default::default() }).unwrap_err().kind(), ErrorKind::InvalidInput);
}

/// Every byte under `dir` (db, -wal, -shm and the index folder), recursively.
fn all_bytes(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(all_bytes(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
        }
    }
    out
}

fn assert_no_canary(dir: &Path, canaries: &[&str], state: &str) {
    let files = all_bytes(dir);
    assert!(files.iter().any(|(p, _)| p.to_string_lossy().contains(".search")), "{state}: the index folder exists");
    for (p, bytes) in files {
        for c in canaries {
            for form in [c.to_string(), c.to_lowercase()] {
                assert!(!bytes.windows(form.len()).any(|w| w == form.as_bytes()), "{state}: `{form}` in {}", p.display());
            }
        }
    }
}

/// Is `word` in a term dictionary of the decrypted index (deleted documents included)?
fn plaintext_has(store: &SessionStore, word: &str) -> bool {
    store.search_index_has_term(word).unwrap()
}

#[test]
fn canaries_never_on_disk_and_deleted_content_leaves_the_index() {
    let c = corpus();
    let dir = c.db.parent().unwrap().to_path_buf();
    let s = &c.store;
    let doomed = s.create_session(Some("Title Zanzibarcanary".into()), None).unwrap().id;
    s.append_transcript(&doomed, Role::User, "secret Xylophonecanary tokens".into()).unwrap();
    let kept = s.append_transcript(&c.b, Role::User, "Quetzalcanary then retracted".into()).unwrap();
    assert_eq!(find(s, "xylophonecanary"), vec![(doomed.clone(), 1)]);
    assert_eq!(find(s, "zanzibarcanary"), vec![(doomed.clone(), 0)]);
    assert_eq!(find(s, "quetzalcanary"), vec![(c.b.clone(), kept.seq)]);
    let canaries = ["Xylophonecanary", "Zanzibarcanary", "Quetzalcanary"];
    assert_no_canary(&dir, &canaries, "indexed");
    // The decrypted index holds the terms (so the scan below is not vacuous).
    assert!(plaintext_has(s, "xylophonecanary"));
    s.delete_session(&doomed).unwrap();
    s.retract_entry(&c.b, kept.seq).unwrap();
    assert_eq!(find(s, "xylophonecanary"), vec![]);
    assert_eq!(find(s, "zanzibarcanary"), vec![]);
    assert_eq!(find(s, "quetzalcanary"), vec![]);
    assert_no_canary(&dir, &canaries, "after delete");
    // The merge that followed the deletes took the postings out of the files.
    for w in ["xylophonecanary", "zanzibarcanary", "quetzalcanary"] {
        assert!(!plaintext_has(s, w), "`{w}` still in the decrypted index after the merge");
    }
    assert!(plaintext_has(s, "migration"), "the rest is still indexed");
    s.close();
    assert_no_canary(&dir, &canaries, "closed");
}

#[test]
fn a_damaged_index_is_rebuilt_and_answers_exactly() {
    let c = corpus();
    let s = &c.store;
    let want = find(s, "migration");
    assert_eq!(want.len(), 4);
    let idx = PathBuf::from(format!("{}.search", c.db.display()));
    let mut files: Vec<_> = std::fs::read_dir(&idx).unwrap().flatten().map(|e| e.path()).filter(|p| !p.to_string_lossy().ends_with(".lock")).collect();
    files.sort_by_key(|p| std::fs::metadata(p).unwrap().len());
    let biggest = files.last().unwrap().clone();
    // A flipped byte in the biggest file, then in a fresh handle (no cached chunks).
    let mut b = std::fs::read(&biggest).unwrap();
    let mid = b.len() / 2;
    b[mid] ^= 0x40;
    std::fs::write(&biggest, &b).unwrap();
    let s2 = open(&c.db);
    assert_eq!(find(&s2, "migration"), want);
    // Truncated meta.json, then every file gone.
    let meta = idx.join("meta.json");
    let m = std::fs::read(&meta).unwrap();
    std::fs::write(&meta, &m[..m.len() - 5]).unwrap();
    let s3 = open(&c.db);
    assert_eq!(find(&s3, "migration"), want);
    std::fs::remove_dir_all(&idx).unwrap();
    let s4 = open(&c.db);
    assert_eq!(find(&s4, "migration"), want);
    // The rebuild on purpose.
    let r = s4.rebuild_search_index(&mut |_, _| {}).unwrap();
    assert_eq!(r.documents, 9, "7 entries and 2 titles");
    assert_eq!(find(&s4, "migration"), want);
}

#[test]
fn another_handle_and_another_process_are_found_by_the_next_search() {
    let c = corpus();
    let other = open(&c.db);
    assert_eq!(find(&other, "wombat"), vec![]);
    let e = c.store.append_transcript(&c.a, Role::User, "a wombat appears".into()).unwrap();
    assert_eq!(find(&other, "wombat"), vec![(c.a.clone(), e.seq)]);
    c.store.rename_session(&c.b, Some("Numbat notes".into())).unwrap();
    assert_eq!(find(&other, "numbat"), vec![(c.b.clone(), 0)]);
    assert_eq!(find(&c.store, "numbat"), vec![(c.b.clone(), 0)]);
    let st = child("append", &c.db, &[("SEARCH_SID", &c.b)]).wait().unwrap();
    assert!(st.success());
    assert_eq!(find(&c.store, "quokka"), vec![(c.b.clone(), 4)]);
    assert_eq!(find(&other, "quokka"), vec![(c.b.clone(), 4)]);
}

#[test]
fn sigkill_during_indexing_then_the_next_search_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let store = open(&db);
    let mut want = Vec::new();
    for s in 0..20 {
        let sid = store.create_session(None, None).unwrap().id;
        let entries: Vec<NewEntry> = (0..150).map(|i| NewEntry::text(Role::User, format!("entry {i} of session {s}: the common word kiwifruit and filler {}", "lorem ipsum ".repeat(20)))).collect();
        for e in store.append_entries(&sid, entries).unwrap() {
            want.push((sid.clone(), e.seq));
        }
    }
    want.sort();
    for delay in [30u64, 120, 400] {
        let mut c = child("rebuild", &db, &[]);
        std::thread::sleep(Duration::from_millis(delay));
        let _ = c.kill();
        c.wait().unwrap();
        let s = open(&db);
        let r = s.search("kiwifruit", &SearchOptions { limit: Some(1000), ..Default::default() }).unwrap();
        let mut got = keys(&r);
        got.sort();
        assert_eq!((r.total, got.len()), (3000, 1000), "killed after {delay} ms");
        let mut all = got;
        let mut cur = r.next_cursor;
        while let Some(cu) = cur {
            let r = s.search("kiwifruit", &SearchOptions { limit: Some(1000), cursor: Some(cu), ..Default::default() }).unwrap();
            all.extend(keys(&r));
            cur = r.next_cursor;
        }
        all.sort();
        assert_eq!(all, want, "killed after {delay} ms");
    }
}

#[test]
fn excluded_phrases_are_exact_over_many_documents() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("sessions.db"));
    let sid = store.create_session(None, None).unwrap().id;
    let entries: Vec<NewEntry> = (0..600)
        .map(|i| {
            let text = match i % 3 {
                0 => format!("gamma {i} alpha beta 数据库"),
                1 => format!("gamma {i} beta alpha 数据"),
                _ => format!("gamma {i} alpha x beta 库"),
            };
            NewEntry::text(Role::User, text)
        })
        .collect();
    store.append_entries(&sid, entries).unwrap();
    let all = |q: &str| {
        let mut out = Vec::new();
        let mut cursor = None;
        loop {
            let r = store.search(q, &SearchOptions { limit: Some(1000), cursor, ..Default::default() }).unwrap();
            out.extend(r.hits.iter().map(|h| h.seq));
            cursor = r.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
        out.sort();
        out
    };
    let not0: Vec<u64> = (0..600u64).filter(|i| i % 3 != 0).map(|i| i + 1).collect();
    assert_eq!(all("gamma -\"alpha beta\""), not0);
    assert_eq!(all("gamma -数据库"), not0);
    let only1: Vec<u64> = (0..600u64).filter(|i| i % 3 == 1).map(|i| i + 1).collect();
    assert_eq!(all("\"beta alpha\" -数据库 -库"), only1);
}

mod search_support;

#[test]
fn search_conformance_cases() {
    let dirs = std::sync::Mutex::new(Vec::new());
    search_support::run_search_cases(&|| {
        let d = tempfile::tempdir().unwrap();
        let s = open(&d.path().join("sessions.db"));
        dirs.lock().unwrap().push(d);
        s
    });
}
