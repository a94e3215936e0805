// SessionStore#copyTo and recovery keys (issue 13 items 7 and 8) from Node:
// exact counts, idempotence, KeyMismatch before any write, the exact recovery
// text of a known key, the checksum error, and the import into a key provider.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sdb } from './helpers.mjs'

const KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i))
// base32(KEY + sha256("sessiondb recovery key v1\0" + KEY)[:3]), in groups of 4.
const KEY_TEXT = 'AAAQ-EAYE-AUDA-OCAJ-BIFQ-YDIO-B4IB-CEQT-CQKR-MFYY-DENB-WHA5-DYPU-PUO5'
const COUNTS = ['sessionsSeen', 'sessionsCreated', 'sessionsUpdated', 'sessionsDeleted', 'entries', 'retractions', 'tokens', 'extensions', 'events', 'openOperations', 'importRecords']
const counts = (r) => COUNTS.map((k) => r[k])
const dir = () => mkdtempSync(join(tmpdir(), 'sdb-copy-'))

test('copyTo copies every kind, then nothing, then only new rows', async () => {
  const d = dir()
  const a = await sdb.SessionStore.open({ path: join(d, 'a.db'), key: KEY })
  const s = await a.createSession('laptop')
  await a.appendTranscript(s.id, 'user', 'one')
  await a.appendTranscript(s.id, 'assistant', 'two')
  await a.recordTokens(s.id, { input: 10, output: 5 })
  await a.appendContextExtension(s.id, 'pin', '{"seq": 1}')
  const b = await sdb.SessionStore.open({ path: join(d, 'b.db'), key: KEY })
  const r = await a.copyTo(b)
  assert.deepEqual(counts(r), [1, 1, 0, 0, 2, 0, 1, 1, 5, 0, 0])
  assert.deepEqual(r.conflicts, [])
  assert.deepEqual((await b.getTranscript(s.id)).map((e) => e.content), ['one', 'two'])
  assert.deepEqual(counts(await a.copyTo(b)), [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
  await a.appendTranscript(s.id, 'user', 'three')
  assert.deepEqual(counts(await a.copyTo(b)).slice(4, 9), [1, 0, 0, 0, 1])
  // Both sides write: a Conflict in the report, B unchanged.
  await b.appendTranscript(s.id, 'user', 'in B')
  await a.appendTranscript(s.id, 'user', 'in A')
  const c = await a.copyTo(b)
  assert.deepEqual(c.conflicts.map((x) => [x.sessionId, x.kind, x.reason]), [[s.id, 'Conflict', 'journal event at seq 7 differs between source and destination']])
  await a.close()
  await b.close()
})

test('copyTo into a store with another key rejects with KeyMismatchError and writes nothing', async () => {
  const d = dir()
  const a = await sdb.SessionStore.open({ path: join(d, 'a.db'), key: KEY })
  await a.createSession('secret')
  const b = await sdb.SessionStore.open({ path: join(d, 'b.db'), key: Buffer.alloc(32, 7) })
  await assert.rejects(a.copyTo(b), (e) => e instanceof sdb.KeyMismatchError && e.code === 'ERR_KEY_MISMATCH')
  assert.equal((await b.stats()).journalEvents, 0)
})

test('a known key has its exact recovery text; typos are the checksum error', async () => {
  assert.equal(sdb.recoveryKeyText(KEY), KEY_TEXT)
  const d = dir()
  const a = await sdb.SessionStore.open({ path: join(d, 'a.db'), key: KEY })
  assert.equal(await a.recoveryKey(), KEY_TEXT)
  for (const t of [KEY_TEXT, KEY_TEXT.toLowerCase(), KEY_TEXT.replaceAll('-', ''), KEY_TEXT.replaceAll('-', ' '), `\n${KEY_TEXT.replaceAll('-', '\n')}\n`]) {
    assert.deepEqual(sdb.parseRecoveryKey(t), KEY)
  }
  assert.throws(
    () => sdb.parseRecoveryKey('AAAR' + KEY_TEXT.slice(4)),
    (e) =>
      e instanceof sdb.InvalidInputError &&
      e.message === 'invalid input: recovery key checksum mismatch: a character was mistyped or left out; compare it group by group with the exported text',
  )
  assert.throws(() => sdb.recoveryKeyText(Buffer.alloc(5)), sdb.InvalidInputError)
})

test('importRecoveryKey checks the database, then stores the key in the provider', async () => {
  const d = dir()
  const db = join(d, 'laptop.db')
  const laptop = await sdb.SessionStore.open({ path: db, key: KEY })
  const sid = (await laptop.createSession('from the laptop')).id
  await laptop.close()
  class Memory {
    constructor(key = null) {
      this.key = key
    }
    getKey() {
      return this.key
    }
    setKey(k) {
      this.key = Buffer.from(k)
    }
  }
  const device = new Memory()
  await assert.rejects(sdb.importRecoveryKey(sdb.recoveryKeyText(Buffer.alloc(32, 9)), { path: db, keyProvider: device }), sdb.KeyMismatchError)
  assert.equal(device.key, null)
  const s = await sdb.importRecoveryKey(KEY_TEXT.toLowerCase(), { path: db, keyProvider: device })
  assert.equal((await s.getSession(sid)).name, 'from the laptop')
  assert.deepEqual(device.key, KEY)
  await s.close()
  await assert.rejects(sdb.importRecoveryKey(KEY_TEXT, { path: db, keyProvider: new Memory(Buffer.alloc(32, 3)) }), sdb.ConflictError)
  await assert.rejects(sdb.importRecoveryKey(KEY_TEXT, { path: join(d, 'missing.db'), keyProvider: new Memory() }), sdb.NotFoundError)
})
