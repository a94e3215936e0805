//! Schema version 6's layout (issue 12): import record identities in sets,
//! token rows keyed by session, and the pages one append writes to the WAL.
use sessiondb::store::schema;
use sessiondb::*;

fn key(b: u8) -> DataKey {
    DataKey::from_bytes(&[b; 32]).unwrap()
}

fn temp() -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("state").join("sessions.db");
    (d, p)
}

fn open(p: &std::path::Path, compress: bool) -> SessionStore {
    SessionStore::open(OpenOptions { compress, ..OpenOptions::at(p, KeySource::Bytes(key(1))) }).unwrap()
}

fn count(p: &std::path::Path, sql: &str) -> i64 {
    rusqlite::Connection::open(p).unwrap().query_row(sql, [], |r| r.get(0)).unwrap()
}

/// An import stores its record identities as one `import_record_sets` row
/// per batch (16 bytes a record); importing the same file again adds no
/// row, and deleting the session removes them.
#[test]
fn an_import_writes_one_record_set_per_batch_and_delete_removes_it() {
    let (d, p) = temp();
    let s = open(&p, true);
    let header = r#"{"type":"header","id":"sess-00000000000000cc","model":"m","cwd":"/tmp/p","created_at":1700000000}"#;
    let turn = |role: &str, text: &str, ts: i64| serde_json::json!({"type": role, "content": [{"type": "text", "text": text}], "timestamp": ts}).to_string();
    let file = d.path().join("a.jsonl");
    std::fs::write(&file, format!("{header}\n{}\n{}\n{}\n", turn("user", "one", 1), turn("assistant", "two", 2), turn("user", "three", 3))).unwrap();
    let sets = || -> Vec<(String, i64, i64)> {
        let c = rusqlite::Connection::open(&p).unwrap();
        let v = c
            .prepare("SELECT session_id, n, length(ids) FROM import_record_sets ORDER BY session_id, n")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(|x| x.unwrap())
            .collect();
        v
    };
    let sid = "sess-00000000000000cc".to_string();
    assert_eq!(sessiondb::portable::import_file(&s, &file, None).unwrap().sessions[0].entries, 3);
    assert_eq!(sets(), vec![(sid.clone(), 1, 3 * 16)]);
    let copy = d.path().join("b.jsonl");
    std::fs::copy(&file, &copy).unwrap();
    assert_eq!(sessiondb::portable::import_file(&s, &copy, None).unwrap().sessions[0].entries, 0);
    assert_eq!(sets(), vec![(sid.clone(), 1, 3 * 16)]);
    assert_eq!(count(&p, "SELECT COUNT(*) FROM import_records"), 3);
    s.delete_session(&sid).unwrap();
    assert_eq!(sets(), vec![]);
}

/// WAL frames one single small append commits while no page splits: the
/// entry's leaf, its body's leaf and the journal's three b-trees (the table
/// and the two indexes its seed DDL implies): 5 frames of 4,120 bytes. The
/// journal alone is 3 frames, 12,360 bytes: over the 12 KiB of issue 12's
/// goal on 4 KiB pages whatever the transcript's layout.
#[test]
fn a_small_append_writes_five_pages_to_the_wal() {
    let (_d, p) = temp();
    let s = open(&p, true);
    let a = s.create_session(None, None).unwrap();
    s.append_transcript(&a.id, Role::User, "warm-up".into()).unwrap();
    let wal = || std::fs::metadata(format!("{}-wal", p.display())).unwrap().len();
    let page = count(&p, "PRAGMA page_size") as u64;
    assert_eq!(page, 4096);
    let body: String = (0..1024).map(|i| (b'a' + (i * 7 % 26) as u8) as char).collect();
    let mut frames = Vec::new();
    for _ in 0..3 {
        let before = wal();
        // An entry time before the session's activity time: the session row
        // (and its two indexes) stays as it is, whatever the clock did.
        s.append_entries(&a.id, vec![NewEntry { created_at_ms: Some(1), ..NewEntry::text(Role::User, body.clone()) }]).unwrap();
        frames.push((wal() - before) / (page + 24));
    }
    assert_eq!(frames, vec![5, 5, 5]);
}

