// "sessiondb: Open viewer" and opening a found session (issue 32 item 4): the
// store's local, read-only viewer (docs/viewer.md) in a VS Code webview panel.
// Kept apart from the VS Code API so that test/viewer.test.ts runs it against
// the real package and server under plain Node.
//
// How, without loosening the viewer: a webview is another site, so it can
// neither frame the viewer (`frame-ancestors 'none'`) nor send its
// `SameSite=Strict` cookie. The extension is the viewer's client instead: it
// starts the viewer once (`store.serve()`), spends the one-time token itself
// over loopback and keeps the cookie in memory; the webview gets the viewer's
// own page, script and style inline under a nonce (`html`), and each API call
// of the page comes as a message that `answer` forwards to the viewer's API.
// The cookie never reaches the webview, and decrypted content travels only in
// messages, never in a file.

import * as http from 'node:http'
import { randomBytes } from 'node:crypto'
import type { SessionStore, Viewer } from 'sessiondb'

/** The viewer API endpoints a webview may call (docs/viewer.md, "HTTP API"). */
export const API_ENDPOINTS: ReadonlySet<string> = new Set(['info', 'sessions', 'search', 'session', 'entries', 'context', 'usage'])

/** A page's API call: `GET api/<endpoint>?<query>` of the viewer (core/src/serve/assets/app.js). */
export interface ApiCall {
  type: 'api'
  id: number
  endpoint: string
  query: string
}

/** The answer to an `ApiCall` of the same `id`: the viewer's HTTP status and JSON body. */
export interface ApiAnswer {
  type: 'api'
  id: number
  status: number
  body: string
}

/** The page's route for `sessionId` at entry `seq` (`#/s/ID/SEQ`), or the session list (`#/`). */
export function routeOf(sessionId: string | null, seq: number | null = null): string {
  if (sessionId === null) return '#/'
  return `#/s/${encodeURIComponent(sessionId)}${seq === null ? '' : `/${seq}`}`
}

interface Reply {
  status: number
  cookie: string | null
  body: string
}

/** One GET to the viewer over loopback, with its own `Host`; 10 s at most. */
function get(base: URL, path: string, cookie: string | null): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Host: base.host }
    if (cookie !== null) headers['Cookie'] = cookie
    const req = http.get({ host: base.hostname, port: base.port, path, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, cookie: res.headers['set-cookie']?.[0]?.split(';')[0] ?? null, body: Buffer.concat(chunks).toString('utf8') }),
      )
      res.on('error', reject)
    })
    req.setTimeout(10_000, () => req.destroy(new Error('the viewer did not answer within 10 s')))
    req.on('error', reject)
  })
}

/** A viewer this extension is signed in to, and its page's files. */
interface Signed {
  viewer: Viewer
  /** `http://127.0.0.1:PORT/BASE/`: the viewer's home (its random base path). */
  home: URL
  /** `name=value` of the sign-in cookie; kept here, never given to the webview. */
  cookie: string
  body: string
  script: string
  style: string
}

const escapeAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** One viewer for the extension's store, started and signed in to on first use. */
export class ViewerWebview {
  private signed: Promise<Signed> | null = null

  /** `store`: the store to serve (the meter's); `window`: the meter's raw window, tokens. */
  constructor(
    private readonly store: () => Promise<SessionStore> | null,
    private readonly window: () => number,
  ) {}

