"""The local viewer started from Python (issue 32 item 4; docs/viewer.md):
``SessionStore.serve()`` returns a :class:`sessiondb.Viewer` at once,
``sessiondb.serve()`` blocks like ``sessiondb serve`` until Ctrl-C. The
viewer's pages and security are tested in the core (core/tests/serve.rs)
and in a real browser (scripts/test-viewer.sh); here: that Python starts,
signs in through and stops the same server, and its errors."""

import asyncio
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse

import pytest

import sessiondb
from sessiondb.aio import AsyncSessionStore

from conftest import KEY


def fetch(host, port, path, cookie=None, host_header=None):
    c = http.client.HTTPConnection(host, port, timeout=10)
    headers = {"Host": host_header or f"{host}:{port}"}
    if cookie:
        headers["Cookie"] = cookie
    c.request("GET", path, headers=headers)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, dict(r.getheaders()), body


def base(viewer):
    """The viewer's base path (`/` and 16 hex digits): every address is under it."""
    return urllib.parse.urlsplit(viewer.url).path.rstrip("/")


def sign_in(viewer):
    u = urllib.parse.urlsplit(viewer.url)
    status, headers, _ = fetch(viewer.host, viewer.port, f"{u.path}?{u.query}")
    assert status == 303
    return headers["Set-Cookie"].split(";")[0]


def refused(port):
    """True once connections to `port` are refused (the listener's thread
    closes the socket just after `stop()` returns), within 2 s."""
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            return True
        time.sleep(0.01)
    return False


def test_serve_returns_a_running_viewer_that_lists_the_store_and_stops(store):
    s = store.create_session("viewer from python")
    store.append_transcript(s.id, "user", "hello <b>there</b>")
    with store.serve(workspace="/w", window=64_000) as viewer:
        assert isinstance(viewer, sessiondb.Viewer)
        assert viewer.running is True
        assert viewer.host == "127.0.0.1"
        assert viewer.port > 0
        assert re.fullmatch(rf"http://127\.0\.0\.1:{viewer.port}/[0-9a-f]{{16}}/\?token=[0-9a-f]{{64}}", viewer.url)
        assert len(viewer.url.split("token=")[1]) == 64
        assert "token" not in repr(viewer)
        assert repr(viewer) == f'Viewer(host="127.0.0.1", port={viewer.port}, running=True)'
        # Without the cookie: 401; a foreign Host: 403.
        assert fetch(viewer.host, viewer.port, base(viewer) + "/api/sessions")[0] == 401
        assert fetch(viewer.host, viewer.port, base(viewer) + "/", host_header=f"rebind.example:{viewer.port}")[0] == 403
        cookie = sign_in(viewer)
        status, headers, body = fetch(viewer.host, viewer.port, base(viewer) + "/api/info", cookie)
        assert status == 200
        assert json.loads(body) == {"version": sessiondb.__version__, "workspace": "/w", "window": 64_000}
        status, headers, body = fetch(viewer.host, viewer.port, base(viewer) + "/api/sessions", cookie)
        assert status == 200
        assert headers["Cache-Control"] == "no-store"
        rows = json.loads(body)["rows"]
        assert [(r["id"], r["title"], r["entries"]) for r in rows] == [(s.id, "viewer from python", 1)]
        # The token was spent.
        u = urllib.parse.urlsplit(viewer.url)
        assert fetch(viewer.host, viewer.port, f"{u.path}?{u.query}")[0] == 401
        assert viewer.wait(timeout=0.05) is False
        port = viewer.port
    assert viewer.running is False
    assert viewer.wait(timeout=0) is True
    viewer.stop()  # a second stop is a no-op
    assert refused(port), "the port is still open"


def test_bad_options_raise_invalid_input_and_a_used_port_raises_io(store):
    for kwargs, named in [
        ({"bind": "localhost"}, "bind"),
        ({"port": 70_000}, "port"),
        ({"port": -1}, "port"),
        ({"window": 0}, "window"),
        ({"window": -5}, "window"),
        ({"window": 2**53}, "window"),
        ({"bind": "0.0.0.0"}, "--allow-remote"),
    ]:
        with pytest.raises(sessiondb.InvalidInputError) as e:
            store.serve(**kwargs)
        assert named in str(e.value)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        with pytest.raises(sessiondb.IoError):
            store.serve(port=taken.getsockname()[1])
    with pytest.raises(TypeError):
        store.serve("127.0.0.1")  # keywords only
    with store.serve() as viewer:
        for bad in (-1, float("nan")):
            with pytest.raises(ValueError):
                viewer.wait(timeout=bad)