/// Migration 6 moves version 5's `import_records` rows (one per record)
/// into `import_record_sets` (per session, up to 512 ids of 16 bytes a
/// row, in byte order) without the key, leaving out a damaged one (not 16
/// bytes); `import_records` remains as a view giving the same rows.
#[test]
fn migration_6_moves_import_records_into_sets_and_keeps_a_view() {
    let (_d, p) = temp();
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let id = |s: u8, i: u32| {
        let mut v = vec![s; 16];
        v[12..].copy_from_slice(&i.to_be_bytes());
        v
    };
    let mut want: Vec<(String, Vec<u8>)> = Vec::new();
    {
        let mut c = rusqlite::Connection::open(&p).unwrap();
        assert_eq!(schema::migrate_to(&mut c, 5).unwrap(), 5);
        // Inserted out of order: the sets hold them in byte order.
        for i in (0..4098u32).rev() {
            want.push(("s1".into(), id(1, i)));
        }
        for i in 0..3u32 {
            want.push(("s2".into(), id(2, i)));
        }
        let tx = c.transaction().unwrap();
        for (s, r) in &want {
            tx.execute("INSERT INTO import_records (session_id, record_id) VALUES (?1, ?2)", rusqlite::params![s, r]).unwrap();
        }
        // A damaged record (15 bytes) is left out.
        tx.execute("INSERT INTO import_records (session_id, record_id) VALUES ('s2', zeroblob(15))", []).unwrap();
        tx.commit().unwrap();
        assert_eq!(schema::migrate(&mut c).unwrap(), 6);
    }
    want.sort();
    let c = rusqlite::Connection::open(&p).unwrap();
    let sets: Vec<(String, i64, i64)> = c
        .prepare("SELECT session_id, n, length(ids) FROM import_record_sets ORDER BY session_id, n")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(|x| x.unwrap())
        .collect();
    let mut expected: Vec<(String, i64, i64)> = (1..=8).map(|n| ("s1".to_string(), n, 512 * 16)).collect();
    expected.extend([("s1".into(), 9, 2 * 16), ("s2".into(), 1, 3 * 16)]);
    assert_eq!(sets, expected);
    let first: Vec<u8> = c.query_row("SELECT substr(ids, 1, 16) FROM import_record_sets WHERE session_id = 's1' AND n = 2", [], |r| r.get(0)).unwrap();
    assert_eq!(first, id(1, 512));
    let view: Vec<(String, Vec<u8>)> = c
        .prepare("SELECT session_id, record_id FROM import_records ORDER BY session_id, record_id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(|x| x.unwrap())
        .collect();
    assert_eq!(view.len(), 4101);
    assert_eq!(view, want);
    let kind: String = c.query_row("SELECT type FROM sqlite_master WHERE name = 'import_records'", [], |r| r.get(0)).unwrap();
    assert_eq!(kind, "view");
}

/// Migration 6 keys `token_ledger` by `(session_id, id)` (no separate index)
/// and keeps every row and its id; new rows number on from their session's
/// largest id, and totals add up as before.
#[test]
fn migration_6_keys_token_rows_by_session_and_keeps_their_ids() {
    let (_d, p) = temp();
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let rows = |c: &rusqlite::Connection| -> Vec<(String, i64, i64)> {
        let v = c
            .prepare("SELECT session_id, id, input FROM token_ledger ORDER BY session_id, id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(|x| x.unwrap())
            .collect();
        v
    };
    {
        let mut c = rusqlite::Connection::open(&p).unwrap();
        assert_eq!(schema::migrate_to(&mut c, 5).unwrap(), 5);
        for (sid, input) in [("s1", 10), ("s2", 20), ("s1", 30)] {
            c.execute(
                "INSERT INTO token_ledger (session_id, model, provider, input, output, cached, created_at) VALUES (?1, 'm', 'p', ?2, 1, 0, 5)",
                rusqlite::params![sid, input],
            )
            .unwrap();
        }
        assert_eq!(schema::migrate(&mut c).unwrap(), 6);
        assert_eq!(rows(&c), vec![("s1".into(), 1, 10), ("s1".into(), 3, 30), ("s2".into(), 2, 20)]);
        let indexes: i64 = c.query_row("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'token_ledger'", [], |r| r.get(0)).unwrap();
        assert_eq!(indexes, 0, "the key is the table's own b-tree; token_ledger_by_session is gone");
    }
    let (_d2, p2) = temp();
    let s = open(&p2, true);
    let a = s.create_session(None, None).unwrap();
    let b = s.create_session(None, None).unwrap();
    let usage = |input: u64| TokenUsage { input, output: 2, cached: 1, model: None, provider: None };
    s.record_tokens(&a.id, usage(5)).unwrap();
    s.record_tokens(&b.id, usage(7)).unwrap();
    s.record_tokens(&a.id, usage(11)).unwrap();
    let c = rusqlite::Connection::open(&p2).unwrap();
    let mut want = vec![(a.id.clone(), 1, 5), (a.id.clone(), 2, 11), (b.id.clone(), 1, 7)];
    want.sort();
    assert_eq!(rows(&c), want);
    let t = s.token_totals(&a.id).unwrap();
    assert_eq!((t.input, t.output, t.cached), (16, 4, 2));
}