  /**
   * The webview's HTML at `route` (see `routeOf`): the viewer's own page with
   * its script and style inline under a fresh nonce, and a Content-Security-Policy
   * that loads nothing and connects nowhere (`default-src 'none'`). Rejects as
   * `store.serve()`, or with an `Error` when the viewer refuses the sign-in.
   */
  async html(route: string): Promise<string> {
    const s = await this.start()
    const nonce = randomBytes(16).toString('base64')
    const csp = `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'`
    return [
      '<!doctype html>',
      '<html lang="en">',
      '<head>',
      '<meta charset="utf-8">',
      `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      `<meta name="sessiondb-route" content="${escapeAttr(route.startsWith('#/') ? route : '#/')}">`,
      '<title>sessiondb</title>',
      `<style nonce="${nonce}">${s.style}</style>`,
      '</head>',
      `<body>${s.body}<script nonce="${nonce}">${s.script}</script></body>`,
      '</html>',
    ].join('\n')
  }

  /**
   * Forward a page's message to the viewer's API. `null` for anything that is
   * not an `ApiCall` with a safe-integer `id` (nothing to answer); an answer of
   * status 400 for an endpoint outside `API_ENDPOINTS` or a query over 8 KiB,
   * and 502 when the viewer cannot be reached (the next call starts a new one).
   */
  async answer(message: unknown): Promise<ApiAnswer | null> {
    if (typeof message !== 'object' || message === null) return null
    const m = message as Partial<ApiCall>
    if (m.type !== 'api' || !Number.isSafeInteger(m.id)) return null
    const id = m.id as number
    const fail = (status: number, text: string): ApiAnswer => ({ type: 'api', id, status, body: JSON.stringify({ error: { message: text } }) })
    if (typeof m.endpoint !== 'string' || !API_ENDPOINTS.has(m.endpoint)) return fail(400, `not a viewer API endpoint: ${String(m.endpoint).slice(0, 40)}`)
    if (typeof m.query !== 'string' || m.query.length > 8192) return fail(400, 'the query must be a string of at most 8 KiB')
    // Re-encoded, so nothing but parameters reaches the viewer's path.
    const query = new URLSearchParams(m.query).toString()
    try {
      const s = await this.start()
      const r = await get(s.home, `${s.home.pathname}api/${m.endpoint}?${query}`, s.cookie)
      return { type: 'api', id, status: r.status, body: r.body }
    } catch (err) {
      this.signed = null
      return fail(502, `the viewer cannot be reached: ${String(err)}`)
    }
  }

  private start(): Promise<Signed> {
    if (this.signed === null) {
      const pending = this.store()
      if (pending === null) return Promise.reject(new Error('the store is not open'))
      const signed = pending.then((store) => store.serve({ window: this.window() })).then(signIn)
      signed.catch(() => {
        if (this.signed === signed) this.signed = null
      })
      this.signed = signed
    }
    return this.signed
  }

  /** Stop the viewer (a store change or shutdown); the next call starts a new one and signs in again. */
  async stop(): Promise<void> {
    const pending = this.signed
    this.signed = null
    if (pending === null) return
    try {
      await (await pending).viewer.stop()
    } catch {
      // A viewer that failed to start has nothing to stop.
    }
  }
}

/** Spend `viewer`'s one-time token and read its page's files with the cookie. */
async function signIn(viewer: Viewer): Promise<Signed> {
  try {
    const url = new URL(viewer.url)
    const home = new URL(url.pathname, url)
    const r = await get(home, url.pathname + url.search, null)
    if (r.status !== 303 || r.cookie === null) throw new Error(`the viewer refused the sign-in: HTTP ${r.status} ${r.body}`)
    const file = async (name: string): Promise<string> => {
      const f = await get(home, home.pathname + name, r.cookie)
      if (f.status !== 200) throw new Error(`the viewer's ${name || 'page'}: HTTP ${f.status}`)
      return f.body
    }
    const [page, script, style] = await Promise.all([file(''), file('app.js'), file('app.css')])
    const body = /<body>([\s\S]*)<\/body>/.exec(page)?.[1]
    if (body === undefined) throw new Error("the viewer's page has no <body>")
    if (/<\/script/i.test(script) || /<\/style/i.test(style)) throw new Error("the viewer's files cannot be inlined")
    return { viewer, home, cookie: r.cookie, body, script, style }
  } catch (err) {
    await viewer.stop()
    throw err
  }
}
