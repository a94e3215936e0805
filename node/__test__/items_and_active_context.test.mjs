// Structured items (EntryMeta.item), the transcript tail with metadata and
// the active context (issue 16), exact values.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sdb, openTemp } from './helpers.mjs'

// Key order, whitespace, JSON escapes and non-ASCII exactly as written.
const ITEM = '{"z": 1,  "role":"user",\n "content": "h\\u00e9llo ☃ café \\ud83d\\ude00 😀", "a": [ ]}\t'

test('a structured item round-trips byte-exact and the meter counts only its text', async () => {
  const st = await openTemp()
  const s = await st.createSession(null, null, { id: 'items' })
  const plain = await st.createSession(null, null, { id: 'plain' })
  const text = 'héllo ☃ café 😀'
  await st.appendEntriesWithMeta(s.id, [
    { entry: { role: 'user', content: text }, meta: { item: ITEM } },
    { entry: { role: 'user', content: 'b' }, meta: { extra: { k: 1 }, item: '[1]' } },
  ])
  await st.appendEntries(plain.id, [{ role: 'user', content: text }, { role: 'user', content: 'b' }])
  const got = await st.getTranscriptWithMeta(s.id)
  assert.deepEqual(got.map((x) => [x.entry.content, x.meta]), [[text, { extra: {}, item: ITEM }], ['b', { extra: { k: 1 }, item: '[1]' }]])
  assert.ok(Buffer.from(got[0].meta.item, 'utf8').equals(Buffer.from(ITEM, 'utf8')))
  const a = await st.activeContext(s.id, 128000, null, 'gpt-4o')
  const b = await st.activeContext(plain.id, 128000, null, 'gpt-4o')
  const want = [sdb.countTokens('gpt-4o', text).tokens, sdb.countTokens('gpt-4o', 'b').tokens]
  assert.deepEqual(a.items.map((i) => i.tokens), want)
  assert.deepEqual(b.items.map((i) => i.tokens), want)
  assert.equal((await st.contextStatus(s.id, 128000, null, 'gpt-4o')).meter.activeTokens, want[0] + want[1])
  await assert.rejects(st.appendEntriesWithMeta(s.id, [{ entry: { role: 'user', content: 'x' }, meta: { item: '{not json' } }]), (e) =>
    e instanceof sdb.InvalidInputError && /EntryMeta\.item must be the JSON text of one value/.test(e.message))
  assert.equal((await st.getSession(s.id)).entryCount, 2)
  await st.close()
})

test('getTranscriptTailWithMeta reads the last entries with their metadata', async () => {
  const st = await openTemp()
  const s = await st.createSession(null, null, { id: 'tail' })
  await st.appendEntriesWithMeta(s.id, [1, 2, 3, 4, 5].map((i) => ({ entry: { role: 'user', content: `t${i}` }, meta: { model: `m${i}`, item: `{"n": ${i}}` } })))
  await st.retractEntry(s.id, 5)
  const tail = await st.getTranscriptTailWithMeta(s.id, 2)
  assert.deepEqual(tail.map((x) => [x.entry.seq, x.entry.content, x.meta]), [
    [3, 't3', { model: 'm3', extra: {}, item: '{"n": 3}' }],
    [4, 't4', { model: 'm4', extra: {}, item: '{"n": 4}' }],
  ])
  assert.equal((await st.getTranscriptTailWithMeta(s.id)).length, 4)
  await assert.rejects(st.getTranscriptTailWithMeta(s.id, 0), sdb.InvalidInputError)
  await assert.rejects(st.getTranscriptTailWithMeta('nope', 2), sdb.NotFoundError)
  await st.close()
})

test('activeContext: verbatim, compacted runs and excluded turns with their tokens, in order', async () => {
  const st = await openTemp()
  const s = await st.createSession(null, null, { id: 'ctx' })
  // About 1,000 tokens each (estimate: 3 bytes a token); capacity of a 10,000 window: 7,152.
  const turns = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${String(i + 1).padStart(2, '0')} ` + 'word '.repeat(599) }))
  await st.appendEntries(s.id, turns)
  const before = await st.activeContext(s.id, 10000)
  assert.equal(before.capacity, 7152)
  assert.equal(before.model, undefined)
  assert.deepEqual(before.items.map((i) => [i.seq, i.state, i.text === turns[i.seq - 1].content]), turns.map((_, i) => [i + 1, 'verbatim', true]))
  assert.equal(before.tokens, before.items.reduce((n, i) => n + i.tokens, 0))
  const plan = await st.compactSession(s.id, 10000)
  await st.recordTurnDecision(s.id, 'exclude', [12])
  const after = await st.activeContext(s.id, 10000)
  const run = plan.transformations[0]
  assert.deepEqual(after.items[0], { seq: 1, lastSeq: run.lastSeq, role: 'user', state: 'compacted', tokens: run.tokensAfter, text: run.summary })
  assert.deepEqual(after.items.slice(1, -1).map((i) => [i.seq, i.state, i.text]), turns.slice(run.lastSeq, 11).map((t, k) => [run.lastSeq + 1 + k, 'verbatim', t.content]))
  assert.deepEqual(after.items.at(-1), { seq: 12, role: 'assistant', state: 'excluded', tokens: 0 })
  assert.equal(after.tokens, after.items.reduce((n, i) => n + i.tokens, 0))
  assert.deepEqual(await st.activeContext(s.id, 10000), after)
  await assert.rejects(st.activeContext(s.id, 0), sdb.InvalidInputError)
  await assert.rejects(st.activeContext('nope', 10000), sdb.NotFoundError)
  await st.close()
})
