import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sdb, openTemp } from './helpers.mjs'

test('capacity, meter, tokens are synchronous pure functions', () => {
  assert.equal(sdb.effectiveContextCapacity(128000), 115200)
  assert.deepEqual(sdb.capacityBreakdown(128000), { raw: 128000, output_reserve: 10240, safety_margin: 2560, capacity: 115200 })
  assert.throws(() => sdb.effectiveContextCapacity(0), sdb.InvalidInputError)
  assert.deepEqual(sdb.meter(80640, 115200), { active_tokens: 80640, capacity: 115200, percent: 70, label: 'Ctx 70%', band: 'amber', overflow: false })
  assert.equal(sdb.shouldCompact(115201, 115200), true)
  assert.equal(sdb.shouldCompact(115200, 115200), false)
  assert.deepEqual(sdb.countTokens('gpt-4o', 'hello world', 7), { tokens: 7, method: 'host' })
  assert.deepEqual(sdb.countTokens('gpt-4o', 'hello world'), { tokens: 2, method: 'exact', encoding: 'o200k_base' })
  assert.equal(sdb.estimateTokens('abcdef'), 2)
})

test('store context status, compaction, governance, restore', async () => {
  const st = await openTemp()
  const s = await st.createSession('ctx', null, { model: 'gpt-4o' })
  for (let i = 1; i <= 10; i++) await st.appendEntries(s.id, [{ role: i % 2 ? 'user' : 'assistant', content: `turn ${i}`, tokens: 1000 }])
  const status = await st.contextStatus(s.id, 16000)
  assert.deepEqual([status.model, status.capacity], ['gpt-4o', 12672])
  assert.deepEqual(status.meter, { active_tokens: 10000, capacity: 12672, percent: 78, label: 'Ctx 78%', band: 'amber', overflow: false })
  const dry = await st.compactSession(s.id, 16000, null, null, null, true)
  assert.deepEqual(await st.listContextExtensions(s.id), [])
  const plan = await st.compactSession(s.id, 16000)
  assert.deepEqual(plan, dry)
  assert.deepEqual([plan.tokens_before, plan.tokens_after, plan.target_tokens, plan.compacted_seqs], [10000, 8011, 8870, [1, 2]])
  const gov = await st.recoverContextGovernance(s.id)
  assert.deepEqual(Object.keys(gov.compacted), ['1', '2'])
  assert.equal(await st.recordTurnDecision(s.id, 'pin', [10]), 2)
  const opened = await st.openSavedSession(s.id)
  assert.deepEqual(opened.authority, { permission_profile: 'manual', full_access: false, sensitive_transfer: false, temporary_approvals: [] })
  assert.deepEqual(opened.knowledge.transcript.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  assert.deepEqual(opened.knowledge.governance.pinned, [10])
  await assert.rejects(st.openSavedSession('missing'), sdb.NotFoundError)
  await st.close()
})
