//! `SessionStore::copy_to` (issue 13 item 7, DESIGN.md "Backends"): every
//! kind of row copied as stored (byte-identical envelopes, same record ids),
//! incrementally and idempotently, a key mismatch refused before anything is
//! written, a diverged session refused with `Conflict` while the others are
//! copied. SQLite → SQLite always; SQLite → PostgreSQL → SQLite when
//! `SESSIONDB_TEST_PG_URL` is set (scripts/with-postgres.sh), else that test
//! says it was skipped.

use std::path::{Path, PathBuf};

use sessiondb::portable::commands::fork_session;
use sessiondb::*;

fn key(b: u8) -> DataKey {
    DataKey::from_bytes(&[b; 32]).unwrap()
}

fn open(path: &Path, b: u8) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, KeySource::Bytes(key(b)))).unwrap()
}

/// Column kinds of a dump: `b` envelope bytes (BLOB/BYTEA), `t` text, `i` integer.
const TABLES: &[(&str, &[(&str, char)], &str)] = &[
    (
        "sessions",
        &[
            ("{id}", 't'),
            ("name_enc", 'b'),
            ("workspace_enc", 'b'),
            ("workspace_index", 't'),
            ("model", 't'),
            ("provider", 't'),
            ("work_mode", 't'),
            ("created_at", 'i'),
            ("updated_at", 'i'),
            ("forked_from", 't'),
            ("forked_at_seq", 'i'),
        ],
        "{id}",
    ),
    (
        "transcript_entries t {bodies}",
        &[
            ("t.session_id", 't'),
            ("t.seq", 'i'),
            ("t.role", 't'),
            ("t.format", 't'),
            ("t.created_at", 'i'),
            ("t.tokens", 'i'),
            ("t.source_line", 'i'),
            ("t.model", 't'),
            ("t.provider", 't'),
            ("t.content_bytes", 'i'),
            ("t.kind", 't'),
            ("t.call_keys", 't'),
            ("{body}.content_enc", 'b'),
            ("{body}.meta_enc", 'b'),
        ],
        "t.session_id, t.seq",
    ),
    ("retractions", &[("session_id", 't'), ("seq", 'i')], "session_id, seq"),
    (
        "token_ledger",
        &[("session_id", 't'), ("model", 't'), ("provider", 't'), ("input", 'i'), ("output", 'i'), ("cached", 'i'), ("created_at", 'i')],
        "session_id, id",
    ),
    ("context_extensions", &[("session_id", 't'), ("n", 'i'), ("kind", 't'), ("body_enc", 'b'), ("created_at", 'i')], "session_id, n"),
    (
        "journal",
        &[
            ("session_id", 't'),
            ("seq", 'i'),
            ("event_id", 't'),
            ("operation_id", 't'),
            ("payload_kind", 't'),
            ("payload_json", 't'),
            ("envelope_json", 't'),
            ("created_at", 't'),
        ],
        "session_id, seq",
    ),
    ("open_operations", &[("session_id", 't'), ("operation_id", 't'), ("owner", 't'), ("dispatched_event_id", 't')], "session_id, operation_id"),
    ("meta", &[("key", 't'), ("value", 't')], "key"),
    ("import_records", &[("session_id", 't'), ("record_id", 'b')], "session_id, record_id"),
];

/// Every stored row of the tables copy writes, each column as text (bytes as
/// hex), in key order: equal dumps mean byte-identical rows.
fn dump_sql(pg: bool) -> Vec<(String, String)> {
    TABLES
        .iter()
        .map(|(table, cols, order)| {
            let (table, body, id) = if pg {
                (table.replace("{bodies}", ""), "t", "session_id")
            } else {
                // Each entry's own envelopes, whether its body row is its own or a set's (schema 7).
                (table.replace("{bodies}", "JOIN entry_envelopes b ON b.session_id = t.session_id AND b.seq = t.seq"), "b", "id")
            };
            let cols: Vec<String> = cols
                .iter()
                .map(|(c, k)| {
                    let c = c.replace("{body}", body).replace("{id}", id);
                    match (k, pg) {
                        ('b', false) => format!("CASE WHEN {c} IS NULL THEN '-' ELSE lower(hex({c})) END"),
                        ('b', true) => format!("COALESCE(encode({c}, 'hex'), '-')"),
                        _ => format!("COALESCE(CAST({c} AS TEXT), '-')"),
                    }
                })
                .collect();
            let filter = if table == "meta" {
                if pg {
                    " WHERE starts_with(key, 'import-')"
                } else {
                    " WHERE key LIKE 'import-%'"
                }
            } else {
                ""
            };
            let sep = if pg { " || '|' || " } else { " || '|' || " };
            let order = order.replace("{id}", id);
            (table.split(' ').next().unwrap().to_string(), format!("SELECT {} FROM {table}{filter} ORDER BY {order}", cols.join(sep)))
        })
        .collect()
}

