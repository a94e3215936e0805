//! Where the data key comes from: the OS credential store (keyring-core with
//! the platform store), a key file when no credential store exists (headless
//! machines), bytes or base64 text the host passes in, or a host callback.
//!
//! Source: seed 000, "Key Lifecycle"; DESIGN.md "Keys". The key is stored
//! base64 under service `<app>`, account [`KEY_ACCOUNT`]. A missing entry is
//! the only thing read as "no key"; a locked, denied or unreachable store is
//! [`Error::KeyStoreUnavailable`].
//!
//! Key files (DESIGN.md "Keys", headless machines): when the OS credential
//! store is *absent* (no D-Bus session bus, or no Secret Service on it; never
//! when it is locked or refuses access) and the database does not exist yet,
//! [`SessionStore::open`](crate::SessionStore::open) creates the key in
//! `<key dir>/<id>.key` ([`crate::paths::default_key_dir`]: `~/.config/<app>/keys`),
//! where `<id>` is 32 random hex digits recorded in the database's `meta`
//! table (`key_file`). The file holds the key's base64 and a newline (the
//! format `--key-file` and the hosts' `key` take), mode 0600 in a 0700
//! directory. One file per database: copying or moving a database keeps
//! its id, so it finds its key on this machine and nowhere else. Every later
//! open of that database reads the file, even once a keyring appears; a
//! missing file is [`Error::RecoveryLocked`]. [`OpenOptions::key_file_fallback`](crate::OpenOptions::key_file_fallback)
//! and the environment variable [`NO_KEY_FILE_ENV`] turn the creation off.

use std::sync::Arc;

use zeroize::Zeroizing;

use crate::crypto::DataKey;
use crate::error::{Error, Result};

/// The credential-store account name of the data key.
pub const KEY_ACCOUNT: &str = "session-data-key";

/// Environment variable that turns the key-file fallback off when set to
/// anything but empty or `0` (as `OpenOptions::key_file_fallback = false`).
pub const NO_KEY_FILE_ENV: &str = "SESSIONDB_NO_KEY_FILE";

/// The `meta` entry naming a database's key file (its `<id>`).
pub(crate) const KEY_FILE_META: &str = "key_file";

/// The key backend a key file reports ([`crate::SessionStore::key_backend`]);
/// the path is [`crate::SessionStore::key_file`] / `StoreStats::key_file`.
pub const KEY_FILE_BACKEND: &str = "file";

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
    /// Keychain on macOS, Credential Manager on Windows. Where there is none
    /// (headless), a new database's key goes to a key file and a database
    /// whose `meta` names a key file reads it (see the module docs).
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

/// A data key as a host hands it in: raw bytes or the base64 text of a key
/// file. Decoded by [`KeyInput::decode`]; the bindings only convert their
/// types (Python `bytes | str`, Node `Buffer | Uint8Array | string`,
/// Kotlin/Swift `ByteArray`/`Data` or a `String`) into this.
#[derive(Clone, Copy)]
pub enum KeyInput<'a> {
    /// Bytes: the 32 key bytes, or the bytes of a key file (its base64 text).
    Bytes(&'a [u8]),
    /// The base64 text of the 32 key bytes (a key file's content).
    Text(&'a str),
}

impl std::fmt::Debug for KeyInput<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyInput::Bytes(b) => write!(f, "Bytes(<{} bytes redacted>)", b.len()),
            KeyInput::Text(t) => write!(f, "Text(<{} characters redacted>)", t.chars().count()),
        }
    }
}

