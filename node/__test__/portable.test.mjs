import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { sdb, openTemp } from './helpers.mjs'

test('export to thClaws JSONL, import it back, fork', async () => {
  const st = await openTemp()
  const s = await st.createSession('portable', null, { id: 'p1', model: 'claude-sonnet-4-6', provider: 'anthropic' })
  await st.appendTranscript(s.id, 'user', 'hello')
  await st.appendTranscript(s.id, 'assistant', 'hi there')
  const text = await st.exportThclaws(s.id)
  const lines = text.trim().split('\n').map((l) => JSON.parse(l))
  assert.deepEqual([lines[0].type, lines[0].id], ['header', 'p1'])
  assert.deepEqual(lines.filter((x) => x.type === 'user' || x.type === 'assistant').map((x) => [x.type, x.content[0].text]), [['user', 'hello'], ['assistant', 'hi there']])
  assert.deepEqual(lines[lines.length - 1], { type: 'rename', title: 'portable', timestamp: lines[lines.length - 1].timestamp })
  const f = join(dirname(st.path), 'p1.jsonl')
  writeFileSync(f, text)
  await st.deleteSession(s.id)
  const rep = await st.importFile(f, 'thclaws')
  assert.deepEqual([rep.format, rep.status, rep.sessions[0].session_id, rep.sessions[0].entries], ['thclaws', 'imported', 'p1', 2])
  const got = []
  for await (const e of st.iterTranscript('p1')) got.push(e.content)
  assert.deepEqual(got, ['hello', 'hi there'])
  const fork = await st.forkSession('p1', 1)
  assert.deepEqual([fork.forkedFrom, fork.forkedAtSeq, fork.entryCount], ['p1', 1, 1])
  assert.throws(() => st.importFile(f, 'word'), sdb.InvalidInputError)
  await st.close()
})
