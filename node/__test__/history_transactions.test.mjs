// The Agents SDK JS session's history transactions and mutations (issue 29
// item 1): the cases of @openai/agents-core's own test/memorySession.test.ts
// (openai-agents-js 6d0c61a), case for case, each run against the SDK's
// MemorySession and against SessionDBSession with the same expectations.
// Departures, tested below: our errors are sessiondb's InvalidInputError /
// ConflictError with the SDK's messages; binary data (Uint8Array) is
// refused, since items are stored as JSON; a cleared session keeps no
// operation ids (as MemorySession) because clearSession deletes the session.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sdb, KEY, tempDb } from './helpers.mjs'

let sdk = null
try {
  sdk = await import('@openai/agents')
} catch {
  // not installed: the side-by-side runs are skipped (scripts/test-node.sh installs it)
}
const { SessionDBSession } = process.env.SESSIONDB_PKG ? await import('sessiondb/agents') : await import('../agents.mjs')

const user = (text) => ({ role: 'user', content: [{ type: 'input_text', text }] })

/** Both sessions, seeded with `initial`: [name, session]. */
async function both(id, initial = []) {
  const out = []
  if (sdk) out.push(['MemorySession', new sdk.MemorySession({ sessionId: id, initialItems: initial })])
  const ours = new SessionDBSession({ sessionId: id, path: tempDb(), key: KEY })
  if (initial.length > 0) await ours.addItems(initial)
  out.push(['SessionDBSession', ours])
  return out
}

