//! Failure cases from real use (issue "Nothing lost under real use"):
//! ids that look alike, a full disk, damaged rows.

use std::path::{Path, PathBuf};
use std::process::Command;

use sessiondb::*;

fn key() -> KeySource {
    KeySource::Bytes(DataKey::from_bytes(&[3u8; 32]).unwrap())
}

fn open(path: &Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, key())).unwrap()
}

fn new_session(s: &SessionStore, id: &str) -> Result<SessionRecord> {
    s.create_session_with(NewSession { id: Some(id.to_string()), ..Default::default() })
}

#[test]
fn session_ids_that_look_like_other_ids_are_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    assert_eq!(new_session(&s, "caf\u{e9}").unwrap().id, "café");
    // Decomposed é: not NFC.
    for bad in [
        "cafe\u{301}",
        "a\u{200b}b",
        "a\u{200c}b",
        "a\u{200d}b",
        "a\u{200e}b",
        "a\u{200f}b",
        "a\u{202a}b",
        "a\u{202e}b",
        "a\u{2066}b",
        "a\u{2069}b",
        "\u{feff}ab",
        "a\u{2060}b",
        "a\u{61c}b",
    ] {
        let e = new_session(&s, bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{bad:?}: {e}");
    }
    assert_eq!(s.list_sessions(None).unwrap().len(), 1);
    // The same rule for a fork's parent and for operation ids.
    let e = s.dispatch_operation("café", "op\u{200b}1", serde_json::json!({})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
}

/// A tmpfs of `size` mounted on a fresh directory, unmounted on drop.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(size: &str) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            eprintln!("SKIP: cannot mount a small tmpfs here (needs root); the full-disk case is not run");
            return None;
        }
        Some(SmallDisk { dir })
    }
    fn path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
fn a_full_disk_is_io_saying_so_and_every_acknowledged_append_survives() {
    let Some(disk) = SmallDisk::mount("3m") else { return };
    let db = disk.path().join("sessions.db");
    let s = open(&db);
    let id = s.create_session(None, None).unwrap().id;
    // Leave little room: a filler file that is removed later.
    let filler = disk.path().join("filler");
    std::fs::write(&filler, vec![1u8; 1536 * 1024]).unwrap();
    let mut acked = Vec::new();
    let err = loop {
        let text = format!("{:04} {}", acked.len(), "x".repeat(4000));
        match s.append_transcript(&id, Role::User, text.clone()) {
            Ok(e) => acked.push((e.seq, text)),
            Err(e) => break e,
        }
        assert!(acked.len() < 10_000, "the disk never filled");
    };
    assert_eq!(err.kind(), ErrorKind::Io, "{err:?}");
    assert!(err.to_string().contains("the disk is full"), "{err}");
    let Error::Io { source, .. } = &err else { unreachable!() };
    assert_eq!(source.kind(), std::io::ErrorKind::StorageFull);
    assert_eq!(source.raw_os_error(), Some(28));
    assert!(acked.len() > 10, "only {} appends fitted", acked.len());
    drop(s);
    std::fs::remove_file(&filler).unwrap();
    let s = open(&db);
    let got = s.get_transcript(&id, 1, 10_000).unwrap();
    assert_eq!(got.len(), acked.len());
    for (e, (seq, text)) in got.iter().zip(&acked) {
        assert_eq!((e.seq, &e.content), (*seq, text));
    }
    // And writing works again.
    assert_eq!(s.append_transcript(&id, Role::User, "after".into()).unwrap().seq, acked.len() as u64 + 1);
}

/// Overwrite one column of one row through a separate connection.
fn damage(db: &Path, sql: &str) {
    let c = rusqlite::Connection::open(db).unwrap();
    c.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    assert_eq!(c.execute(sql, []).unwrap(), 1, "{sql}");
}

fn three_sessions(s: &SessionStore) -> Vec<String> {
    ["alpha", "beta", "gamma"]
        .iter()
        .map(|t| {
            let id = s.create_session(Some(t.to_string()), Some("/tmp".into())).unwrap().id;
            s.append_transcript(&id, Role::User, format!("hello from {t}")).unwrap();
            id
        })
        .collect()
}

