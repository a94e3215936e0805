//! Schema version 6's layout (issue 12): import record identities in sets,
//! token rows keyed by session, and the pages one append writes to the WAL.
use sessiondb::backend::sqlite::schema;
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
    SessionStore::open(OpenOptions { compress: Some(compress), ..OpenOptions::at(p, KeySource::Bytes(key(1))) }).unwrap()
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
/// and the two indexes its seed DDL implies): 5 frames. On 4 KiB pages (a
/// database of an earlier build) that is 5 × 4,120 bytes, the journal alone
/// 12,360: over the 12 KiB of issue 12's goal whatever the transcript's
/// layout; on the 1 KiB pages of new databases 5 × 1,048 bytes, and 8 when
/// a leaf splits (the new leaf, its parent, and page 1 for the file's size).
#[test]
fn a_small_append_writes_five_pages_to_the_wal() {
    for (size, want) in [(4096u64, vec![5, 5, 5]), (1024, WANT_1K.to_vec())] {
        let (_d, p) = temp();
        if size != 1024 {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            let c = rusqlite::Connection::open(&p).unwrap();
            c.pragma_update(None, "page_size", size).unwrap();
            c.execute_batch("PRAGMA journal_mode=WAL;").unwrap();
        }
        let s = open(&p, true);
        let a = s.create_session(None, None).unwrap();
        s.append_transcript(&a.id, Role::User, "warm-up".into()).unwrap();
        let wal = || std::fs::metadata(format!("{}-wal", p.display())).unwrap().len();
        let page = count(&p, "PRAGMA page_size") as u64;
        assert_eq!(page, size);
        let body: String = (0..1024).map(|i| (b'a' + (i * 7 % 26) as u8) as char).collect();
        let mut frames = Vec::new();
        for _ in 0..want.len() {
            let before = wal();
            // An entry time before the session's activity time: the session row
            // (and its two indexes) stays as it is, whatever the clock did.
            s.append_entries(&a.id, vec![NewEntry { created_at_ms: Some(1), ..NewEntry::text(Role::User, body.clone()) }]).unwrap();
            frames.push((wal() - before) / (page + 24));
        }
        assert_eq!(frames, want, "page {size}");
    }
}

/// Frames per append of the test above on 1 KiB pages (the second one splits a leaf).
const WANT_1K: [u64; 3] = [5, 8, 5];

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
        assert_eq!(schema::migrate_to(&mut c, 6).unwrap(), 6);
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
        assert_eq!(schema::migrate_to(&mut c, 6).unwrap(), 6);
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