impl KeyInput<'_> {
    /// The data key: 32 bytes as they are; otherwise the (UTF-8) text is
    /// read as standard base64 (`A-Z a-z 0-9 + /`, `=` padding) of 32 bytes,
    /// 44 characters, with whitespace around it ignored (a key file's
    /// trailing newline). `name` is the host's parameter name, for the error.
    ///
    /// Errors: `InvalidInput` naming `name` and what is wrong (the byte
    /// count; not base64; base64 of the wrong length), never the key.
    pub fn decode(self, name: &str) -> Result<DataKey> {
        let (text, from_bytes) = match self {
            KeyInput::Bytes(b) if b.len() == crate::crypto::KEY_LEN => return DataKey::from_bytes(b),
            KeyInput::Bytes(b) => (std::str::from_utf8(b).ok(), Some(b.len())),
            KeyInput::Text(t) => (Some(t), None),
        };
        let t = text.map(str::trim);
        let decoded = t.and_then(|t| data_encoding::BASE64.decode(t.as_bytes()).ok()).map(Zeroizing::new);
        let bytes = match (decoded, from_bytes, t) {
            (Some(b), _, _) => b,
            (None, Some(n), _) => {
                return Err(Error::invalid(format!(
                    "{name}: {n} bytes, neither the 32-byte data key nor its base64 text (a key file's content)"
                )))
            }
            (None, None, t) => {
                return Err(Error::invalid(format!(
                    "{name}: not the base64 text of a data key ({} characters; a key file holds 44 characters of base64 and a newline) and not 32 bytes",
                    t.map_or(0, |t| t.chars().count())
                )))
            }
        };
        if bytes.len() != crate::crypto::KEY_LEN {
            return Err(Error::invalid(format!(
                "{name}: base64 of {} bytes, a data key is {} bytes (44 characters of base64)",
                bytes.len(),
                crate::crypto::KEY_LEN
            )));
        }
        DataKey::from_bytes(&bytes)
    }
}

impl KeySource {
    /// The key source a host binding's open call names: `key` (the data
    /// key's 32 bytes or its base64 text, see [`KeyInput::decode`]), else
    /// `provider`, else the OS keyring. `names` are the host's names of the
    /// two parameters (Python `("key", "key_provider")`, Node `("key",
    /// "keyProvider")`), for the error.
    /// Errors: `InvalidInput` (both given; a key that is neither 32 bytes
    /// nor base64 of 32 bytes).
    pub fn for_host(key: Option<KeyInput<'_>>, provider: Option<Arc<dyn KeyProvider>>, names: (&str, &str)) -> Result<KeySource> {
        match (key, provider) {
            (Some(_), Some(_)) => Err(Error::invalid(format!("pass either {} or {}, not both", names.0, names.1))),
            (Some(k), None) => Ok(KeySource::Bytes(k.decode(names.0)?)),
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
        Self::native_or_absent(service)?.map_err(|reason| absent_error(&reason, ABSENT_REMEDY_NEW))
    }

    /// [`KeyringProvider::native`], telling an absent store apart:
    /// `Ok(Err(reason))` when there is no credential store at all (no
    /// D-Bus session bus, no Secret Service on it: see [`is_absent`]),
    /// `Err(KeyStoreUnavailable)` for a store that exists but failed.
    fn native_or_absent(service: &str) -> Result<std::result::Result<Self, String>> {
        let backend = native_backend_name();
        match native_store() {
            Ok(store) => Ok(Ok(KeyringProvider { store, service: service.to_string(), backend })),
            Err(e) if is_absent(&e) => Ok(Err(absent_reason(&e))),
            Err(e) => Err(unavailable(&backend, &e)),
        }
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
        "Unlock the keyring (log in to the desktop session, or `gnome-keyring-daemon --unlock`), or pass the key yourself (CLI --key-file FILE, hosts: the `key` option)"
    } else if cfg!(target_os = "macos") {
        "Unlock the login keychain and allow access, or pass the key yourself (CLI --key-file FILE, hosts: the `key` option)"
    } else {
        "Unlock the credential store and allow access, or pass the key yourself (CLI --key-file FILE, hosts: the `key` option)"
    }
}

/// The remedy of an absent store for a new database with the key-file fallback off.
const ABSENT_REMEDY_NEW: &str = "Pass the key yourself (CLI --key-file FILE, made by `sessiondb key init --file FILE`; hosts: the `key` option), or allow the key file (unset SESSIONDB_NO_KEY_FILE)";
/// The remedy of an absent store for `sessiondb key init` without `--file`.
const ABSENT_REMEDY_KEY_INIT: &str = "Create a key file instead (`sessiondb key init --file FILE`, then --key-file FILE), or let the first `sessiondb new` or `import` create the database and its key file";
/// The remedy of an absent store for an existing database whose key is in an OS keyring.
const ABSENT_REMEDY_EXISTING: &str = "This database's key is in an OS keyring: open it where that keyring runs, or pass the key yourself (CLI --key-file FILE, hosts: the `key` option)";

fn absent_error(reason: &str, remedy: &str) -> Error {
    Error::KeyStoreUnavailable { backend: native_backend_name(), reason: reason.to_string(), remedy: remedy.to_string() }
}

/// Is `e` (from creating the platform store) "there is no credential store
/// here", rather than a store that is locked, refuses access or failed?
/// Linux: no D-Bus session bus (no address, no socket, connection refused)
/// or nothing owns `org.freedesktop.secrets` on it (`ServiceUnknown`,
/// `NameHasNoOwner`). A locked collection, a dismissed prompt, a denied
/// access or any other failure is not absence (DESIGN.md "Keys").
fn is_absent(e: &keyring_core::Error) -> bool {
    match e {
        keyring_core::Error::NoDefaultStore | keyring_core::Error::NotSupportedByStore(_) => true,
        #[cfg(target_os = "linux")]
        keyring_core::Error::PlatformFailure(inner) => inner.downcast_ref::<secret_service::Error>().is_some_and(secret_service_absent),
        _ => false,
    }
}

#[cfg(target_os = "linux")]
fn secret_service_absent(e: &secret_service::Error) -> bool {
    fn fdo_absent(f: &zbus::fdo::Error) -> bool {
        matches!(f, zbus::fdo::Error::ServiceUnknown(_) | zbus::fdo::Error::NameHasNoOwner(_))
    }
    fn io_absent(e: &std::io::Error) -> bool {
        matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused)
    }
    match e {
        secret_service::Error::Unavailable => true,
        secret_service::Error::ZbusFdo(f) => fdo_absent(f),
        secret_service::Error::Zbus(z) => match z {
            zbus::Error::Address(_) | zbus::Error::InterfaceNotFound => true,
            zbus::Error::Connection(io, _) | zbus::Error::InputOutput(io) => io_absent(io),
            zbus::Error::MethodError(name, _, _) => {
                matches!(name.as_str(), "org.freedesktop.DBus.Error.ServiceUnknown" | "org.freedesktop.DBus.Error.NameHasNoOwner")
            }
            zbus::Error::FDO(f) => fdo_absent(f),
            _ => false,
        },
        _ => false,
    }
}

