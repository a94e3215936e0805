// The seed 002 commands and context helpers Kotlin/Swift already had, now in
// Node too (drift listed in issue 11): resolveSession, recentSessions,
// sidebarSessions, recordCompaction, encodingForModel, truncateChars,
// detectFormat.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sdb, openTemp } from './helpers.mjs'

test('resolveSession by last, id prefix and title', async () => {
  const store = await openTemp()
  const ws = mkdtempSync(join(tmpdir(), 'sessiondb-ws-'))
  const a = await store.createSession('alpha', ws)
  const b = await store.createSession('beta')
  assert.equal((await store.resolveSession('last', ws)).id, a.id)
  assert.equal((await store.resolveSession('beta')).id, b.id)
  // 30 characters: a UUIDv7 prefix of 20 is shared by ids of the same millisecond.
  assert.equal((await store.resolveSession(a.id.slice(0, 30))).id, a.id)
  await assert.rejects(store.resolveSession('no such title'), sdb.NotFoundError)
  await store.close()
})

test('recentSessions and sidebarSessions', async () => {
  const store = await openTemp()
  const untitled = await store.createSession()
  const titled = await store.createSession('titled')
  assert.deepEqual((await store.recentSessions()).map((s) => s.id), [titled.id, untitled.id])
  assert.equal((await store.sidebarSessions())[0].id, titled.id)
  await store.close()
})

test('recordCompaction records a plan and skips an empty one', async () => {
  const store = await openTemp()
  const s = await store.createSession('long')
  for (let i = 0; i < 12; i++) await store.appendTranscript(s.id, i % 2 === 0 ? 'user' : 'assistant', `turn ${i} ` + 'words '.repeat(400))
  const plan = await store.compactSession(s.id, 8000, null, null, null, true)
  assert.ok(plan.transformations.length > 0)
  assert.deepEqual((await store.recoverContextGovernance(s.id)).history, [])
  assert.equal(await store.recordCompaction(s.id, plan), 1)
  assert.equal((await store.recoverContextGovernance(s.id)).history.length, 1)
  assert.equal(await store.recordCompaction(s.id, sdb.compactContext([], 1000)), null)
  await assert.rejects(store.recordCompaction('missing', plan), sdb.NotFoundError)
  await store.close()
})

test('encodingForModel, truncateChars, detectFormat', async () => {
  assert.equal(sdb.encodingForModel('gpt-4o'), 'o200k_base')
  assert.equal(sdb.encodingForModel('gpt-4'), 'cl100k_base')
  assert.equal(sdb.encodingForModel('claude-sonnet-4-6'), null)
  assert.equal(sdb.truncateChars('short', 10), 'short')
  const cut = sdb.truncateChars('日本語のテキストです', 5)
  assert.ok([...cut].length <= 5 && cut.endsWith('…'))
  const store = await openTemp()
  const s = await store.createSession('exported')
  await store.appendTranscript(s.id, 'user', 'hello')
  const dir = mkdtempSync(join(tmpdir(), 'sessiondb-detect-'))
  writeFileSync(join(dir, 's.jsonl'), await store.exportThclaws(s.id))
  writeFileSync(join(dir, 'notes.txt'), 'just text\n')
  assert.equal(await sdb.detectFormat(join(dir, 's.jsonl')), 'thclaws')
  assert.equal(await sdb.detectFormat(join(dir, 'notes.txt')), null)
  await assert.rejects(sdb.detectFormat(join(dir, 'absent.jsonl')), sdb.IoError)
  await store.close()
})
