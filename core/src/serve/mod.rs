//! The local, read-only session viewer (issue 32; DESIGN.md "Viewer"):
//! `sessiondb serve` starts it, a browser shows the session list with
//! search as you type, readable transcripts, the `Ctx N%` meter and token
//! usage charts.
//!
//! Security (each point tested in `core/tests/serve.rs` and in a real
//! browser by `scripts/test-viewer.sh`):
//! - It listens on loopback (a random free port unless one is asked for);
//!   another address is refused unless [`ViewerOptions::allow_remote`].
//! - [`Viewer::url`] carries a one-time token: the first request with it is
//!   answered by a redirect that sets an `HttpOnly; SameSite=Strict` cookie
//!   and drops the token from the address; the token is then spent. Every
//!   request without the cookie is `401`, assets included.
//! - The `Host` header must name the address listened on (`127.0.0.1:PORT`
//!   or `localhost:PORT` on loopback): a DNS-rebinding page, whose requests
//!   carry its own host name, gets `403`.
//! - Only `GET` is served (the viewer changes nothing); no CORS header is
//!   ever sent; every response carries [`CSP`] (no inline script, nothing
//!   from another host), `Cache-Control: no-store`, `nosniff`,
//!   `frame-ancestors 'none'` and `Referrer-Policy: no-referrer`.
//! - The page is three static files compiled into the binary
//!   (`include_str!`, [`assets`]); decrypted content exists only in JSON
//!   responses, where `<`, `>` and `&` are escaped (`\u003c`...), and the
//!   page puts it in the document as text (`textContent`), never as HTML.
//! - Nothing is written to disk by the viewer (the search index it reads is
//!   the store's encrypted cache).
//!
//! The JSON API reads the store with the same bounded reads as the CLI
//! (pages of at most [`api::MAX_ENTRIES_PAGE`] entries), see [`api`].

pub mod api;
pub mod assets;
pub mod auth;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::store::SessionStore;

/// The `Content-Security-Policy` of every response: scripts, styles,
/// images and fetches from this server only; no inline script or style
/// element; no plugin, frame, form target or base URL.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Default raw context window of the meter (tokens), as the CLI's `--window`.
pub const DEFAULT_WINDOW: u64 = 128_000;

/// Threads answering requests (a search and a long page read do not wait on
/// each other; the store is `Send + Sync`).
const WORKERS: usize = 4;

/// How `sessiondb serve` listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewerOptions {
    /// Address to listen on; default `127.0.0.1`.
    pub bind: IpAddr,
    /// Port; 0 (default) picks a free one.
    pub port: u16,
    /// Allow a non-loopback `bind` (the viewer is plain HTTP: anyone on that
    /// network who sees the token can read every session).
    pub allow_remote: bool,
    /// The workspace the `current` and `other` filters compare with (the
    /// directory `serve` was started in); `None`: only `unbound` and `all`.
    pub workspace: Option<String>,
    /// Default raw context window of the meter, tokens ([`DEFAULT_WINDOW`]).
    pub window: u64,
}

impl Default for ViewerOptions {
    fn default() -> Self {
        ViewerOptions { bind: IpAddr::V4(Ipv4Addr::LOCALHOST), port: 0, allow_remote: false, workspace: None, window: DEFAULT_WINDOW }
    }
}

impl ViewerOptions {
    /// The options of a host's `serve` (Python `SessionStore.serve`, Node
    /// `store.serve`), each `None` keeping the default: `bind` an IPv4 or
    /// IPv6 address as text, `port` 0..=65535 (0 = a free one), `window`
    /// in tokens. Errors: `InvalidInput` naming the argument (an address
    /// that does not parse, a port over 65535, a window of 0); the
    /// loopback rule is [`Viewer::start`]'s.
    pub fn for_host(bind: Option<&str>, port: Option<u32>, allow_remote: bool, workspace: Option<String>, window: Option<u64>) -> Result<ViewerOptions> {
        let d = ViewerOptions::default();
        let bind = match bind {
            None => d.bind,
            Some(text) => text.trim().parse::<IpAddr>().map_err(|_| Error::invalid(format!("bind: {text:?} is not an IP address (e.g. 127.0.0.1 or ::1)")))?,
        };
        let port = match port {
            None => d.port,
            Some(p) => u16::try_from(p).map_err(|_| Error::invalid(format!("port: {p} is not a TCP port (0..=65535; 0 picks a free one)")))?,
        };
        let window = window.unwrap_or(d.window);
        if window == 0 {
            return Err(Error::invalid("window: the meter's window must be at least 1 token"));
        }
        Ok(ViewerOptions { bind, port, allow_remote, workspace, window })
    }
}

