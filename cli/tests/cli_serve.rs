//! `sessiondb serve` (docs/viewer.md): the printed sign-in URL, and the
//! refusal of a non-loopback address without --allow-remote. The HTTP layer
//! is tested in core/tests/serve.rs, the page in scripts/test-viewer.sh.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

fn cmd(dir: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sessiondb"));
    c.env_remove("SESSIONDB_APP").env("SESSIONDB_DB", dir.join("s.db")).env("SESSIONDB_KEY_FILE", dir.join("key")).env("HOME", dir);
    c
}

fn store() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    assert!(cmd(d.path()).args(["key", "init", "--file"]).arg(d.path().join("key")).output().unwrap().status.success());
    assert!(cmd(d.path()).args(["new", "--unbound", "--name", "t"]).output().unwrap().status.success());
    d
}

#[test]
fn serve_prints_a_one_time_url_on_loopback_that_signs_in_once() {
    let d = store();
    let mut child = cmd(d.path()).args(["--json", "serve"]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    let (url, addr) = (v["url"].as_str().unwrap(), v["addr"].as_str().unwrap());
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    let base = url.split('/').nth(3).unwrap();
    assert!(base.len() == 16 && base.bytes().all(|b| b.is_ascii_hexdigit()), "{url}");
    assert_eq!(url, format!("http://{addr}/{base}/?token={}", &url[url.len() - 64..]));
    let get = |path: &str| {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out.split(' ').nth(1).unwrap().to_string()
    };
    let path = &url[url.find(&format!("/{base}/?")).unwrap()..];
    assert_eq!(get(path), "303");
    assert_eq!(get(path), "401", "the token is spent");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn serve_refuses_a_non_loopback_bind_without_allow_remote() {
    let d = store();
    let out = cmd(d.path()).args(["serve", "--bind", "0.0.0.0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a loopback address") && err.contains("--allow-remote"), "{err}");
    assert!(out.stdout.is_empty(), "no URL printed");
}