/// Where each entry's envelopes are stored (schema 7): `(seq, body_id,
/// body_row, body_off, content length, metadata length)` in seq order.
type Place = (i64, i64, i64, Option<i64>, i64, Option<i64>);
fn places(p: &std::path::Path) -> Vec<Place> {
    let c = rusqlite::Connection::open(p).unwrap();
    let v = c
        .prepare(
            "SELECT t.seq, t.body_id, e.body_row, e.body_off, length(e.content_enc), length(e.meta_enc)
             FROM transcript_entries t JOIN entry_envelopes e ON e.session_id = t.session_id AND e.seq = t.seq ORDER BY t.seq",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))
        .unwrap()
        .map(|x| x.unwrap())
        .collect();
    v
}

/// Schema 7: the entries of one `append_entries` call share body set rows
/// (`set_enc`: each content envelope, then its metadata envelope, in seq
/// order; `ends`: the first seq, then each member's content and metadata
/// end; `content_enc` empty; each member's `body_id` the set row's id); an
/// entry whose envelopes are over a quarter of a set (16 KiB) and a single
/// append keep a row of their own. Every read gives each entry back (from,
/// tail, with metadata, one entry of a set), and the `entry_envelopes`
/// view slices the same bytes.
#[test]
fn entries_written_together_share_body_sets_and_read_back_one_by_one() {
    let (_d, p) = temp();
    let s = open(&p, false);
    let a = s.create_session(None, None).unwrap().id;
    let meta = EntryMeta { model: Some("m".into()), provider: None, extra: serde_json::from_str(r#"{"uuid":"u-2"}"#).unwrap(), item: None };
    let big = "b".repeat(20_000);
    let texts = ["one", "two", big.as_str(), "four", "five"];
    let rows: Vec<(NewEntry, EntryMeta)> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| (NewEntry::text(Role::User, t.to_string()), if i == 1 { meta.clone() } else { EntryMeta::default() }))
        .collect();
    s.append_entries_with_meta(&a, rows).unwrap();
    s.append_transcript(&a, Role::Assistant, "six".into()).unwrap();
    let got = places(&p);
    // v = 1 envelopes: 29 bytes over the content (compression off).
    let m = got[1].5.unwrap();
    assert!(m > 29, "{got:?}");
    let set1 = got[0].1;
    let (own3, set4, own6) = (set1 + 1, set1 + 2, set1 + 3);
    assert_eq!(
        got,
        vec![
            (1, set1, set1, Some(0), 32, None),
            (2, set1, set1, Some(32), 32, Some(m)),
            (3, own3, own3, None, 20_029, None),
            (4, set4, set4, Some(0), 33, None),
            (5, set4, set4, Some(33), 33, None),
            (6, own6, own6, None, 32, None),
        ]
    );
    let c = rusqlite::Connection::open(&p).unwrap();
    // (id, length(content_enc), length(meta_enc), ends, length(set_enc))
    type BodyRow = (i64, i64, Option<i64>, Option<String>, Option<i64>);
    let rows: Vec<BodyRow> = c
        .prepare("SELECT id, length(content_enc), length(meta_enc), ends, length(set_enc) FROM entry_bodies ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .unwrap()
        .map(|x| x.unwrap())
        .collect();
    assert_eq!(
        rows,
        vec![
            (set1, 0, None, Some(format!("[1,32,32,64,{}]", 64 + m)), Some(64 + m)),
            (own3, 20_029, None, None, None),
            (set4, 0, None, Some("[4,33,33,66,66]".into()), Some(66)),
            (own6, 32, None, None, None)
        ]
    );
    drop(c);
    let want: Vec<&str> = texts.iter().copied().chain(["six"]).collect();
    let read = |v: Vec<TranscriptEntry>| v.into_iter().map(|e| e.content).collect::<Vec<_>>();
    assert_eq!(read(s.get_transcript(&a, 1, 10).unwrap()), want);
    assert_eq!(read(s.get_transcript_tail(&a, 2).unwrap()), ["five", "six"]);
    assert_eq!(read(s.get_transcript(&a, 5, 1).unwrap()), ["five"]);
    assert_eq!(read(s.get_transcript(&a, 2, 1).unwrap()), ["two"]);
    let with_meta = s.get_transcript_with_meta(&a, 1, 10).unwrap();
    assert_eq!(with_meta.iter().map(|(e, _)| e.content.as_str()).collect::<Vec<_>>(), want);
    assert_eq!(with_meta[1].1, meta);
    assert!(with_meta.iter().enumerate().all(|(i, (_, x))| i == 1 || *x == EntryMeta::default()));
    assert_eq!(s.get_transcript_tail_with_meta(&a, 5).unwrap()[0].1, meta);
    assert_eq!(s.check_records().unwrap().damaged, vec![]);
    // Deleting the session removes its set rows with its own rows.
    s.delete_session(&a).unwrap();
    assert_eq!(count(&p, "SELECT COUNT(*) FROM entry_bodies"), 0);
}

/// A set member the set does not hold, or whose range lies outside it (a
/// damaged row), is `Corrupt` naming the entry; the other members still read.
#[test]
fn a_damaged_body_set_member_is_corrupt_naming_it() {
    let (_d, p) = temp();
    let s = open(&p, false);
    let a = s.create_session(None, None).unwrap().id;
    s.append_entries(&a, vec![NewEntry::text(Role::User, "one"), NewEntry::text(Role::User, "two")]).unwrap();
    let c = rusqlite::Connection::open(&p).unwrap();
    for damage in ["UPDATE entry_bodies SET ends = '[1,32,32]'", "UPDATE entry_bodies SET ends = '[1,32,32,64,90]'"] {
        assert_eq!(c.execute(damage, []).unwrap(), 1);
        let e = s.get_transcript(&a, 1, 10).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Corrupt, "{e}");
        assert!(e.to_string().contains(&format!("transcript:{a}:2:content")), "{e}");
        assert_eq!(s.get_transcript(&a, 1, 1).unwrap()[0].content, "one");
    }
}

/// Migration 7 converts nothing: a version-6 database's entries (a body
/// row each) read as before, and entries written after it share a set.
#[test]
fn migration_7_keeps_version_6_bodies_and_new_entries_share_a_set() {
    let (_d, p) = temp();
    let s = open(&p, false);
    let a = s.create_session(None, None).unwrap().id;
    s.append_entries(&a, vec![NewEntry::text(Role::User, "one"), NewEntry::text(Role::User, "two")]).unwrap();
    drop(s);
    // Back to version 6's layout: a body row per entry, no set columns, no view.
    {
        let c = rusqlite::Connection::open(&p).unwrap();
        let envs: Vec<Vec<u8>> =
            c.prepare("SELECT content_enc FROM entry_envelopes ORDER BY seq").unwrap().query_map([], |r| r.get(0)).unwrap().map(|x| x.unwrap()).collect();
        c.execute_batch(
            "DROP VIEW entry_envelopes; DELETE FROM entry_bodies;
             ALTER TABLE entry_bodies DROP COLUMN ends; ALTER TABLE entry_bodies DROP COLUMN set_enc; PRAGMA user_version = 6;",
        )
        .unwrap();
        for (i, env) in envs.iter().enumerate() {
            c.execute("INSERT INTO entry_bodies (content_enc) VALUES (?1)", [env]).unwrap();
            c.execute("UPDATE transcript_entries SET body_id = last_insert_rowid() WHERE seq = ?1", [i as i64 + 1]).unwrap();
        }
    }
    let s = open(&p, false);
    assert_eq!(count(&p, "PRAGMA user_version"), 9);
    s.append_entries(&a, vec![NewEntry::text(Role::User, "three"), NewEntry::text(Role::User, "four")]).unwrap();
    let got = places(&p);
    let (b1, b2, b3) = (got[0].1, got[1].1, got[2].1);
    assert_eq!(got, vec![(1, b1, b1, None, 32, None), (2, b2, b2, None, 32, None), (3, b3, b3, Some(0), 34, None), (4, b3, b3, Some(34), 33, None)]);
    let read: Vec<String> = s.get_transcript(&a, 1, 10).unwrap().into_iter().map(|e| e.content).collect();
    assert_eq!(read, ["one", "two", "three", "four"]);
}

/// An import batch is written as body sets, and the plaintext of set
/// members (compressed or not) is never in the db, -wal or -shm bytes.
#[test]
fn an_import_writes_body_sets_and_their_plaintext_never_reaches_the_files() {
    for compress in [true, false] {
        let (d, p) = temp();
        let s = open(&p, compress);
        let header = r#"{"type":"header","id":"sess-00000000000000dd","model":"m","cwd":"/tmp/p","created_at":1700000000}"#;
        let turn = |role: &str, text: &str, ts: i64| serde_json::json!({"type": role, "content": [{"type": "text", "text": text}], "timestamp": ts}).to_string();
        let long = format!("CANARY_SET_5e7 {}", "a line of test output that repeats\n".repeat(40));
        let file = d.path().join("a.jsonl");
        std::fs::write(&file, format!("{header}\n{}\n{}\n{}\n", turn("user", "CANARY_SET_short", 1), turn("assistant", &long, 2), turn("user", "three", 3))).unwrap();
        assert_eq!(sessiondb::portable::import_file(&s, &file, None).unwrap().sessions[0].entries, 3);
        let got = places(&p);
        let set = got[0].1;
        assert_eq!(got.iter().map(|x| (x.0, x.1, x.3.is_some())).collect::<Vec<_>>(), vec![(1, set, true), (2, set, true), (3, set, true)], "compress {compress}");
        assert_eq!(count(&p, "SELECT COUNT(*) FROM entry_bodies"), 1);
        let read: Vec<String> = s.get_transcript("sess-00000000000000dd", 1, 10).unwrap().into_iter().map(|e| e.content).collect();
        assert_eq!(read, ["CANARY_SET_short", long.as_str(), "three"]);
        for suffix in ["", "-wal", "-shm"] {
            if let Ok(bytes) = std::fs::read(format!("{}{suffix}", p.display())) {
                for needle in [&b"CANARY_SET_"[..], b"a line of test output"] {
                    assert!(!bytes.windows(needle.len()).any(|w| w == needle), "{needle:?} in {suffix:?} (compress {compress})");
                }
            }
        }
    }
}
