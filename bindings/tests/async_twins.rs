//! The `suspend`/`async` twins (`AsyncSessionStore`, `SessionDbAsync`):
//! driven here by a plain `block_on`, with no runtime, as uniffi's hosts
//! drive them; each returns what its blocking call returns, errors included,
//! and runs on the library's pool (`blocking-N`), not the caller's thread.

use std::sync::{Arc, Mutex};

use futures_lite::future::block_on;
use sessiondb_ffi::{AsyncSessionStore, KeyProvider, SessionDbAsync, SessionDbError, SessionStore};

/// Keeps the key in memory and records the thread `get_key` ran on.
#[derive(Default)]
struct Recording {
    key: Mutex<Option<Vec<u8>>>,
    thread: Mutex<Option<String>>,
}

impl KeyProvider for Recording {
    fn get_key(&self) -> Result<Option<Vec<u8>>, SessionDbError> {
        *self.thread.lock().unwrap() = std::thread::current().name().map(str::to_string);
        Ok(self.key.lock().unwrap().clone())
    }
    fn set_key(&self, key: Vec<u8>) -> Result<(), SessionDbError> {
        *self.key.lock().unwrap() = Some(key);
        Ok(())
    }
    fn backend_name(&self) -> String {
        "recording".into()
    }
}

#[test]
fn twins_return_the_blocking_results_and_errors_from_the_pool() {
    let dir = std::env::temp_dir().join(format!("sessiondb-ffi-async-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("s.db").to_string_lossy().into_owned();
    let s = block_on(AsyncSessionStore::open_with_key(Some(db.clone()), vec![7; 32], None, None, None, None, None)).unwrap();
    let created = block_on(s.create_session(Some("twin".into()), None)).unwrap();
    let got = block_on(s.get_session(created.id.clone())).unwrap();
    assert_eq!((got.name.as_deref(), got.entry_count), (Some("twin"), 0));
    assert_eq!(s.store().get_session(created.id.clone()).unwrap().id, created.id);
    assert_eq!(s.path(), db);
    assert!(matches!(block_on(s.get_session("nope".into())), Err(SessionDbError::NotFound { .. })));

    let env = block_on(SessionDbAsync::new().encrypt_field(vec![7; 32], "session:s1:name".into(), b"secret".to_vec())).unwrap();
    assert_eq!(block_on(SessionDbAsync::new().decrypt_field(vec![7; 32], "session:s1:name".into(), env)).unwrap(), b"secret");

    // The work runs on the pool: the provider sees a `blocking-N` thread.
    let kp = Arc::new(Recording::default());
    let other = block_on(AsyncSessionStore::open(Some(dir.join("k.db").to_string_lossy().into_owned()), None, kp.clone(), None, None, None, None)).unwrap();
    let on = kp.thread.lock().unwrap().clone().unwrap_or_default();
    assert!(on.starts_with("blocking-"), "{on}");
    block_on(other.close());

    block_on(s.close());
    assert!(s.is_closed() && s.store().is_closed());
    assert!(matches!(block_on(s.create_session(None, None)), Err(SessionDbError::Closed { .. })));
    drop(SessionStore::open_with_key(Some(db), vec![7; 32], None, None, None, None, None).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}
