//! Who may read: the one-time token, the cookie it is exchanged for, and
//! the `Host` check (see the module docs of [`crate::serve`]).

use std::net::SocketAddr;
use std::sync::Mutex;

/// 32 random bytes from the OS, as 64 hex digits.
fn secret() -> String {
    let mut b = [0u8; 32];
    crate::crypto::os_random(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Equal in time independent of where they differ (a token guessed byte by byte learns nothing).
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The viewer's secrets and the hosts it answers to.
pub(crate) struct Auth {
    /// The one-time token of the printed URL; `None` once spent.
    token: Mutex<Option<String>>,
    /// The cookie's value (another secret: the spent token opens nothing).
    session: String,
    /// `sessiondb_<port>`: cookies are not kept apart by port, so two
    /// viewers on one machine do not overwrite each other's.
    cookie_name: String,
    /// `/` and 16 random hex digits: every page and API address of this
    /// viewer is under it, and the cookie's `Path` is `BASE/`, so a browser
    /// sends the cookie only there. A cookie is not bound to a port (RFC 6265
    /// §8.5): without the path, another web server on this machine that the
    /// browser visits would receive it.
    pub(crate) base: String,
    /// `Host` values accepted (lowercase).
    hosts: Vec<String>,
    /// Listening on every address (`0.0.0.0`, `::`, with `--allow-remote`):
    /// any IP literal with the port is accepted, never a host name (a name
    /// is what DNS rebinding needs).
    any_ip: Option<u16>,
}

impl Auth {
    /// Secrets for a viewer listening on `addr`; returns the token too.
    pub(crate) fn new(addr: SocketAddr, loopback: bool) -> (Auth, String) {
        let token = secret();
        let port = addr.port();
        let mut hosts = vec![addr.to_string().to_ascii_lowercase()];
        if loopback {
            hosts.push(format!("localhost:{port}"));
        }
        // On port 80 a browser sends the host without the port.
        if port == 80 {
            let plain: Vec<String> = hosts.iter().filter_map(|h| h.strip_suffix(":80").map(str::to_owned)).collect();
            hosts.extend(plain);
        }
        let any_ip = addr.ip().is_unspecified().then_some(port);
        let base = format!("/{}", &secret()[..16]);
        let auth = Auth { token: Mutex::new(Some(token.clone())), session: secret(), cookie_name: format!("sessiondb_{port}"), base, hosts, any_ip };
        (auth, token)
    }

    /// Is `host` (the request's `Host` header) this viewer's address?
    /// A missing header is refused.
    pub(crate) fn host_allowed(&self, host: Option<&str>) -> bool {
        let Some(host) = host.map(|h| h.trim().to_ascii_lowercase()) else { return false };
        if self.hosts.iter().any(|h| *h == host) {
            return true;
        }
        match (self.any_ip, host.parse::<SocketAddr>()) {
            (Some(port), Ok(a)) => a.port() == port,
            _ => false,
        }
    }

    /// Spend the token: `Some(Set-Cookie value)` when `token` is the unspent
    /// token, else `None` (wrong, or already used).
    pub(crate) fn exchange(&self, token: &str) -> Option<String> {
        let mut t = self.token.lock().unwrap_or_else(|e| e.into_inner());
        match t.as_deref() {
            Some(expected) if same(expected, token) => {
                *t = None;
                Some(format!("{}={}; Path={}/; HttpOnly; SameSite=Strict", self.cookie_name, self.session, self.base))
            }
            _ => None,
        }
    }

    /// Does the `Cookie` header carry this viewer's cookie?
    pub(crate) fn cookie_valid(&self, cookie: Option<&str>) -> bool {
        cookie.is_some_and(|c| {
            c.split(';').filter_map(|kv| kv.trim().split_once('=')).any(|(k, v)| k == self.cookie_name && same(v, &self.session))
        })
    }
}
