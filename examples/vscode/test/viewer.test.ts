// The viewer's webview side of the extension (src/viewer.ts) against the real
// sessiondb package and server, under plain Node (VS Code itself cannot run
// here; the page's message transport runs in Chromium in scripts/test-viewer.py).

import { test } from 'node:test'
import * as assert from 'node:assert/strict'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { SessionStore } from 'sessiondb'
import { ViewerWebview, routeOf, type ApiAnswer } from '../src/viewer'

function openStore(fill: number): Promise<SessionStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdb-vscode-viewer-'))
  return SessionStore.open({ path: path.join(dir, 'sessions.db'), key: Buffer.alloc(32, fill) })
}

const call = (id: number, endpoint: string, query: string) => ({ type: 'api', id, endpoint, query })

test('routes: the session list, a session, a session at an entry', () => {
  assert.equal(routeOf(null), '#/')
  assert.equal(routeOf('0b9f-1', null), '#/s/0b9f-1')
  assert.equal(routeOf('0b9f-1', 3), '#/s/0b9f-1/3')
  assert.equal(routeOf('a"b<c>/d', 7), '#/s/a%22b%3Cc%3E%2Fd/7')
})

test("the webview's page is the viewer's own, inline under a nonce, and loads nothing", async () => {
  const store = openStore(6)
  const s = await (await store).createSession('open me')
  const view = new ViewerWebview(() => store, () => 64000)
  const html = await view.html(routeOf(s.id, 3))

  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1]
  const nonce = /script-src 'nonce-([A-Za-z0-9+/=]{24})'/.exec(csp ?? '')?.[1]
  assert.ok(nonce, `a nonce in the CSP: ${csp}`)
  assert.equal(
    csp,
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'`,
  )
  assert.equal((html.match(/<script/g) ?? []).length, 1)
  assert.equal((html.match(new RegExp(`<script nonce="${nonce.replace(/[+/=]/g, '\\$&')}">`, 'g')) ?? []).length, 1)
  assert.equal((html.match(new RegExp(`<style nonce="${nonce.replace(/[+/=]/g, '\\$&')}">`, 'g')) ?? []).length, 1)
  assert.ok(!/\s(src|href)=/.test(html.replace(/<a id="(home|nav-sessions|nav-usage)" href="#\/(usage)?">/g, '')), 'no attribute loads a file')
  assert.match(html, new RegExp(`<meta name="sessiondb-route" content="#/s/${s.id}/3">`))
  assert.match(html, /<main id="main">/)
  assert.match(html, /const vscodeHost = typeof acquireVsCodeApi === 'function'/)
  assert.ok(!html.includes('sessiondb_'), 'the cookie is not in the page')

  const other = await view.html('javascript:alert(1)')
  assert.match(other, /<meta name="sessiondb-route" content="#\/">/)
  assert.notEqual(/'nonce-([^']+)'/.exec(other)?.[1], nonce, 'a new nonce for each page')

  await view.stop()
  await (await store).close()
})

test("the page's API calls are answered from the viewer, and nothing else is", async () => {
  const store = openStore(7)
  const st = await store
  const s = await st.createSession('answer me')
  await st.appendTranscript(s.id, 'user', 'hello from the webview')
  const view = new ViewerWebview(() => store, () => 64000)

  const info = (await view.answer(call(1, 'session', `id=${s.id}`))) as ApiAnswer
  assert.equal(info.type, 'api')
  assert.equal(info.id, 1)
  assert.equal(info.status, 200)
  assert.equal(JSON.parse(info.body).session.title, 'answer me')

  const entries = (await view.answer(call(2, 'entries', `id=${s.id}&from=1&limit=10`))) as ApiAnswer
  assert.equal(entries.status, 200)
  assert.deepEqual(
    JSON.parse(entries.body).entries.map((e: { seq: number; role: string }) => [e.seq, e.role]),
    [[1, 'user']],
  )
  assert.ok(entries.body.includes('hello from the webview'))

  const missing = (await view.answer(call(3, 'session', 'id=no-such-session'))) as ApiAnswer
  assert.equal(missing.status, 404)

  // Not an endpoint, or a path trick: 400 without asking the viewer.
  for (const endpoint of ['../app.js', 'info/../../', 'export', '']) {
    const a = (await view.answer(call(4, endpoint, ''))) as ApiAnswer
    assert.equal(a.status, 400, endpoint)
    assert.match(JSON.parse(a.body).error.message, /^not a viewer API endpoint/)
  }
  // A query is re-encoded: `#` or a second `?` stay parameters.
  const odd = (await view.answer(call(5, 'search', 'q=hello#x?y&limit=5'))) as ApiAnswer
  assert.equal(odd.status, 200)
  assert.equal((await view.answer(call(6, 'info', 'x'.repeat(8193))))?.status, 400)
  // Nothing to answer.
  for (const m of [null, 'api', 42, { type: 'route', hash: '#/' }, { type: 'api', endpoint: 'info', query: '' }, { type: 'api', id: 1.5, endpoint: 'info', query: '' }]) {
    assert.equal(await view.answer(m), null, JSON.stringify(m))
  }

  // Stopped (the store was reopened): the next call starts a new viewer and signs in again.
  await view.stop()
  const again = (await view.answer(call(7, 'session', `id=${s.id}`))) as ApiAnswer
  assert.equal(again.status, 200)
  assert.equal(JSON.parse(again.body).session.title, 'answer me')
  await view.stop()
  await st.close()
})