#[test]
fn one_damaged_title_never_hides_the_other_sessions() {
    let cases = [
        ("NUL bytes", "CAST(zeroblob(40) AS TEXT)", "Corrupt"),
        ("empty string", "''", "Corrupt"),
        ("zero-filled BLOB", "zeroblob(64)", "Corrupt"),
        ("a number", "42", "Corrupt"),
        ("another row's envelope", "(SELECT name_enc FROM sessions WHERE id = '{A}')", "AuthenticationFailed"),
    ];
    for (what, value, kind) in cases {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.db");
        let s = open(&db);
        let ids = three_sessions(&s);
        let (a, b, c) = (&ids[0], &ids[1], &ids[2]);
        damage(&db, &format!("UPDATE sessions SET name_enc = {} WHERE id = '{b}'", value.replace("{A}", a)));
        let list = s.list_sessions(None).unwrap();
        assert_eq!(list.len(), 3, "{what}");
        let damaged = list.iter().find(|x| &x.id == b).unwrap();
        assert_eq!(damaged.name, None, "{what}");
        assert_eq!(damaged.workspace_path.as_deref(), Some("/tmp"), "{what}");
        assert_eq!(damaged.unreadable.len(), 1, "{what}");
        let u = &damaged.unreadable[0];
        assert_eq!((u.field.as_str(), u.record_id.as_str(), u.kind.as_str()), ("name", format!("session:{b}:name").as_str(), kind), "{what}");
        assert!(list.iter().filter(|x| &x.id != b).all(|x| x.unreadable.is_empty() && x.name.is_some()), "{what}");
        // The others stay usable: by title, by workspace, their transcripts.
        assert_eq!(&s.find_session("gamma").unwrap().id, c, "{what}");
        assert_eq!(s.list_sessions_for_workspace(WorkspaceFilter::Current("/tmp".into()), None).unwrap().len(), 3);
        assert_eq!(s.get_transcript(a, 1, 10).unwrap()[0].content, "hello from alpha");
        // The damaged session itself is still usable, and a rename repairs it.
        assert_eq!(s.get_transcript(b, 1, 10).unwrap()[0].content, "hello from beta");
        let report = s.check_records().unwrap();
        assert_eq!(report.damaged.len(), 1, "{what}: {report:?}");
        assert_eq!(report.damaged[0].record_id, format!("session:{b}:name"));
        // 3 sessions x (name, workspace) + 3 entries + 3 x (SessionCreated, TranscriptAppended) events.
        assert_eq!(report.records, 3 * 2 + 3 + 3 * 2, "{what}: {report:?}");
        s.rename_session(b, Some("beta again".into())).unwrap();
        assert!(s.check_records().unwrap().damaged.is_empty());
    }
}

#[test]
fn damaged_entries_extensions_tokens_and_journal_payloads_are_typed_errors_naming_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let s = open(&db);
    let ids = three_sessions(&s);
    let (a, b) = (&ids[0], &ids[1]);
    s.append_transcript(a, Role::Assistant, "second".into()).unwrap();
    s.append_context_extension(a, "note", "{\"k\":1}").unwrap();
    s.record_tokens(a, TokenUsage { input: 5, output: 6, cached: 7, model: None, provider: None }).unwrap();
    let before = s.check_records().unwrap();
    assert_eq!(before.damaged, vec![]);

    // Transcript content: a zeroed BLOB, then another entry's envelope.
    let body = |seq: u32| format!("(SELECT body_id FROM transcript_entries WHERE session_id = '{a}' AND seq = {seq})");
    damage(&db, &format!("UPDATE entry_bodies SET content_enc = zeroblob(30) WHERE id = {}", body(1)));
    let e = s.get_transcript(a, 1, 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corrupt, "{e}");
    assert!(e.to_string().contains(&format!("transcript:{a}:1:content")), "{e}");
    damage(&db, &format!(
        "UPDATE entry_bodies SET content_enc = (SELECT content_enc FROM entry_bodies WHERE id = {}) WHERE id = {}",
        body(2),
        body(1)
    ));
    let e = s.get_transcript(a, 1, 10).unwrap_err();
    assert!(matches!(&e, Error::AuthenticationFailed { record } if *record == format!("transcript:{a}:1:content")), "{e:?}");
    // Other sessions' transcripts are untouched.
    assert_eq!(s.get_transcript(b, 1, 10).unwrap().len(), 1);

    damage(&db, &format!("UPDATE context_extensions SET body_enc = x'00' WHERE session_id = '{a}'"));
    let e = s.list_context_extensions(a).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corrupt);
    assert!(e.to_string().contains(&format!("ctxext:{a}:")), "{e}");

    damage(&db, &format!("UPDATE token_ledger SET input = 'many' WHERE session_id = '{a}'"));
    let e = s.token_totals(a).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corrupt);
    assert!(e.to_string().contains(&format!("tokens:{a}:")), "{e}");

    let event: String = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row(&format!("SELECT event_id FROM journal WHERE session_id = '{b}' ORDER BY seq LIMIT 1"), [], |r| r.get(0))
        .unwrap();
    damage(&db, &format!("UPDATE journal SET payload_json = zeroblob(8) WHERE event_id = '{event}'"));
    let e = s.journal_events(b, 1, 100).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corrupt);
    assert!(e.to_string().contains(&format!("journal:{event}:payload")), "{e}");

    let report = s.check_records().unwrap();
    let mut damaged: Vec<(String, String)> = report.damaged.iter().map(|d| (d.field.clone(), d.kind.clone())).collect();
    damaged.sort();
    assert_eq!(
        damaged,
        [("body", "Corrupt"), ("content", "AuthenticationFailed"), ("payload", "Corrupt"), ("tokens", "Corrupt")]
            .map(|(f, k)| (f.to_string(), k.to_string()))
    );
    assert_eq!(report.records, before.records);
    // Nothing changed: the same check twice gives the same report.
    assert_eq!(s.check_records().unwrap(), report);
}

