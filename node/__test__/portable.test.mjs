import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
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
  assert.deepEqual([rep.path, rep.format, rep.status, rep.error, rep.fromLine], [f, 'thclaws', 'imported', undefined, 1])
  assert.deepEqual(rep.sessions, [
    { sessionId: 'p1', created: true, entries: 2, toolCalls: 0, toolResults: 0, usageRecords: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, contextExtensions: 3, skippedAlreadyStored: 0 },
  ])
  assert.deepEqual(rep.read, {
    format: 'thclaws',
    lines: lines.length,
    bytes: Buffer.byteLength(text),
    kinds: { header: 1, plan_snapshot: 1, goal_snapshot: 1, user: 1, assistant: 1, rename: 1 },
    notImported: {},
    keptRaw: {},
    skipped: [],
    surrogatesReplaced: [],
    blankLines: 0,
    missingFinalNewline: false,
    alreadyImportedLines: 0,
    mergedLines: 0,
    duplicateUsage: 0,
  })
  const again = await st.importFile(f, 'thclaws')
  assert.deepEqual([again.status, again.sessions, again.error], ['up_to_date', [], undefined])
  assert.notDeepEqual(again, rep)
  assert.deepEqual(again, await st.importFile(f, 'thclaws'))
  const junk = join(dirname(st.path), 'junk.jsonl')
  writeFileSync(junk, '{"hello": 1}\n')
  const un = await st.importFile(junk)
  assert.deepEqual(un, { path: junk, status: 'unrecognized', fromLine: 1, sessions: [] })
  const got = []
  for await (const e of st.iterTranscript('p1')) got.push(e.content)
  assert.deepEqual(got, ['hello', 'hi there'])
  const fork = await st.forkSession('p1', 1)
  assert.deepEqual([fork.forkedFrom, fork.forkedAtSeq, fork.entryCount], ['p1', 1, 1])
  await assert.rejects(st.importFile(f, 'word'), sdb.InvalidInputError)
  await st.close()
})

test('readThclawsDigest is typed', () => {
  const text =
    '{"type":"header","id":"sess-1","model":"zai/glm-5.1","cwd":"/w","created_at":1700000000}\n' +
    '{"type":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}\n' +
    '{not json}\n' +
    '{"type":"turn_usage","n":1}\n' +
    '{"type":"assistant","content":[{"type":"text","text":"yo"}],"timestamp":2}'
  const d = sdb.readThclawsDigest(Buffer.from(text), 'fallback')
  assert.deepEqual(d, {
    id: 'sess-1',
    model: 'zai/glm-5.1',
    provider: 'zai',
    cwd: '/w',
    createdAtMs: 1700000000000,
    roles: ['user', 'assistant'],
    texts: ['hi', 'yo'],
    activeTexts: ['hi', 'yo'],
    toolCalls: 0,
    toolResults: 0,
    planSteps: 0,
    compactions: 0,
    lines: 5,
    bytes: Buffer.byteLength(text),
    skipped: [{ line: 3, reason: 'invalid_json' }],
    surrogatesReplaced: [],
    missingFinalNewline: true,
    keptRaw: { turn_usage: 1 },
    otherLines: 1,
  })
  assert.deepEqual(d, sdb.readThclawsDigest(Buffer.from(text), 'other'))
  assert.notDeepEqual(d, sdb.readThclawsDigest(Buffer.from(text + '\n'), 'fallback'))
  assert.deepEqual([sdb.readThclawsDigest(Buffer.from(''), 'x').id, sdb.readThclawsDigest(Buffer.from(''), 'x').lines], ['x', 0])
})

test('importPaths walks a directory', async () => {
  const st = await openTemp()
  const thclaws = (sid, text) =>
    `{"type":"header","id":"${sid}","model":"m","cwd":"/tmp","created_at":1700000000}\n` +
    `{"type":"user","content":[{"type":"text","text":"${text}"}],"timestamp":1}\n`
  const d = join(dirname(st.path), 'sessions')
  mkdirSync(d)
  writeFileSync(join(d, 'a.jsonl'), thclaws('sess-a', 'hello a'))
  writeFileSync(join(d, 'b.jsonl'), thclaws('sess-b', 'hello b'))
  writeFileSync(join(d, 'notes.jsonl'), '{"note": "not a session"}\n')
  const missing = join(dirname(st.path), 'missing')
  const reps = await st.importPaths([d, missing])
  assert.deepEqual(reps.map((r) => [r.path, r.format, r.status]), [
    [join(d, 'a.jsonl'), 'thclaws', 'imported'],
    [join(d, 'b.jsonl'), 'thclaws', 'imported'],
    [join(d, 'notes.jsonl'), undefined, 'unrecognized'],
    [missing, undefined, 'failed'],
  ])
  assert.deepEqual(reps.slice(0, 3).map((r) => r.error), [undefined, undefined, undefined])
  assert.equal(reps[3].error, `\`${missing}\`: I/O error while reading an import path: No such file or directory (os error 2)`)
  assert.deepEqual(reps.map((r) => r.sessions.map((s) => [s.sessionId, s.created, s.entries])), [[['sess-a', true, 1]], [['sess-b', true, 1]], [], []])
  const got = []
  for await (const e of st.iterTranscript('sess-a')) got.push(e.content)
  assert.deepEqual(got, ['hello a'])
  const again = await st.importPaths([join(d, 'a.jsonl'), join(d, 'b.jsonl')])
  assert.deepEqual(again.map((r) => [r.path, r.status, r.sessions, r.error]), [
    [join(d, 'a.jsonl'), 'up_to_date', [], undefined],
    [join(d, 'b.jsonl'), 'up_to_date', [], undefined],
  ])
  assert.deepEqual(await st.importPaths([]), [])
  await st.close()
})
