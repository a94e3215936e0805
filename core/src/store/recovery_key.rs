//! Recovery keys on the store (DESIGN.md "Keys"; issue 13 item 8): export
//! this store's data key as text, and import one on another machine, checked
//! against the database's key-check value before it is stored. The text
//! format is [`crate::keys::recovery_key_text`].

use super::{Location, OpenOptions, SessionStore};
use crate::error::{Error, Result};
use crate::keys::{self, KeySource};

impl SessionStore {
    /// This store's data key as a recovery key: 56 base32 characters (key
    /// and a 3-byte checksum) in 14 groups of 4 joined by `-`. Whoever holds
    /// it can decrypt every session.
    ///
    /// See [`keys::recovery_key_text`].
    pub fn recovery_key(&self) -> String {
        keys::recovery_key_text(self.key())
    }

    /// Import a recovery key for the store `opts` names and open it.
    ///
    /// Steps: parse the text ([`keys::parse_recovery_key`]: checksum,
    /// length, alphabet); open the database with that key, which checks it
    /// against the key-check value (a file path must name an existing
    /// database; a server store with no key-check value yet is initialised
    /// with this key); store it in `opts.key`'s credential store (the OS
    /// keyring under service `opts.app`, or the host provider); open the
    /// store again from that credential store and return it.
    ///
    /// Errors: `InvalidInput` (mistyped: "recovery key checksum mismatch";
    /// wrong length or character; `opts.key` is key bytes), `NotFound` (no
    /// database file), `KeyMismatch` (a valid recovery key of another
    /// database: nothing is stored), `Conflict` (the credential store
    /// already holds another key for this app: nothing is overwritten),
    /// `KeyStoreUnavailable`, and the errors of [`SessionStore::open`].
    pub fn import_recovery_key(opts: OpenOptions, recovery_key: &str) -> Result<SessionStore> {
        let key = keys::parse_recovery_key(recovery_key)?;
        if let KeySource::Bytes(_) = opts.key {
            return Err(Error::invalid("a recovery key is imported into a credential store (the OS keyring or a key provider), not into key bytes"));
        }
        let location = match &opts.path {
            Some(l) => l.clone(),
            None => Location::File(crate::paths::default_db_path(&opts.app)?),
        };
        if let Location::File(path) = &location {
            if !std::fs::metadata(path).map(|m| m.is_file() && m.len() > 0).unwrap_or(false) {
                return Err(Error::not_found("database", path.to_string_lossy().into_owned()));
            }
        }
        let check = SessionStore::open(OpenOptions { path: Some(location.clone()), key: KeySource::Bytes(key.clone()), recover: false, ..opts.clone() })
            .map_err(|e| match e {
                Error::KeyMismatch { .. } => Error::KeyMismatch { backend: "the recovery key (it belongs to another database)".into() },
                other => other,
            })?;
        let key_file_id = match check.read(|r, _| r.meta(keys::KEY_FILE_META))? {
            crate::backend::Sealed::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
            _ => None,
        };
        check.close();
        keys::store_imported_key(&opts.key, &opts.app, &key, key_file_id.as_deref())?;
        SessionStore::open(OpenOptions { path: Some(location), ..opts })
    }
}
