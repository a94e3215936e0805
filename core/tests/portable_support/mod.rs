//! Helpers shared by the portable-session tests: a store in a directory with
//! a fixed key, and the real session samples beside the repository (skipped
//! with a message where they are absent).
#![allow(dead_code)]

use sessiondb::keys::KeySource;
use sessiondb::store::{OpenOptions, SessionStore};
use sessiondb::DataKey;
use std::path::{Path, PathBuf};

/// A store at `dir/sessions.db` with the key `[7; 32]`.
pub fn store(dir: &Path) -> SessionStore {
    let key = DataKey::from_bytes(&[7u8; 32]).unwrap();
    SessionStore::open(OpenOptions::at(dir.join("sessions.db"), KeySource::Bytes(key))).unwrap()
}

/// `../shared/samples`, or `None` (printing SKIP) when it is absent.
pub fn samples() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/samples");
    if p.join("README.md").exists() {
        Some(p)
    } else {
        eprintln!("SKIP: real session samples not found at {} (they live beside the repo, never in it)", p.display());
        None
    }
}
