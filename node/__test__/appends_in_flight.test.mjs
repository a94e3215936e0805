// appendTranscript in flight (issue 29 item 2, issue 33 item 2): appends
// issued without awaiting the one before land in call order (each takes
// its AppendTurn on the JS thread; core/src/store/append_order.rs), and
// each settles with its own entry or its own typed error.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sdb, openTemp } from './helpers.mjs'

test('10,000 appends in flight land in call order, a failing one rejects alone with its class', async () => {
  const st = await openTemp()
  const a = (await st.createSession('a')).id
  const b = (await st.createSession('b')).id
  const calls = []
  for (let i = 0; i < 10000; i++) {
    calls.push(st.appendTranscript(i % 4 === 3 ? b : a, 'user', `m${i}`))
    if (i === 5000) calls.push(st.appendTranscript('no-such-session', 'user', 'lost'))
    if (i === 7000) calls.push(st.appendTranscript(a, 'robot', 'bad role'))
  }
  const out = await Promise.allSettled(calls)
  const missing = out.splice(5001, 1)[0]
  const badRole = out.splice(7001, 1)[0]
  assert.equal(missing.status, 'rejected')
  assert.ok(missing.reason instanceof sdb.NotFoundError, String(missing.reason))
  assert.equal(missing.reason.code, 'ERR_NOT_FOUND')
  assert.equal(badRole.status, 'rejected')
  assert.ok(badRole.reason instanceof sdb.InvalidInputError, String(badRole.reason))
  const seqs = { [a]: 0, [b]: 0 }
  const want = out.map((_, i) => {
    const sid = i % 4 === 3 ? b : a
    return { status: 'fulfilled', seq: ++seqs[sid], content: `m${i}`, sessionId: sid }
  })
  assert.deepEqual(out.map((r) => ({ status: r.status, seq: r.value?.seq, content: r.value?.content, sessionId: r.value?.sessionId })), want)
  const stored = await st.getTranscript(a, 1, 10000)
  assert.deepEqual(stored.map((e) => e.content), want.filter((w) => w.sessionId === a).map((w) => w.content))
  await st.close()
})

test('appends in flight all settle before close; appends after close reject with ClosedError', async () => {
  const st = await openTemp()
  const sid = (await st.createSession('c')).id
  const inFlight = Array.from({ length: 100 }, (_, i) => st.appendTranscript(sid, 'user', `m${i}`))
  assert.deepEqual((await Promise.all(inFlight)).map((e) => e.seq), Array.from({ length: 100 }, (_, i) => i + 1))
  await st.close()
  await assert.rejects(st.appendTranscript(sid, 'user', 'late'), sdb.ClosedError)
})

test('a retraction issued between appends in flight retracts the append called just before it', async () => {
  const st = await openTemp()
  const sid = (await st.createSession('r')).id
  const calls = []
  const pops = []
  for (let i = 0; i < 2000; i++) {
    calls.push(st.appendTranscript(sid, 'user', `m${i}`))
    if (i % 10 === 9) pops.push(st.retractLastEntry(sid).then((e) => [i, e.content]))
  }
  await Promise.all(calls)
  for (const [i, content] of await Promise.all(pops)) assert.equal(content, `m${i}`)
  const visible = await st.getTranscript(sid, 1, 10000)
  const want = Array.from({ length: 2000 }, (_, i) => i).filter((i) => i % 10 !== 9).map((i) => `m${i}`)
  assert.deepEqual(visible.map((e) => e.content), want)
  await st.close()
})