/// One short line on why the store is absent (no D-Bus internals).
fn absent_reason(e: &keyring_core::Error) -> String {
    #[cfg(target_os = "linux")]
    if let keyring_core::Error::PlatformFailure(inner) = e {
        if let Some(ss) = inner.downcast_ref::<secret_service::Error>() {
            let no_bus = match ss {
                secret_service::Error::Unavailable => false,
                secret_service::Error::Zbus(zbus::Error::Address(_) | zbus::Error::Connection(..) | zbus::Error::InputOutput(_)) => true,
                _ => false,
            };
            return if no_bus {
                "not running (no D-Bus session bus: a container, server, CI job or SSH session)".into()
            } else {
                "not running (nothing provides org.freedesktop.secrets on the D-Bus session bus)".into()
            };
        }
    }
    let _ = e;
    "no credential store on this machine".into()
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
    /// The key file holding the key ([`KEY_FILE_BACKEND`]).
    pub key_file: Option<std::path::PathBuf>,
    /// A key file created by this open: its id, written to `meta` with the
    /// key-check value.
    pub new_key_file_id: Option<String>,
}

impl ResolvedKey {
    fn from(key: DataKey, backend: String) -> Self {
        ResolvedKey { key, backend, key_file: None, new_key_file_id: None }
    }
}

/// What the open knows of the database before it has a key.
pub(crate) struct DbKeyState {
    /// The database holds a key-check value (it exists and was initialised).
    pub has_data: bool,
    /// Its `meta` `key_file` id: its key is in that key file (a new
    /// database: [`crate::OpenOptions::key_file_id`], the file to share).
    pub key_file_id: Option<String>,
}

/// Is the key-file fallback allowed: `setting` (OpenOptions) and no
/// [`NO_KEY_FILE_ENV`] (set to anything but empty or `0`).
pub(crate) fn key_file_fallback_allowed(setting: bool) -> bool {
    setting && std::env::var_os(NO_KEY_FILE_ENV).is_none_or(|v| v.is_empty() || v == "0")
}

