//! The viewer's HTTP/1.1 transport: one request per connection, answered
//! and closed, with every input bounded (issue 32; the red-team pass of
//! the hosts' `serve`). It replaces `tiny_http`, whose connection handling
//! read an announced request body into one allocation of the announced size
//! (a `Content-Length: 100000000000` aborted the host process), waited for
//! ever for a body or a header line that never came, buffered header lines
//! without limit, and stopped accepting for good after one `EMFILE`
//! (tiny-http issue #252, PR #290, unreleased).
//!
//! What a client gets:
//! - The request head (request line and headers) is read within
//!   [`HEAD_DEADLINE`] and at most [`MAX_HEAD_BYTES`] bytes, else `408` /
//!   `431`; it is parsed by `httparse` (`400` when it is not HTTP/1.x).
//! - A request that announces a body (`Content-Length` other than 0, any
//!   `Transfer-Encoding`) is `413`: the viewer only serves `GET`, and never
//!   reads a body.
//! - Every response carries `Content-Length` and `Connection: close`; the
//!   connection is then shut down (no keep-alive: a connection left open
//!   cannot outlive [`Server::stop`]).
//! - At most [`MAX_CONNECTIONS`] connections are served at once, each on
//!   its own thread; one more is closed at once, unanswered. An accept error
//!   (out of file descriptors) pauses accepting for 50 ms, never ends it.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Largest request head read (request line and headers), bytes.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Time a client has to send its whole request head.
pub const HEAD_DEADLINE: Duration = Duration::from_secs(5);
/// Time a response may take to be written (a client that reads nothing).
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 32;
/// Headers parsed per request.
const MAX_HEADERS: usize = 64;

/// A request head as the router sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    pub(crate) method: String,
    /// The request target as sent (`/path?query`).
    pub(crate) target: String,
    /// The `Host` header; `None` when absent or sent twice.
    pub(crate) host: Option<String>,
    /// The `Cookie` header (several are joined with `; `).
    pub(crate) cookie: Option<String>,
}

/// A response: status, content type, body, extra headers.
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
}

/// Why a head was not read: the status to answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeadError {
    /// The client closed the connection or the read failed: nothing to answer.
    Gone,
    /// 400: not an HTTP/1.x request head.
    Malformed,
    /// 408: not all of it within [`HEAD_DEADLINE`].
    TooSlow,
    /// 413: a request body was announced.
    Body,
    /// 431: over [`MAX_HEAD_BYTES`] or [`MAX_HEADERS`].
    TooLarge,
}

impl HeadError {
    fn reply(self) -> Option<Reply> {
        let (status, text) = match self {
            HeadError::Gone => return None,
            HeadError::Malformed => (400, "not an HTTP/1.1 request"),
            HeadError::TooSlow => (408, "the request head did not arrive in time"),
            HeadError::Body => (413, "the viewer only reads: no request body"),
            HeadError::TooLarge => (431, "the request head is too large"),
        };
        Some(Reply::text(status, text))
    }
}

/// Read and parse one request head from `stream`, within `deadline`.
pub(crate) fn read_head(stream: &mut impl ReadTimeout, deadline: Instant) -> Result<Request, HeadError> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(HeadError::TooSlow);
        }
        stream.set_timeout(left);
        let n = match stream.read(&mut chunk) {
            Ok(0) => return Err(HeadError::Gone),
            Ok(n) => n,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => return Err(HeadError::TooSlow),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(HeadError::Gone),
        };
        buf.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut req = httparse::Request::new(&mut headers);
        match req.parse(&buf) {
            Ok(httparse::Status::Complete(_)) => return request(&req),
            Ok(httparse::Status::Partial) if buf.len() >= MAX_HEAD_BYTES => return Err(HeadError::TooLarge),
            Ok(httparse::Status::Partial) => {}
            Err(httparse::Error::TooManyHeaders) => return Err(HeadError::TooLarge),
            Err(_) => return Err(HeadError::Malformed),
        }
        if buf.len() > MAX_HEAD_BYTES {
            return Err(HeadError::TooLarge);
        }
    }
}

/// The fields the router uses, from a complete head.
fn request(req: &httparse::Request<'_, '_>) -> Result<Request, HeadError> {
    let (Some(method), Some(target)) = (req.method, req.path) else { return Err(HeadError::Malformed) };
    let mut host: Option<Option<String>> = None;
    let mut cookies: Vec<String> = Vec::new();
    for h in req.headers.iter() {
        let value = || String::from_utf8_lossy(h.value).into_owned();
        if h.name.eq_ignore_ascii_case("host") {
            // A second Host header: no host at all (refused by the Host check).
            host = Some(if host.is_none() { Some(value()) } else { None });
        } else if h.name.eq_ignore_ascii_case("cookie") {
            cookies.push(value());
        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(HeadError::Body);
        } else if h.name.eq_ignore_ascii_case("content-length") && h.value.iter().any(|b| *b != b'0' && !b.is_ascii_whitespace()) {
            return Err(HeadError::Body);
        }
    }
    Ok(Request {
        method: method.to_string(),
        target: target.to_string(),
        host: host.flatten(),
        cookie: (!cookies.is_empty()).then(|| cookies.join("; ")),
    })
}

