//! `SessionStore.serve()` and `sessiondb.Viewer` (issue 32 item 4;
//! docs/viewer.md): the core's local viewer (`sessiondb::serve`) started
//! from Python. Thin: the options are checked by the core
//! (`ViewerOptions::for_host`), every blocking call releases the GIL.

use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;
use sessiondb::serve::{Viewer as CoreViewer, ViewerOptions};

use crate::errors::py_err;
use crate::store::SessionStore;

/// A running read-only viewer (`SessionStore.serve()`); `url` signs one
/// browser in. A context manager: leaving the block stops it.
#[pyclass(frozen, module = "sessiondb", name = "Viewer")]
pub struct Viewer {
    inner: Arc<CoreViewer>,
}

#[pymethods]
impl SessionStore {
    /// Start the local, read-only web viewer of this store (docs/viewer.md)
    /// on background threads and return at once. `bind`: the address to
    /// listen on (default "127.0.0.1"; another than loopback raises
    /// InvalidInputError unless `allow_remote`); `port`: 0 (default) picks
    /// a free one; `workspace`: the directory the `current` / `other`
    /// filters compare with (None: only `unbound` and `all`); `window`: the
    /// meter's default raw context window, tokens. Raises InvalidInputError
    /// (a bad address, port or window), IoError (the port is in use).
    #[pyo3(signature = (*, bind = None, port = 0, allow_remote = false, workspace = None, window = 128_000))]
    fn serve(&self, py: Python<'_>, bind: Option<&str>, port: i64, allow_remote: bool, workspace: Option<String>, window: i64) -> PyResult<Viewer> {
        let opts = ViewerOptions::for_host(bind, Some(port), allow_remote, workspace, Some(window)).map_err(py_err(py))?;
        let store = Arc::clone(&self.inner);
        let viewer = py.detach(|| CoreViewer::start(store, opts)).map_err(py_err(py))?;
        Ok(Viewer { inner: Arc::new(viewer) })
    }
}

#[pymethods]
impl Viewer {
    /// The address to open once: `http://HOST:PORT/?token=TOKEN` (the token
    /// signs one browser in, then is spent).
    #[getter]
    fn url(&self) -> String {
        self.inner.url()
    }

    /// The address listened on, e.g. "127.0.0.1".
    #[getter]
    fn host(&self) -> String {
        self.inner.addr().ip().to_string()
    }

    /// The port listened on.
    #[getter]
    fn port(&self) -> u16 {
        self.inner.addr().port()
    }

    /// True until `stop()`.
    #[getter]
    fn running(&self) -> bool {
        self.inner.is_running()
    }

    /// Stop serving: the requests in progress are answered, then the port
    /// is closed. Stopping twice is a no-op.
    fn stop(&self, py: Python<'_>) {
        let v = Arc::clone(&self.inner);
        py.detach(move || v.stop());
    }

    /// Block until the viewer is stopped (from another thread), at most
    /// `timeout` seconds (None or inf: for ever); True once stopped. Ctrl-C
    /// (KeyboardInterrupt) interrupts it. Raises ValueError for a negative
    /// or NaN timeout.
    #[pyo3(signature = (timeout = None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<bool> {
        let deadline = match timeout {
            Some(t) if t.is_nan() || t < 0.0 => return Err(pyo3::exceptions::PyValueError::new_err("timeout must be a number of seconds >= 0 (or None)")),
            // Too far to be an Instant (inf, 1e300): no deadline.
            Some(t) => Duration::try_from_secs_f64(t).ok().and_then(|d| std::time::Instant::now().checked_add(d)),
            None => None,
        };
        loop {
            // Short slices, so a signal (Ctrl-C) is seen within 100 ms.
            let slice = match deadline {
                Some(d) => d.saturating_duration_since(std::time::Instant::now()).min(Duration::from_millis(100)),
                None => Duration::from_millis(100),
            };
            let v = Arc::clone(&self.inner);
            if py.detach(move || v.wait(Some(slice))) {
                return Ok(true);
            }
            py.check_signals()?;
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return Ok(false);
            }
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.stop(py);
        false
    }

    fn __repr__(&self) -> String {
        // The token stays out of the repr (it signs a browser in).
        format!("Viewer(host={:?}, port={}, running={})", self.host(), self.port(), if self.running() { "True" } else { "False" })
    }
}