/// Whether a viewer was stopped, and a wake-up for those waiting on it.
#[derive(Default)]
struct Stopped {
    flag: Mutex<bool>,
    changed: Condvar,
}

impl Stopped {
    fn get(&self) -> bool {
        *self.flag.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set(&self) {
        *self.flag.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.changed.notify_all();
    }

    /// Wait until stopped, at most `timeout` (`None`: for ever); true once stopped.
    fn wait(&self, timeout: Option<Duration>) -> bool {
        let guard = self.flag.lock().unwrap_or_else(|e| e.into_inner());
        match timeout {
            None => *self.changed.wait_while(guard, |s| !*s).unwrap_or_else(|e| e.into_inner()),
            Some(t) => *self.changed.wait_timeout_while(guard, t, |s| !*s).unwrap_or_else(|e| e.into_inner()).0,
        }
    }
}

/// What every request handler shares.
pub(crate) struct State {
    pub(crate) store: Arc<SessionStore>,
    pub(crate) opts: ViewerOptions,
    pub(crate) auth: auth::Auth,
}

/// A running viewer. `Send + Sync`: a host keeps it behind a shared
/// reference and stops it from any thread. Dropping it does not stop it:
/// call [`Viewer::stop`] (tests, hosts) or [`Viewer::wait`] (the CLI, until
/// the process is ended).
pub struct Viewer {
    /// `None` once stopped: the last reference dropped closes the socket.
    server: Mutex<Option<Arc<tiny_http::Server>>>,
    addr: SocketAddr,
    token: String,
    workers: Mutex<Vec<JoinHandle<()>>>,
    stopped: Arc<Stopped>,
}

impl std::fmt::Debug for Viewer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token stays out of Debug output.
        f.debug_struct("Viewer").field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl Viewer {
    /// Listen as `opts` says and answer requests on background threads.
    ///
    /// Errors: `InvalidInput` for a non-loopback `bind` without
    /// `allow_remote` (the message names the flag); `Io` when the address
    /// cannot be bound (port in use, address not on this machine).
    pub fn start(store: Arc<SessionStore>, opts: ViewerOptions) -> Result<Viewer> {
        if !opts.bind.is_loopback() && !opts.allow_remote {
            return Err(Error::invalid(format!(
                "refusing to serve on {} (not a loopback address): anyone who can reach it and sees the token reads every session over plain HTTP; pass --allow-remote to do it anyway",
                opts.bind
            )));
        }
        if opts.window == 0 {
            return Err(Error::invalid("the meter's window must be at least 1 token"));
        }
        let server = tiny_http::Server::http(SocketAddr::new(opts.bind, opts.port))
            .map_err(|e| Error::io("binding the viewer's address", std::io::Error::other(e.to_string())))?;
        let addr = server.server_addr().to_ip().ok_or_else(|| Error::invalid("the viewer listens on an IP address"))?;
        let (auth, token) = auth::Auth::new(addr, opts.bind.is_loopback());
        let state = Arc::new(State { store, opts, auth });
        let server = Arc::new(server);
        let stopped = Arc::new(Stopped::default());
        let workers = (0..WORKERS)
            .map(|_| {
                let (server, state) = (Arc::clone(&server), Arc::clone(&state));
                let stopped = Arc::clone(&stopped);
                std::thread::spawn(move || loop {
                    match server.recv() {
                        Ok(req) => answer(&state, req),
                        Err(_) if stopped.get() => break,
                        // An accept error: keep serving.
                        Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
                    }
                })
            })
            .collect();
        Ok(Viewer { server: Mutex::new(Some(server)), addr, token, workers: Mutex::new(workers), stopped })
    }

    /// The address listened on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The address to open: `http://ADDR:PORT/?token=TOKEN` (one use).
    pub fn url(&self) -> String {
        format!("http://{}/?token={}", self.addr, self.token)
    }

    /// True until [`Viewer::stop`] was called.
    pub fn is_running(&self) -> bool {
        !self.stopped.get()
    }

    /// Block until the viewer is stopped (from another thread; the CLI:
    /// until the process is ended), at most `timeout` (`None`: for ever).
    /// Returns true once it is stopped, false on the timeout (a host polls
    /// with a timeout to stay interruptible, e.g. Python's Ctrl-C).
    pub fn wait(&self, timeout: Option<Duration>) -> bool {
        self.stopped.wait(timeout)
    }

    /// Stop: wait for the requests in progress to be answered, then close
    /// the listening socket (the port is free again once this returns and
    /// the listener's thread has seen it). Stopping twice is a no-op.
    pub fn stop(&self) {
        let Some(server) = self.server.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return;
        };
        let workers = std::mem::take(&mut *self.workers.lock().unwrap_or_else(|e| e.into_inner()));
        self.stopped.set();
        for _ in 0..workers.len() {
            server.unblock();
        }
        for w in workers {
            let _ = w.join();
        }
        drop(server);
    }
}

