// Per-entry metadata: appendEntriesWithMeta / getTranscriptWithMeta, exact values.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sdb, openTemp } from './helpers.mjs'

const ROOT = process.env.SESSIONDB_REPO || join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const TOOL_HEAVY = join(ROOT, '..', 'shared', 'samples', 'claude-code', 'spotter_tool_heavy.jsonl')

const EXTRA = { phase: 'final_answer', tool_use_result: { stdout: 'ok', exit: 0, nested: { a: [1, 2, null], b: true } } }

test('appendEntriesWithMeta / getTranscriptWithMeta round trip', async () => {
  const st = await openTemp()
  const s = await st.createSession('meta', null, { id: 'm1' })
  const out = await st.appendEntriesWithMeta(s.id, [
    { entry: { role: 'assistant', content: 'answer', tokens: 4, createdAtMs: 1000 }, meta: { model: 'gpt-5', provider: 'openai', extra: EXTRA } },
    { entry: { role: 'user', content: 'thanks', createdAtMs: 2000 }, meta: {} },
  ])
  assert.deepEqual(out.map((e) => [e.seq, e.role, e.content, e.tokens, e.createdAtMs]), [
    [1, 'assistant', 'answer', 4, 1000],
    [2, 'user', 'thanks', undefined, 2000],
  ])
  const got = await st.getTranscriptWithMeta(s.id)
  assert.deepEqual(got, [
    { entry: out[0], meta: { model: 'gpt-5', provider: 'openai', extra: EXTRA } },
    { entry: out[1], meta: { extra: {} } },
  ])
  assert.deepEqual(await st.getTranscriptWithMeta(s.id, 2, 1), [{ entry: out[1], meta: { extra: {} } }])
  assert.deepEqual(await st.getTranscript(s.id), out)
  // Written without metadata: read back with an empty one.
  const plain = await st.appendTranscript(s.id, 'system', 'note')
  assert.deepEqual(await st.getTranscriptWithMeta(s.id, 3), [{ entry: plain, meta: { extra: {} } }])
  assert.deepEqual(await st.appendEntriesWithMeta(s.id, []), [])
  await st.close()
})

test('metadata errors: a 257-byte model name is InvalidInputError', async () => {
  const st = await openTemp()
  const s = await st.createSession('meta')
  const e = await st.appendEntriesWithMeta(s.id, [{ entry: { role: 'assistant', content: 'x' }, meta: { model: 'm'.repeat(257) } }]).catch((x) => x)
  assert.ok(e instanceof sdb.InvalidInputError, String(e))
  assert.equal(e.code, 'ERR_INVALID_INPUT')
  await assert.rejects(st.appendEntriesWithMeta(s.id, [{ entry: { role: 'assistant', content: 'x' }, meta: { provider: 'p'.repeat(257) } }]), sdb.InvalidInputError)
  // 256 bytes is the limit; the failed calls wrote nothing.
  const [ok] = await st.appendEntriesWithMeta(s.id, [{ entry: { role: 'assistant', content: 'x' }, meta: { model: 'm'.repeat(256) } }])
  assert.equal(ok.seq, 1)
  assert.deepEqual((await st.getTranscriptWithMeta(s.id))[0].meta, { model: 'm'.repeat(256), extra: {} })
  await assert.rejects(st.appendEntriesWithMeta('nope', [{ entry: { role: 'user', content: 'x' }, meta: {} }]), sdb.NotFoundError)
  await assert.rejects(st.getTranscriptWithMeta('nope'), sdb.NotFoundError)
  await assert.rejects(st.getTranscriptWithMeta(s.id, 1, 0), sdb.InvalidInputError)
  for (const extra of [[1], 'str', 5]) {
    await assert.rejects(st.appendEntriesWithMeta(s.id, [{ entry: { role: 'user', content: 'x' }, meta: { extra } }]), sdb.InvalidInputError, JSON.stringify(extra))
  }
  // Arguments are converted on the JS thread; a bad role still rejects (never a synchronous throw).
  await assert.rejects(st.appendEntriesWithMeta(s.id, [{ entry: { role: 'robot', content: 'x' }, meta: {} }]), sdb.InvalidInputError)
  await st.close()
})

