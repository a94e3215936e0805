// Opening a store by PostgreSQL URL (DESIGN.md "Backends"): the Node addon
// is built with the core's `postgres` feature. Needs a server: run under
// scripts/with-postgres.sh (it exports SESSIONDB_TEST_PG_URL; scripts/test-node.sh
// does so when run as root). Skipped, saying so, when the variable is unset.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { sdb, KEY, OTHER_KEY } from './helpers.mjs'

const ADMIN = process.env.SESSIONDB_TEST_PG_URL
const skip = ADMIN ? false : 'SESSIONDB_TEST_PG_URL unset: run under scripts/with-postgres.sh to test the PostgreSQL backend from Node'
if (skip) console.log(`# skipped: ${skip}`)

/** A database of its own on the test server (psql ships with the server), dropped by `drop()`. */
function freshDb() {
  const name = `sdb_node_${randomBytes(6).toString('hex')}`
  execFileSync('psql', ['-q', ADMIN, '-c', `CREATE DATABASE ${name}`])
  const [base, query] = ADMIN.split('?')
  const url = `${base.slice(0, base.lastIndexOf('/'))}/${name}${query ? `?${query}` : ''}`
  return { url, drop: () => execFileSync('psql', ['-q', ADMIN, '-c', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]) }
}

test('a store opened by postgres:// URL round-trips, keeps the journal rules and the key rules', { skip }, async () => {
  const db = freshDb()
  try {
    const st = await sdb.SessionStore.open({ path: db.url, key: KEY })
    assert.ok(st.path.startsWith('postgres://'), st.path)
    const s = await st.createSession('from node', null, { id: 'node-1' })
    assert.deepEqual([s.id, s.name, s.entryCount], ['node-1', 'from node', 0])
    const e1 = await st.appendTranscript(s.id, 'user', 'hello over the wire')
    const e2 = await st.appendTranscript(s.id, 'assistant', 'é'.repeat(600))
    assert.deepEqual([e1.seq, e2.seq], [1, 2])
    const ev = { eventId: 'ev-node', sessionId: s.id, kind: 'Note', payload: { n: 1 } }
    const o = await st.journalAppend(ev)
    assert.deepEqual(await st.journalAppend(ev), { ...o, duplicate: true })
    await assert.rejects(st.journalAppend({ ...ev, payload: { n: 2 } }), sdb.ConflictError)
    await st.dispatchOperation(s.id, 'op-node', { tool: 'bash' })
    assert.deepEqual(await st.openOperations(), [{ sessionId: s.id, operationId: 'op-node', owner: st.instanceId }])
    const stats = await st.stats()
    assert.deepEqual([stats.sessions, stats.transcriptEntries, stats.openOperations], [1, 2, 1])
    await st.close()

    // Reopened: the same rows; the closed owner's operation is recovered.
    const again = await sdb.SessionStore.open({ path: db.url, key: KEY })
    assert.deepEqual(again.openRecoveryReport(), { markedUnknown: [{ sessionId: 'node-1', operationId: 'op-node' }], skippedLive: 0, failed: [] })
    assert.deepEqual((await again.getTranscript('node-1')).map((e) => [e.seq, e.role, e.content]), [
      [1, 'user', 'hello over the wire'],
      [2, 'assistant', 'é'.repeat(600)],
    ])
    const kinds = (await again.journalEvents('node-1')).map((e) => e.kind)
    assert.deepEqual(kinds.slice(-2), ['EffectDispatchCommitted', 'OperationUnknownOutcome'])
    await again.close()

    // Another key: KeyMismatchError; a bad URL: InvalidInputError.
    await assert.rejects(sdb.SessionStore.open({ path: db.url, key: OTHER_KEY }), sdb.KeyMismatchError)
    await assert.rejects(sdb.SessionStore.open({ path: 'postgres://user@127.0.0.1:notaport/db', key: KEY }), sdb.InvalidInputError)
  } finally {
    db.drop()
  }
})