#[test]
fn a_damaged_plaintext_column_never_hides_the_other_sessions() {
    let cases = [
        ("UPDATE sessions SET created_at = 'abc' WHERE id = '{B}'", "created_at"),
        ("UPDATE sessions SET model = zeroblob(3) WHERE id = '{B}'", "model"),
        ("UPDATE sessions SET forked_at_seq = 'x' WHERE id = '{B}'", "forked_at_seq"),
        ("UPDATE transcript_entries SET seq = 'x' WHERE session_id = '{B}' AND seq = 1", "entry_count"),
    ];
    for (sql, field) in cases {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.db");
        let s = open(&db);
        let ids = three_sessions(&s);
        damage(&db, &sql.replace("{B}", &ids[1]));
        let list = s.list_sessions(None).unwrap();
        assert_eq!(list.len(), 3, "{sql}");
        let bad = list.iter().find(|x| x.id == ids[1]).unwrap();
        assert_eq!(bad.unreadable.iter().map(|u| (u.field.as_str(), u.kind.as_str())).collect::<Vec<_>>(), [(field, "Corrupt")], "{sql}");
        assert_eq!(bad.unreadable[0].record_id, format!("session:{}", ids[1]));
        assert!(list.iter().filter(|x| x.id != ids[1]).all(|x| x.unreadable.is_empty()), "{sql}");
        assert_eq!(s.find_session("gamma").unwrap().id, ids[2]);
        let report = s.check_records().unwrap();
        assert!(report.damaged.iter().any(|d| d.field == field), "{sql}: {report:?}");
    }
}

#[test]
fn a_write_meeting_a_damaged_seq_is_corrupt_not_an_untyped_database_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let s = open(&db);
    let ids = three_sessions(&s);
    damage(&db, &format!("UPDATE journal SET seq = 'x' WHERE session_id = '{}' AND seq = 2", ids[0]));
    let e = s.append_transcript(&ids[0], Role::User, "more".into()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corrupt, "{e}");
    assert!(e.to_string().contains("doctor --check"), "{e}");
    // Nothing of it was written, and the other sessions still take appends.
    assert_eq!(s.get_transcript(&ids[0], 1, 10).unwrap().len(), 1);
    assert_eq!(s.append_transcript(&ids[1], Role::User, "fine".into()).unwrap().seq, 2);
}

#[test]
fn a_damaged_key_check_value_is_corrupt_naming_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    drop(open(&db));
    damage(&db, "UPDATE meta SET value = 'garbage' WHERE key = 'key_check'");
    let e = SessionStore::open(OpenOptions::at(&db, key())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corrupt);
    assert!(e.to_string().contains("meta:key-check"), "{e}");
}

/// A thClaws file whose id is a native session's (or a session imported
/// from another format) never adds its turns to that session.
#[test]
fn an_import_never_appends_to_a_session_it_did_not_create() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    new_session(&s, "native-1").unwrap();
    s.append_transcript("native-1", Role::User, "mine".into()).unwrap();
    let file = dir.path().join("t.jsonl");
    std::fs::write(
        &file,
        "{\"type\":\"header\",\"id\":\"native-1\",\"created_at\":1700000000}\n{\"type\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"timestamp\":1700000001}\n",
    )
    .unwrap();
    let e = sessiondb::portable::import_file(&s, &file, None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
    assert!(e.to_string().contains("was not imported from a thclaws file"), "{e}");
    let t = s.get_transcript("native-1", 1, 10).unwrap();
    assert_eq!(t.iter().map(|e| e.content.as_str()).collect::<Vec<_>>(), ["mine"]);
    // The same file under a fresh id imports, and again is up to date.
    std::fs::write(&file, std::fs::read_to_string(&file).unwrap().replace("native-1", "thc-1")).unwrap();
    let r = sessiondb::portable::import_file(&s, &file, None).unwrap();
    assert_eq!(r.sessions.iter().map(|x| x.entries).sum::<u64>(), 1);
    let again = sessiondb::portable::import_file(&s, &file, None).unwrap();
    assert_eq!(again.sessions.iter().map(|x| x.entries).sum::<u64>(), 0);
    assert_eq!(s.get_transcript("thc-1", 1, 10).unwrap().len(), 1);
}