/// Resolve the data key for `app`.
///
/// * a database whose `meta` names a key file (`state.key_file_id`) and the
///   OS keyring as source: that file ([`crate::paths::default_key_dir`]),
///   whether or not a keyring is reachable now; a missing file is
///   [`Error::RecoveryLocked`];
/// * key present: returned;
/// * key absent and `state.has_data`: [`Error::RecoveryLocked`], nothing written;
/// * key absent and a new database: 32 fresh bytes are generated, stored, and returned;
/// * the OS keyring absent (not locked, not denied: see `is_absent`): a new
///   database with `fallback` gets a new key file (a warning says so
///   once, through [`set_warning_handler`]); otherwise `KeyStoreUnavailable`
///   with a short remedy.
///
/// The caller holds the database's first-open lock. For the OS keyring,
/// whose one entry serves every database of `app`, creating the key also
/// takes a per-app lock in the default state directory and reads the entry
/// again under it, so two processes creating two new databases at once
/// still end with one key (DESIGN.md "Keys"). A key file serves one
/// database, so the database's own lock is enough.
pub(crate) fn resolve_key(source: &KeySource, app: &str, state: &DbKeyState, fallback: bool, timeout_ms: u64) -> Result<ResolvedKey> {
    let provider: Arc<dyn KeyProvider> = match source {
        KeySource::Bytes(k) => return Ok(ResolvedKey::from(k.clone(), "host-provided key bytes".into())),
        KeySource::Provider(p) => p.clone(),
        KeySource::OsKeyring => {
            if let Some(id) = &state.key_file_id {
                return open_key_file(app, id, state.has_data);
            }
            match KeyringProvider::native_or_absent(app)? {
                Ok(p) => Arc::new(p),
                Err(reason) if state.has_data => return Err(absent_error(&reason, ABSENT_REMEDY_EXISTING)),
                Err(reason) if !fallback => return Err(absent_error(&reason, ABSENT_REMEDY_NEW)),
                Err(_) => return create_default_key_file(app),
            }
        }
    };
    let backend = provider.backend_name();
    let stored = |bytes: Vec<u8>| -> Result<ResolvedKey> {
        let bytes = Zeroizing::new(bytes);
        let key = DataKey::from_bytes(&bytes).map_err(|_| Error::KeyStoreUnavailable {
            backend: backend.clone(),
            reason: format!("the key provider returned {} bytes, a data key is 32", bytes.len()),
            remedy: "return the 32-byte key that was handed to set_key".into(),
        })?;
        Ok(ResolvedKey::from(key, backend.clone()))
    };
    if let Some(bytes) = provider.get_key()? {
        return stored(bytes);
    }
    if state.has_data {
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
    Ok(ResolvedKey::from(key, backend))
}

/// Is `id` a key-file id (32 lowercase hex digits)?
fn valid_key_file_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The key file `<default key dir of app>/<id>.key`.
/// Errors: `Corrupt` for an id that is not 32 hex digits (a damaged `meta`), as [`crate::paths::default_key_dir`].
pub fn key_file_path(app: &str, id: &str) -> Result<std::path::PathBuf> {
    if !valid_key_file_id(id) {
        return Err(Error::corrupt("the database's `key_file` meta value is not a key-file id (32 hex digits)"));
    }
    Ok(crate::paths::default_key_dir(app)?.join(format!("{id}.key")))
}

/// The key of a database whose key is in the key file `id`.
fn open_key_file(app: &str, id: &str, has_data: bool) -> Result<ResolvedKey> {
    let path = key_file_path(app, id)?;
    match read_key_file(&path)? {
        // A new database sharing another's key file records its id too.
        Some(key) => Ok(ResolvedKey {
            key,
            backend: KEY_FILE_BACKEND.into(),
            key_file: Some(path),
            new_key_file_id: (!has_data).then(|| id.to_string()),
        }),
        None if has_data => Err(Error::RecoveryLocked { backend: format!("the key file {}", path.display()), service: app.to_string() }),
        None => Err(Error::invalid(format!("key_file_id: no key file {}", path.display()))),
    }
}

/// The most bytes read from a key file: a key file holds 45 (base64 of 32
/// bytes and a newline); longer content is not a key, and reading stops
/// there, so a key file path naming `/dev/zero` or a huge file cannot
/// exhaust memory.
pub const MAX_KEY_FILE_BYTES: u64 = 4096;

/// The first `MAX_KEY_FILE_BYTES + 1` bytes of a key file (at most), in a
/// buffer zeroed on drop: more than [`MAX_KEY_FILE_BYTES`] fails to decode
/// as a key. Errors: the `std::io::Error` of opening or reading `path`.
pub fn read_key_file_bytes(path: &std::path::Path) -> std::io::Result<Zeroizing<Vec<u8>>> {
    use std::io::Read;
    let mut bytes = Zeroizing::new(Vec::with_capacity(64));
    std::fs::File::open(path)?.take(MAX_KEY_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Read a key file: `Ok(None)` when it does not exist.
/// Errors: `Io` (unreadable), `KeyStoreUnavailable` (not base64 of 32
/// bytes: the file is damaged; it is never overwritten).
pub fn read_key_file(path: &std::path::Path) -> Result<Option<DataKey>> {
    let bytes = match read_key_file_bytes(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("reading the key file", e)),
    };
    KeyInput::Bytes(&bytes).decode("the key file").map(Some).map_err(|_| Error::KeyStoreUnavailable {
        backend: format!("the key file {}", path.display()),
        reason: "it does not hold the base64 of a 32-byte data key".into(),
        remedy: "restore the original key file; sessiondb never overwrites it".into(),
    })
}

/// Create a key file at `path` holding a fresh data key (base64 and a
/// newline), mode 0600; a missing parent directory is created 0700. The
/// file is flushed to disk (and its directory entry) before this returns.
///
/// Errors: `Conflict` when `path` exists (nothing is overwritten), `Io`.
pub fn create_key_file(path: &std::path::Path) -> Result<DataKey> {
    let key = DataKey::generate();
    write_new_key_file(path, &key)?;
    Ok(key)
}

/// Write `key` to a new key file at `path` (as [`create_key_file`]).
pub(crate) fn write_new_key_file(path: &std::path::Path, key: &DataKey) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.exists() {
            crate::paths::ensure_private_dir(dir)?;
        }
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let mut file = match opts.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(Error::conflict(format!("the key file {} already exists; nothing was overwritten", path.display())))
        }
        Err(e) => return Err(Error::io("creating the key file", e)),
    };
    let mut text = Zeroizing::new(key.to_base64().to_string());
    text.push('\n');
    use std::io::Write;
    file.write_all(text.as_bytes()).and_then(|_| file.sync_all()).map_err(|e| Error::io("writing the key file", e))?;
    #[cfg(unix)]
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