def test_a_huge_timeout_means_no_deadline_and_a_dropped_viewer_stops(store):
    import gc
    import threading

    # inf, 1e300 and 2**70 s are past any Instant: they wait for the stop (no panic).
    for far in (float("inf"), 1e300, 2**70):
        viewer = store.serve()
        threading.Timer(0.05, viewer.stop).start()
        assert viewer.wait(timeout=far) is True
    v = store.serve()
    port = v.port
    del v
    gc.collect()
    assert refused(port), "a viewer no longer referenced keeps listening"


def test_a_viewer_on_a_store_opened_with_allow_remote_binds_any_address(store):
    with store.serve(bind="0.0.0.0", allow_remote=True) as viewer:
        assert viewer.host == "0.0.0.0"
        assert fetch("127.0.0.1", viewer.port, base(viewer) + "/", host_header=f"127.0.0.1:{viewer.port}")[0] == 401


def test_aio_serve_runs_off_the_loop(db_path):
    async def main():
        astore = await AsyncSessionStore.open(db_path, key=KEY)
        viewer = await astore.serve()
        try:
            cookie = sign_in(viewer)
            assert fetch(viewer.host, viewer.port, base(viewer) + "/api/sessions", cookie)[0] == 200
        finally:
            viewer.stop()
            await astore.close()
        return viewer.running

    assert asyncio.run(main()) is False


def ctrl_c_default():
    """In the child before exec: SIGINT as a terminal's Ctrl-C finds it.
    A shell that runs the suite in the background (`cmd &` without job
    control) starts it with SIGINT ignored, which Python then keeps: the
    served process would never see the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def module_serve(db_path, tmp_path, extra=""):
    """A child running `sessiondb.serve(db_path, key=..., <extra>)` in
    `tmp_path`, which prints 'stopped' once serve returns."""
    script = (
        "import sys, sessiondb\n"
        f"sessiondb.serve(sys.argv[1], key=bytes(range(32)){extra})\n"
        "print('stopped', flush=True)\n"
    )
    return subprocess.Popen([sys.executable, "-c", script, db_path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(tmp_path), preexec_fn=ctrl_c_default)


def test_module_serve_prints_the_url_and_stops_on_ctrl_c(db_path, tmp_path):
    with sessiondb.SessionStore(db_path, key=KEY) as s:
        s.create_session("served")
    p = module_serve(db_path, tmp_path, ", window=32000")
    try:
        url = p.stdout.readline().strip()
        u = urllib.parse.urlsplit(url)
        assert u.scheme == "http" and u.hostname == "127.0.0.1" and u.query.startswith("token=")
        status, headers, _ = fetch(u.hostname, u.port, f"{u.path}?{u.query}")
        assert status == 303
        cookie = headers["Set-Cookie"].split(";")[0]
        info = json.loads(fetch(u.hostname, u.port, u.path + "api/info", cookie)[2])
        assert info["window"] == 32000
        assert info["workspace"] == os.path.realpath(str(tmp_path))
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert out == "stopped\n"
    assert refused(u.port)


def test_the_python_block_of_docs_viewer_md_runs(tmp_path):
    import contextlib
    import io
    import re
    from pathlib import Path

    root = Path(os.environ.get("SESSIONDB_REPO", Path(__file__).resolve().parents[2]))
    doc = (root / "docs" / "viewer.md").read_text(encoding="utf-8")
    code = re.search(r"^```python\n(.*?)^```$", doc, re.S | re.M).group(1)
    out = io.StringIO()
    scope = {"DB_PATH": str(tmp_path / "sessions.db"), "KEY": KEY}
    with contextlib.redirect_stdout(out):
        exec(code, scope)
    scope["store"].close()
    assert out.getvalue() == "True\nFalse\n"


def test_module_serve_stops_cleanly_on_ctrl_c_right_after_the_url(db_path, tmp_path):
    # Ctrl-C as soon as the URL is read: it used to land between the print
    # and the `try` that catches it (a KeyboardInterrupt traceback, exit
    # status -2, in 1 of 12 runs of the test above under load).
    with sessiondb.SessionStore(db_path, key=KEY) as s:
        s.create_session("served")
    for _ in range(5):
        p = module_serve(db_path, tmp_path)
        try:
            url = p.stdout.readline().strip()
            assert url.startswith("http://127.0.0.1:")
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
        assert (p.returncode, out, err) == (0, "stopped\n", "")
