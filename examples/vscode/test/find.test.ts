// The "find session" quick pick's logic (src/find.ts) against the real
// sessiondb package, under plain Node (VS Code itself cannot run here).

import { test } from 'node:test'
import * as assert from 'node:assert/strict'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { SessionStore } from 'sessiondb'
import { findSessionItems, marked } from '../src/find'

async function freshStore(): Promise<SessionStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdb-vscode-find-'))
  return SessionStore.open({ path: path.join(dir, 'sessions.db'), key: Buffer.alloc(32, 5) })
}

test('marked wraps each UTF-16 highlight range in guillemets', () => {
  assert.equal(marked('a 😀 flamingo b', [{ start: 5, end: 13 }]), 'a 😀 «flamingo» b')
  assert.equal(marked('xy', []), 'xy')
})

test('the quick pick lists the best hit per session, with its title, role, seq and marked snippet', async () => {
  const store = await freshStore()
  const a = await store.createSession('Flaky migration hunt')
  await store.appendTranscript(a.id, 'user', 'the flamingo test fails')
  await store.appendTranscript(a.id, 'assistant', 'retry the flamingo migration')
  const b = await store.createSession()
  await store.appendTranscript(b.id, 'user', 'nothing to see')
  const items = await findSessionItems(store, 'flamingo test')
  assert.deepEqual(items, [
    { label: 'Flaky migration hunt', description: 'user · #1', detail: 'the «flamingo» «test» fails', sessionId: a.id, seq: 1 },
  ])
  assert.deepEqual(await findSessionItems(store, 'hunt'), [
    { label: 'Flaky migration hunt', description: 'title', detail: 'Flaky migration «hunt»', sessionId: a.id, seq: null },
  ])
  assert.deepEqual(await findSessionItems(store, 'see'), [
    { label: b.id.slice(0, 8), description: 'user · #1', detail: 'nothing to «see»', sessionId: b.id, seq: 1 },
  ])
  await store.close()
})

test('an empty query has no rows and a half-typed one is a message row, not an error', async () => {
  const store = await freshStore()
  assert.deepEqual(await findSessionItems(store, '   '), [])
  const [row, ...rest] = await findSessionItems(store, 'retry "open')
  assert.deepEqual(rest, [])
  assert.equal(row?.sessionId, null)
  assert.equal(row?.label, 'sessiondb: not a query yet')
  assert.match(row?.detail ?? '', /unclosed quote at character 7/)
  await store.close()
})
