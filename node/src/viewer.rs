//! `store.serve()` and `Viewer` (issue 32 item 4; docs/viewer.md): the
//! core's local viewer (`sessiondb::serve`) started from Node. Thin: the
//! options are checked by the core (`ViewerOptions::for_host`); starting
//! and stopping run on the libuv pool.

use std::sync::Arc;

use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use sessiondb::serve::{Viewer as CoreViewer, ViewerOptions};

use crate::job::{job, Job};
use crate::records::int;
use crate::store::SessionStore;

/// Options of `store.serve()`.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct ServeOptions {
    /// Address to listen on (default '127.0.0.1'); another than loopback is
    /// InvalidInputError unless `allowRemote`.
    pub bind: Option<String>,
    /// Port; 0 (default) picks a free one.
    pub port: Option<f64>,
    /// Listen on a non-loopback `bind` (plain HTTP: anyone on that network
    /// who sees the URL reads every session).
    pub allow_remote: Option<bool>,
    /// The directory the `current` / `other` filters compare with (default:
    /// none, only `unbound` and `all`).
    pub workspace: Option<String>,
    /// The meter's default raw context window, tokens (default 128,000).
    pub window: Option<f64>,
}

/// A running read-only viewer (`store.serve()`); `url` signs one browser in.
#[napi]
pub struct Viewer {
    inner: Arc<CoreViewer>,
}

#[napi]
impl SessionStore {
    /// Start the local, read-only web viewer of this store (docs/viewer.md)
    /// on background threads. Rejects with InvalidInputError (a bad address,
    /// port or window; a non-loopback address without `allowRemote`),
    /// IoError (the port is in use).
    #[napi(ts_return_type = "Promise<Viewer>")]
    pub fn serve(&self, options: Option<ServeOptions>) -> napi::Result<AsyncTask<Job<Viewer>>> {
        let o = options.unwrap_or_default();
        let store = Arc::clone(&self.inner);
        let port = o.port.map(|p| int::<i64>(p, "port")).transpose();
        let window = o.window.map(|w| int::<i64>(w, "window")).transpose();
        Ok(job(move || {
            let opts = ViewerOptions::for_host(o.bind.as_deref(), port?, o.allow_remote.unwrap_or(false), o.workspace, window?)?;
            CoreViewer::start(store, opts).map(|v| Viewer { inner: Arc::new(v) })
        }))
    }
}

#[napi]
impl Viewer {
    /// The address to open once: `http://HOST:PORT/?token=TOKEN` (the token
    /// signs one browser in, then is spent).
    #[napi(getter)]
    pub fn url(&self) -> String {
        self.inner.url()
    }

    /// The address listened on, e.g. '127.0.0.1'.
    #[napi(getter)]
    pub fn host(&self) -> String {
        self.inner.addr().ip().to_string()
    }

    /// The port listened on.
    #[napi(getter)]
    pub fn port(&self) -> u32 {
        u32::from(self.inner.addr().port())
    }

    /// True until `stop()`.
    #[napi(getter)]
    pub fn running(&self) -> bool {
        self.inner.is_running()
    }

    /// Stop serving: the requests in progress are answered, then the port
    /// is closed. Stopping twice is a no-op.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn stop(&self) -> AsyncTask<Job<()>> {
        let v = Arc::clone(&self.inner);
        job(move || {
            v.stop();
            Ok(())
        })
    }
}