/// A response before it is sent: status, content type, body, extra headers.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) content_type: &'static str,
    pub(crate) body: Vec<u8>,
    pub(crate) headers: Vec<(&'static str, String)>,
}

impl Reply {
    pub(crate) fn text(status: u16, body: &str) -> Reply {
        Reply { status, content_type: "text/plain; charset=utf-8", body: body.as_bytes().to_vec(), headers: Vec::new() }
    }

    /// A JSON body with `<`, `>` and `&` escaped (`\u003c`, `\u003e`,
    /// `\u0026`): they only occur inside JSON strings, so the value is the
    /// same, and a body read as HTML by mistake holds no tag.
    pub(crate) fn json(status: u16, v: &serde_json::Value) -> Reply {
        let text = v.to_string();
        let mut out = String::with_capacity(text.len() + 16);
        for c in text.chars() {
            match c {
                '<' => out.push_str("\\u003c"),
                '>' => out.push_str("\\u003e"),
                '&' => out.push_str("\\u0026"),
                c => out.push(c),
            }
        }
        Reply { status, content_type: "application/json", body: out.into_bytes(), headers: Vec::new() }
    }
}

/// The headers every response carries ([`CSP`] and the others in the module docs).
pub const SECURITY_HEADERS: [(&str, &str); 7] = [
    ("Content-Security-Policy", CSP),
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
];

fn answer(state: &State, req: tiny_http::Request) {
    let headers: Vec<(String, String)> = req.headers().iter().map(|h| (h.field.as_str().as_str().to_ascii_lowercase(), h.value.as_str().to_string())).collect();
    let get = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    let method = req.method().as_str().to_string();
    let url = req.url().to_string();
    // A panic in a handler becomes a 500, never a dead worker.
    let reply = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| route(state, &method, &url, get("host"), get("cookie"))))
        .unwrap_or_else(|_| Reply::text(500, "internal error"));
    // The body is in memory: always a Content-Length, never chunked.
    let mut resp = tiny_http::Response::from_data(reply.body).with_status_code(reply.status).with_chunked_threshold(usize::MAX);
    let mut add = |k: &str, v: &str| {
        if let Ok(h) = tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()) {
            resp.add_header(h);
        }
    };
    add("Content-Type", reply.content_type);
    for (k, v) in SECURITY_HEADERS {
        add(k, v);
    }
    for (k, v) in &reply.headers {
        add(k, v);
    }
    let _ = req.respond(resp);
}

/// Check the request (method, Host, token or cookie), then serve it.
pub(crate) fn route(state: &State, method: &str, url: &str, host: Option<&str>, cookie: Option<&str>) -> Reply {
    if !state.auth.host_allowed(host) {
        return Reply::text(403, "this viewer answers only requests addressed to the address it listens on (Host header)");
    }
    if method != "GET" {
        let mut r = Reply::text(405, "the viewer only reads: GET");
        r.headers.push(("Allow", "GET".into()));
        return r;
    }
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let params = api::Params::parse(query);
    let signed_in = state.auth.cookie_valid(cookie);
    if path == "/" {
        if let Some(token) = params.get("token") {
            return match state.auth.exchange(token) {
                Some(set_cookie) => {
                    let mut r = Reply::text(303, "signed in");
                    r.headers.push(("Location", "/".into()));
                    r.headers.push(("Set-Cookie", set_cookie));
                    r
                }
                None if signed_in => {
                    let mut r = Reply::text(303, "already signed in");
                    r.headers.push(("Location", "/".into()));
                    r
                }
                None => Reply::text(401, "this link was already used or is wrong: restart `sessiondb serve` for a new one"),
            };
        }
    }
    if !signed_in {
        return Reply::text(401, "open the link `sessiondb serve` printed (it signs this browser in once)");
    }
    if let Some(a) = assets::get(path) {
        return Reply { status: 200, content_type: a.content_type, body: a.body.as_bytes().to_vec(), headers: Vec::new() };
    }
    match path.strip_prefix("/api/") {
        Some(endpoint) => api::handle(state, endpoint, &params),
        None => Reply::text(404, "not found"),
    }
}