test('Claude sample import keeps each turn\'s model and tool_use_result', async (t) => {
  if (!existsSync(TOOL_HEAVY)) return t.skip(`${TOOL_HEAVY} is absent`)
  const st = await openTemp()
  const rep = await st.importFile(TOOL_HEAVY)
  const [si] = rep.sessions
  assert.equal(si.sessionId, 'd6e0bada-1959-4eec-a9d2-0bfade768d8f')
  const rows = await st.getTranscriptWithMeta(si.sessionId, 1, 10000)
  assert.equal(rows.length, si.entries)
  const models = rows.filter((r) => r.meta.model !== undefined).map((r) => [r.meta.model, r.meta.provider])
  assert.deepEqual(models, Array(4).fill(['claude-opus-4-6', 'anthropic']))
  const results = rows.filter((r) => 'tool_use_result' in r.meta.extra)
  assert.equal(results.length, 6)
  assert.deepEqual([results[0].entry.role, results[0].entry.sourceLine], ['user', 11])
  assert.deepEqual(results[0].meta.extra.tool_use_result, {
    stdout: '', stderr: '', interrupted: false, isImage: false, noOutputExpected: false, backgroundTaskId: 'bae407b',
  })
  await st.close()
})

test('getEntryItems / getEntryItemsTail: each visible entry\'s item in one JSON array, entries without one beside it', async () => {
  const st = await openTemp()
  const s = await st.createSession('items', null, { id: 'i1' })
  const item = (n) => `{ "n":${n}, "t": "caf\\u00e9 ☃" }`
  await st.appendEntriesWithMeta(s.id, [
    { entry: { role: 'user', content: 'one' }, meta: { item: item(1) } },
    { entry: { role: 'assistant', content: 'two' }, meta: { item: item(2) } },
    { entry: { role: 'tool', content: 'plain three', createdAtMs: 3000 }, meta: { model: 'gpt-5', extra: { uuid: 'u-3' } } },
    { entry: { role: 'user', content: 'four' }, meta: { item: item(4) } },
    { entry: { role: 'user', content: 'five' }, meta: { item: item(5) } },
  ])
  await st.retractEntry(s.id, 2)
  const page = await st.getEntryItems(s.id)
  assert.equal(page.itemsJson, `[${item(1)},null,${item(4)},${item(5)}]`)
  assert.deepEqual(page.seqs, [1, 3, 4, 5])
  assert.deepEqual(JSON.parse(page.itemsJson)[0], { n: 1, t: 'café ☃' })
  assert.deepEqual(page.withoutItem.map(({ entry, meta }) => [entry.seq, entry.role, entry.content, entry.createdAtMs, meta]), [
    [3, 'tool', 'plain three', 3000, { model: 'gpt-5', extra: { uuid: 'u-3' } }],
  ])
  assert.deepEqual(await st.getEntryItems(s.id, 2, 2), { itemsJson: `[null,${item(4)}]`, seqs: [3, 4], withoutItem: page.withoutItem })
  assert.deepEqual(await st.getEntryItems(s.id, 6), { itemsJson: '[]', seqs: [], withoutItem: [] })
  assert.deepEqual(await st.getEntryItemsTail(s.id, 2), { itemsJson: `[${item(4)},${item(5)}]`, seqs: [4, 5], withoutItem: [] })
  assert.deepEqual(await st.getEntryItemsTail(s.id), page)
  await assert.rejects(st.getEntryItems(s.id, 1, 0), sdb.InvalidInputError)
  await assert.rejects(st.getEntryItemsTail(s.id, 10001), sdb.InvalidInputError)
  await assert.rejects(st.getEntryItems('missing'), sdb.NotFoundError)
  await st.close()
})

test('meta.extra: null or left out stores {}, a value that is not an object is refused by name', async () => {
  const st = await openTemp()
  const s = await st.createSession('extra', null, { id: 'x1' })
  await st.appendEntriesWithMeta(s.id, [
    { entry: { role: 'user', content: 'a' }, meta: { extra: null } },
    { entry: { role: 'user', content: 'b' }, meta: { extra: undefined, item: '[1]' } },
  ])
  const got = await st.getTranscriptWithMeta(s.id)
  assert.deepEqual(got.map((r) => r.meta), [{ extra: {} }, { extra: {}, item: '[1]' }])
  await assert.rejects(st.appendEntriesWithMeta(s.id, [{ entry: { role: 'user', content: 'c' }, meta: { extra: [1] } }]), {
    name: 'InvalidInputError',
    message: 'invalid input: extra must be a JSON object',
  })
  assert.equal((await st.getTranscript(s.id)).length, 2)
  await st.close()
})