type Dump = Vec<(String, Vec<String>)>;

fn dump_sqlite(path: &Path) -> Dump {
    let c = rusqlite::Connection::open(path).unwrap();
    dump_sql(false)
        .into_iter()
        .map(|(t, sql)| {
            let mut st = c.prepare(&sql).unwrap();
            let rows = st.query_map([], |r| r.get::<_, String>(0)).unwrap().map(|r| r.unwrap()).collect();
            (t, rows)
        })
        .collect()
}

/// Assert two dumps equal, naming the first table that differs (dumps are long).
fn same_rows(x: &Dump, y: &Dump, what: &str) {
    for ((t, a), (_, b)) in x.iter().zip(y) {
        assert_eq!(a.len(), b.len(), "{what}: table {t} has {} rows on one side, {} on the other", a.len(), b.len());
        for (ra, rb) in a.iter().zip(b) {
            assert!(ra == rb, "{what}: table {t} differs:\n  {ra}\n  {rb}");
        }
    }
    assert_eq!(x.len(), y.len());
}

fn rows<'a>(d: &'a Dump, table: &str) -> &'a [String] {
    &d.iter().find(|(t, _)| t == table).unwrap().1
}

/// A store with every kind of row: 3 sessions (one titled with a workspace,
/// one forked, one deleted), plain, compressed (≥ 512 bytes) and
/// metadata-carrying entries, a retraction, tokens, governance extensions,
/// a host journal event and an open operation.
fn populate(s: &SessionStore, ws: &Path) -> (String, String) {
    let a = s.create_session(Some("Plan the refactor".into()), Some(ws.to_string_lossy().into_owned())).unwrap();
    s.append_transcript(&a.id, Role::User, "first question".into()).unwrap();
    s.append_transcript(&a.id, Role::Assistant, "a long answer ".repeat(60)).unwrap();
    s.append_entries_with_meta(
        &a.id,
        vec![(
            NewEntry::text(Role::Assistant, "with meta"),
            EntryMeta { model: Some("gpt-5".into()), provider: Some("openai".into()), extra: serde_json::json!({"uuid": "u-1"}).as_object().unwrap().clone(), item: Some(r#"{"type":"message"}"#.into()) },
        )],
    )
    .unwrap();
    s.append_transcript(&a.id, Role::User, "oops, retract me".into()).unwrap();
    s.retract_entry(&a.id, 4).unwrap();
    s.record_tokens(&a.id, TokenUsage { input: 120, output: 40, cached: 8, model: Some("gpt-5".into()), provider: Some("openai".into()) }).unwrap();
    s.record_tokens(&a.id, TokenUsage { input: 7, output: 3, cached: 0, model: None, provider: None }).unwrap();
    s.append_context_extension(&a.id, "pin", r#"{"seq": 1}"#).unwrap();
    s.append_context_extension(&a.id, "note", r#"{"text": "host extension"}"#).unwrap();
    s.journal_append(NewEvent {
        event_id: "host-ev-1".into(),
        session_id: a.id.clone(),
        kind: "HostNote".into(),
        operation_id: None,
        payload: serde_json::json!({"n": 1}),
    })
    .unwrap();
    s.dispatch_operation(&a.id, "op-open", serde_json::json!({"tool": "bash"})).unwrap();
    let f = fork_session(s, &a.id, Some(2), None).unwrap();
    let gone = s.create_session(Some("to delete".into()), None).unwrap();
    s.append_transcript(&gone.id, Role::User, "bye".into()).unwrap();
    s.delete_session(&gone.id).unwrap();
    (a.id, f.id)
}

/// Append one entry dated a minute from now: it moves the session's
/// activity time (`updated_at`), so the session row is copied again.
fn append_later(s: &SessionStore, sid: &str, text: &str) {
    let at = sessiondb::store::now_ms() + 60_000;
    s.append_entries(sid, vec![NewEntry { created_at_ms: Some(at), ..NewEntry::text(Role::User, text) }]).unwrap();
}

fn report(r: &CopyReport) -> [u64; 11] {
    [
        r.sessions_seen,
        r.sessions_created,
        r.sessions_updated,
        r.sessions_deleted,
        r.entries,
        r.retractions,
        r.tokens,
        r.extensions,
        r.events,
        r.open_operations,
        r.import_records,
    ]
}

#[test]
fn sqlite_to_sqlite_copies_every_row_byte_identical_then_nothing_then_only_new_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let a = open(&pa, 1);
    let (sid, fork) = populate(&a, dir.path());
    let b = open(&pb, 1);

    let r = a.copy_to(&b).unwrap();
    // seen 3 (two live, one deleted: its journal only); created 2; entries
    // 4 + 2 (fork at seq 2); retraction 1; tokens 2; extensions 2; events:
    // session A 12, fork 2, deleted session 3; open operation 1.
    assert_eq!(report(&r), [3, 2, 0, 0, 6, 1, 2, 2, 17, 1, 0], "{r:?}");
    assert!(r.conflicts.is_empty());
    let (da, db) = (dump_sqlite(&pa), dump_sqlite(&pb));
    assert_eq!(rows(&da, "transcript_entries").len(), 6);
    assert_eq!(rows(&da, "journal").len(), 17);
    same_rows(&da, &db, "every copied row is byte-identical");

    // The copy reads back through the rules (same key, same record ids).
    let t = b.get_transcript(&sid, 1, 100).unwrap();
    assert_eq!(t.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert_eq!(t[1].content, "a long answer ".repeat(60));
    assert_eq!(b.get_session(&sid).unwrap().name.as_deref(), Some("Plan the refactor"));
    assert_eq!(b.get_session(&fork).unwrap().forked_from.as_deref(), Some(sid.as_str()));
    assert_eq!(b.token_totals(&sid).unwrap(), TokenTotals { input: 127, output: 43, cached: 8 });
    assert_eq!(b.open_operations().unwrap(), a.open_operations().unwrap());

    // Twice: nothing added.
    let again = a.copy_to(&b).unwrap();
    assert_eq!(report(&again), [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(again.rows_added(), 0);
    same_rows(&dump_sqlite(&pb), &db, "a second copy changes nothing");

    // After new rows in A: only those.
    a.append_transcript(&sid, Role::User, "new one".into()).unwrap();
    a.append_transcript(&sid, Role::Assistant, "new two".into()).unwrap();
    a.rename_session(&sid, Some("Renamed".into())).unwrap();
    a.complete_operation(&sid, "op-open", OperationOutcome::Succeeded, serde_json::json!({})).unwrap();
    let inc = a.copy_to(&b).unwrap();
    assert_eq!(report(&inc), [3, 0, 1, 0, 2, 0, 0, 0, 4, 0, 0], "{inc:?}");
    same_rows(&dump_sqlite(&pa), &dump_sqlite(&pb), "A and B");
    assert!(b.open_operations().unwrap().is_empty(), "the terminal event closed the copied operation");
    assert_eq!(b.get_session(&sid).unwrap().name.as_deref(), Some("Renamed"));
}

#[test]
fn copy_into_a_store_with_another_key_is_key_mismatch_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let a = open(&pa, 1);
    populate(&a, dir.path());
    let b = open(&pb, 2);
    let own = b.create_session(Some("B's own".into()), None).unwrap();
    let before = dump_sqlite(&pb);
    let e = a.copy_to(&b).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KeyMismatch);
    assert!(e.to_string().contains("another data key"), "{e}");
    same_rows(&dump_sqlite(&pb), &before, "B after a refused copy");
    assert_eq!(b.list_sessions(None).unwrap().iter().map(|s| s.id.clone()).collect::<Vec<_>>(), vec![own.id]);
}

#[test]
fn a_session_written_in_both_stores_is_refused_with_conflict_and_the_others_are_copied() {
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let a = open(&pa, 1);
    let (sid, fork) = populate(&a, dir.path());
    let b = open(&pb, 1);
    a.copy_to(&b).unwrap();
    // Both sides append to `sid`; only A appends to the fork.
    b.append_transcript(&sid, Role::User, "written in B".into()).unwrap();
    a.append_transcript(&sid, Role::User, "written in A".into()).unwrap();
    append_later(&a, &fork, "fork grows");
    let b_sid_before = b.get_transcript(&sid, 1, 100).unwrap();
    let r = a.copy_to(&b).unwrap();
    assert_eq!(r.conflicts.len(), 1, "{r:?}");
    assert_eq!(r.conflicts[0].session_id, sid);
    assert_eq!(r.conflicts[0].kind, "Conflict");
    assert!(r.conflicts[0].reason.contains("journal event at seq 13 differs"), "{}", r.conflicts[0].reason);
    assert_eq!(report(&r), [3, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0], "the fork's entry and event are copied");
    assert_eq!(b.get_transcript(&sid, 1, 100).unwrap(), b_sid_before, "the diverged session is unchanged in B");
    assert_eq!(b.get_transcript(&fork, 1, 100).unwrap().last().unwrap().content, "fork grows");

    // B ahead of A (A wrote nothing more): also a conflict, naming the seqs.
    let c = open(&dir.path().join("c.db"), 1);
    a.copy_to(&c).unwrap();
    c.append_transcript(&fork, Role::User, "only in C".into()).unwrap();
    let r = a.copy_to(&c).unwrap();
    assert_eq!(r.conflicts.iter().map(|c| (c.session_id.as_str(), c.kind.as_str())).collect::<Vec<_>>(), vec![(fork.as_str(), "Conflict")]);
    assert!(r.conflicts[0].reason.contains("has 1 event(s) for this session that the source does not (seqs 4..=4)"), "{}", r.conflicts[0].reason);
}

#[test]
fn a_session_deleted_in_the_source_is_deleted_in_the_destination_and_a_recreated_one_copied_anew() {
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let a = open(&pa, 1);
    let (sid, fork) = populate(&a, dir.path());
    let b = open(&pb, 1);
    a.copy_to(&b).unwrap();
    a.delete_session(&fork).unwrap();
    a.delete_session(&sid).unwrap();
    a.create_session_with(NewSession { id: Some(sid.clone()), name: Some("again".into()), ..Default::default() }).unwrap();
    a.append_transcript(&sid, Role::User, "reborn".into()).unwrap();
    let r = a.copy_to(&b).unwrap();
    assert!(r.conflicts.is_empty(), "{r:?}");
    assert_eq!((r.sessions_deleted, r.sessions_created, r.entries, r.events), (2, 1, 1, 4), "{r:?}");
    same_rows(&dump_sqlite(&pa), &dump_sqlite(&pb), "A and B");
    assert!(matches!(b.get_session(&fork).unwrap_err().kind(), ErrorKind::NotFound));
    assert_eq!(b.get_transcript(&sid, 1, 10).unwrap().iter().map(|e| e.content.clone()).collect::<Vec<_>>(), vec!["reborn".to_string()]);
}

#[test]
fn a_session_longer_than_one_chunk_is_copied_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let a = open(&pa, 1);
    let s = a.create_session(None, None).unwrap();
    let n = sessiondb::store::copy::COPY_CHUNK as usize * 2 + 17;
    let entries: Vec<NewEntry> = (0..n).map(|i| NewEntry::text(Role::User, format!("turn {i}"))).collect();
    a.append_entries(&s.id, entries).unwrap();
    let b = open(&pb, 1);
    let r = a.copy_to(&b).unwrap();
    assert_eq!((r.entries, r.events, r.sessions_created), (n as u64, 2, 1));
    same_rows(&dump_sqlite(&pa), &dump_sqlite(&pb), "A and B");
    assert_eq!(b.stats().unwrap().transcript_entries, 4_017);
}

#[test]
fn import_bookkeeping_is_copied_so_a_reimport_into_the_copy_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let file = dir.path().join("s.jsonl");
    std::fs::write(
        &file,
        "{\"type\":\"header\",\"id\":\"imp-1\",\"created_at\":1700000000}\n\
         {\"type\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hello\"}],\"timestamp\":\"2024-01-01T00:00:00Z\"}\n",
    )
    .unwrap();
    let a = open(&pa, 1);
    let first = sessiondb::portable::import::import_paths(&a, &[file.clone()], &mut |_| {}).unwrap();
    assert_eq!(first.files.len(), 1, "{first:?}");
    let b = open(&pb, 1);
    let r = a.copy_to(&b).unwrap();
    assert_eq!(r.import_records, 3, "{r:?}");
    same_rows(&dump_sqlite(&pa), &dump_sqlite(&pb), "A and B");
    let before = b.stats().unwrap();
    sessiondb::portable::import::import_paths(&b, &[file], &mut |_| {}).unwrap();
    let after = b.stats().unwrap();
    assert_eq!((after.sessions, after.transcript_entries), (before.sessions, before.transcript_entries));
}

// ---- PostgreSQL -------------------------------------------------------------

#[cfg(feature = "postgres")]
mod pg {
    use super::*;

    const URL_VAR: &str = "SESSIONDB_TEST_PG_URL";

    /// A fresh database on the test server, dropped on drop.
    struct PgDb {
        admin: String,
        db: String,
        url: String,
    }

    impl Drop for PgDb {
        fn drop(&mut self) {
            if let Ok(mut c) = postgres::Client::connect(&self.admin, postgres::NoTls) {
                let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.db));
            }
        }
    }

    fn pg_db() -> Option<PgDb> {
        let Ok(admin) = std::env::var(URL_VAR) else {
            eprintln!("skipped: {URL_VAR} is unset; run under scripts/with-postgres.sh to test copying to and from PostgreSQL");
            return None;
        };
        let db = format!("sdb_copy_{}_{}", std::process::id(), std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos());
        postgres::Client::connect(&admin, postgres::NoTls).unwrap().batch_execute(&format!("CREATE DATABASE \"{db}\"")).unwrap();
        let (base, query) = admin.split_once('?').map_or((admin.as_str(), None), |(b, q)| (b, Some(q)));
        let host = base.rsplit_once('/').unwrap().0;
        let url = match query {
            Some(q) => format!("{host}/{db}?{q}"),
            None => format!("{host}/{db}"),
        };
        Some(PgDb { admin, db, url })
    }

    fn dump_pg(url: &str) -> Dump {
        let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
        dump_sql(true).into_iter().map(|(t, sql)| (t, c.query(&sql, &[]).unwrap().iter().map(|r| r.get::<_, String>(0)).collect())).collect()
    }

    #[test]
    fn sqlite_to_postgres_to_sqlite_is_byte_identical_and_incremental() {
        let Some(pg) = pg_db() else { return };
        let dir = tempfile::tempdir().unwrap();
        let (pa, pc) = (dir.path().join("a.db"), dir.path().join("c.db"));
        let a = open(&pa, 1);
        let (sid, _) = populate(&a, dir.path());
        let server = open(&PathBuf::from(&pg.url), 1);
        let r = a.copy_to(&server).unwrap();
        assert_eq!(report(&r), [3, 2, 0, 0, 6, 1, 2, 2, 17, 1, 0], "{r:?}");
        same_rows(&dump_sqlite(&pa), &dump_pg(&pg.url), "SQLite -> PostgreSQL");
        assert_eq!(server.get_transcript(&sid, 1, 10).unwrap().len(), 3);
        assert_eq!(report(&a.copy_to(&server).unwrap()), [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

        // The server gets new rows of its own (another device), then back to a laptop.
        append_later(&server, &sid, "from the server");
        let c = open(&pc, 1);
        let back = server.copy_to(&c).unwrap();
        assert_eq!(report(&back), [3, 2, 0, 0, 7, 1, 2, 2, 18, 1, 0], "{back:?}");
        same_rows(&dump_pg(&pg.url), &dump_sqlite(&pc), "PostgreSQL -> SQLite");
        // And into A, incrementally: only the server's new entry and event.
        let inc = server.copy_to(&a).unwrap();
        assert_eq!(report(&inc), [3, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0], "{inc:?}");
        same_rows(&dump_sqlite(&pa), &dump_sqlite(&pc), "A and C");

        // Another key on the server side: refused before anything is written.
        let other = pg_db().unwrap();
        let s2 = open(&PathBuf::from(&other.url), 9);
        let before = dump_pg(&other.url);
        assert_eq!(a.copy_to(&s2).unwrap_err().kind(), ErrorKind::KeyMismatch);
        same_rows(&dump_pg(&other.url), &before, "the other server after a refused copy");
    }
}
