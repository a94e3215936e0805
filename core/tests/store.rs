//! SessionStore behaviour: one test per promised behaviour (issue 2).

use std::sync::{Arc, Mutex};

use sessiondb::keys::{KeyringProvider, KEY_ACCOUNT};
use sessiondb::backend::sqlite::schema;
use sessiondb::*;

#[macro_use]
mod behaviour;

fn key(b: u8) -> DataKey {
    DataKey::from_bytes(&[b; 32]).unwrap()
}

fn open_at(path: &std::path::Path, b: u8) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, KeySource::Bytes(key(b)))).unwrap()
}

fn temp() -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("state").join("sessions.db");
    (d, p)
}

// The behaviour suite on the SQLite backend.
store_behaviour_suite!(temp, open_at);

#[test]
fn closed_store_returns_closed_errors() {
    let (_d, p) = temp();
    let s = open_at(&p, 1);
    s.close();
    s.close();
    assert!(s.is_closed());
    assert_eq!(s.list_sessions(None).unwrap_err().kind(), ErrorKind::Closed);
}

#[derive(Default)]
struct MemProvider {
    key: Mutex<Option<Vec<u8>>>,
    sets: Mutex<u32>,
    fail: bool,
}
impl KeyProvider for MemProvider {
    fn get_key(&self) -> Result<Option<Vec<u8>>> {
        if self.fail {
            return Err(Error::KeyStoreUnavailable { backend: "test".into(), reason: "locked".into(), remedy: "unlock".into() });
        }
        Ok(self.key.lock().unwrap().clone())
    }
    fn set_key(&self, key: &[u8]) -> Result<()> {
        *self.sets.lock().unwrap() += 1;
        *self.key.lock().unwrap() = Some(key.to_vec());
        Ok(())
    }
}

#[test]
fn first_open_creates_and_stores_a_32_byte_key_once() {
    let (_d, p) = temp();
    let prov = Arc::new(MemProvider::default());
    let s = SessionStore::open(OpenOptions::at(&p, KeySource::Provider(prov.clone()))).unwrap();
    s.create_session(Some("x".into()), None).unwrap();
    drop(s);
    assert_eq!(prov.key.lock().unwrap().as_ref().unwrap().len(), 32);
    let s = SessionStore::open(OpenOptions::at(&p, KeySource::Provider(prov.clone()))).unwrap();
    assert_eq!(s.list_sessions(None).unwrap()[0].name.as_deref(), Some("x"));
    assert_eq!(*prov.sets.lock().unwrap(), 1);
}

#[test]
fn missing_key_with_existing_db_is_recovery_locked_and_writes_no_key() {
    let (_d, p) = temp();
    drop(open_at(&p, 1));
    let before = std::fs::read(&p).unwrap();
    let prov = Arc::new(MemProvider::default());
    let e = SessionStore::open(OpenOptions::at(&p, KeySource::Provider(prov.clone()))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RecoveryLocked);
    assert_eq!(*prov.sets.lock().unwrap(), 0);
    assert!(prov.key.lock().unwrap().is_none());
    assert_eq!(std::fs::read(&p).unwrap(), before, "database untouched");
}

#[test]
fn wrong_key_is_key_mismatch_and_changes_nothing() {
    let (_d, p) = temp();
    let s = open_at(&p, 1);
    s.create_session(Some("keep me".into()), None).unwrap();
    drop(s);
    let e = SessionStore::open(OpenOptions::at(&p, KeySource::Bytes(key(2)))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KeyMismatch);
    assert_eq!(open_at(&p, 1).list_sessions(None).unwrap()[0].name.as_deref(), Some("keep me"));
}

#[test]
fn unavailable_key_store_is_an_error_never_absent() {
    let (_d, p) = temp();
    let prov = Arc::new(MemProvider { fail: true, ..Default::default() });
    let e = SessionStore::open(OpenOptions::at(&p, KeySource::Provider(prov.clone()))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KeyStoreUnavailable);
    assert_eq!(*prov.sets.lock().unwrap(), 0);
}