/// A stream whose reads can be given a timeout (a `TcpStream`; a test double).
pub(crate) trait ReadTimeout: Read {
    fn set_timeout(&mut self, t: Duration);
}

impl ReadTimeout for TcpStream {
    fn set_timeout(&mut self, t: Duration) {
        let _ = self.set_read_timeout(Some(t.max(Duration::from_millis(1))));
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        303 => "See Other",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    }
}

/// The bytes of `reply` with `common` headers first: status line, headers,
/// `Content-Length`, `Connection: close`, a blank line and the body.
pub(crate) fn encode(reply: &Reply, common: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(reply.body.len() + 1024);
    let _ = write!(out, "HTTP/1.1 {} {}\r\nContent-Type: {}\r\n", reply.status, reason(reply.status), reply.content_type);
    for (k, v) in common.iter().copied().chain(reply.headers.iter().map(|(k, v)| (*k, v.as_str()))) {
        // Header values are ours; a CR or LF in one would split the response.
        if !v.contains(['\r', '\n']) {
            let _ = write!(out, "{k}: {v}\r\n");
        }
    }
    let _ = write!(out, "Content-Length: {}\r\nConnection: close\r\n\r\n", reply.body.len());
    out.extend_from_slice(&reply.body);
    out
}

/// Serve one connection: read its head, answer it with `handle`, close it.
fn serve_connection(mut stream: TcpStream, common: &[(&str, &str)], handle: &(dyn Fn(&Request) -> Reply + Sync)) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let reply = match read_head(&mut stream, Instant::now() + HEAD_DEADLINE) {
        Ok(req) => Some(handle(&req)),
        Err(e) => e.reply(),
    };
    if let Some(reply) = reply {
        let _ = stream.write_all(&encode(&reply, common));
        let _ = stream.flush();
    }
    linger_close(stream);
}

/// Close after the response: end our side, then read and drop what the
/// client still sends (at most 256 KiB, for at most 200 ms), so that
/// closing with unread bytes (a refused head's rest) does not reset the
/// connection before the client has read the response.
fn linger_close(mut stream: TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let deadline = Instant::now() + Duration::from_millis(200);
    let mut sink = [0u8; 4096];
    let mut left = 256 * 1024usize;
    while left > 0 {
        let wait = deadline.saturating_duration_since(Instant::now());
        if wait.is_zero() || stream.set_read_timeout(Some(wait)).is_err() {
            break;
        }
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}

/// Connections in progress, and a wake-up when one ends.
#[derive(Default)]
struct Active {
    count: Mutex<usize>,
    ended: Condvar,
}

/// Ends a connection's count when its thread ends (even by a panic).
struct ActiveGuard(Arc<Active>);

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        *self.0.count.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        self.0.ended.notify_all();
    }
}

/// A listening socket and its accept thread.
pub(crate) struct Server {
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
    accept: Mutex<Option<JoinHandle<()>>>,
    active: Arc<Active>,
}

impl Server {
    /// Accept on `listener` and answer each request with `handle`, the
    /// `common` headers on every response. Errors: the listener's address
    /// or the accept thread could not be had.
    pub(crate) fn start(
        listener: TcpListener,
        common: &'static [(&'static str, &'static str)],
        handle: Arc<dyn Fn(&Request) -> Reply + Send + Sync>,
    ) -> std::io::Result<Server> {
        let addr = listener.local_addr()?;
        let stopping = Arc::new(AtomicBool::new(false));
        let active = Arc::new(Active::default());
        let accept = {
            let (stopping, active) = (Arc::clone(&stopping), Arc::clone(&active));
            std::thread::Builder::new().name("sessiondb-viewer-accept".into()).spawn(move || {
                accept_loop(&listener, &stopping, &active, common, &handle);
            })?
        };
        Ok(Server { addr, stopping, accept: Mutex::new(Some(accept)), active })
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Connections accepted and not yet ended.
    pub(crate) fn active_connections(&self) -> usize {
        *self.active.count.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stop accepting, close the listening socket, and wait up to
    /// `grace` for the connections in progress to be answered (each is
    /// bounded by [`HEAD_DEADLINE`] and [`WRITE_TIMEOUT`] anyway).
    pub(crate) fn stop(&self, grace: Duration) {
        let Some(accept) = self.accept.lock().unwrap_or_else(|e| e.into_inner()).take() else { return };
        self.stopping.store(true, Ordering::SeqCst);
        // Wake the blocking accept with a connection of our own.
        let wake = match self.addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), self.addr.port()),
            IpAddr::V6(ip) if ip.is_unspecified() => SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), self.addr.port()),
            _ => self.addr,
        };
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        let _ = accept.join();
        let deadline = Instant::now() + grace;
        let mut n = self.active.count.lock().unwrap_or_else(|e| e.into_inner());
        while *n > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            n = self.active.ended.wait_timeout(n, left).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
}

