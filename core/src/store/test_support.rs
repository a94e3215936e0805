//! Test helpers of the store (a fresh store in a temp dir), moved out of mod.rs as they were.

use super::*;

/// A fresh store in a temp dir with a fixed key.
pub fn temp_store() -> (tempfile::TempDir, SessionStore) {
    let dir = tempfile::tempdir().expect("tempdir");
    let key = DataKey::from_bytes(&[42u8; 32]).expect("32 bytes");
    let store = SessionStore::open(OpenOptions::at(dir.path().join("sessions.db"), KeySource::Bytes(key)))
        .expect("open temp store");
    (dir, store)
}
