//! Where the data key comes from: the OS credential store (keyring-core with
//! the platform store), bytes the host passes in, or a host callback.
//!
//! Source: seed 000, "Key Lifecycle"; DESIGN.md "Keys". The key is stored
//! base64 under service `<app>`, account [`KEY_ACCOUNT`]. A missing entry is
//! the only thing read as "no key"; a locked, denied or unreachable store is
//! [`Error::KeyStoreUnavailable`].

use std::sync::Arc;

use zeroize::Zeroizing;

use crate::crypto::DataKey;
use crate::error::{Error, Result};

/// The credential-store account name of the data key.
pub const KEY_ACCOUNT: &str = "session-data-key";

/// A host-implemented key source (Android Keystore, Apple Keychain, a
/// password manager...). Implemented in Python, Node, Kotlin or Swift by the
/// bindings.
pub trait KeyProvider: Send + Sync {
    /// The stored key bytes, or `Ok(None)` when the host has no key yet.
    /// Return an error (e.g. [`Error::KeyStoreUnavailable`]) when the
    /// host's store is locked or unreachable: never `None` for that.
    fn get_key(&self) -> Result<Option<Vec<u8>>>;
    /// Persist a freshly generated 32-byte key (called once, on first open
    /// of a new database).
    fn set_key(&self, key: &[u8]) -> Result<()>;
    /// Human-readable backend name used in error messages.
    fn backend_name(&self) -> String {
        "host key provider".to_string()
    }
}

/// How `SessionStore::open` obtains the data key.
#[derive(Clone)]
pub enum KeySource {
    /// The OS credential store via keyring-core: Secret Service on Linux,
    /// Keychain on macOS, Credential Manager on Windows.
    OsKeyring,
    /// A key the host already holds (32 bytes).
    Bytes(DataKey),
    /// A host callback.
    Provider(Arc<dyn KeyProvider>),
}

impl std::fmt::Debug for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::OsKeyring => f.write_str("OsKeyring"),
            KeySource::Bytes(_) => f.write_str("Bytes(<redacted>)"),
            KeySource::Provider(p) => write!(f, "Provider({})", p.backend_name()),
        }
    }
}

impl KeySource {
    /// The key source a host binding's open call names: `key` (the data
    /// key's 32 bytes), else `provider`, else the OS keyring. `names` are
    /// the host's names of the two parameters (Python `("key",
    /// "key_provider")`, Node `("key", "keyProvider")`), for the error.
    /// Errors: `InvalidInput` (both given; a key that is not 32 bytes).
    pub fn for_host(key: Option<&[u8]>, provider: Option<Arc<dyn KeyProvider>>, names: (&str, &str)) -> Result<KeySource> {
        match (key, provider) {
            (Some(_), Some(_)) => Err(Error::invalid(format!("pass either {} or {}, not both", names.0, names.1))),
            (Some(k), None) => Ok(KeySource::Bytes(DataKey::from_bytes(k)?)),
            (None, Some(p)) => Ok(KeySource::Provider(p)),
            (None, None) => Ok(KeySource::OsKeyring),
        }
    }
}

/// A [`KeyProvider`] over any keyring-core credential store.
pub struct KeyringProvider {
    store: Arc<keyring_core::CredentialStore>,
    service: String,
    backend: String,
}

impl KeyringProvider {
    /// The platform's native credential store for `service` (the app name).
    /// Errors: `KeyStoreUnavailable` naming the backend and the remedy.
    pub fn native(service: &str) -> Result<Self> {
        let backend = native_backend_name();
        let store = native_store().map_err(|e| unavailable(&backend, &e))?;
        Ok(KeyringProvider { store, service: service.to_string(), backend })
    }

    /// A provider over an explicit keyring-core store (e.g. `keyring_core::mock::Store`).
    pub fn with_store(store: Arc<keyring_core::CredentialStore>, service: &str, backend: &str) -> Self {
        KeyringProvider { store, service: service.to_string(), backend: backend.to_string() }
    }

    fn entry(&self) -> Result<keyring_core::Entry> {
        keyring_core::Entry::new_in_store(&self.store, &self.service, KEY_ACCOUNT)
            .map_err(|e| unavailable(&self.backend, &e))
    }
}

