#!/usr/bin/env python3
"""The viewer in a real browser (issue 32 "Tests"): Debian's Chromium,
headless, driven by Selenium through Debian's chromedriver
(/usr/bin/chromedriver, named explicitly, so Selenium Manager never
downloads a driver or a browser).

A fixed corpus is made with the CLI (native sessions, a hostile one, a
Claude Code transcript with tool calls, thinking and usage on two days, a
compacted session), `sessiondb serve` is started on it, and each page is
loaded over the real server: the test asserts what a person sees (the
list's rows, the search results, a session's turns, the meter's text and
band, the chart's data points, hostile content shown as text, no alert, no
console error, no request to another host), writes a screenshot of each
page to ARTIFACTS (default test-artifacts/viewer), and at the end scans
every file written while serving (the store's directory, the server's HOME
and TMPDIR, the browser's profile) for a planted plaintext canary.

Usage: scripts/test-viewer.py SESSIONDB_BINARY [ARTIFACTS]
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

CANARY = "CANARY-viewer-5d1e0f7a9c"
HOSTILE_TITLE = '<script>alert("title")</script>'
HOSTILE_IMG = "<img src=x onerror=alert(1)>"
HOSTILE_LINK = "[click me](javascript:alert(2)) <script>alert(3)</script>"
CLAUDE_ID = "5b0c4a3e-7d2f-4c1e-9a8b-0c1d2e3f4a5b"

checks = 0


def check(cond, what):
    global checks
    if not cond:
        raise AssertionError(what)
    checks += 1
    print(f"  ok  {what}")


def claude_fixture(path, cwd):
    """A Claude Code transcript: a prompt, an answer with thinking and a tool
    call, its result, a final answer; usage on 2026-11-30 and 2026-12-01."""
    base = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": CLAUDE_ID, "version": "2.1.38"}
    lines = [
        {**base, "type": "user", "uuid": "u1", "timestamp": "2026-11-30T10:00:00.000Z", "message": {"role": "user", "content": "List the files in the repo"}},
        {**base, "type": "assistant", "uuid": "a1", "timestamp": "2026-11-30T10:00:05.000Z", "message": {
            "id": "msg_1", "model": "claude-sonnet-4-5", "role": "assistant",
            "content": [{"type": "thinking", "thinking": "The user wants a listing; run ls."}, {"type": "text", "text": "Let me look."},
                        {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls -la"}}],
            "usage": {"input_tokens": 1000, "output_tokens": 200, "cache_read_input_tokens": 300}}},
        {**base, "type": "user", "uuid": "u2", "timestamp": "2026-11-30T10:00:06.000Z", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Cargo.toml\nsrc"}]}},
        {**base, "type": "assistant", "uuid": "a2", "timestamp": "2026-12-01T09:00:00.000Z", "message": {
            "id": "msg_2", "model": "claude-sonnet-4-5", "role": "assistant",
            "content": [{"type": "text", "text": "There are **two** entries: `Cargo.toml` and `src`."}],
            "usage": {"input_tokens": 2000, "output_tokens": 400, "cache_read_input_tokens": 0}}},
    ]
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))


def main():
    binary = os.path.abspath(sys.argv[1])
    artifacts = Path(sys.argv[2] if len(sys.argv) > 2 else "test-artifacts/viewer").resolve()
    artifacts.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="sessiondb-viewer-"))
    inputs = Path(tempfile.mkdtemp(prefix="sessiondb-viewer-inputs-"))  # plaintext inputs, not scanned
    home, tmp, state, ws, profile = root / "home", root / "tmp", root / "state", root / "work" / "proj", root / "chromium"
    for d in (home, tmp, state, ws, profile):
        d.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONDB_")}
    env.update(HOME=str(home), TMPDIR=str(tmp), XDG_STATE_HOME=str(state), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
               SESSIONDB_DB=str(state / "sessions.db"), SESSIONDB_KEY_FILE=str(inputs / "key"), NO_COLOR="1")

    def cli(*args, cwd=ws):
        r = subprocess.run([binary, *args], env=env, cwd=cwd, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"sessiondb {' '.join(args)}: exit {r.returncode}: {r.stderr}")
        return r.stdout.strip()

    print("corpus")
    cli("key", "init", "--file", str(inputs / "key"))
    parser = cli("new", "--name", "Refactor the parser", "--model", "gpt-4o")
    cli("append", parser, "--role", "user", "How do I **refactor** the `parser`?\n\n- split the lexer\n- keep the tests\n\nSee [the guide](https://example.com/guide).")
    cli("append", parser, "--role", "assistant", f"Start with the tokenizer. {CANARY}\n\n```rust\nfn lex(s: &str) {{}}\n```")
    hostile = cli("new", "--unbound", "--name", HOSTILE_TITLE)
    cli("append", hostile, "--role", "user", HOSTILE_IMG)
    cli("append", hostile, "--role", "assistant", HOSTILE_LINK)
    big = cli("new", "--unbound", "--name", "Big context")
    cli("append", big, "--role", "user", "lorem ipsum dolor " * 1700)
    compacted = cli("new", "--unbound", "--name", "Compacted history")
    for i in range(8):
        cli("append", compacted, "--role", "user" if i % 2 == 0 else "assistant", f"step {i}: " + "words and more words " * 150)
    cli("compact", compacted, "--window", "8000")
    fixture = inputs / "claude.jsonl"
    claude_fixture(fixture, str(ws))
    cli("import", str(fixture))
    meter_cli = json.loads(cli("--json", "context", big, "--window", "14000"))["meter"]
    print(f"  CLI meter of 'Big context' at 14000: {meter_cli['label']} {meter_cli['band']}")

    print("serve")
    server = subprocess.Popen([binary, "serve"], env=env, cwd=ws, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = server.stdout.readline().strip()
    check(url.startswith("http://127.0.0.1:") and "/?token=" in url and len(url.split("token=")[1]) == 64, f"serve prints a loopback URL with a token ({url[:30]}…)")
    origin = url.split("/?")[0]

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1280,1000",
              "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=opts)
    wait = WebDriverWait(driver, 15)

    def shot(name):
        driver.save_screenshot(str(artifacts / f"{name}.png"))
        print(f"  screenshot {artifacts / (name + '.png')}")

    def no_alert(where):
        try:
            driver.switch_to.alert
            raise AssertionError(f"an alert fired on {where}")
        except NoAlertPresentException:
            check(True, f"no alert on {where}")

    def texts(css):
        return [e.text for e in driver.find_elements(By.CSS_SELECTOR, css)]

    try:
        print("list")
        driver.get(url)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.session-row")) == 5)
        check(driver.current_url == origin + "/", "the token is exchanged and dropped from the address")
        check(driver.execute_script("return document.cookie") == "", "the cookie is HttpOnly (not visible to script)")
        rows = texts("tr.session-row td.title")
        check(sorted(rows) == sorted(["Refactor the parser", HOSTILE_TITLE, "Big context", "Compacted history", "List the files in the repo"]), f"the list shows the five sessions: {rows}")
        claude_row = driver.find_element(By.CSS_SELECTOR, f'tr.session-row[data-id="{CLAUDE_ID}"]')
        check(claude_row.find_element(By.CSS_SELECTOR, "td.agent").text == "claude-code", "the imported session's agent is claude-code")
        check(claude_row.find_element(By.CSS_SELECTOR, "td.model").text == "claude-sonnet-4-5", "its model")
        check(claude_row.find_element(By.CSS_SELECTOR, "td.entries").text == "4", "its entry count")
        check(claude_row.find_element(By.CSS_SELECTOR, "td.activity").text == "2026-12-01 09:00 UTC", "its last activity")
        check(HOSTILE_TITLE in rows, "a <script> title is shown as text")
        no_alert("the list")
        shot("list")

        Select(driver.find_element(By.ID, "scope")).select_by_value("current")
        wait.until(lambda d: texts("tr.session-row td.title") == ["List the files in the repo", "Refactor the parser"] or sorted(texts("tr.session-row td.title")) == ["List the files in the repo", "Refactor the parser"])
        check(sorted(texts("tr.session-row td.title")) == ["List the files in the repo", "Refactor the parser"], "scope current: the two sessions of this workspace")
        Select(driver.find_element(By.ID, "scope")).select_by_value("unbound")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.session-row")) == 3)
        Select(driver.find_element(By.ID, "sort")).select_by_value("title")
        wait.until(lambda d: "sort=title" in d.current_url)
        wait.until(lambda d: texts("tr.session-row td.title") == [HOSTILE_TITLE, "Big context", "Compacted history"])
        check(True, "scope unbound sorted by title: " + ", ".join(texts("tr.session-row td.title")))
        Select(driver.find_element(By.ID, "scope")).select_by_value("all")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.session-row")) == 5)

        print("search")
        box = driver.find_element(By.ID, "search")
        box.send_keys("tokenizer")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#results .hit"))
        hits = texts("#results .hit .hit-title")
        check(hits == ["Refactor the parser"], f"search 'tokenizer' finds the parser session: {hits}")
        check(texts("#results .hit mark") == ["tokenizer"], "the match is highlighted")
        check(driver.find_element(By.CSS_SELECTOR, "#results .hit").get_attribute("data-seq") == "2", "the hit names its entry")
        shot("search")
        box.clear()
        box.send_keys("files")
        wait.until(lambda d: texts("#results .hit .hit-title") == ["List the files in the repo"])
        check(True, "search as you type: 'files' finds the Claude session")
        box.clear()
        box.send_keys('"unclosed')
        wait.until(lambda d: d.find_element(By.ID, "search-error").text != "")
        check("quote" in driver.find_element(By.ID, "search-error").text.lower() or driver.find_element(By.ID, "search-error").text != "", "a half-typed query shows the store's message: " + driver.find_element(By.ID, "search-error").text)
        box.clear()
        box.send_keys("img onerror")
        wait.until(lambda d: texts("#results .hit .hit-title") == [HOSTILE_TITLE])
        check(driver.find_elements(By.CSS_SELECTOR, "#results img") == [], "a hostile snippet is text")
        no_alert("search")

        print("session")
        driver.get(origin + "/#/s/" + parser)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#turns article.turn")) == 2)
        check(driver.find_element(By.ID, "session-title").text == "Refactor the parser", "the session's title")
        check(texts("#turns article.turn .role") == ["user", "assistant"], "its turns in order")
        check(texts("#turns article.turn strong") == ["refactor"], "Markdown bold")
        check(texts("#turns article.turn li") == ["split the lexer", "keep the tests"], "Markdown list")
        link = driver.find_element(By.CSS_SELECTOR, "#turns article.turn a[target=_blank]")
        check((link.text, link.get_attribute("href")) == ("the guide", "https://example.com/guide"), "an https link")
        check(texts("#turns pre.code") == ["fn lex(s: &str) {}"], "a fenced code block")
        wait.until(lambda d: d.find_element(By.ID, "meter-label").text.startswith("Ctx ") and d.find_element(By.ID, "meter-label").text != "Ctx …")
        shot("session")

        driver.get(origin + "/#/s/" + hostile)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#turns article.turn")) == 2)
        contents = texts("#turns article.turn .content")
        check(contents[0] == HOSTILE_IMG, "an <img onerror> entry is shown as text")
        check(contents[1] == HOSTILE_LINK.replace("[click me](javascript:alert(2))", "[click me](javascript:alert(2))"), "a javascript: link and <script> are shown as text")
        check(driver.find_elements(By.CSS_SELECTOR, "#main img, #main script, #main iframe") == [], "no element made from content")
        hrefs = [a.get_attribute("href") or "" for a in driver.find_elements(By.CSS_SELECTOR, "#main a")]
        check(not any(h.lower().startswith("javascript:") for h in hrefs), "no javascript: link")
        check(driver.find_element(By.ID, "session-title").text == HOSTILE_TITLE, "the hostile title as text")
        time.sleep(0.3)
        no_alert("the hostile session")
        shot("hostile")

        driver.get(origin + "/#/s/" + CLAUDE_ID)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#turns article.turn")) == 4)
        check(texts("#turns article.turn .role") == ["user", "assistant", "user", "assistant"], "the Claude turns")
        call = driver.find_element(By.CSS_SELECTOR, "details.tool-call")
        check(call.get_attribute("open") is None and call.find_element(By.TAG_NAME, "summary").text.startswith("→ Bash"), "the tool call is folded")
        res = driver.find_element(By.CSS_SELECTOR, "details.tool-result")
        check(res.get_attribute("open") is None and res.find_element(By.TAG_NAME, "summary").text.startswith("← Bash"), "its result is folded and names the tool")
        think = driver.find_element(By.CSS_SELECTOR, "details.thinking")
        check(think.get_attribute("open") is None and not think.find_element(By.TAG_NAME, "pre").is_displayed(), "thinking is folded")
        call.find_element(By.TAG_NAME, "summary").click()
        check('"command": "ls -la"' in call.find_element(By.TAG_NAME, "pre").text, "unfolding shows the tool input")
        check(driver.find_element(By.ID, "session-tokens").text == "tokens: input 3,300 · output 600 · cached 300", "the session's token totals")
        shot("claude-session")

        print("meter")
        driver.get(origin + "/#/s/" + big + "?window=14000")
        wait.until(lambda d: d.find_element(By.ID, "meter").get_attribute("data-band"))
        label = driver.find_element(By.ID, "meter-label").text
        band = driver.find_element(By.ID, "meter").get_attribute("data-band")
        check((label, band) == (meter_cli["label"], meter_cli["band"]), f"the meter at 14,000 tokens reads {label} {band}, as `sessiondb context` does")
        check(band == "orange", "and it is in the orange band")
        check("band-orange" in driver.find_element(By.ID, "meter").get_attribute("class"), "the meter is coloured by its band")
        win = driver.find_element(By.ID, "window")
        win.clear()
        win.send_keys("1000000\n")
        wait.until(lambda d: d.find_element(By.ID, "meter").get_attribute("data-band") == "green")
        check(driver.find_element(By.ID, "meter-label").text == json.loads(cli("--json", "context", big, "--window", "1000000"))["meter"]["label"], "a chosen window re-reads the meter")
        shot("meter")

        print("compaction")
        driver.get(origin + "/#/s/" + compacted)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#turns article.turn")) == 8)
        boundaries = driver.find_elements(By.CSS_SELECTOR, "#turns .compaction")
        check(len(boundaries) >= 1, f"a compaction boundary is marked ({len(boundaries)})")
        n_comp = len(driver.find_elements(By.CSS_SELECTOR, "#turns article.turn.state-compacted"))
        n_verb = len(driver.find_elements(By.CSS_SELECTOR, "#turns article.turn.state-verbatim"))
        check(n_comp >= 1 and n_verb >= 1 and n_comp + n_verb == 8, f"compacted ({n_comp}) and active ({n_verb}) turns are marked")
        shot("compaction")

        print("deep link")
        driver.get(origin + "/#/s/" + CLAUDE_ID + "/3")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#seq-3.target"))
        check(True, "#/s/ID/3 opens the session at entry 3")

        print("usage")
        driver.get(origin + "/#/usage")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#chart rect.bar"))
        bars = {(r.get_attribute("data-cat"), r.get_attribute("data-kind")): int(r.get_attribute("data-value")) for r in driver.find_elements(By.CSS_SELECTOR, "#chart rect.bar")}
        expect = {("2026-11-30", "input"): 1300, ("2026-11-30", "output"): 200, ("2026-11-30", "cached"): 300,
                  ("2026-12-01", "input"): 2000, ("2026-12-01", "output"): 400, ("2026-12-01", "cached"): 0}
        check(bars == expect, f"per-day chart data points: {bars}")
        heights = {(r.get_attribute("data-cat"), r.get_attribute("data-kind")): float(r.get_attribute("height")) for r in driver.find_elements(By.CSS_SELECTOR, "#chart rect.bar")}
        check(heights[("2026-12-01", "input")] > heights[("2026-11-30", "input")] > heights[("2026-11-30", "output")] > 0 == heights[("2026-12-01", "cached")], "bar heights follow the values")
        shot("usage-day")
        Select(driver.find_element(By.ID, "group")).select_by_value("model")
        wait.until(lambda d: {r.get_attribute("data-cat") for r in d.find_elements(By.CSS_SELECTOR, "#chart rect.bar")} == {"claude-sonnet-4-5"})
        bars = {r.get_attribute("data-kind"): int(r.get_attribute("data-value")) for r in driver.find_elements(By.CSS_SELECTOR, "#chart rect.bar")}
        check(bars == {"input": 3300, "output": 600, "cached": 300}, f"per-model chart: {bars}")
        check(texts("#usage-table tbody tr td")[:5] == ["claude-sonnet-4-5", "3,300", "600", "300", "2"], "the usage table")
        shot("usage-model")

        print("the page itself")
        resources = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        check(all(r.startswith(origin + "/") for r in resources), f"no request to another host ({len(resources)} requests)")
        # The half-typed query's 400 is expected (its message is shown); anything else is not.
        logs = [l for l in driver.get_log("browser") if l["level"] == "SEVERE" and "/api/search?q=%22unclosed" not in l["message"]]
        check(logs == [], f"no console error or CSP violation: {logs}")

        print("in a VS Code webview (the message transport of examples/vscode/src/viewer.ts)")
        # A stand-in for VS Code's `acquireVsCodeApi`, defined before the page's
        # script runs (as VS Code does): each API call arrives as a message and is
        # answered by message, here from a same-origin fetch (the extension
        # answers from Node over loopback with its own sign-in).
        stub = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.__posted = [];
            window.acquireVsCodeApi = () => ({ postMessage(m) {
              window.__posted.push(m.endpoint + '?' + m.query);
              fetch('api/' + m.endpoint + '?' + m.query).then((r) => r.text().then((body) =>
                window.postMessage({ type: 'api', id: m.id, status: r.status, body }, '*')));
            } });"""})
        driver.get("about:blank")  # a new document, so the stand-in is there before the page's script
        driver.get(origin + "/#/s/" + CLAUDE_ID + "/3")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#seq-3.target"))
        posted = driver.execute_script("return window.__posted")
        check([p.split("?")[0] for p in posted[:3]] == ["info", "session", "entries"] and f"id={CLAUDE_ID}" in posted[1], f"every API call went by message: {posted[:3]}")
        resources = driver.execute_script("return performance.getEntriesByType('resource').filter(e => e.initiatorType === 'fetch').map(e => e.name)")
        check(len(resources) == len(posted), f"the page made no fetch of its own ({len(resources)} fetches for {len(posted)} messages)")
        driver.execute_script("window.postMessage({ type: 'route', hash: '#/usage' }, '*')")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#chart rect.bar"))
        check(True, "a route message moves the page (the extension opening another session)")
        driver.execute_script("window.postMessage({ type: 'route', hash: 'javascript:alert(1)' }, '*')")
        driver.execute_script("window.postMessage({ type: 'api', id: 999, status: 200, body: '{}' }, '*')")
        time.sleep(0.3)
        no_alert("a route message that is not a #/ route")
        check(driver.current_url.endswith("#/usage"), "a route message that is not a #/ route is ignored")
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": stub["identifier"]})
        shot("webview-transport")
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=10)

    print("canary scan")
    scanned = 0
    found = []
    for d in (root,):
        for p in d.rglob("*"):
            if p.is_file() and not p.is_symlink():
                scanned += 1
                data = p.read_bytes()
                if CANARY.encode() in data or CANARY.encode("utf-16-le") in data:
                    found.append(str(p))
    check(found == [], f"no plaintext canary in the {scanned} files under the store, HOME, TMPDIR and the browser profile: {found}")
    print(f"viewer browser test: {checks} checks passed; screenshots in {artifacts}")


if __name__ == "__main__":
    main()
