//! `sessiondb.SessionStore`: the core store behind an `Arc`, every disk or
//! crypto call made with the GIL released (`Python::detach`).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyType;
use sessiondb::keys::KeyInput;
use sessiondb::{KeySource, OpenOptions};

use crate::errors::py_err;
use crate::keys::PyKeyProvider;
use crate::records::*;

/// The encrypted session store. Thread-safe; use as a context manager or
/// call `close()`. A handle used in a child process after `os.fork()`
/// raises `ClosedError`: open the store again in the child.
#[pyclass(frozen, module = "sessiondb", name = "SessionStore")]
pub struct SessionStore {
    pub(crate) inner: Arc<sessiondb::SessionStore>,
}


impl SessionStore {
    /// The store the core opened, or its error with the exception the key
    /// provider raised, if any, as `__cause__`.
    fn opened(py: Python<'_>, r: sessiondb::Result<sessiondb::SessionStore>, provider: Option<Arc<PyKeyProvider>>) -> PyResult<Self> {
        r.map(|s| SessionStore { inner: Arc::new(s) }).map_err(|e| {
            let err = crate::errors::to_py(py, e);
            if let Some(cause) = provider.and_then(|p| p.take_raised()) {
                err.set_cause(py, Some(cause));
            }
            err
        })
    }

    /// The host provider object as the core's, kept for [`Self::opened`].
    fn provider(py: Python<'_>, obj: Option<Py<PyAny>>) -> PyResult<Option<Arc<PyKeyProvider>>> {
        obj.map(|o| PyKeyProvider::new(py, o).map(Arc::new)).transpose()
    }
}

#[pymethods]
impl SessionStore {
    /// Open (creating if needed) the store at `path` (None = the default
    /// path for `app`). Key: `key` (32 bytes, or the base64 text of a key
    /// file as str or bytes) or `key_provider` (an object
    /// with `get_key() -> bytes | None` and `set_key(key: bytes)`), else the
    /// OS keyring. `compress`: compress contents of 512 bytes or more
    /// before encryption (None = the backend's default: off, for a
    /// database file and PostgreSQL alike; False = stored lengths reveal only plaintext
    /// lengths, SECURITY.md "Size oracle"). `redact`: the secret redaction
    /// policy, "off" (default), "on-export" or "on-write"; `redact_rules`: a
    /// gitleaks-format TOML file of extra rules (SECURITY.md "Secret
    /// redaction"). Raises RecoveryLockedError, KeyMismatchError,
    /// KeyStoreUnavailableError, CorruptError, IoError, InvalidInputError.
    #[new]
    #[pyo3(signature = (path = None, *, key = None, key_provider = None, app = "sessiondb", busy_timeout_ms = 10_000, recover = true, compress = None, redact = None, redact_rules = None))]
    fn new(
        py: Python<'_>,
        path: Option<PathBuf>,
        key: Option<Bound<'_, PyAny>>,
        key_provider: Option<Py<PyAny>>,
        app: &str,
        busy_timeout_ms: u64,
        recover: bool,
        compress: Option<bool>,
        redact: Option<&str>,
        redact_rules: Option<PathBuf>,
    ) -> PyResult<Self> {
        let provider = Self::provider(py, key_provider)?;
        let shared = provider.clone().map(|p| p as Arc<dyn sessiondb::KeyProvider>);
        // `key`: bytes-like (the 32 key bytes, or a key file read as bytes)
        // or str (the key file's base64 text); the core decodes both.
        let text: Option<String> = match &key {
            Some(k) if k.is_instance_of::<pyo3::types::PyString>() => Some(k.extract()?),
            _ => None,
        };
        let bytes = match (&key, &text) {
            (Some(k), None) => Some(k.extract::<std::borrow::Cow<'_, [u8]>>().map_err(|_| {
                let ty = k.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
                py_err(py)(sessiondb::Error::invalid(format!(
                    "key: expected bytes (the 32-byte data key) or str (the base64 text of a key file), got {ty}"
                )))
            })?),
            _ => None,
        };
        let input = match (&text, &bytes) {
            (Some(t), _) => Some(KeyInput::Text(t)),
            (None, Some(b)) => Some(KeyInput::Bytes(b)),
            (None, None) => None,
        };
        let key = KeySource::for_host(input, shared, ("key", "key_provider")).map_err(py_err(py))?;
        let opts = OpenOptions { path: path.map(Into::into), app: app.to_string(), key, busy_timeout_ms, recover, compress, ..Default::default() }
            .with_redact(redact, redact_rules)
            .map_err(py_err(py))?;
        Self::opened(py, py.detach(|| sessiondb::SessionStore::open(opts)), provider)
    }

    /// Open the default store of the default app with the OS keyring.
    #[classmethod]
    fn open_default(_cls: &Bound<'_, PyType>, py: Python<'_>) -> PyResult<Self> {
        Self::opened(py, py.detach(|| sessiondb::SessionStore::open(OpenOptions::default())), None)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        let _ = self.close(py);
        false
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let path = slf.getattr("path")?.repr()?.to_string();
        Ok(format!("SessionStore(path={path}, closed={})", if slf.get().inner.is_closed() { "True" } else { "False" }))
    }

    /// Iterate over a whole transcript from `from_seq`, fetching `page_size` entries per call.
    #[pyo3(signature = (session_id, from_seq = 1, page_size = 1000))]
    fn iter_transcript(&self, session_id: String, from_seq: u64, page_size: u32) -> TranscriptIterator {
        TranscriptIterator { store: self.inner.clone(), session_id, next_seq: from_seq, page_size, buf: VecDeque::new(), done: false }
    }

}