impl KeyProvider for KeyringProvider {
    fn get_key(&self) -> Result<Option<Vec<u8>>> {
        match self.entry()?.get_password() {
            Ok(b64) => {
                let b64 = Zeroizing::new(b64);
                let key = DataKey::from_base64(&b64).map_err(|_| Error::KeyStoreUnavailable {
                    backend: self.backend.clone(),
                    reason: format!("the `{}`/`{KEY_ACCOUNT}` entry is not base64 of 32 bytes", self.service),
                    remedy: "restore the original key into that entry; sessiondb will not overwrite it".into(),
                })?;
                Ok(Some(key.expose_bytes().to_vec()))
            }
            Err(keyring_core::Error::NoEntry) => Ok(None),
            Err(e) => Err(unavailable(&self.backend, &e)),
        }
    }

    fn set_key(&self, key: &[u8]) -> Result<()> {
        let key = DataKey::from_bytes(key)?;
        self.entry()?.set_password(&key.to_base64()).map_err(|e| unavailable(&self.backend, &e))
    }

    fn backend_name(&self) -> String {
        self.backend.clone()
    }
}

fn unavailable(backend: &str, e: &keyring_core::Error) -> Error {
    let reason = match e {
        keyring_core::Error::NoStorageAccess(_) => "access was refused (the keyring is locked or access was denied)".to_string(),
        keyring_core::Error::PlatformFailure(inner) => format!("the platform store failed: {inner}"),
        keyring_core::Error::NoDefaultStore => "no credential store is configured".to_string(),
        other => format!("{other}"),
    };
    Error::KeyStoreUnavailable { backend: backend.to_string(), reason, remedy: native_remedy().to_string() }
}

fn native_backend_name() -> String {
    if cfg!(target_os = "linux") {
        "Secret Service (D-Bus)".into()
    } else if cfg!(target_os = "macos") {
        "macOS Keychain".into()
    } else if cfg!(windows) {
        "Windows Credential Manager".into()
    } else {
        "no native credential store".into()
    }
}

fn native_remedy() -> &'static str {
    if cfg!(target_os = "linux") {
        "Start and unlock a Secret Service (gnome-keyring-daemon or KWallet) in this D-Bus session \
         (headless: `dbus-run-session -- sh -c 'echo PASSWORD | gnome-keyring-daemon --unlock --components=secrets; ...'`, \
         see scripts/with-keyring.sh, which keeps its keyring across runs; scripts/with-secret-service.sh starts a throwaway one for tests), \
         or pass the key with --key-file / a key provider"
    } else if cfg!(target_os = "macos") {
        "Unlock the login keychain and allow access, or pass the key with a key provider"
    } else {
        "Unlock the credential store and allow access, or pass the key with a key provider"
    }
}

#[cfg(target_os = "linux")]
fn native_store() -> keyring_core::Result<Arc<keyring_core::CredentialStore>> {
    Ok(zbus_secret_service_keyring_store::Store::new()?)
}

#[cfg(target_os = "macos")]
fn native_store() -> keyring_core::Result<Arc<keyring_core::CredentialStore>> {
    Ok(apple_native_keyring_store::keychain::Store::new()?)
}