/// The headless fallback: a new key file `<default key dir>/<random id>.key`
/// for a database being created, and the warning.
fn create_default_key_file(app: &str) -> Result<ResolvedKey> {
    let dir = crate::paths::default_key_dir(app)?;
    crate::paths::ensure_private_dir(&dir)?;
    let id = uuid::Uuid::new_v4().simple().to_string();
    let path = dir.join(format!("{id}.key"));
    let key = create_key_file(&path)?;
    warn(
        "KeyFileCreated",
        &format!(
            "no OS keyring is reachable, so the data key of this new database is in the key file {} (mode 0600). \
             Back it up (`sessiondb key export`): without it the sessions are lost. {NO_KEY_FILE_ENV}=1 turns this off.",
            path.display()
        ),
    );
    Ok(ResolvedKey { key, backend: KEY_FILE_BACKEND.into(), key_file: Some(path), new_key_file_id: Some(id) })
}

type WarningHandler = Box<dyn Fn(&str, &str) + Send + Sync>;

fn warning_handler() -> &'static std::sync::RwLock<Option<WarningHandler>> {
    static H: std::sync::OnceLock<std::sync::RwLock<Option<WarningHandler>>> = std::sync::OnceLock::new();
    H.get_or_init(|| std::sync::RwLock::new(None))
}