test('a store that is not open rejects, and the next call tries again', async () => {
  let store: Promise<SessionStore> | null = null
  const view = new ViewerWebview(() => store, () => 128000)
  await assert.rejects(view.html('#/'), /the store is not open/)
  assert.equal((await view.answer(call(1, 'info', '')))?.status, 502)
  store = openStore(8)
  assert.match(await view.html('#/'), /<meta name="sessiondb-route" content="#\/">/)
  const info = (await view.answer(call(2, 'info', ''))) as ApiAnswer
  assert.equal(info.status, 200)
  await view.stop()
  await (await store).close()
})

// The exact page a webview gets, in Debian's Chromium (headless): its CSP
// allows its own script, which renders a session from answers given by
// message. VS Code's `acquireVsCodeApi` is stood in for by a script under the
// page's nonce that answers each call with what `ViewerWebview.answer` gave
// for that endpoint (computed here first, from the real viewer).
test('the webview page renders a session in Chromium, by message only', { skip: fs.existsSync('/usr/bin/chromium') ? false : 'no /usr/bin/chromium (scripts/install-system-deps.sh installs it)' }, async () => {
  const { execFileSync } = await import('node:child_process')
  const store = openStore(9)
  const st = await store
  const s = await st.createSession('rendered in chromium')
  await st.appendTranscript(s.id, 'user', 'is **this** shown?')
  await st.appendTranscript(s.id, 'assistant', 'yes, <img src=x onerror=alert(1)> as text')
  const view = new ViewerWebview(() => store, () => 64000)
  const html = await view.html(routeOf(s.id))
  const canned: Record<string, ApiAnswer> = {}
  const queries: Record<string, string> = { info: '', session: `id=${s.id}`, entries: `id=${s.id}&from=1&limit=100`, context: `id=${s.id}&window=64000` }
  for (const [endpoint, query] of Object.entries(queries)) canned[endpoint] = (await view.answer(call(0, endpoint, query))) as ApiAnswer
  assert.deepEqual(Object.values(canned).map((a) => a.status), [200, 200, 200, 200])
  const nonce = /'nonce-([^']+)'/.exec(html)![1]
  const stub = `<script nonce="${nonce}">
    const canned = ${JSON.stringify(canned).replace(/</g, '\\u003c')};
    window.acquireVsCodeApi = () => ({ postMessage(m) {
      const a = canned[m.endpoint];
      document.documentElement.dataset.calls = (document.documentElement.dataset.calls || '') + m.endpoint + ' ';
      setTimeout(() => window.postMessage({ ...a, id: m.id }, '*'), 0);
    } });
  </script>`
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdb-vscode-webview-'))
  const file = path.join(dir, 'webview.html')
  fs.writeFileSync(file, html.replace('</head>', `${stub}\n</head>`))
  const dom = execFileSync('/usr/bin/chromium', ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', `--user-data-dir=${path.join(dir, 'profile')}`, '--virtual-time-budget=5000', '--dump-dom', `file://${file}`], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] })
  fs.rmSync(dir, { recursive: true, force: true })
  assert.match(dom, /data-calls="info session entries context "/)
  assert.match(dom, /<h1 id="session-title">rendered in chromium<\/h1>/)
  assert.match(dom, /is <strong>this<\/strong> shown\?/)
  assert.match(dom, /yes, &lt;img src=x onerror=alert\(1\)&gt; as text/)
  assert.equal((dom.match(/<img/g) ?? []).length, 0)
  await view.stop()
  await st.close()
})