#[cfg(windows)]
fn native_store() -> keyring_core::Result<Arc<keyring_core::CredentialStore>> {
    Ok(windows_native_keyring_store::Store::new()?)
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
fn native_store() -> keyring_core::Result<Arc<keyring_core::CredentialStore>> {
    Err(keyring_core::Error::NotSupportedByStore("no native credential store on this platform".into()))
}

/// Result of resolving a key for an open.
pub(crate) struct ResolvedKey {
    pub key: DataKey,
    pub backend: String,
}

/// Resolve the data key for `app`.
///
/// * key present: returned;
/// * key absent and `db_has_data`: [`Error::RecoveryLocked`], nothing written;
/// * key absent and a new database: 32 fresh bytes are generated, stored, and returned.
///
/// The caller holds the database's first-open lock. For the OS keyring,
/// whose one entry serves every database of `app`, creating the key also
/// takes a per-app lock in the default state directory and reads the entry
/// again under it, so two processes creating two new databases at once
/// still end with one key (DESIGN.md "Keys").
pub(crate) fn resolve_key(source: &KeySource, app: &str, db_has_data: bool, timeout_ms: u64) -> Result<ResolvedKey> {
    let provider: Arc<dyn KeyProvider> = match source {
        KeySource::Bytes(k) => return Ok(ResolvedKey { key: k.clone(), backend: "host-provided key bytes".into() }),
        KeySource::Provider(p) => p.clone(),
        KeySource::OsKeyring => Arc::new(KeyringProvider::native(app)?),
    };
    let backend = provider.backend_name();
    let stored = |bytes: Vec<u8>| -> Result<ResolvedKey> {
        let bytes = Zeroizing::new(bytes);
        let key = DataKey::from_bytes(&bytes).map_err(|_| Error::KeyStoreUnavailable {
            backend: backend.clone(),
            reason: format!("the key provider returned {} bytes, a data key is 32", bytes.len()),
            remedy: "return the 32-byte key that was handed to set_key".into(),
        })?;
        Ok(ResolvedKey { key, backend: backend.clone() })
    };
    if let Some(bytes) = provider.get_key()? {
        return stored(bytes);
    }
    if db_has_data {
        return Err(Error::RecoveryLocked { backend, service: app.to_string() });
    }
    // The OS keyring's one entry serves every database of `app`: another
    // process may have created it, for another database, while we waited.
    // (A host provider is asked once; the database's first-open lock, held
    // by the caller, serialises the processes opening this database.)
    let _app_lock = match source {
        KeySource::OsKeyring => {
            let lock = app_key_lock(app, timeout_ms)?;
            if let Some(bytes) = provider.get_key()? {
                return stored(bytes);
            }
            lock
        }
        _ => None,
    };
    let key = DataKey::generate();
    provider.set_key(key.expose_bytes())?;
    Ok(ResolvedKey { key, backend })
}

/// The per-app key-creation lock `<default state dir of app>/key-creation.lock`,
/// or `None` where no default state directory can be made (no home
/// directory, read-only home): the database's own first-open lock still
/// serialises the processes opening that database.
fn app_key_lock(app: &str, timeout_ms: u64) -> Result<Option<crate::paths::FileLock>> {
    let Ok(db) = crate::paths::default_db_path(app) else { return Ok(None) };
    let Some(dir) = db.parent() else { return Ok(None) };
    if crate::paths::ensure_private_dir(dir).is_err() {
        return Ok(None);
    }
    crate::paths::FileLock::acquire(&dir.join("key-creation.lock"), timeout_ms, "locking the key-creation lock").map(Some)
}

/// Characters of a recovery key without separators: base32 of 35 bytes.
pub const RECOVERY_KEY_CHARS: usize = 56;
/// Characters per group in [`recovery_key_text`].
pub const RECOVERY_KEY_GROUP: usize = 4;
/// Domain of the recovery key checksum (SHA-256 input prefix).
const RECOVERY_CHECKSUM_DOMAIN: &[u8] = b"sessiondb recovery key v1\0";
/// Checksum bytes of a recovery key.
const RECOVERY_CHECKSUM_LEN: usize = 3;

fn recovery_checksum(key: &[u8]) -> [u8; RECOVERY_CHECKSUM_LEN] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(RECOVERY_CHECKSUM_DOMAIN);
    h.update(key);
    let d = h.finalize();
    [d[0], d[1], d[2]]
}