const cases = {
  'applies history mutations atomically': async (s, name) => {
    const call = (id, args) => ({ type: 'function_call', id, callId: 'call-1', name: 'lookup', status: 'completed', arguments: args })
    await s.addItems([user('start'), call('call-old-1', '{"ok":false}'), call('call-old-2', '{"duplicate":true}')])
    const replacement = call('call-new', '{"ok":true}')
    await s.applyHistoryMutations({ mutations: [{ type: 'replace_function_call', callId: 'call-1', replacement }] })
    assert.deepEqual(await s.getItems(), [user('start'), replacement], name)
  },
  'applies append transactions idempotently': async (s, name) => {
    await s.addItems([user('start')])
    const appended = user('committed')
    const args = { operationId: 'operation-append-1', transaction: { type: 'append_items', items: [appended] } }
    await s.applyHistoryTransaction(args)
    appended.content = 'mutated'
    await s.addItems([user('later')])
    await s.applyHistoryTransaction({ operationId: args.operationId, transaction: { type: 'append_items', items: [user('committed')] } })
    assert.deepEqual(await s.getItems(), [user('start'), user('committed'), user('later')], name)
  },
  'replaces an exact history suffix idempotently': async (s, name) => {
    await s.addItems([user('start'), user('blocked')])
    const transaction = { operationId: 'operation-replace-1', transaction: { type: 'replace_suffix', expectedSuffix: [user('blocked')], replacement: [user('accepted')] } }
    await s.applyHistoryTransaction(transaction)
    await s.addItems([user('later')])
    await s.applyHistoryTransaction(transaction)
    assert.deepEqual(await s.getItems(), [user('start'), user('accepted'), user('later')], name)
  },
  'rejects a suffix mismatch without recording the operation': async (s, name) => {
    await s.addItems([user('start')])
    await assert.rejects(
      s.applyHistoryTransaction({ operationId: 'operation-replace-after-conflict', transaction: { type: 'replace_suffix', expectedSuffix: [user('different')], replacement: [user('accepted')] } }),
      /suffix no longer matches/,
    )
    assert.deepEqual(await s.getItems(), [user('start')], name)
    await s.applyHistoryTransaction({ operationId: 'operation-replace-after-conflict', transaction: { type: 'replace_suffix', expectedSuffix: [user('start')], replacement: [user('accepted')] } })
    assert.deepEqual(await s.getItems(), [user('accepted')], name)
  },
  'rejects operation ID reuse with different content': async (s, name) => {
    await s.applyHistoryTransaction({ operationId: 'operation-conflict', transaction: { type: 'append_items', items: [user('first')] } })
    await assert.rejects(
      s.applyHistoryTransaction({ operationId: 'operation-conflict', transaction: { type: 'append_items', items: [user('second')] } }),
      /already applied with a different transaction/,
    )
    assert.deepEqual(await s.getItems(), [user('first')], name)
  },
  'records an empty append transaction': async (s, name) => {
    await s.applyHistoryTransaction({ operationId: 'operation-empty', transaction: { type: 'append_items', items: [] } })
    await assert.rejects(
      s.applyHistoryTransaction({ operationId: 'operation-empty', transaction: { type: 'append_items', items: [user('unexpected')] } }),
      /already applied with a different transaction/,
    )
    assert.deepEqual(await s.getItems(), [], name)
  },
  'resets transaction identities when the session is cleared': async (s, name) => {
    const transaction = { operationId: 'operation-after-reset', transaction: { type: 'append_items', items: [user('committed')] } }
    await s.applyHistoryTransaction(transaction)
    await s.clearSession()
    await s.applyHistoryTransaction(transaction)
    assert.deepEqual(await s.getItems(), [user('committed')], name)
  },
  'rejects invalid transaction input before mutation': async (s, name) => {
    await s.addItems([user('start')])
    await assert.rejects(s.applyHistoryTransaction({ operationId: '   ', transaction: { type: 'append_items', items: [] } }), /operationId must be a non-empty string/)
    await assert.rejects(s.applyHistoryTransaction({ operationId: 'operation-unknown', transaction: { type: 'unknown' } }), /Unsupported session history transaction type/)
    await assert.rejects(s.applyHistoryTransaction({ operationId: 'operation-missing-transaction', transaction: null }), /transaction must be an object/)
    await assert.rejects(s.applyHistoryTransaction({ operationId: 'operation-invalid-item', transaction: { type: 'append_items', items: [42] } }), /items contain invalid or unsupported data/)
    assert.deepEqual(await s.getItems(), [user('start')], name)
  },
  'rejects unsupported transaction metadata before mutation': async (s, name) => {
    await s.addItems([user('start')])
    const withDate = { ...user('unsupported'), providerData: { timestamp: new Date(0) } }
    const cycle = {}
    cycle.self = cycle
    const withCycle = { ...user('cyclic'), providerData: cycle }
    const withBigInt = { ...user('bigint'), providerData: { value: 42n } }
    for (const [operationId, items] of [['operation-date', [withDate]], ['operation-cycle', [withCycle]], ['operation-bigint', [withBigInt]], ['operation-sparse', new Array(1)]]) {
      await assert.rejects(s.applyHistoryTransaction({ operationId, transaction: { type: 'append_items', items } }), /items contain invalid or unsupported data/, `${name} ${operationId}`)
    }
    assert.deepEqual(await s.getItems(), [user('start')], name)
  },
  'rejects non-enumerable metadata before mutation': async (s, name) => {
    await s.addItems([user('start')])
    const item = user('unsupported')
    Object.defineProperty(item, 'providerData', { enumerable: false, value: { hidden: true } })
    await assert.rejects(s.applyHistoryTransaction({ operationId: 'operation-non-enumerable', transaction: { type: 'append_items', items: [item] } }), /items contain invalid or unsupported data/)
    assert.deepEqual(await s.getItems(), [user('start')], name)
    await s.applyHistoryTransaction({ operationId: 'operation-non-enumerable', transaction: { type: 'append_items', items: [user('retry')] } })
    assert.deepEqual(await s.getItems(), [user('start'), user('retry')], name)
  },
  'rejects unexpected transaction fields before mutation': async (s, name) => {
    await s.addItems([user('start')])
    await assert.rejects(
      s.applyHistoryTransaction({ operationId: 'operation-unexpected-append-field', transaction: { type: 'append_items', items: [user('unsupported')], metadata: { attempt: 1 } } }),
      /append transaction fields are invalid/,
    )
    await assert.rejects(
      s.applyHistoryTransaction({ operationId: 'operation-unexpected-suffix-field', transaction: { type: 'replace_suffix', expectedSuffix: [user('start')], replacement: [user('unsupported')], metadata: { attempt: 1 } } }),
      /suffix transaction fields are invalid/,
    )
    assert.deepEqual(await s.getItems(), [user('start')], name)
    await s.applyHistoryTransaction({ operationId: 'operation-unexpected-append-field', transaction: { type: 'append_items', items: [user('retry')] } })
    assert.deepEqual(await s.getItems(), [user('start'), user('retry')], name)
  },
  'does not expose transaction content in snapshot errors': async (s, name) => {
    const item = { ...user('unsupported'), providerData: { secret: Symbol('api-key-secret') } }
    const error = await s.applyHistoryTransaction({ operationId: 'operation-sensitive-invalid', transaction: { type: 'append_items', items: [item] } }).then(() => null, (e) => e)
    assert.ok(error instanceof Error, name)
    assert.equal(error.message, 'Session history transaction items contain invalid or unsupported data.', name)
    assert.deepEqual(await s.getItems(), [], name)
  },
  'canonicalizes ordinary object prototypes for retries and suffixes': async (s, name) => {
    const appended = { ...user('canonical'), providerData: Object.assign(Object.create(null), { source: 'provider', nested: Object.assign(Object.create(null), { a: 1 }) }) }
    await s.applyHistoryTransaction({ operationId: 'operation-canonical', transaction: { type: 'append_items', items: [appended] } })
    const plain = { ...user('canonical'), providerData: { nested: { a: 1 }, source: 'provider' } }
    await s.applyHistoryTransaction({ operationId: 'operation-canonical', transaction: { type: 'append_items', items: [plain] } })
    await s.applyHistoryTransaction({ operationId: 'operation-canonical-suffix', transaction: { type: 'replace_suffix', expectedSuffix: [plain], replacement: [user('replaced')] } })
    assert.deepEqual(await s.getItems(), [user('replaced')], name)
  },
}