#[test]
fn keyring_mock_store_holds_the_key_base64_under_service_and_account() {
    let (_d, p) = temp();
    let store: Arc<keyring_core::CredentialStore> = keyring_core::mock::Store::new().unwrap();
    let prov = Arc::new(KeyringProvider::with_store(store.clone(), "myapp", "mock"));
    drop(SessionStore::open(OpenOptions::at(&p, KeySource::Provider(prov.clone()))).unwrap());
    let entry = keyring_core::Entry::new_in_store(&store, "myapp", KEY_ACCOUNT).unwrap();
    let b64 = entry.get_password().unwrap();
    assert_eq!(DataKey::from_base64(&b64).unwrap().expose_bytes().len(), 32);
    // Reopen with the same key works; after deleting the entry it is RecoveryLocked.
    drop(SessionStore::open(OpenOptions::at(&p, KeySource::Provider(prov.clone()))).unwrap());
    entry.delete_credential().unwrap();
    let e = SessionStore::open(OpenOptions::at(&p, KeySource::Provider(prov))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RecoveryLocked);
    assert!(matches!(entry.get_password(), Err(keyring_core::Error::NoEntry)), "no new key written");
}

#[test]
fn keyring_denied_access_is_key_store_unavailable() {
    let (_d, p) = temp();
    let store: Arc<keyring_core::CredentialStore> = keyring_core::mock::Store::new().unwrap();
    let entry = keyring_core::Entry::new_in_store(&store, "myapp", KEY_ACCOUNT).unwrap();
    entry.set_password(&key(1).to_base64()).unwrap();
    drop(open_at(&p, 1));
    let mock: &keyring_core::mock::Cred = entry.as_any().downcast_ref().unwrap();
    mock.set_error(keyring_core::Error::NoStorageAccess(Box::new(std::io::Error::other("locked"))));
    let prov = Arc::new(KeyringProvider::with_store(store, "myapp", "mock"));
    let e = SessionStore::open(OpenOptions::at(&p, KeySource::Provider(prov))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KeyStoreUnavailable);
    assert!(e.to_string().contains("mock"), "{e}");
}