/// The recovery key of `key` (DESIGN.md "Keys": a second device gets the key):
/// the 32 key bytes followed by a 3-byte checksum (the first 3 bytes of
/// SHA-256(`"sessiondb recovery key v1\0"` ‖ key)), in base32 (RFC 4648
/// alphabet `A-Z2-7`, no padding): 56 characters, printed as 14 groups of 4
/// joined by `-`, e.g. `MFRG-GZDF-...`. Anyone holding it can decrypt every
/// session of every store with this key.
pub fn recovery_key_text(key: &DataKey) -> String {
    let mut raw = Zeroizing::new(Vec::with_capacity(crate::crypto::KEY_LEN + RECOVERY_CHECKSUM_LEN));
    raw.extend_from_slice(key.expose_bytes());
    raw.extend_from_slice(&recovery_checksum(key.expose_bytes()));
    let b32 = Zeroizing::new(data_encoding::BASE32_NOPAD.encode(&raw));
    debug_assert_eq!(b32.len(), RECOVERY_KEY_CHARS);
    let groups: Vec<&str> = b32.as_bytes().chunks(RECOVERY_KEY_GROUP).map(|c| std::str::from_utf8(c).expect("base32 is ASCII")).collect();
    groups.join("-")
}

/// Parse a recovery key written by [`recovery_key_text`]. Tolerated: any
/// case, and whitespace and `-` anywhere (grouped or not, split over lines).
///
/// Errors (all `InvalidInput`, none `KeyMismatch`): a character outside
/// the base32 alphabet (named by its position), a length other than 56
/// characters, and a checksum that does not match (a mistyped character:
/// the message names the checksum). A random typo passes the 24-bit
/// checksum with probability 2^-24.
pub fn parse_recovery_key(text: &str) -> Result<DataKey> {
    let mut clean = Zeroizing::new(String::with_capacity(RECOVERY_KEY_CHARS));
    for (i, c) in text.chars().filter(|c| !c.is_whitespace() && *c != '-').enumerate() {
        let u = c.to_ascii_uppercase();
        if !(u.is_ascii_uppercase() || ('2'..='7').contains(&u)) {
            return Err(Error::invalid(format!(
                "recovery key: character {} is not in its alphabet (letters A-Z and digits 2-7; 0, 1, 8 and 9 never occur)",
                i + 1
            )));
        }
        clean.push(u);
    }
    if clean.len() != RECOVERY_KEY_CHARS {
        return Err(Error::invalid(format!(
            "recovery key: {} characters, a recovery key has {RECOVERY_KEY_CHARS} (14 groups of 4)",
            clean.len()
        )));
    }
    let raw = Zeroizing::new(
        data_encoding::BASE32_NOPAD
            .decode(clean.as_bytes())
            .map_err(|_| Error::invalid("recovery key: not base32 (the last group has a character that cannot end a key)"))?,
    );
    let (key, sum) = raw.split_at(crate::crypto::KEY_LEN);
    if sum != recovery_checksum(key) {
        return Err(Error::invalid(
            "recovery key checksum mismatch: a character was mistyped or left out; compare it group by group with the exported text",
        ));
    }
    DataKey::from_bytes(key)
}

/// Store `key` in the credential store of `source` for `app` (the
/// recovery-key import): the OS keyring entry (service `app`, account
/// [`KEY_ACCOUNT`]) or the host provider's `set_key`. An entry that
/// already holds this key is left as it is.
///
/// Errors: `Conflict` when the store already holds another data key (it
/// opens other databases of this app: nothing is overwritten);
/// `InvalidInput` for [`KeySource::Bytes`] (no credential store to write);
/// `KeyStoreUnavailable`.
pub(crate) fn store_imported_key(source: &KeySource, app: &str, key: &DataKey) -> Result<String> {
    let provider: Arc<dyn KeyProvider> = match source {
        KeySource::Bytes(_) => {
            return Err(Error::invalid("a recovery key is imported into a credential store (the OS keyring or a key provider), not into key bytes"))
        }
        KeySource::Provider(p) => p.clone(),
        KeySource::OsKeyring => Arc::new(KeyringProvider::native(app)?),
    };
    match provider.get_key()? {
        Some(existing) => {
            let existing = Zeroizing::new(existing);
            if existing.as_slice() == key.expose_bytes().as_slice() {
                return Ok(provider.backend_name());
            }
            Err(Error::conflict(format!(
                "{} already holds another data key for `{app}` (it opens other databases of this app); nothing was overwritten: \
                 import under another app name (--app), or move those databases first",
                provider.backend_name()
            )))
        }
        None => {
            provider.set_key(key.expose_bytes())?;
            Ok(provider.backend_name())
        }
    }
}