/// Route the core's warnings (today one: `KeyFileCreated`, when the
/// headless fallback creates a key file) to `handler(kind, message)`
/// instead of stderr. The default prints `sessiondb: warning: <message>`
/// on stderr; the CLI sets its own (its `--json` warning lines).
pub fn set_warning_handler(handler: impl Fn(&str, &str) + Send + Sync + 'static) {
    *warning_handler().write().unwrap_or_else(|e| e.into_inner()) = Some(Box::new(handler));
}

fn warn(kind: &str, message: &str) {
    match &*warning_handler().read().unwrap_or_else(|e| e.into_inner()) {
        Some(h) => h(kind, message),
        None => eprintln!("sessiondb: warning: {message}"),
    }
}

/// How long `create_os_keyring_key` waits for another process's first open
/// of a database of `app` (milliseconds; the SQLite backend's default busy
/// timeout, 10 s, so a `key init` beside a first open waits as a write would).
pub const KEY_INIT_LOCK_WAIT_MS: u64 = 10_000;

/// Create the data key of `app` in the OS credential store (`sessiondb key
/// init`): service `app`, account [`KEY_ACCOUNT`]. Returns the backend name.
///
/// Errors: `Conflict` when an entry exists (it may open databases: nothing
/// is overwritten), `KeyStoreUnavailable` (absent, locked, denied).
pub fn create_os_keyring_key(app: &str) -> Result<String> {
    // No keyring at all: the remedy is a key file, not "unset
    // SESSIONDB_NO_KEY_FILE" (that fallback is for opening a new database;
    // this call never writes a key file, with or without it).
    let provider = KeyringProvider::native_or_absent(app)?.map_err(|reason| absent_error(&reason, ABSENT_REMEDY_KEY_INIT))?;
    let _lock = app_key_lock(app, KEY_INIT_LOCK_WAIT_MS)?;
    if provider.get_key()?.is_some() {
        return Err(Error::conflict(format!(
            "{} already holds a data key for `{app}` (service `{app}`, account `{KEY_ACCOUNT}`); nothing was overwritten",
            provider.backend_name()
        )));
    }
    provider.set_key(DataKey::generate().expose_bytes())?;
    Ok(provider.backend_name())
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
/// [`KEY_ACCOUNT`]), or, for a database whose key is in a key file
/// (`key_file_id`), that key file; or the host provider's `set_key`. An
/// entry that already holds this key is left as it is.
///
/// Errors: `Conflict` when the store already holds another data key (it
/// opens other databases of this app: nothing is overwritten);
/// `InvalidInput` for [`KeySource::Bytes`] (no credential store to write);
/// `KeyStoreUnavailable`.
pub(crate) fn store_imported_key(source: &KeySource, app: &str, key: &DataKey, key_file_id: Option<&str>) -> Result<String> {
    let provider: Arc<dyn KeyProvider> = match source {
        KeySource::Bytes(_) => {
            return Err(Error::invalid("a recovery key is imported into a credential store (the OS keyring or a key provider), not into key bytes"))
        }
        KeySource::Provider(p) => p.clone(),
        KeySource::OsKeyring => match key_file_id {
            // The database keeps its key in a key file: restore that file.
            Some(id) => {
                let path = key_file_path(app, id)?;
                return match read_key_file(&path)? {
                    Some(existing) if existing.expose_bytes() == key.expose_bytes() => Ok(KEY_FILE_BACKEND.into()),
                    Some(_) => Err(Error::conflict(format!("the key file {} holds another data key; nothing was overwritten", path.display()))),
                    None => {
                        crate::paths::ensure_private_dir(path.parent().expect("a key file is inside the key directory"))?;
                        write_new_key_file(&path, key)?;
                        Ok(KEY_FILE_BACKEND.into())
                    }
                };
            }
            None => Arc::new(KeyringProvider::native(app)?),
        },
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

#[cfg(test)]
mod tests {
    /// `key init` waits for a first open as long as a write waits for a lock.
    #[test]
    fn key_init_waits_as_long_as_the_sqlite_busy_timeout() {
        assert_eq!(super::KEY_INIT_LOCK_WAIT_MS, crate::backend::sqlite::DEFAULT_BUSY_TIMEOUT_MS);
        assert_eq!(super::KEY_INIT_LOCK_WAIT_MS, 10_000);
    }
}
