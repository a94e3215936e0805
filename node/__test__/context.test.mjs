import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sdb, openTemp } from './helpers.mjs'

// Results are typed plain objects (camelCase fields, interfaces in native.d.ts):
// exact values, deep equality of equal results, inequality of different ones.

test('capacity, meter, tokens are synchronous pure functions with typed results', () => {
  assert.equal(sdb.effectiveContextCapacity(128000), 115200)
  assert.deepEqual(sdb.capacityBreakdown(128000), { raw: 128000, outputReserve: 10240, safetyMargin: 2560, capacity: 115200 })
  assert.notDeepEqual(sdb.capacityBreakdown(128000), sdb.capacityBreakdown(128001))
  assert.throws(() => sdb.effectiveContextCapacity(0), sdb.InvalidInputError)
  assert.throws(() => sdb.capacityBreakdown(0), sdb.InvalidInputError)
  const m = sdb.meter(80640, 115200)
  assert.deepEqual(m, { activeTokens: 80640, capacity: 115200, percent: 70, label: 'Ctx 70%', band: 'amber', overflow: false })
  assert.deepEqual(m, sdb.meter(80640, 115200))
  assert.notDeepEqual(m, sdb.meter(80639, 115200))
  assert.equal(sdb.meter(80639, 115200).band, 'green')
  assert.throws(() => sdb.meter(1, 0), sdb.InvalidInputError)
  assert.equal(sdb.shouldCompact(115201, 115200), true)
  assert.equal(sdb.shouldCompact(115200, 115200), false)
  assert.deepEqual(sdb.countTokens('gpt-4o', 'hello world', 7), { tokens: 7, method: 'host' })
  assert.deepEqual(sdb.countTokens('gpt-4o', 'hello world'), { tokens: 2, method: 'exact', encoding: 'o200k_base' })
  assert.deepEqual(sdb.countTokens('gpt-4o', 'hello world'), sdb.countTokens('gpt-4o-mini', 'hello world'))
  assert.notDeepEqual(sdb.countTokens('gpt-4o', 'hello world'), sdb.countTokens('gpt-4', 'hello world'))
  assert.deepEqual(sdb.countTokens('claude-sonnet-4', 'abcd'), { tokens: 2, method: 'estimate' })
  assert.equal(sdb.estimateTokens('abcdef'), 2)
  assert.deepEqual(sdb.knownModelLimits('gpt-4o-2024-08-06'), { contextWindow: 128000, maxOutput: 16384 })
  assert.notDeepEqual(sdb.knownModelLimits('gpt-4o'), sdb.knownModelLimits('gpt-5'))
  assert.equal(sdb.knownModelLimits('my-local-llm'), null)
})

const ITEMS = [
  { seq: 1, role: 'user', kind: 'message', tokens: 300, text: 'Please refactor the parser' },
  { seq: 2, role: 'assistant', kind: 'message', tokens: 400, text: 'Done.' },
  { seq: 3, role: 'user', kind: 'message', tokens: 100, text: 'thanks' },
]

test('compactContext and applyCompaction: typed plan and items', () => {
  const plan = sdb.compactContext(ITEMS, 1000, 50, { recentUserTurns: 1 })
  assert.deepEqual(plan, {
    capacity: 1000,
    targetPercent: 50,
    targetTokens: 500,
    tokensBefore: 800,
    tokensAfter: 123,
    reachedTarget: true,
    // Turns 1 and 2 are one run with one summary (DESIGN.md "Context governance").
    transformations: [
      { seq: 1, lastSeq: 2, action: 'summarized', tokensBefore: 700, tokensAfter: 23, summary: '[compacted seq 1–2: 2 items, 700 tokens] Please refactor the parser' },
    ],
    compactedSeqs: [1, 2],
  })
  assert.deepEqual(plan, sdb.compactContext(ITEMS, 1000, 50, { recentUserTurns: 1 }))
  assert.notDeepEqual(plan, sdb.compactContext(ITEMS, 1000, 70, { recentUserTurns: 1 }))
  const applied = sdb.applyCompaction(plan, ITEMS)
  assert.deepEqual(applied, [
    { seq: 1, role: 'user', kind: 'message', tokens: 23, pinned: false, text: '[compacted seq 1–2: 2 items, 700 tokens] Please refactor the parser', callIds: [], compacted: true },
    { seq: 3, role: 'user', kind: 'message', tokens: 100, pinned: false, text: 'thanks', callIds: [], compacted: false },
  ])
  // Running again on the applied items changes nothing.
  const again = sdb.compactContext(applied, 1000, 50, { recentUserTurns: 1 })
  assert.deepEqual([again.transformations, again.tokensAfter, again.compactedSeqs], [[], 123, []])
  assert.throws(() => sdb.compactContext([{ seq: 1, role: 'user', kind: 'speech', tokens: 10 }], 1000), sdb.InvalidInputError)
  assert.throws(() => sdb.compactContext(ITEMS, -1), sdb.InvalidInputError)
})

