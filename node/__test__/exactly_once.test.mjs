// Exactly once (issue 29 item 2): appendEntries / appendEntriesWithMeta
// under an idempotency key, and the Agents SDK adapter's addItems retried
// after an abort or a failure.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sdb, KEY, tempDb, openTemp } from './helpers.mjs'

const { SessionDBSession } = process.env.SESSIONDB_PKG ? await import('sessiondb/agents') : await import('../agents.mjs')

test('a retried append with its key is stored once; the key used for other entries is a ConflictError', async () => {
  const st = await openTemp()
  const s = await st.createSession('k')
  const first = await st.appendEntries(s.id, [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }], 'turn-1')
  const again = await st.appendEntries(s.id, [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }], 'turn-1')
  assert.deepEqual(again.map((e) => [e.seq, e.content, e.createdAtMs]), first.map((e) => [e.seq, e.content, e.createdAtMs]))
  assert.deepEqual(first.map((e) => e.seq), [1, 2])
  await assert.rejects(st.appendEntries(s.id, [{ role: 'user', content: 'other' }], 'turn-1'), (e) => e instanceof sdb.ConflictError && /idempotency key `turn-1` was already used for other entries/.test(e.message))
  await assert.rejects(st.appendEntries(s.id, [{ role: 'user', content: 'x' }], 'a b'), (e) => e instanceof sdb.InvalidInputError && /idempotency key: an event id must be 1..=128 characters/.test(e.message))
  const rows = [{ entry: { role: 'user', content: 'm' }, meta: { model: 'gpt' } }]
  assert.equal((await st.appendEntriesWithMeta(s.id, rows, 'm-1'))[0].seq, 3)
  assert.equal((await st.appendEntriesWithMeta(s.id, rows, 'm-1'))[0].seq, 3)
  assert.equal((await st.getTranscript(s.id)).length, 3)
  await st.close()
})

test('addItems aborted or failed and retried stores every item once, in call order', async () => {
  const session = new SessionDBSession({ sessionId: 'c', path: tempDb(), key: KEY })
  const turns = Array.from({ length: 300 }, (_, t) => [0, 1, 2].map((i) => ({ role: 'user', content: `turn ${t} item ${i}` })))
  let aborted = 0
  for (const [t, turn] of turns.entries()) {
    const ac = new AbortController()
    const call = session.addItems(turn, { signal: ac.signal })
    // Abort before the call's turn (it stores nothing) or after it started (it lands whole).
    if (t % 2 === 0) ac.abort()
    else await new Promise((r) => setImmediate(r)).then(() => ac.abort())
    // A call that was aborted in time rejects and stored nothing: the app
    // retries it (with the failed call's key). One that had started landed.
    if (await call.then(() => false, () => true)) {
      aborted++
      await session.addItems(turn)
    }
  }
  assert.equal(aborted, 150)
  assert.deepEqual(await session.getItems(), turns.flat())
  // A retry with its own key after a call that landed: stored once.
  await session.addItems([{ role: 'user', content: 'x' }], { idempotencyKey: 'x-1' })
  await session.addItems([{ role: 'user', content: 'x' }], { idempotencyKey: 'x-1' })
  // The same items added again on purpose (a new call, no failure): stored again.
  await session.addItems([{ role: 'user', content: 'x' }])
  assert.deepEqual((await session.getItems(3)).map((i) => i.content), ['turn 299 item 2', 'x', 'x'])
  await session.close()
})