#[test]
fn planted_canaries_never_appear_in_db_wal_or_shm_bytes() {
    let (d, p) = temp();
    let s = open_at(&p, 1);
    let ws = d.path().join("CANARY_PATH_7f3a");
    std::fs::create_dir_all(&ws).unwrap();
    let a = s.create_session(Some("CANARY_TITLE_91bc".into()), Some(ws.to_string_lossy().into())).unwrap();
    s.append_transcript(&a.id, Role::User, "CANARY_MESSAGE_d41e secret text".into()).unwrap();
    s.append_context_extension(&a.id, "pin", r#"{"note":"CANARY_EXT_55aa"}"#).unwrap();
    s.journal_append(NewEvent { event_id: "c1".into(), session_id: a.id.clone(), kind: "Note".into(), operation_id: None,
        payload: serde_json::json!({"text": "CANARY_JOURNAL_0b0b"}) }).unwrap();
    let mut scanned = 0;
    for suffix in ["", "-wal", "-shm"] {
        let f = format!("{}{suffix}", p.display());
        if let Ok(bytes) = std::fs::read(&f) {
            scanned += bytes.len();
            for c in ["CANARY_PATH_7f3a", "CANARY_TITLE_91bc", "CANARY_MESSAGE_d41e", "CANARY_EXT_55aa", "CANARY_JOURNAL_0b0b"] {
                assert!(!bytes.windows(c.len()).any(|w| w == c.as_bytes()), "{c} found in {suffix:?}");
            }
        }
    }
    assert!(scanned > 4096, "the files were actually scanned ({scanned} bytes)");
}

/// Compressed (v = 2) rows: the canary is neither in the files as plaintext
/// nor recoverable as a zstd frame; with compression off the same content
/// is stored as v = 1 at its full length.
#[test]
fn compressed_rows_keep_canaries_out_of_db_wal_and_shm_and_compression_can_be_turned_off() {
    let body = format!("CANARY_ZSTD_c0de {}", "a line of build output that repeats\n".repeat(200));
    for compress in [true, false] {
        let (_d, p) = temp();
        let s = SessionStore::open(OpenOptions { compress: Some(compress), ..OpenOptions::at(&p, KeySource::Bytes(key(1))) }).unwrap();
        let a = s.create_session(None, None).unwrap();
        s.append_transcript(&a.id, Role::Tool, body.clone()).unwrap();
        s.append_transcript(&a.id, Role::User, "short".into()).unwrap();
        assert_eq!(s.get_transcript(&a.id, 1, 10).unwrap()[0].content, body);
        let c = rusqlite::Connection::open(&p).unwrap();
        let stored: Vec<(i64, i64, Option<i64>)> = c
            .prepare("SELECT length(b.content_enc), unicode(substr(CAST(b.content_enc AS TEXT), 1, 1)), t.content_bytes
                      FROM transcript_entries t JOIN entry_bodies b ON b.id = t.body_id ORDER BY t.seq").unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(|x| x.unwrap()).collect();
        drop(c);
        let (v1, short) = ((29 + body.len()) as i64, (29 + 5) as i64);
        if compress {
            assert_eq!((stored[0].1, stored[0].2, stored[1]), (2, Some(body.len() as i64), (short, 1, Some(5))));
            assert!(stored[0].0 < 200, "{} bytes stored for {}", stored[0].0, body.len());
        } else {
            assert_eq!(stored, vec![(v1, 1, Some(body.len() as i64)), (short, 1, Some(5))]);
        }
        for suffix in ["", "-wal", "-shm"] {
            if let Ok(bytes) = std::fs::read(format!("{}{suffix}", p.display())) {
                for needle in [&b"CANARY_ZSTD_c0de"[..], b"a line of build output", &[0x28, 0xb5, 0x2f, 0xfd]] {
                    assert!(!bytes.windows(needle.len()).any(|w| w == needle), "{needle:?} in {suffix:?} (compress {compress})");
                }
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn state_dir_is_0700_and_db_is_0600() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, p) = temp();
    let _s = open_at(&p, 1);
    let mode = |x: &std::path::Path| std::fs::metadata(x).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(p.parent().unwrap()), 0o700);
    assert_eq!(mode(&p), 0o600);
}

#[test]
fn a_file_that_is_not_a_database_is_corrupt_and_left_alone() {
    let (_d, p) = temp();
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, b"this is not sqlite, and it is longer than a header of one hundred bytes ............................................").unwrap();
    let before = std::fs::read(&p).unwrap();
    let e = SessionStore::open(OpenOptions::at(&p, KeySource::Bytes(key(1)))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corrupt, "{e}");
    assert_eq!(std::fs::read(&p).unwrap(), before);
}

#[test]
fn a_newer_schema_is_refused() {
    let (_d, p) = temp();
    drop(open_at(&p, 1));
    let c = rusqlite::Connection::open(&p).unwrap();
    c.pragma_update(None, "user_version", 999).unwrap();
    drop(c);
    assert_eq!(SessionStore::open(OpenOptions::at(&p, KeySource::Bytes(key(1)))).unwrap_err().kind(), ErrorKind::Corrupt);
}

fn schema_sql(p: &std::path::Path) -> Vec<String> {
    let c = rusqlite::Connection::open(p).unwrap();
    let mut st = c.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").unwrap();
    st.query_map([], |r| Ok(format!("{}|{}|{}|{}", r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, Option<String>>(3)?.unwrap_or_default())))
        .unwrap().map(|x| x.unwrap()).collect()
}

#[test]
fn every_older_schema_version_migrates_to_the_latest() {
    for from in 1..schema::LATEST_VERSION {
        let (_d, p) = temp();
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        {
            let mut c = rusqlite::Connection::open(&p).unwrap();
            assert_eq!(schema::migrate_to(&mut c, from).unwrap(), from);
        }
        // Data written by the old version: a session and an open operation.
        open_at_version(&p, from);
        let s = open_at(&p, 1);
        assert_eq!(schema::current_version(&rusqlite::Connection::open(&p).unwrap()).unwrap(), schema::LATEST_VERSION);
        assert_eq!(s.list_sessions(None).unwrap().len(), 1);
        if from == 7 {
            let page = s.get_entry_items("old1", 1, 10).unwrap();
            assert_eq!((page.items_json.as_str(), page.seqs.as_slice()), (r#"[null,null,{"type": "message", "n": 3}]"#, &[1u64, 2, 3][..]));
            let (_, meta) = s.get_transcript_with_meta("old1", 3, 1).unwrap().remove(0);
            assert_eq!((meta.item.as_deref(), meta.extra.get("k").and_then(|v| v.as_str())), (Some(r#"{"type": "message", "n": 3}"#), Some("v")));
        }
        drop(s);
        let (_d2, fresh) = temp();
        drop(open_at(&fresh, 1));
        assert_eq!(schema_sql(&p), schema_sql(&fresh), "migrated from v{from} equals fresh");
    }
}

/// Write a session into a database at an old version with raw SQL of that
/// version: key check, session `old1` (model `old-model`), a dispatched
/// operation of a dead owner, and two transcript entries (no entry metadata
/// columns before v3).
fn open_at_version(p: &std::path::Path, version: u32) {
    let c = rusqlite::Connection::open(p).unwrap();
    // v3 only added nullable entry columns, so v2's statements write a v3
    // database too; v4 moved bodies to `entry_bodies` (written below), and
    // v5 changed only import records, so v4's statements write v5 too, and
    // v6 changed only import records and token rows (none written here),
    // and v7 only added body sets (an entry's own body row stays as v4 wrote
    // it); a v7 database also gets an entry whose metadata holds an item in
    // the `[extra, "item"]` form that v8 replaced (and still reads); v8
    // changed no table, so v7's statements write v8 too (v9 added
    // `counted_tokens`, NULL in these rows).
    assert!((1..=8).contains(&version), "add a writer for each new old version");
    let k = key(1);
    let check = sessiondb::crypto::encrypt_field(&k, "meta:key-check", b"sessiondb key-check v1");
    c.execute("INSERT INTO meta (key, value) VALUES ('key_check', ?1)", [check.to_json()]).unwrap();
    let name = sessiondb::crypto::seal_str(&k, "session:old1:name", "old title");
    c.execute("INSERT INTO sessions (id, name_enc, model, provider, created_at, updated_at) VALUES ('old1', ?1, 'old-model', 'old-provider', 1, 1)", [name])
        .unwrap();
    let payload = sessiondb::crypto::seal_str(&k, "journal:old-op.dispatch:payload", "{}");
    c.execute("INSERT INTO journal VALUES ('old-op.dispatch','old1',1,1,'old-op','EffectDispatchCommitted',?1,'{\"v\":1,\"owner\":\"deadowner\"}','2026-01-01T00:00:00.000Z')", [payload]).unwrap();
    if version >= 2 {
        // v2 keeps the open-operation index the v2 code wrote with the dispatch.
        c.execute("INSERT INTO open_operations VALUES ('old-op','old1','deadowner','old-op.dispatch')", []).unwrap();
    }
    for (seq, role, text) in [(1, "user", "old question"), (2, "assistant", "old answer")] {
        let env = sessiondb::crypto::seal_str(&k, &format!("transcript:old1:{seq}:content"), text);
        if version >= 4 {
            let blob = sessiondb::crypto::EncryptedField::from_json(&env).unwrap().to_binary().unwrap();
            c.execute("INSERT INTO entry_bodies (content_enc) VALUES (?1)", [blob]).unwrap();
            c.execute(
                "INSERT INTO transcript_entries (session_id, seq, role, format, created_at, tokens, source_line, content_bytes, body_id)
                 VALUES ('old1', ?1, ?2, 'text', 1000, 7, ?1, ?3, last_insert_rowid())",
                rusqlite::params![seq, role, text.len()],
            )
            .unwrap();
            continue;
        }
        c.execute(
            "INSERT INTO transcript_entries (session_id, seq, role, format, created_at, tokens, source_line, content_enc) VALUES ('old1', ?1, ?2, 'text', 1000, 7, ?1, ?3)",
            rusqlite::params![seq, role, env],
        )
        .unwrap();
    }
    if version == 7 {
        let bin = |rec: &str, text: &str| sessiondb::crypto::EncryptedField::from_json(&sessiondb::crypto::seal_str(&k, rec, text)).unwrap().to_binary().unwrap();
        let meta = bin("transcript:old1:3:meta", r#"[{"k":"v"},"{\"type\": \"message\", \"n\": 3}"]"#);
        c.execute("INSERT INTO entry_bodies (content_enc, meta_enc) VALUES (?1, ?2)", rusqlite::params![bin("transcript:old1:3:content", "old item"), meta]).unwrap();
        c.execute(
            "INSERT INTO transcript_entries (session_id, seq, role, format, created_at, tokens, source_line, content_bytes, body_id)
             VALUES ('old1', 3, 'assistant', 'text', 1000, 7, 3, 8, last_insert_rowid())",
            [],
        )
        .unwrap();
    }
}

#[test]
fn migration_backfills_open_operations_and_recovery_marks_them() {
    let (_d, p) = temp();
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    {
        let mut c = rusqlite::Connection::open(&p).unwrap();
        schema::migrate_to(&mut c, 1).unwrap();
    }
    open_at_version(&p, 1);
    let s = open_at(&p, 1);
    assert_eq!(s.open_recovery_report().marked_unknown, vec![("old1".to_string(), "old-op".to_string())]);
    assert_eq!(s.get_session("old1").unwrap().name.as_deref(), Some("old title"));
}

#[test]
fn migration_from_v2_keeps_entries_and_gives_them_empty_metadata() {
    let (_d, p) = temp();
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    {
        let mut c = rusqlite::Connection::open(&p).unwrap();
        assert_eq!(schema::migrate_to(&mut c, 2).unwrap(), 2);
    }
    open_at_version(&p, 2);
    let s = open_at(&p, 1);
    assert_eq!(schema::current_version(&rusqlite::Connection::open(&p).unwrap()).unwrap(), schema::LATEST_VERSION);
    assert_eq!(s.stats().unwrap().schema_version, schema::LATEST_VERSION);
    // Version 4 converted every envelope to the binary form without the key
    // (v1 stays v1: 29 bytes of overhead) and recorded the content lengths.
    {
        let c = rusqlite::Connection::open(&p).unwrap();
        let rows: Vec<(String, i64, i64, Option<i64>)> = c
            .prepare("SELECT typeof(b.content_enc), length(b.content_enc), substr(hex(b.content_enc), 1, 2) = '01', t.content_bytes
                      FROM transcript_entries t JOIN entry_bodies b ON b.id = t.body_id ORDER BY t.seq").unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).unwrap().map(|x| x.unwrap()).collect();
        assert_eq!(rows, vec![("blob".into(), 29 + 12, 1, Some(12)), ("blob".into(), 29 + 10, 1, Some(10))]);
        let name: (String, i64) = c.query_row("SELECT typeof(name_enc), length(name_enc) FROM sessions WHERE id = 'old1'", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        assert_eq!(name, ("blob".into(), 29 + 9));
    }
    // The old entries read back unchanged, with no metadata.
    let t = s.get_transcript("old1", 1, 10).unwrap();
    assert_eq!(t.iter().map(|e| (e.seq, e.role, e.content.as_str(), e.tokens, e.source_line)).collect::<Vec<_>>(),
        [(1, Role::User, "old question", Some(7), Some(1)), (2, Role::Assistant, "old answer", Some(7), Some(2))]);
    let m = s.get_transcript_with_meta("old1", 1, 10).unwrap();
    assert_eq!(m.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>(), t);
    assert!(m.iter().all(|(_, meta)| *meta == EntryMeta::default()));
    // New entries carry their metadata next to the old ones.
    let mut extra = serde_json::Map::new();
    extra.insert("phase".into(), "final_answer".into());
    let meta = EntryMeta { model: Some("gpt-5.3-codex".into()), provider: Some("openai".into()), extra, item: None };
    let added = s.append_entries_with_meta("old1", vec![(NewEntry::text(Role::Assistant, "new answer"), meta.clone())]).unwrap();
    assert_eq!(added[0].seq, 3);
    let m = s.get_transcript_with_meta("old1", 3, 1).unwrap();
    assert_eq!(m[0].1, meta);
    assert_eq!(m[0].0.content, "new answer");
    // Export: the old assistant entry falls back to the session model, the new one keeps its own.
    let ps = sessiondb::portable::load_portable(&s, "old1").unwrap();
    let models: Vec<_> = ps.turns.iter().map(|t| (t.model.as_deref(), t.provider.as_deref())).collect();
    assert_eq!(models, [(None, None), (Some("old-model"), Some("old-provider")), (Some("gpt-5.3-codex"), Some("openai"))]);
    assert_eq!(ps.turns[2].extra["phase"], "final_answer");
    assert_eq!(s.open_recovery_report().marked_unknown, vec![("old1".to_string(), "old-op".to_string())]);
}

#[test]
fn new_databases_use_1_kib_pages_and_a_database_with_other_pages_still_opens() {
    let (_d, path) = temp();
    drop(open_at(&path, 1));
    let c = rusqlite::Connection::open(&path).unwrap();
    let ps: i64 = c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    assert_eq!(ps, 1024);
    assert_eq!(ps, sessiondb::backend::sqlite::PAGE_SIZE);
    drop(c);

    // A database written by an earlier build with 16 KiB pages keeps them:
    // page_size only applies to an empty file, and everything still works.
    let (_d2, old) = temp();
    {
        std::fs::create_dir_all(old.parent().unwrap()).unwrap();
        let c = rusqlite::Connection::open(&old).unwrap();
        c.pragma_update(None, "page_size", 16_384).unwrap();
        c.execute_batch("PRAGMA journal_mode=WAL; VACUUM;").unwrap();
    }
    let s = open_at(&old, 2);
    let id = s.create_session(Some("old pages".into()), None).unwrap().id;
    s.append_transcript(&id, Role::User, "x".repeat(3000)).unwrap();
    assert_eq!(s.get_transcript(&id, 1, 10).unwrap()[0].content.len(), 3000);
    drop(s);
    let c = rusqlite::Connection::open(&old).unwrap();
    assert_eq!(c.query_row("PRAGMA page_size", [], |r| r.get::<_, i64>(0)).unwrap(), 16_384);
}

#[test]
fn moved_entry_metadata_fails_authentication_and_plain_reads_skip_it() {
    let (_d, p) = temp();
    let s = open_at(&p, 1);
    let a = s.create_session(None, None).unwrap();
    let meta = |m: &str| EntryMeta { model: Some(m.into()), provider: None, extra: serde_json::from_str(r#"{"uuid":"x"}"#).unwrap(), item: None };
    s.append_entries_with_meta(
        &a.id,
        vec![
            (NewEntry::text(Role::Assistant, "a"), meta("m1")),
            (NewEntry::text(Role::User, "b"), EntryMeta::default()),
            (NewEntry::text(Role::User, "c"), meta("m2")),
        ],
    )
    .unwrap();
    // Moving entry 1's sealed metadata onto entry 3 fails authentication;
    // the plain transcript read does not touch it.
    drop(s);
    // The three entries share one body set row (schema 7): each metadata
    // envelope follows its content envelope.
    let c = rusqlite::Connection::open(&p).unwrap();
    let place = |seq: u32| -> (i64, usize, usize) {
        c.query_row(&format!("SELECT body_row, body_off + length(content_enc), length(meta_enc) FROM entry_envelopes WHERE seq = {seq}"), [], |r| {
            Ok((r.get(0)?, r.get::<_, i64>(1)? as usize, r.get::<_, i64>(2)? as usize))
        })
        .unwrap()
    };
    let ((set, from, len), (set3, to, len3)) = (place(1), place(3));
    assert_eq!((set, len), (set3, len3), "one set, metadata envelopes of one length");
    let mut bytes: Vec<u8> = c.query_row("SELECT set_enc FROM entry_bodies WHERE id = ?1", [set], |r| r.get(0)).unwrap();
    let moved = bytes[from..from + len].to_vec();
    bytes[to..to + len].copy_from_slice(&moved);
    assert_eq!(c.execute("UPDATE entry_bodies SET set_enc = ?2 WHERE id = ?1", rusqlite::params![set, bytes]).unwrap(), 1);
    drop(c);
    let s = open_at(&p, 1);
    assert_eq!(s.get_transcript_with_meta(&a.id, 1, 10).unwrap_err().kind(), ErrorKind::AuthenticationFailed);
    assert_eq!(s.get_transcript(&a.id, 1, 10).unwrap().len(), 3);
}