test('store context status, compaction, governance, restore', async () => {
  const st = await openTemp()
  const s = await st.createSession('ctx', null, { model: 'gpt-4o' })
  for (let i = 1; i <= 10; i++) await st.appendEntries(s.id, [{ role: i % 2 ? 'user' : 'assistant', content: `turn ${i}`, tokens: 1000 }])
  const status = await st.contextStatus(s.id, 16000)
  assert.deepEqual([status.model, status.capacity], ['gpt-4o', 12672])
  assert.deepEqual(status.meter, { activeTokens: 10000, capacity: 12672, percent: 78, label: 'Ctx 78%', band: 'amber', overflow: false })
  assert.deepEqual(status.turns[0], { seq: 1, state: 'verbatim', pinned: false })
  assert.equal(status.turns.length, 10)
  assert.deepEqual(status.compacted, [])
  assert.deepEqual(status, await st.contextStatus(s.id, 16000))
  assert.notDeepEqual(status, await st.contextStatus(s.id, 32000))

  const dry = await st.compactSession(s.id, 16000, null, null, null, true)
  assert.deepEqual(await st.listContextExtensions(s.id), [])
  const plan = await st.compactSession(s.id, 16000)
  assert.deepEqual(plan, dry)
  assert.deepEqual([plan.tokensBefore, plan.tokensAfter, plan.targetTokens, plan.compactedSeqs], [10000, 8021, 8870, [1, 2]])
  const t1 = { seq: 1, lastSeq: 2, action: 'summarized', tokensBefore: 2000, tokensAfter: 21, summary: '[compacted seq 1–2: 2 items, 2000 tokens] turn 1' }
  assert.deepEqual(plan.transformations, [t1])
  const after = await st.contextStatus(s.id, 16000)
  // Each turn names its run (compactedBy: the run's firstSeq); the run holds the transformation once.
  assert.deepEqual(after.turns[0], { seq: 1, state: 'compacted', pinned: false, compactedBy: 1 })
  assert.deepEqual(after.turns[1], { seq: 2, state: 'compacted', pinned: false, compactedBy: 1 })
  assert.deepEqual(after.turns[2], { seq: 3, state: 'verbatim', pinned: false })
  assert.deepEqual(after.compacted, [{ firstSeq: 1, lastSeq: 2, transformation: t1 }])
  assert.equal(after.meter.label, 'Ctx 63%')

  const gov = await st.recoverContextGovernance(s.id)
  assert.deepEqual([gov.pinned, gov.excluded], [[], []])
  assert.deepEqual(gov.compacted, [{ firstSeq: 1, lastSeq: 2, transformation: t1 }])
  assert.deepEqual(gov.history.map((h) => h.n), [1])
  assert.deepEqual(gov.history[0].plan, plan)
  assert.deepEqual(gov, await st.recoverContextGovernance(s.id))
  assert.equal(await st.recordTurnDecision(s.id, 'pin', [10]), 2)
  const gov2 = await st.recoverContextGovernance(s.id)
  assert.deepEqual(gov2.pinned, [10])
  assert.notDeepEqual(gov2, gov)

  const opened = await st.openSavedSession(s.id)
  assert.deepEqual(opened.authority, { permissionProfile: 'manual', fullAccess: false, sensitiveTransfer: false, temporaryApprovals: [] })
  const k = opened.knowledge
  assert.deepEqual(k.session, await st.getSession(s.id))
  assert.deepEqual(k.transcript, await st.getTranscript(s.id))
  assert.deepEqual(k.transcript.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  assert.deepEqual(k.tokenTotals, await st.tokenTotals(s.id))
  assert.deepEqual(k.governance, gov2)
  assert.deepEqual(k.otherExtensions, [])
  assert.deepEqual(opened, await st.openSavedSession(s.id))
  await st.appendTranscript(s.id, 'user', 'turn 11')
  assert.notDeepEqual(await st.openSavedSession(s.id), opened)
  await assert.rejects(st.openSavedSession('missing'), sdb.NotFoundError)
  await st.close()
})

test('activeContextItems, governanceTurns, summarizeItem: the stateless pipeline from stored entries and governance', async () => {
  const st = await openTemp()
  const s = await st.createSession('ctx', null, { model: 'gpt-4o' })
  const long = 'word '.repeat(400)
  for (let i = 1; i <= 6; i++) await st.appendTranscript(s.id, i % 2 ? 'user' : 'assistant', `${i} ${long}`)
  await st.recordTurnDecision(s.id, 'pin', [1])
  await st.recordTurnDecision(s.id, 'exclude', [2])
  const gov = await st.recoverContextGovernance(s.id)
  const entries = await st.getTranscript(s.id)
  const items = sdb.activeContextItems(entries, gov, 'gpt-4o')
  assert.deepEqual(items.map((i) => i.seq), [1, 3, 4, 5, 6])
  assert.deepEqual(items.map((i) => i.pinned), [true, false, false, false, false])
  assert.deepEqual(items.map((i) => i.tokens), entries.filter((e) => e.seq !== 2).map((e) => sdb.countTokens('gpt-4o', e.content).tokens))
  assert.deepEqual(sdb.governanceTurns(gov, 4).map((t) => [t.seq, t.state, t.pinned]), [[1, 'verbatim', true], [2, 'excluded', false], [3, 'verbatim', false], [4, 'verbatim', false]])
  const plan = sdb.compactContext(items, items.reduce((a, i) => a + i.tokens, 0), 70, { recentUserTurns: 1, model: 'gpt-4o' })
  await st.recordCompaction(s.id, plan)
  const first = plan.transformations[0]
  const turns = sdb.governanceTurns(await st.recoverContextGovernance(s.id), 6)
  assert.equal(turns[first.seq - 1].state, 'compacted')
  assert.equal(turns[first.seq - 1].compactedBy, first.seq)
  const tool = { seq: 3, role: 'tool', kind: 'tool_result', tokens: 900, text: 'line one\n\n  line two', callIds: ['A'] }
  assert.equal(sdb.summarizeItem(tool), '[tool result: 20 bytes, truncated to preview] line one line two')
  assert.throws(() => sdb.summarizeItem({ seq: 1, role: 'user', kind: 'speech', tokens: 1 }), sdb.InvalidInputError)
  assert.throws(() => sdb.governanceTurns({ ...gov, compacted: [{ firstSeq: -1, lastSeq: 2, transformation: first }] }, 4), sdb.InvalidInputError)
  assert.throws(() => sdb.governanceTurns(gov, -1), sdb.InvalidInputError)
  // A host-supplied count never allocates without bound.
  assert.throws(() => sdb.governanceTurns(gov, 1e15), (e) => e instanceof sdb.InvalidInputError && /entry_count 1000000000000000 is above 1000000 turns/.test(e.message))
  await st.close()
})

test('an imported compaction is one run, not one copy per turn (red-team finding)', async () => {
  // A compaction run's summary was copied once per seq it covers (a
  // 100,000-turn file ending in a 20 KB compaction: 3.97 GB for
  // `sessiondb context`). The host now gets one run; each turn names it.
  const { writeFileSync } = await import('node:fs')
  const { dirname, join } = await import('node:path')
  const st = await openTemp()
  const summary = 's'.repeat(20480)
  const lines = [JSON.stringify({ type: 'header', id: 'runs', model: 'anthropic/claude-sonnet-4', cwd: '/w', created_at: 1 })]
  for (let i = 0; i < 2000; i++) lines.push(JSON.stringify({ type: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: `turn ${i}` }], timestamp: 1 + i }))
  lines.push(JSON.stringify({ type: 'compaction', messages: [{ role: 'user', content: [{ type: 'text', text: summary }] }], replaces_count: 2000, timestamp: 2001 }))
  const f = join(dirname(st.path), 'runs.jsonl')
  writeFileSync(f, lines.join('\n') + '\n')
  const sid = (await st.importFile(f, 'thclaws')).sessions[0].sessionId
  const model = (await st.getSession(sid)).model
  const text = 'user: ' + summary
  const t = { seq: 1, lastSeq: 2000, action: 'summarized', tokensBefore: 0, tokensAfter: sdb.countTokens(model, text).tokens, summary: text }
  const gov = await st.recoverContextGovernance(sid)
  assert.deepEqual(gov.compacted, [{ firstSeq: 1, lastSeq: 2000, transformation: t }])
  let status = await st.contextStatus(sid, 128000)
  assert.deepEqual(status.compacted, [{ firstSeq: 1, lastSeq: 2000, transformation: t }])
  assert.equal(status.turns.length, 2000)
  assert.deepEqual(new Set(status.turns.map((x) => `${x.state} ${x.pinned} ${x.compactedBy}`)), new Set(['compacted false 1']))
  assert.equal(sdb.governanceTurns(gov, 2001)[2000].compactedBy, undefined)

  // A pin in the middle leaves two runs with the same transformation.
  await st.recordTurnDecision(sid, 'pin', [1000])
  const gov2 = await st.recoverContextGovernance(sid)
  assert.deepEqual(gov2.compacted, [{ firstSeq: 1, lastSeq: 999, transformation: t }, { firstSeq: 1001, lastSeq: 2000, transformation: t }])
  status = await st.contextStatus(sid, 128000)
  assert.deepEqual(status.turns.slice(998, 1001), [
    { seq: 999, state: 'compacted', pinned: false, compactedBy: 1 },
    { seq: 1000, state: 'verbatim', pinned: true },
    { seq: 1001, state: 'compacted', pinned: false, compactedBy: 1001 },
  ])
  // The summary is sent once (at the run's first seq), then the pinned turn.
  const view = await st.activeContext(sid, 128000)
  assert.deepEqual(view.items.map((i) => [i.seq, i.lastSeq, i.state, i.text]), [[1, 2000, 'compacted', text], [1000, undefined, 'verbatim', 'turn 999']])
  assert.deepEqual((await st.openSavedSession(sid)).knowledge.governance, gov2)
  // The host's state passed back in reads the same.
  assert.deepEqual(sdb.governanceTurns(gov2, 2000).slice(998, 1001).map((x) => x.compactedBy), [1, undefined, 1001])
  await st.close()
})
