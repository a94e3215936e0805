// Issue 30 "No size oracle": the `compress` open option (SECURITY.md "Size oracle").
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { sdb, KEY, tempDb } from './helpers.mjs'

const BODY = 'tool output line, repeated\n'.repeat(152).slice(0, 4096)

// The envelope version byte of every stored content, in seq order (read
// from the database file with python's sqlite3 module: Node 20 has none).
function versions(path) {
  const py = 'import sqlite3, sys\n' +
    'c = sqlite3.connect(sys.argv[1])\n' +
    'print(",".join(str(bytes(r[0])[0]) for r in c.execute("SELECT content_enc FROM entry_envelopes ORDER BY seq")))'
  return execFileSync('python3', ['-c', py, path], { encoding: 'utf8' }).trim().split(',').map(Number)
}

for (const [compress, version] of [[false, 1], [true, 2], [undefined, 1]]) {
  test(`a 4 KiB body with compress ${compress} is stored as v${version}`, async () => {
    const path = tempDb()
    const st = await sdb.SessionStore.open({ path, key: KEY, compress })
    const s = await st.createSession(null, null)
    await st.appendTranscript(s.id, 'tool', BODY)
    assert.equal((await st.getTranscript(s.id, 1, 1))[0].content, BODY)
    await st.close()
    assert.deepEqual(versions(path), [version])
  })
}

test('prune: the dry run lists what prune deletes, and the journal keeps the reason', async () => {
  const st = await sdb.SessionStore.open({ path: tempDb(), key: KEY })
  const old = await st.createSession(null, null, { createdAtMs: 1_700_000_000_000 })
  await st.createSession('named', null, { createdAtMs: 1_700_000_000_000 })
  await st.createSession(null, null)
  assert.deepEqual(await st.prune(), [])
  const plan = await st.prune(30, null, true, 1, true) // an absent title is left out, as elsewhere
  assert.deepEqual(plan, [
    { sessionId: old.id, reason: 'max_age_days', updatedAtMs: 1_700_000_000_000, entryCount: 0, lastSeq: 0 },
  ])
  assert.equal((await st.listSessions()).length, 3)
  assert.deepEqual(await st.prune(30), plan)
  assert.equal((await st.listSessions()).length, 2)
  const ev = (await st.journalEvents(old.id)).at(-1)
  assert.equal(ev.kind, 'SessionDeleted')
  assert.deepEqual(ev.payload, { entries: 0, reason: 'max_age_days', title: null, updated_at_ms: 1_700_000_000_000 })
  await st.close()
})

test('redact: on-write stores the marker, on-export redacts the export, an unknown policy is InvalidInputError', async () => {
  const secret = 'Deploy with key AKIALALEMEL33243OLIB now'
  const w = await sdb.SessionStore.open({ path: tempDb(), key: KEY, redact: 'on-write' })
  const s = await w.createSession(null, null)
  await w.appendTranscript(s.id, 'user', secret)
  assert.match((await w.getTranscript(s.id, 1, 1))[0].content, /^Deploy with key \[REDACTED:aws-access-token:[0-9a-f]{8}\] now$/)
  await w.close()
  const e = await sdb.SessionStore.open({ path: tempDb(), key: KEY, redact: 'on-export' })
  const t = await e.createSession(null, null)
  await e.appendTranscript(t.id, 'user', secret)
  assert.equal((await e.getTranscript(t.id, 1, 1))[0].content, secret)
  const exported = await e.exportThclaws(t.id)
  assert.ok(!exported.includes('AKIALALEMEL33243OLIB') && exported.includes('[REDACTED:aws-access-token:'))
  await e.close()
  await assert.rejects(sdb.SessionStore.open({ path: tempDb(), key: KEY, redact: 'always' }), (err) => err instanceof sdb.InvalidInputError && /redaction policy `always` is not one of off, on-export, on-write/.test(err.message))
})
