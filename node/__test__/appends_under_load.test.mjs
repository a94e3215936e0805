// Appends in flight (AppendTurn, core/src/store/append_order.rs) under what
// a host does around them: a libuv pool of 1 or 2 threads shared with fs,
// crypto and reads; failing calls of every kind; redaction on write and
// token counting; close() with appends in flight; several stores and
// worker_threads on one file; process.exit. Each scenario runs in a child
// process (turns_child.mjs) killed after 120 s, so a deadlock fails the
// test instead of hanging it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { sdb, KEY, tempDb } from './helpers.mjs'

const child = fileURLToPath(new URL('./turns_child.mjs', import.meta.url))

function runChild(pool, ...args) {
  const r = spawnSync(process.execPath, [child, ...args.map(String)], {
    env: { ...process.env, UV_THREADPOOL_SIZE: String(pool) },
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 256 << 20,
  })
  assert.equal(r.signal, null, `scenario ${args[0]} (pool ${pool}) was killed (deadlock?): ${r.stderr}`)
  assert.equal(r.status, 0, r.stderr)
  return r.stdout
}

// What `mixed` in turns_child.mjs must see: each call's seqs or error code,
// and each session's entries, in call order.
function mixedExpected(n) {
  const seq = { a: 0, b: 0 }
  const out = []
  const stored = { a: [], b: [] }
  let keyed
  const take = (s, k) => Array.from({ length: k }, () => ++seq[s])
  for (let i = 0; i < n; i++) {
    const s = i % 3 === 2 ? 'b' : 'a'
    const text = i % 7 === 0 ? `m${i} key AKIAQWERTYUIOPASDFGH` : `m${i}`
    if (i % 2 === 0) {
      out.push(take(s, 1))
      stored[s].push(text)
    } else {
      out.push(take(s, 2))
      stored[s].push(text, `${text}+`)
    }
    if (i === 100) out.push('ERR_NOT_FOUND')
    if (i === 200) out.push('ERR_INVALID_INPUT')
    if (i === 300) {
      keyed = take('a', 1)
      out.push(keyed)
      stored.a.push('k1')
    }
    // The retry returns what the first call stored.
    if (i === 301) out.push(keyed)
    if (i === 302) out.push('ERR_CONFLICT')
    if (i === 400) out.push('ERR_INVALID_INPUT')
    if (i === 401) out.push([])
  }
  return { out, stored }
}

// The first word of an entry: a redacted secret changes the rest.
const head = (c) => c.split(' ')[0]

for (const pool of [1, 2]) {
  test(`pool of ${pool}: 3,000 appends in flight with fs, crypto and reads between them land in call order; each failing call fails alone`, () => {
    const got = JSON.parse(runChild(pool, 'mixed', 3000))
    const want = mixedExpected(3000)
    assert.deepEqual(got.out, want.out)
    for (const s of ['a', 'b']) {
      assert.deepEqual(got.stored[s].map(head), want.stored[s].map(head))
      assert.equal(got.stored[s].filter((c) => c.includes('AKIAQWERTYUIOPASDFGH')).length, 0)
    }
  })

}

// close() takes its turn like an append (#[bridge(ordered)]): before it, a
// pool of 2 ran close while appends called earlier were still in flight
// and stored appends called after it (the first ClosedError at call 2,023
// of 4,000, 2,051 in another run, 2,040 with a pool of 8).
for (const pool of [1, 2, 8]) {
  test(`pool of ${pool}: close() called between 2,000 and 2,000 appends in flight: the 2,000 before it are stored in call order, those after it and later calls are ClosedError`, () => {
    const got = JSON.parse(runChild(pool, 'closing', 4000))
    assert.deepEqual(got.out, [...Array.from({ length: 2000 }, (_, i) => i + 1), ...Array(2000).fill('ERR_CLOSED')])
    assert.equal(got.later, 'ERR_CLOSED')
    assert.deepEqual(got.stored, Array.from({ length: 2000 }, (_, i) => `m${i}`))
  })
}

test('five stores at once (two on one file, one session): each store\'s appends land in its call order', () => {
  const got = JSON.parse(runChild(2, 'stores', 2000))
  for (let k = 0; k < 3; k++) {
    assert.deepEqual(got.out[k], Array.from({ length: 2000 }, (_, i) => i + 1))
    assert.deepEqual(got.stored[k], Array.from({ length: 2000 }, (_, i) => `${k}:${i}`))
  }
  // The shared session: 4,000 seqs between the two stores, each store's
  // rising in its call order.
  const [x, y] = [got.out[3], got.out[4]]
  assert.deepEqual([...x, ...y].sort((p, q) => p - q), Array.from({ length: 4000 }, (_, i) => i + 1))
  for (const s of [x, y]) assert.ok(s.every((v, i) => i === 0 || v > s[i - 1]), 'a store\'s seqs out of its call order')
  const mine = (k) => got.stored[3].filter((c) => c.startsWith(`${k}:`))
  assert.deepEqual(mine(3), Array.from({ length: 2000 }, (_, i) => `3:${i}`))
  assert.deepEqual(mine(4), Array.from({ length: 2000 }, (_, i) => `4:${i}`))
})

for (const pool of [1, 2]) {
  test(`pool of ${pool}: worker_threads, each with its own store on one file, land in call order; a worker terminated with appends in flight blocks nothing`, () => {
    const got = JSON.parse(runChild(pool, 'workers', 1500))
    for (let k = 0; k < 3; k++) assert.deepEqual(got.done[k], Array.from({ length: 1500 }, (_, i) => i + 1))
    assert.equal(got.done[3], 'terminated')
    assert.deepEqual(got.afterSeqs, Array.from({ length: 200 }, (_, i) => 1501 + i))
    for (let k = 0; k < 3; k++) assert.deepEqual(got.stored[k].slice(0, 1500), Array.from({ length: 1500 }, (_, i) => `${k}:${i}`))
    // The terminated worker's appends that ran are a prefix, in call order.
    assert.deepEqual(got.stored[3], got.stored[3].map((_, i) => `3:${i}`))
  })
}

test('process.exit with appends in flight: the process exits, and what was stored is a prefix in call order', async () => {
  const path = tempDb()
  runChild(2, 'exiting', 3000, path)
  const st = await sdb.SessionStore.open({ path, key: KEY })
  const stored = (await st.getTranscript('exit-session', 1, 10000)).map((e) => e.content)
  assert.ok(stored.length >= 100, `only ${stored.length} stored`)
  assert.deepEqual(stored, stored.map((_, i) => `m${i}`))
  await st.close()
})