fn accept_loop(
    listener: &TcpListener,
    stopping: &AtomicBool,
    active: &Arc<Active>,
    common: &'static [(&'static str, &'static str)],
    handle: &Arc<dyn Fn(&Request) -> Reply + Send + Sync>,
) {
    loop {
        let stream = match listener.accept() {
            Ok((s, _)) => s,
            Err(_) if stopping.load(Ordering::SeqCst) => return,
            // Out of file descriptors, a connection reset before accept...:
            // wait a little and keep accepting.
            Err(_) => {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        if stopping.load(Ordering::SeqCst) {
            return; // the wake-up connection, or one that came with it
        }
        {
            let mut n = active.count.lock().unwrap_or_else(|e| e.into_inner());
            if *n >= MAX_CONNECTIONS {
                let _ = stream.shutdown(Shutdown::Both);
                continue;
            }
            *n += 1;
        }
        let guard = ActiveGuard(Arc::clone(active));
        let handle = Arc::clone(handle);
        let spawned = std::thread::Builder::new().name("sessiondb-viewer-conn".into()).spawn(move || {
            let _guard = guard;
            serve_connection(stream, common, &*handle);
        });
        // A thread that could not be made dropped its closure: the guard
        // ended the count and the stream was closed.
        let _ = spawned;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes arriving in the given pieces; then end of stream.
    struct Pieces(Vec<Vec<u8>>);

    impl Read for Pieces {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            let n = self.0[0].len().min(buf.len());
            buf[..n].copy_from_slice(&self.0[0][..n]);
            self.0[0].drain(..n);
            if self.0[0].is_empty() {
                self.0.remove(0);
            }
            Ok(n)
        }
    }

    impl ReadTimeout for Pieces {
        fn set_timeout(&mut self, _: Duration) {}
    }

    fn head(pieces: &[&str]) -> Result<Request, HeadError> {
        read_head(&mut Pieces(pieces.iter().map(|p| p.as_bytes().to_vec()).collect()), Instant::now() + Duration::from_secs(5))
    }

    #[test]
    fn a_head_in_pieces_is_read_with_its_host_and_cookies() {
        let r = head(&["GET /api/x?q=1 HTTP/1.1\r\nHo", "st: 127.0.0.1:9\r\nCookie: a=1\r\ncookie: b=2\r\n", "\r\n"]).unwrap();
        assert_eq!(
            r,
            Request { method: "GET".into(), target: "/api/x?q=1".into(), host: Some("127.0.0.1:9".into()), cookie: Some("a=1; b=2".into()) }
        );
    }

    #[test]
    fn bodies_large_heads_garbage_and_two_hosts_are_refused() {
        assert_eq!(head(&["GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 100000000000\r\n\r\nx"]), Err(HeadError::Body));
        assert_eq!(head(&["GET / HTTP/1.1\r\nContent-Length: 18446744073709551615\r\n\r\n"]), Err(HeadError::Body));
        assert_eq!(head(&["GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"]), Err(HeadError::Body));
        assert_eq!(head(&["GET / HTTP/1.1\r\nContent-Length: 0\r\nHost: h\r\n\r\n"]).unwrap().host.as_deref(), Some("h"));
        let long = format!("GET /{} HTTP/1.1\r\n", "a".repeat(MAX_HEAD_BYTES));
        assert_eq!(head(&[&long]), Err(HeadError::TooLarge));
        let many: String = (0..MAX_HEADERS + 1).map(|i| format!("X-{i}: v\r\n")).collect();
        assert_eq!(head(&["GET / HTTP/1.1\r\n", &many, "\r\n"]), Err(HeadError::TooLarge));
        assert_eq!(head(&["\x16\x03\x01 not http\r\n\r\n"]), Err(HeadError::Malformed));
        assert_eq!(head(&["GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"]).unwrap().host, None);
        assert_eq!(head(&["GET / HTTP/1.1\r\nHost: a\r\n"]), Err(HeadError::Gone));
    }

    #[test]
    fn a_response_has_its_length_closes_and_drops_a_header_value_with_a_line_break() {
        let mut r = Reply::text(303, "ok");
        r.headers.push(("Location", "/".into()));
        r.headers.push(("X-Bad", "a\r\nSet-Cookie: x".into()));
        let bytes = String::from_utf8(encode(&r, &[("Cache-Control", "no-store")])).unwrap();
        assert_eq!(
            bytes,
            "HTTP/1.1 303 See Other\r\nContent-Type: text/plain; charset=utf-8\r\nCache-Control: no-store\r\nLocation: /\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
        );
    }
}
