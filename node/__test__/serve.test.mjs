// The local viewer started from Node (issue 32 item 4; docs/viewer.md):
// `store.serve()` resolves to a Viewer; its pages and security are tested in
// the core (core/tests/serve.rs) and in a real browser (scripts/test-viewer.sh).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import { sdb, KEY, tempDb, runDocBlock } from './helpers.mjs'

function get(port, path, { cookie, host } = {}) {
  return new Promise((resolve, reject) => {
    const headers = { Host: host ?? `127.0.0.1:${port}` }
    if (cookie) headers.Cookie = cookie
    const req = http.get({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
  })
}

function connects(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port })
    s.on('connect', () => {
      s.destroy()
      resolve(true)
    })
    s.on('error', () => resolve(false))
  })
}

async function refused(port) {
  for (let i = 0; i < 200; i++) {
    if (!(await connects(port))) return true
    await new Promise((r) => setTimeout(r, 10))
  }
  return false
}

test('serve: a running viewer signs one browser in, lists the store and stops', async () => {
  const st = await sdb.SessionStore.open({ path: tempDb(), key: KEY })
  const s = await st.createSession('viewer from node', null)
  await st.appendTranscript(s.id, 'user', '<img src=x onerror=alert(1)>')
  const viewer = await st.serve({ workspace: '/w', window: 64000 })
  assert.ok(viewer instanceof sdb.Viewer)
  assert.equal(viewer.running, true)
  assert.equal(viewer.host, '127.0.0.1')
  const url = new URL(viewer.url)
  assert.equal(url.origin, `http://127.0.0.1:${viewer.port}`)
  assert.match(url.pathname, /^\/[0-9a-f]{16}\/$/)
  const at = (path) => url.pathname.slice(0, -1) + path
  assert.equal(url.searchParams.get('token').length, 64)
  assert.equal((await get(viewer.port, at('/api/sessions'))).status, 401)
  assert.equal((await get(viewer.port, at('/'), { host: `rebind.example:${viewer.port}` })).status, 403)
  const signIn = await get(viewer.port, at(`/?${url.searchParams}`))
  assert.equal(signIn.status, 303)
  const cookie = signIn.headers['set-cookie'][0].split(';')[0]
  const info = await get(viewer.port, at('/api/info'), { cookie })
  const i = JSON.parse(info.body)
  assert.deepEqual([Object.keys(i).sort(), i.workspace, i.window], [['version', 'window', 'workspace'], '/w', 64000])
  assert.match(i.version, /^\d+\.\d+\.\d+/)
  const list = await get(viewer.port, at('/api/sessions'), { cookie })
  assert.equal(list.headers['cache-control'], 'no-store')
  assert.deepEqual(JSON.parse(list.body).rows.map((r) => [r.id, r.title, r.entries]), [[s.id, 'viewer from node', 1]])
  assert.equal((await get(viewer.port, at(`/?${url.searchParams}`))).status, 401, 'the token is spent')
  const port = viewer.port
  await viewer.stop()
  assert.equal(viewer.running, false)
  await viewer.stop() // a second stop is a no-op
  assert.equal(await refused(port), true)
  await st.close()
})

test('serve: bad options reject with InvalidInputError, a used port with IoError', async () => {
  const st = await sdb.SessionStore.open({ path: tempDb(), key: KEY })
  for (const [options, named] of [
    [{ bind: 'localhost' }, 'bind'],
    [{ port: 70000 }, 'port'],
    [{ port: 1.5 }, 'port'],
    [{ port: -1 }, 'port'],
    [{ window: 2 ** 53 }, 'window'],
    [{ window: 0 }, 'window'],
    [{ bind: '0.0.0.0' }, '--allow-remote'],
  ]) {
    await assert.rejects(st.serve(options), (e) => e instanceof sdb.InvalidInputError && e.message.includes(named), JSON.stringify(options))
  }
  const taken = net.createServer()
  await new Promise((r) => taken.listen(0, '127.0.0.1', r))
  await assert.rejects(st.serve({ port: taken.address().port }), sdb.IoError)
  taken.close()
  await st.close()
})

test('serve: `await using` stops the viewer at the end of the scope', { skip: !Symbol.asyncDispose && 'no Symbol.asyncDispose in this Node' }, async () => {
  const st = await sdb.SessionStore.open({ path: tempDb(), key: KEY })
  const viewer = await st.serve()
  await viewer[Symbol.asyncDispose]()
  assert.equal(viewer.running, false)
  await st.close()
})

test('the JavaScript block of docs/viewer.md runs', async () => {
  assert.deepEqual(await runDocBlock('viewer.md'), ['true', 'false'])
})
