import { test } from 'node:test'
import assert from 'node:assert/strict'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { sdb, KEY, tempDb, openTemp, MemoryKeyProvider } from './helpers.mjs'

test('a key provider object creates, then reuses the key', async () => {
  const path = tempDb()
  const p = new MemoryKeyProvider()
  let st = await sdb.SessionStore.open({ path, keyProvider: p })
  assert.equal(st.keyBackend, 'JS key provider MemoryKeyProvider')
  const sid = (await st.createSession('kp')).id
  await st.close()
  assert.deepEqual([p.gets, p.sets], [1, 1])
  assert.ok(Buffer.isBuffer(p.key) && p.key.length === 32)
  st = await sdb.SessionStore.open({ path, keyProvider: p })
  assert.equal((await st.getSession(sid)).name, 'kp')
  await st.close()
  assert.deepEqual([p.gets, p.sets], [2, 1])
  st = await sdb.SessionStore.open({ path, key: p.key })
  assert.equal((await st.getSession(sid)).name, 'kp')
  await st.close()
})

test('the event loop is not blocked while the core works', async () => {
  const st = await openTemp()
  const s = await st.createSession('loop')
  const big = 'x'.repeat(64 * 1024)
  let ticks = 0
  const timer = setInterval(() => ticks++, 1)
  const h = monitorEventLoopDelay({ resolution: 1 })
  h.enable()
  const t0 = performance.now()
  const writes = []
  for (let i = 0; i < 200; i++) writes.push(st.appendTranscript(s.id, 'user', big))
  await Promise.all(writes)
  let n = 0
  for await (const _ of st.iterTranscript(s.id, { pageSize: 20 })) n++
  const ms = performance.now() - t0
  h.disable()
  clearInterval(timer)
  assert.equal(n, 200)
  const maxMs = h.max / 1e6
  // The timer kept firing while 200 x 64 KiB were encrypted, written and read back.
  assert.ok(ticks >= Math.min(20, ms / 10), `only ${ticks} timer ticks in ${ms.toFixed(0)} ms`)
  // Blocking would show as one delay about as long as the whole run; the
  // bound leaves room for OS scheduling on a loaded 2-core CI machine.
  assert.ok(maxMs < Math.max(100, ms / 4), `max event-loop delay ${maxMs.toFixed(1)} ms over a ${ms.toFixed(0)} ms run`)
  await st.close()
})

test('concurrent promises on one store all land, gapless', async () => {
  const st = await openTemp()
  const s = await st.createSession('conc')
  await Promise.all(Array.from({ length: 100 }, (_, i) => st.appendTranscript(s.id, 'user', `m${i}`)))
  const seqs = (await st.getTranscript(s.id, 1, 1000)).map((e) => e.seq)
  assert.deepEqual(seqs, Array.from({ length: 100 }, (_, i) => i + 1))
  await st.close()
})
