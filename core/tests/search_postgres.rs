//! Search over a PostgreSQL store (issue 26 item 7): the server only sees
//! ciphertext, so each client keeps its own index under its state
//! directory, built from the store and kept current by the journal
//! position; two clients writing to one server each find the other's new
//! entries on their next search, and a deleted session is found by neither.
//!
//! Run under `scripts/with-postgres.sh` (exports `SESSIONDB_TEST_PG_URL`);
//! without it the test passes after saying it was skipped.
#![cfg(feature = "postgres")]

use std::path::PathBuf;

use sessiondb::*;

mod search_support;

const URL_VAR: &str = "SESSIONDB_TEST_PG_URL";

fn with_db(url: &str, db: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let (host, _) = base.rsplit_once('/').expect("a URL with a database");
    match query {
        Some(q) => format!("{host}/{db}?{q}"),
        None => format!("{host}/{db}"),
    }
}

fn find(s: &SessionStore, q: &str) -> Vec<(String, u64)> {
    let mut v: Vec<_> = s.search(q, &SearchOptions { limit: Some(100), ..Default::default() }).unwrap().hits.into_iter().map(|h| (h.session_id, h.seq)).collect();
    v.sort();
    v
}

#[test]
fn two_clients_each_find_the_others_entries_with_their_own_index() {
    let Ok(admin) = std::env::var(URL_VAR) else {
        eprintln!("skipped: {URL_VAR} is unset; run under scripts/with-postgres.sh");
        return;
    };
    let state = tempfile::tempdir().unwrap();
    // The only test of this binary: the state directory of both clients.
    std::env::set_var("XDG_STATE_HOME", state.path());
    let db = format!("sdb_search_{}", std::process::id());
    let mut c = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    c.batch_execute(&format!("DROP DATABASE IF EXISTS \"{db}\"")).unwrap();
    c.batch_execute(&format!("CREATE DATABASE \"{db}\"")).unwrap();
    let url = PathBuf::from(with_db(&admin, &db));
    let key = || KeySource::Bytes(DataKey::from_bytes(&[3u8; 32]).unwrap());
    // Two apps: two state directories, as on two machines.
    let a = SessionStore::open(OpenOptions { app: "sdb-search-a".into(), ..OpenOptions::at(&url, key()) }).unwrap();
    let b = SessionStore::open(OpenOptions { app: "sdb-search-b".into(), ..OpenOptions::at(&url, key()) }).unwrap();
    let sa = a.create_session(Some("Client A".into()), None).unwrap().id;
    a.append_transcript(&sa, Role::User, "pangolin written by a".into()).unwrap();
    assert_eq!(find(&b, "pangolin"), vec![(sa.clone(), 1)]);
    let sb = b.create_session(None, None).unwrap().id;
    b.append_transcript(&sb, Role::User, "axolotl written by b".into()).unwrap();
    assert_eq!(find(&a, "axolotl"), vec![(sb.clone(), 1)]);
    assert_eq!(find(&a, "pangolin"), vec![(sa.clone(), 1)]);
    b.append_transcript(&sa, Role::Assistant, "more pangolin from b".into()).unwrap();
    assert_eq!(find(&a, "pangolin"), vec![(sa.clone(), 1), (sa.clone(), 2)]);
    a.delete_session(&sa).unwrap();
    assert_eq!(find(&b, "pangolin"), vec![]);
    assert_eq!(find(&a, "pangolin"), vec![]);
    // Each client's index is its own folder under its state directory.
    let (ia, _) = a.search_index_location().unwrap();
    let (ib, _) = b.search_index_location().unwrap();
    assert!(ia.starts_with(state.path().join("sdb-search-a/search")), "{}", ia.display());
    assert!(ib.starts_with(state.path().join("sdb-search-b/search")), "{}", ib.display());
    assert!(ia.join("meta.json").exists() && ib.join("meta.json").exists());
    drop((a, b));
    let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS \"{db}\" WITH (FORCE)"));

    // The conformance cases, each on a fresh database.
    let n = std::sync::atomic::AtomicU32::new(0);
    let dbs = std::sync::Mutex::new(Vec::new());
    search_support::run_search_cases(&|| {
        let name = format!("sdb_search_{}_{}", std::process::id(), n.fetch_add(1, std::sync::atomic::Ordering::SeqCst));
        c_exec(&admin, &format!("DROP DATABASE IF EXISTS \"{name}\""));
        c_exec(&admin, &format!("CREATE DATABASE \"{name}\""));
        dbs.lock().unwrap().push(name.clone());
        SessionStore::open(OpenOptions::at(with_db(&admin, &name), key())).unwrap()
    });
    for name in dbs.into_inner().unwrap() {
        c_exec(&admin, &format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
    }
}

fn c_exec(admin: &str, sql: &str) {
    postgres::Client::connect(admin, postgres::NoTls).unwrap().batch_execute(sql).unwrap();
}
