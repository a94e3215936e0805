// Search across the encrypted history (issue 26): exact hits for fixed
// queries, highlight ranges that slice JavaScript strings (UTF-16 code
// units: an emoji counts two), paging, sessions mode, errors, another handle.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sdb, KEY, tempDb, runDocBlock } from './helpers.mjs'

async function corpus() {
  const path = tempDb()
  const store = await sdb.SessionStore.open({ path, key: KEY })
  const a = (await store.createSession('Flaky migration hunt')).id
  const b = (await store.createSession()).id
  await store.appendEntries(a, [
    { role: 'user', content: 'Why does retry_busy fail in openDatabase?' },
    { role: 'assistant', content: 'Look at core/src/store/mod.rs: ERR_SOCKET_TIMEOUT at 0x7f3a' },
  ])
  await store.appendEntries(b, [{ role: 'user', content: '数据库迁移失败了 😀 please retry' }])
  return { path, store, a, b }
}

const keys = (r) => r.hits.map((h) => [h.sessionId, h.seq]).sort((x, y) => (x[0] + x[1]).localeCompare(y[0] + y[1]))

test('fixed queries give exact hits', async () => {
  const { store, a, b } = await corpus()
  assert.deepEqual(keys(await store.search('retry_busy')), [[a, 1]])
  assert.deepEqual(keys(await store.search('database')), [[a, 1]])
  assert.deepEqual(keys(await store.search('core/src/store/mod.rs')), [[a, 2]])
  assert.deepEqual(keys(await store.search('0x7f3a')), [[a, 2]])
  assert.deepEqual(keys(await store.search('"retry_busy fail"')), [[a, 1]])
  assert.deepEqual(keys(await store.search('retry -迁移')), [[a, 1]])
  assert.deepEqual(keys(await store.search('迁移')), [[b, 1]])
  assert.deepEqual(keys(await store.search('hunt in:title')), [[a, 0]])
  const hit = (await store.search('0x7f3a')).hits[0]
  assert.deepEqual([hit.role, hit.field, hit.seq], ['assistant', 'text', 2])
  await store.close()
})

test('highlights slice JavaScript strings (UTF-16)', async () => {
  const { store, b } = await corpus()
  for (const [q, word] of [['retry', 'retry'], ['迁移', '迁移'], ['ERR_SOCKET_TIMEOUT', 'ERR_SOCKET_TIMEOUT']]) {
    for (const h of (await store.search(q)).hits) {
      assert.deepEqual(h.highlights.map((r) => h.snippet.slice(r.start, r.end)), [word], `${q}: ${h.snippet}`)
    }
  }
  const hit = (await store.search('retry')).hits.find((h) => h.sessionId === b)
  assert.equal(hit.snippet, '数据库迁移失败了 😀 please retry')
  // UTF-16: the emoji is two units (Python's code points would say 18..23).
  assert.deepEqual(hit.highlights.map((r) => [r.start, r.end]), [[19, 24]])
  await store.close()
})

test('pages, sessions mode, rebuild and errors', async () => {
  const { store, a, b } = await corpus()
  const p1 = await store.search('retr*', { limit: 1 })
  assert.deepEqual([p1.total, p1.hits.length], [2, 1])
  const p2 = await store.search('retr*', { limit: 1, cursor: p1.nextCursor })
  assert.equal(p2.nextCursor ?? null, null)
  assert.deepEqual([p1.hits[0].sessionId, p2.hits[0].sessionId].sort(), [a, b].sort())
  const s = await store.search('retr* OR fail', { sessions: true })
  assert.deepEqual([s.total, s.hits.map((h) => h.sessionId).sort()], [2, [a, b].sort()])
  await assert.rejects(store.search('retry "open'), (e) => e instanceof sdb.InvalidInputError && /unclosed quote at character 7/.test(e.message))
  assert.equal((await store.rebuildSearchIndex()).documents, 5)
  await store.close()
})

test('another handle finds new entries, and a deleted session is gone', async () => {
  const { path, store, a } = await corpus()
  const other = await sdb.SessionStore.open({ path, key: KEY })
  assert.deepEqual(keys(await other.search('wombat')), [])
  const e = await store.appendTranscript(a, 'user', 'a wombat appears')
  assert.deepEqual(keys(await other.search('wombat')), [[a, e.seq]])
  await store.deleteSession(a)
  assert.deepEqual(keys(await other.search('wombat')), [])
  await other.close()
  await store.close()
})

test('the JavaScript block of docs/search.md runs', async () => {
  assert.deepEqual(await runDocBlock('search.md'), ['true 1 ["retry_busy"]'])
})

// The cases of tests/conformance/search/ run in conformance.test.mjs with every
// other conformance case (the search call is in store_steps.mjs).
