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
pub mod http;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::store::SessionStore;

/// The `Content-Security-Policy` of every response: scripts, styles,
/// images and fetches from this server only; no inline script or style
/// element; no plugin, frame, form target or base URL.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Largest window a host may pass: 2^53 - 1, what a JavaScript number holds exactly.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Default raw context window of the meter (tokens), as the CLI's `--window`.
pub const DEFAULT_WINDOW: u64 = 128_000;

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
    /// in tokens (1..=2^53 - 1, what a JavaScript number holds exactly).
    /// Errors: `InvalidInput` naming the argument (an address that does
    /// not parse, a port outside 0..=65535, a window outside its range);
    /// the loopback rule is [`Viewer::start`]'s.
    pub fn for_host(bind: Option<&str>, port: Option<i64>, allow_remote: bool, workspace: Option<String>, window: Option<i64>) -> Result<ViewerOptions> {
        let d = ViewerOptions::default();
        let bind = match bind {
            None => d.bind,
            Some(text) => text.trim().parse::<IpAddr>().map_err(|_| Error::invalid(format!("bind: {text:?} is not an IP address (e.g. 127.0.0.1 or ::1)")))?,
        };
        let port = match port {
            None => d.port,
            Some(p) => u16::try_from(p).map_err(|_| Error::invalid(format!("port: {p} is not a TCP port (0..=65535; 0 picks a free one)")))?,
        };
        let window = match window {
            None => d.window,
            Some(w) if (1..=MAX_SAFE_INTEGER).contains(&w) => w as u64,
            Some(w) => return Err(Error::invalid(format!("window: {w} tokens is outside 1..=2^53 - 1"))),
        };
        Ok(ViewerOptions { bind, port, allow_remote, workspace, window })
    }
}

/// What every request handler shares.
pub(crate) struct State {
    pub(crate) store: Arc<SessionStore>,
    pub(crate) opts: ViewerOptions,
    pub(crate) auth: auth::Auth,
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

/// How long [`Viewer::stop`] waits for the requests in progress.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// A running viewer. `Send + Sync`: a host keeps it behind a shared
/// reference and stops it from any thread. Dropping the last handle stops
/// it ([`Viewer::stop`]); the CLI keeps it until the process is ended
/// ([`Viewer::wait`]).
pub struct Viewer {
    server: http::Server,
    token: String,
    /// The path every address is under (`/` and 16 hex digits).
    base: String,
    stopped: Stopped,
    /// The process that started it: in a forked child (which has none of
    /// its threads) it is not running, and `stop` does nothing.
    pid: u32,
}

impl std::fmt::Debug for Viewer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token stays out of Debug output.
        f.debug_struct("Viewer").field("addr", &self.server.addr()).finish_non_exhaustive()
    }
}

impl Viewer {
    /// Listen as `opts` says and answer requests on background threads
    /// (one per connection, at most [`http::MAX_CONNECTIONS`] at once).
    ///
    /// Errors: `InvalidInput` for a non-loopback `bind` without
    /// `allow_remote` (the message names the flag) or a window of 0;
    /// `Closed` for a closed store; `Io` when the address cannot be bound
    /// (port in use, address not on this machine).
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
        if store.is_closed() {
            return Err(Error::Closed);
        }
        // Bind first: the Host check needs the port a port of 0 became.
        let bind = |e| Error::io("binding the viewer's address", e);
        let listener = std::net::TcpListener::bind(SocketAddr::new(opts.bind, opts.port)).map_err(bind)?;
        let addr = listener.local_addr().map_err(bind)?;
        let (auth, token) = auth::Auth::new(addr, opts.bind.is_loopback());
        let base = auth.base.clone();
        let state = Arc::new(State { store, opts, auth });
        let handle: Arc<dyn Fn(&http::Request) -> Reply + Send + Sync> = Arc::new(move |req| answer(&state, req));
        let server = http::Server::start(listener, &SECURITY_HEADERS, handle).map_err(bind)?;
        Ok(Viewer { server, token, base, stopped: Stopped::default(), pid: std::process::id() })
    }

    /// The address listened on.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// Connections being served now (at most
    /// [`http::MAX_CONNECTIONS`]): for tests that must know the viewer
    /// has taken a connection rather than guess with a sleep.
    #[doc(hidden)]
    pub fn active_connections(&self) -> usize {
        self.server.active_connections()
    }

    /// The address to open: `http://ADDR:PORT/BASE/?token=TOKEN` (the token
    /// is for one use; `BASE` is 16 random hex digits, and every address of
    /// the viewer is under it).
    pub fn url(&self) -> String {
        format!("http://{}{}/?token={}", self.server.addr(), self.base, self.token)
    }

    /// True until [`Viewer::stop`] was called (false in a forked child).
    pub fn is_running(&self) -> bool {
        std::process::id() == self.pid && !self.stopped.get()
    }

    /// Block until the viewer is stopped (from another thread; the CLI:
    /// until the process is ended), at most `timeout` (`None`: for ever).
    /// Returns true once it is stopped, false on the timeout (a host polls
    /// with a timeout to stay interruptible, e.g. Python's Ctrl-C). In a
    /// forked child it returns true at once.
    pub fn wait(&self, timeout: Option<Duration>) -> bool {
        std::process::id() != self.pid || self.stopped.wait(timeout)
    }

    /// Stop: close the listening socket, then wait up to 2 s for the
    /// requests in progress to be answered (each is bounded anyway: 5 s to
    /// send its head, 30 s to take its answer). Stopping twice, or in a
    /// forked child, does nothing.
    pub fn stop(&self) {
        if std::process::id() != self.pid {
            return;
        }
        self.server.stop(STOP_GRACE);
        self.stopped.set();
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A response before it is sent.
pub(crate) use http::Reply;

impl Reply {
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

fn answer(state: &State, req: &http::Request) -> Reply {
    // A panic in a handler becomes a 500, never a dead connection thread.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| route(state, &req.method, &req.target, req.host.as_deref(), req.cookie.as_deref())))
        .unwrap_or_else(|_| Reply::text(500, "internal error"))
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
    let (full, query) = url.split_once('?').unwrap_or((url, ""));
    // Every address is under the viewer's random base path (see `auth::Auth::base`).
    let base = state.auth.base.as_str();
    let path = match full.strip_prefix(base) {
        Some("") => {
            let mut r = Reply::text(303, "moved");
            r.headers.push(("Location", format!("{base}/")));
            return r;
        }
        Some(rest) if rest.starts_with('/') => rest,
        _ => return Reply::text(404, "not found"),
    };
    let params = api::Params::parse(query);
    let signed_in = state.auth.cookie_valid(cookie);
    if path == "/" {
        if let Some(token) = params.get("token") {
            return match state.auth.exchange(token) {
                Some(set_cookie) => {
                    let mut r = Reply::text(303, "signed in");
                    r.headers.push(("Location", format!("{base}/")));
                    r.headers.push(("Set-Cookie", set_cookie));
                    r
                }
                None if signed_in => {
                    let mut r = Reply::text(303, "already signed in");
                    r.headers.push(("Location", format!("{base}/")));
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
