// The viewer links of the extension (src/viewer.ts) against the real sessiondb
// package, under plain Node (VS Code itself cannot run here).

import { test } from 'node:test'
import * as assert from 'node:assert/strict'
import * as fs from 'node:fs'
import * as http from 'node:http'
import * as os from 'node:os'
import * as path from 'node:path'
import { SessionStore } from 'sessiondb'
import { ViewerLinks } from '../src/viewer'

function get(url: string, cookie: string | null): Promise<{ status: number; location: string | null; cookie: string | null; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url)
    const headers: Record<string, string> = { Host: u.host }
    if (cookie !== null) headers['Cookie'] = cookie
    http
      .get({ host: u.hostname, port: u.port, path: u.pathname + u.search, headers }, (res) => {
        let body = ''
        res.on('data', (c: Buffer) => (body += c.toString('utf8')))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, location: res.headers.location ?? null, cookie: res.headers['set-cookie']?.[0]?.split(';')[0] ?? null, body }),
        )
      })
      .on('error', reject)
  })
}

test('the first link signs the browser in and opens the session; later links need no token', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdb-vscode-viewer-'))
  const store = SessionStore.open({ path: path.join(dir, 'sessions.db'), key: Buffer.alloc(32, 6) })
  const s = await (await store).createSession('open me')
  const links = new ViewerLinks(() => store, () => 64000)

  const first = await links.link(s.id, 3)
  const u = new URL(first)
  assert.equal(u.hostname, '127.0.0.1')
  assert.equal(u.searchParams.get('token')?.length, 64)
  assert.equal(u.hash, `#/s/${s.id}/3`)
  const signIn = await get(first, null)
  assert.equal(signIn.status, 303)
  assert.match(u.pathname, /^\/[0-9a-f]{16}\/$/)
  assert.equal(signIn.location, u.pathname)
  assert.notEqual(signIn.cookie, null)

  const second = await links.link(null)
  assert.equal(second, `http://127.0.0.1:${u.port}${u.pathname}`)
  assert.equal((await get(second, null)).status, 401)
  assert.equal((await get(`${second}api/session?id=${s.id}`, signIn.cookie)).status, 200)

  await links.stop()
  const third = new URL(await links.link(s.id))
  assert.equal(third.searchParams.get('token')?.length, 64, 'a new viewer, a new token')
  assert.equal(third.hash, `#/s/${s.id}`)
  await links.stop()
  await (await store).close()
})

test('a store that is not open rejects, and the next link tries again', async () => {
  let store: Promise<SessionStore> | null = null
  const links = new ViewerLinks(() => store, () => 128000)
  await assert.rejects(links.link(null), /the store is not open/)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdb-vscode-viewer-'))
  store = SessionStore.open({ path: path.join(dir, 'sessions.db'), key: Buffer.alloc(32, 7) })
  assert.match(await links.link(null), /^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{16}\/\?token=[0-9a-f]{64}$/)
  await links.stop()
  await (await store).close()
})
