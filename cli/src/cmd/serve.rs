//! `sessiondb serve` (issue 32; docs/viewer.md): the local, read-only web
//! viewer of the core (`sessiondb::serve`). Prints the one-time sign-in URL
//! on stdout (with `--json`: `{"url", "addr"}`) and serves until the
//! process is ended; opens no browser.

use std::io::Write;
use std::net::IpAddr;
use std::sync::Arc;

use clap::Args;
use sessiondb::serve::{Viewer, ViewerOptions};

use crate::cmd::window::DEFAULT_WINDOW;
use crate::{cwd, open_existing, output, Failure, Global};

/// `sessiondb serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on. Anything but a loopback address is refused without --allow-remote.
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// Port (default: a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Listen on a non-loopback --bind address (plain HTTP: anyone on that network who sees the
    /// URL can read every session).
    #[arg(long)]
    allow_remote: bool,
    /// The meter's default raw context window (tokens); the page can change it.
    #[arg(long, value_name = "TOKENS", default_value_t = DEFAULT_WINDOW)]
    window: u64,
}

/// Run `sessiondb serve` until the process is ended.
pub fn run(g: &Global, a: &ServeArgs) -> Result<(), Failure> {
    let s = open_existing(g)?;
    let opts = ViewerOptions { bind: a.bind, port: a.port, allow_remote: a.allow_remote, workspace: cwd().ok(), window: a.window };
    let viewer = Viewer::start(Arc::new(s), opts)?;
    if !a.bind.is_loopback() {
        output::warn(
            g.json,
            "remote",
            &format!("serving on {} over plain HTTP: anyone who can reach it and sees the URL reads every session", viewer.addr()),
        );
    }
    {
        let mut out = std::io::stdout().lock();
        let _ = if g.json {
            writeln!(out, "{}", serde_json::json!({ "url": viewer.url(), "addr": viewer.addr().to_string() }))
        } else {
            writeln!(out, "{}", viewer.url())
        };
        let _ = out.flush();
    }
    if !g.json {
        eprintln!("sessiondb: read-only viewer on http://{}/ - open the link above once (it signs one browser in); Ctrl-C stops it", viewer.addr());
    }
    viewer.wait(None);
    Ok(())
}