for (const [title, run] of Object.entries(cases)) {
  test(`${title} (MemorySession and SessionDBSession alike)`, async () => {
    const sessions = await both(title.replace(/\W+/g, '-'))
    assert.equal(sessions.length, sdk ? 2 : 1)
    for (const [name, s] of sessions) {
      await run(s, name)
      if (s.close) await s.close()
    }
  })
}

test('our errors are sessiondb classes with the SDK messages; the store holds one journal event per transaction', async () => {
  const path = tempDb()
  const s = new SessionDBSession({ sessionId: 'j', path, key: KEY })
  await s.addItems([user('a'), user('b')])
  await s.applyHistoryTransaction({ operationId: 'op 1: with spaces', transaction: { type: 'replace_suffix', expectedSuffix: [user('b')], replacement: [user('c'), user('d')] } })
  await assert.rejects(
    s.applyHistoryTransaction({ operationId: 'op 1: with spaces', transaction: { type: 'append_items', items: [user('c'), user('d')] } }),
    (e) => e instanceof sdb.ConflictError && e.message === 'Session history operation was already applied with a different transaction.',
  )
  await assert.rejects(
    s.applyHistoryTransaction({ operationId: 'x', transaction: { type: 'replace_suffix', expectedSuffix: [user('b')], replacement: [] } }),
    (e) => e instanceof sdb.ConflictError && e.message === 'Session history suffix no longer matches the transaction precondition.',
  )
  await assert.rejects(s.applyHistoryTransaction({ operationId: 'y', transaction: { type: 'append_items', items: [{ ...user('bin'), providerData: { bytes: new Uint8Array([3, 7]) } }] } }), (e) => e instanceof sdb.InvalidInputError)
  const st = await s.store()
  const events = (await st.journalEvents('j', 1, 1000)).filter((e) => e.kind === 'TranscriptTailReplaced')
  assert.equal(events.length, 1)
  assert.deepEqual(events[0].payload.retracted, [2])
  const created = (await st.getSession('j')).createdAtMs
  assert.equal(events[0].eventId, 'txn-' + (await import('node:crypto')).createHash('sha256').update(`${created}\nop 1: with spaces`).digest('hex').slice(0, 40))
  assert.deepEqual((await st.getTranscript('j')).map((e) => e.seq), [1, 3, 4])
  assert.deepEqual(await s.getItems(), [user('a'), user('c'), user('d')])
  await s.close()
})