/// Iterator over a transcript, one page per core call (`iter_transcript`).
#[pyclass(module = "sessiondb", name = "TranscriptIterator")]
pub struct TranscriptIterator {
    store: Arc<sessiondb::SessionStore>,
    session_id: String,
    next_seq: u64,
    page_size: u32,
    buf: VecDeque<sessiondb::TranscriptEntry>,
    done: bool,
}

#[pymethods]
impl TranscriptIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<TranscriptEntry>> {
        if self.buf.is_empty() && !self.done {
            let (store, sid, from, n) = (&self.store, &self.session_id, self.next_seq, self.page_size);
            let page = py.detach(|| store.get_transcript(sid, from, n)).map_err(py_err(py))?;
            match page.last() {
                Some(last) => self.next_seq = last.seq + 1,
                None => self.done = true,
            }
            self.buf.extend(page);
        }
        Ok(self.buf.pop_front().map(Into::into))
    }
}

/// Import a recovery key for the store at `path` (None = the default path
/// for `app`) and open it: the text is checked (checksum), then against the
/// database's key-check value, then stored in the credential store
/// (`key_provider`'s `set_key`, else the OS keyring under service `app`).
/// Raises InvalidInputError (mistyped: "recovery key checksum mismatch"),
/// NotFoundError (no database file), KeyMismatchError (another database's
/// key; nothing stored), ConflictError (the credential store holds another
/// key for `app`; nothing overwritten), KeyStoreUnavailableError.
#[pyfunction]
#[pyo3(signature = (recovery_key, path = None, *, key_provider = None, app = "sessiondb"))]
pub fn import_recovery_key(py: Python<'_>, recovery_key: &str, path: Option<PathBuf>, key_provider: Option<Py<PyAny>>, app: &str) -> PyResult<SessionStore> {
    let provider = SessionStore::provider(py, key_provider)?;
    let key = provider.clone().map_or(KeySource::OsKeyring, |p| KeySource::Provider(p));
    let opts = OpenOptions { path: path.map(Into::into), app: app.to_string(), key, ..Default::default() };
    SessionStore::opened(py, py.detach(|| sessiondb::SessionStore::import_recovery_key(opts, recovery_key)), provider)
}

// The methods declared in bridge/api.rs (`trait SessionStore`), generated into bridge/generated/python/methods.rs.
include!("../../bridge/generated/python/methods.rs");
