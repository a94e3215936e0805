//! SessionStore behaviour: one test per promised behaviour (issue 2).

use std::sync::{Arc, Mutex};

use sessiondb::keys::{KeyringProvider, KEY_ACCOUNT};
use sessiondb::store::schema;
use sessiondb::*;

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

#[test]
fn create_get_rename_delete_round_trip() {
    let (_d, p) = temp();
    let s = open_at(&p, 1);
    let a = s.create_session(Some("refactor-auth".into()), None).unwrap();
    assert_eq!(a.name.as_deref(), Some("refactor-auth"));
    assert_eq!(a.entry_count, 0);
    assert_eq!(s.get_session(&a.id).unwrap(), a);
    let r = s.rename_session(&a.id, None).unwrap();
    assert_eq!(r.name, None);
    let r = s.rename_session(&a.id, Some("new title".into())).unwrap();
    assert_eq!(r.name.as_deref(), Some("new title"));
    s.delete_session(&a.id).unwrap();
    assert_eq!(s.get_session(&a.id).unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(s.delete_session(&a.id).unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(s.rename_session("nope", None).unwrap_err().kind(), ErrorKind::NotFound);
}

#[test]
fn transcript_seqs_are_gapless_and_pages_read_back_verbatim() {
    let (_d, p) = temp();
    let s = open_at(&p, 1);
    let a = s.create_session(None, None).unwrap();
    for i in 1..=25u64 {
        let e = s.append_transcript(&a.id, Role::User, format!("msg {i} ✓ 日本")).unwrap();
        assert_eq!(e.seq, i);
    }
    let page1 = s.get_transcript(&a.id, 1, 10).unwrap();
    assert_eq!(page1.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=10).collect::<Vec<_>>());
    let page3 = s.get_transcript(&a.id, 21, 10).unwrap();
    assert_eq!(page3.len(), 5);
    assert_eq!(page3[4].content, "msg 25 ✓ 日本");
    assert_eq!(s.get_session(&a.id).unwrap().entry_count, 25);
    assert_eq!(s.get_transcript(&a.id, 26, 10).unwrap().len(), 0);
    assert_eq!(s.get_transcript(&a.id, 1, 0).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(s.get_transcript("missing", 1, 10).unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(s.append_transcript("missing", Role::User, "x".into()).unwrap_err().kind(), ErrorKind::NotFound);
    // A second session has its own seq space.
    let b = s.create_session(None, None).unwrap();
    assert_eq!(s.append_transcript(&b.id, Role::Assistant, "hi".into()).unwrap().seq, 1);
}

#[test]
fn workspace_filters_current_other_unbound_and_prefix_paths() {
    let (d, p) = temp();
    let s = open_at(&p, 1);
    let root = std::fs::canonicalize(d.path()).unwrap();
    let proj_a = root.join("projA");
    let proj_ab = root.join("projAB");
    std::fs::create_dir_all(&proj_a).unwrap();
    std::fs::create_dir_all(&proj_ab).unwrap();
    let a = s.create_session(Some("a".into()), Some(proj_a.to_string_lossy().into())).unwrap();
    let ab = s.create_session(Some("ab".into()), Some(format!("{}/", proj_ab.display()))).unwrap();
    let un = s.create_session(Some("unbound".into()), None).unwrap();
    assert_eq!(ab.workspace_path.as_deref(), Some(proj_ab.to_str().unwrap()), "trailing slash normalised");
    let ids = |f: WorkspaceFilter| -> Vec<String> {
        s.list_sessions_for_workspace(f, None).unwrap().into_iter().map(|x| x.id).collect()
    };
    let pa = proj_a.to_string_lossy().into_owned();
    assert_eq!(ids(WorkspaceFilter::Current(pa.clone())), vec![a.id.clone()]);
    assert_eq!(ids(WorkspaceFilter::Current(format!("{pa}/./x/.."))), vec![a.id.clone()], "./.. resolved");
    assert_eq!(ids(WorkspaceFilter::Other(pa.clone())), vec![ab.id.clone()]);
    assert_eq!(ids(WorkspaceFilter::Unbound), vec![un.id.clone()]);
    assert_eq!(ids(WorkspaceFilter::All).len(), 3);
    // Symlink to projA is the same workspace.
    std::os::unix::fs::symlink(&proj_a, root.join("alias")).unwrap();
    assert_eq!(ids(WorkspaceFilter::Current(root.join("alias").to_string_lossy().into())), vec![a.id.clone()]);
    // Opening a session from another directory never rebinds it.
    let again = s.get_session(&a.id).unwrap();
    assert_eq!(again.workspace_path.as_deref(), Some(pa.as_str()));
    assert_eq!(s.list_sessions(Some(2)).unwrap().len(), 2);
}

#[test]
fn token_totals_sum_the_ledger() {
    let (_d, p) = temp();
    let s = open_at(&p, 1);
    let a = s.create_session(None, None).unwrap();
    assert_eq!(s.token_totals(&a.id).unwrap(), TokenTotals { input: 0, output: 0, cached: 0 });
    s.record_tokens(&a.id, TokenUsage { input: 100, output: 20, cached: 5, model: Some("gpt-4o".into()), provider: None }).unwrap();
    s.record_tokens(&a.id, TokenUsage { input: 7, output: 3, cached: 0, model: None, provider: None }).unwrap();
    assert_eq!(s.token_totals(&a.id).unwrap(), TokenTotals { input: 107, output: 23, cached: 5 });
    assert_eq!(s.token_totals("x").unwrap_err().kind(), ErrorKind::NotFound);
}

#[test]
fn context_extensions_number_from_one_and_round_trip() {
    let (_d, p) = temp();
    let s = open_at(&p, 1);
    let a = s.create_session(None, None).unwrap();
    assert_eq!(s.append_context_extension(&a.id, "pin", r#"{"seq":3}"#).unwrap(), 1);
    assert_eq!(s.append_context_extension(&a.id, "artifact_manifest", r#"{"files":["a.rs"]}"#).unwrap(), 2);
    let l = s.list_context_extensions(&a.id).unwrap();
    assert_eq!(l.iter().map(|e| (e.n, e.kind.as_str(), e.body.as_str())).collect::<Vec<_>>(),
        vec![(1, "pin", r#"{"seq":3}"#), (2, "artifact_manifest", r#"{"files":["a.rs"]}"#)]);
    assert_eq!(s.append_context_extension(&a.id, "pin", "not json").unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(s.list_context_extensions(&a.id).unwrap().len(), 2, "bad input changed nothing");
}

#[test]
fn every_state_change_writes_one_journal_event() {
    let (_d, p) = temp();
    let s = open_at(&p, 1);
    let a = s.create_session(Some("t".into()), None).unwrap();
    s.append_transcript(&a.id, Role::User, "x".into()).unwrap();
    s.rename_session(&a.id, Some("u".into())).unwrap();
    s.record_tokens(&a.id, TokenUsage::default()).unwrap();
    s.append_context_extension(&a.id, "pin", "{}").unwrap();
    let ev = s.journal_events(&a.id, 1, 100).unwrap();
    assert_eq!(
        ev.iter().map(|e| (e.seq, e.kind.as_str())).collect::<Vec<_>>(),
        vec![(1, "SessionCreated"), (2, "TranscriptAppended"), (3, "SessionRenamed"), (4, "TokensRecorded"), (5, "ContextExtensionAppended")]
    );
    let versions: Vec<u64> = ev.iter().map(|e| e.aggregate_version).collect();
    assert!(versions.windows(2).all(|w| w[1] == w[0] + 1), "{versions:?}");
}

#[test]
fn journal_append_is_idempotent_by_event_id() {
    let (_d, p) = temp();
    let s = open_at(&p, 1);
    let ev = NewEvent { event_id: "e1".into(), session_id: "s1".into(), kind: "Note".into(), operation_id: None, payload: serde_json::json!({"a": 1}) };
    let first = s.journal_append(ev.clone()).unwrap();
    assert_eq!((first.seq, first.duplicate), (1, false));
    let again = s.journal_append(ev.clone()).unwrap();
    assert_eq!((again.seq, again.aggregate_version, again.duplicate), (1, first.aggregate_version, true));
    let mut other = ev.clone();
    other.payload = serde_json::json!({"a": 2});
    assert_eq!(s.journal_append(other).unwrap_err().kind(), ErrorKind::Conflict);
    let second = s.journal_append(NewEvent { event_id: "e2".into(), ..ev }).unwrap();
    assert_eq!(second.seq, 2);
    assert_eq!(s.journal_events("s1", 1, 10).unwrap().len(), 2, "the conflict wrote nothing");
}

#[test]
fn operation_lifecycle_and_errors() {
    let (_d, p) = temp();
    let s = open_at(&p, 1);
    s.dispatch_operation("s1", "op1", serde_json::json!({"tool": "bash"})).unwrap();
    assert_eq!(s.open_operations().unwrap().len(), 1);
    assert_eq!(s.dispatch_operation("s1", "op1", serde_json::json!({"tool": "other"})).unwrap_err().kind(), ErrorKind::Conflict);
    let done = s.complete_operation("s1", "op1", OperationOutcome::Succeeded, serde_json::json!({})).unwrap();
    assert!(!done.duplicate);
    assert!(s.complete_operation("s1", "op1", OperationOutcome::Succeeded, serde_json::json!({})).unwrap().duplicate);
    assert_eq!(s.complete_operation("s1", "op1", OperationOutcome::Failed, serde_json::json!({})).unwrap_err().kind(), ErrorKind::Conflict);
    assert_eq!(s.complete_operation("s1", "nope", OperationOutcome::Failed, serde_json::json!({})).unwrap_err().kind(), ErrorKind::NotFound);
    assert!(s.open_operations().unwrap().is_empty());
}

#[test]
fn recovery_marks_operations_of_closed_owners_and_skips_live_ones() {
    let (_d, p) = temp();
    let live = open_at(&p, 1);
    let gone = open_at(&p, 1);
    live.dispatch_operation("s1", "live-op", serde_json::json!({})).unwrap();
    gone.dispatch_operation("s1", "gone-op", serde_json::json!({})).unwrap();
    gone.close();
    let third = open_at(&p, 1);
    let r = third.open_recovery_report();
    assert_eq!(r.marked_unknown, vec![("s1".to_string(), "gone-op".to_string())]);
    assert_eq!(r.skipped_live, 1);
    let kinds: Vec<_> = third.journal_events("s1", 1, 10).unwrap().into_iter().map(|e| (e.operation_id.unwrap(), e.kind)).collect();
    assert_eq!(kinds.last().unwrap(), &("gone-op".to_string(), "OperationUnknownOutcome".to_string()));
    assert_eq!(third.open_operations().unwrap().len(), 1);
    // The live owner can still complete its operation.
    live.complete_operation("s1", "live-op", OperationOutcome::Succeeded, serde_json::json!({})).unwrap();
    // Running recovery again does nothing.
    assert_eq!(third.recover().unwrap(), RecoveryReport::default());
}

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
    assert!(version == 1 || version == 2, "add a writer for each new old version");
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
        c.execute(
            "INSERT INTO transcript_entries (session_id, seq, role, format, created_at, tokens, source_line, content_enc) VALUES ('old1', ?1, ?2, 'text', 1000, 7, ?1, ?3)",
            rusqlite::params![seq, role, env],
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
    assert_eq!(schema::current_version(&rusqlite::Connection::open(&p).unwrap()).unwrap(), 3);
    assert_eq!(s.stats().unwrap().schema_version, 3);
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
    let meta = EntryMeta { model: Some("gpt-5.3-codex".into()), provider: Some("openai".into()), extra };
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
fn entry_metadata_round_trips_and_is_bound_to_its_entry() {
    let (_d, p) = temp();
    let s = open_at(&p, 1);
    let a = s.create_session(None, None).unwrap();
    let meta = |m: &str, v: serde_json::Value| {
        let mut extra = serde_json::Map::new();
        extra.insert("tool_use_result".into(), v);
        EntryMeta { model: Some(m.into()), provider: Some("anthropic".into()), extra }
    };
    let m1 = meta("claude-opus-4-6", serde_json::json!({"stdout": "one"}));
    let m2 = meta("claude-sonnet-4-6", serde_json::json!("User rejected tool use"));
    s.append_entries_with_meta(
        &a.id,
        vec![
            (NewEntry::text(Role::Assistant, "a"), m1.clone()),
            (NewEntry::text(Role::User, "b"), EntryMeta::default()),
            (NewEntry::text(Role::User, "c"), m2.clone()),
        ],
    )
    .unwrap();
    let got: Vec<_> = s.get_transcript_with_meta(&a.id, 1, 10).unwrap().into_iter().map(|(e, m)| (e.content, m)).collect();
    assert_eq!(got, [("a".to_string(), m1), ("b".to_string(), EntryMeta::default()), ("c".to_string(), m2)]);
    // Names are checked as session names are.
    let bad = EntryMeta { model: Some("x".repeat(257)), ..Default::default() };
    assert_eq!(s.append_entries_with_meta(&a.id, vec![(NewEntry::text(Role::User, "d"), bad)]).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(s.get_session(&a.id).unwrap().entry_count, 3);
    // Moving entry 1's sealed metadata onto entry 3 fails authentication;
    // the plain transcript read does not touch it.
    drop(s);
    let c = rusqlite::Connection::open(&p).unwrap();
    c.execute("UPDATE transcript_entries SET meta_enc = (SELECT meta_enc FROM transcript_entries WHERE seq = 1) WHERE seq = 3", []).unwrap();
    drop(c);
    let s = open_at(&p, 1);
    assert_eq!(s.get_transcript_with_meta(&a.id, 1, 10).unwrap_err().kind(), ErrorKind::AuthenticationFailed);
    assert_eq!(s.get_transcript(&a.id, 1, 10).unwrap().len(), 3);
}

#[test]
fn find_session_by_id_prefix_and_title() {
    let (_d, p) = temp();
    let s = open_at(&p, 1);
    for (id, name) in [("abc-1", "one"), ("abc-2", "two"), ("xyz", "two")] {
        s.create_session_with(NewSession { id: Some(id.into()), name: Some(name.into()), ..Default::default() }).unwrap();
    }
    assert_eq!(s.find_session("abc-1").unwrap().id, "abc-1");
    assert_eq!(s.find_session("xy").unwrap().id, "xyz");
    let e = s.find_session("abc").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict);
    assert!(e.to_string().contains("abc-1, abc-2"), "{e}");
    assert_eq!(s.find_session("one").unwrap().id, "abc-1");
    assert_eq!(s.find_session("two").unwrap_err().kind(), ErrorKind::Conflict);
    assert_eq!(s.find_session("none such").unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(
        s.create_session_with(NewSession { id: Some("abc-1".into()), ..Default::default() }).unwrap_err().kind(),
        ErrorKind::Conflict
    );
    assert_eq!(
        s.create_session_with(NewSession { id: Some("bad:id".into()), ..Default::default() }).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}

#[test]
fn store_handle_is_send_and_sync_and_usable_from_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<SessionStore>();
    let (_d, p) = temp();
    let s = Arc::new(open_at(&p, 1));
    let a = s.create_session(None, None).unwrap();
    let hs: Vec<_> = (0..4)
        .map(|_| {
            let s = s.clone();
            let id = a.id.clone();
            std::thread::spawn(move || for _ in 0..50 { s.append_transcript(&id, Role::User, "t".into()).unwrap(); })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    let all = s.get_transcript(&a.id, 1, 1000).unwrap();
    assert_eq!(all.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=200).collect::<Vec<_>>());
}

#[test]
fn new_databases_use_8_kib_pages_and_a_database_with_other_pages_still_opens() {
    let (_d, path) = temp();
    drop(open_at(&path, 1));
    let c = rusqlite::Connection::open(&path).unwrap();
    let ps: i64 = c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    assert_eq!(ps, 8192);
    assert_eq!(ps, sessiondb::store::PAGE_SIZE);
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
