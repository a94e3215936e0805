// Language-neutral conformance cases (tests/conformance/**/*.json): every
// case whose op this binding can execute; prints how many ran.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sdb } from './helpers.mjs'
import { runStoreCase } from './store_steps.mjs'

const ROOT = process.env.SESSIONDB_REPO || join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const CONF = join(ROOT, 'tests', 'conformance')

function files(dir) {
  let out = []
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n)
    if (statSync(p).isDirectory()) out = out.concat(files(p))
    else if (n.endsWith('.json')) out.push(p)
  }
  return out
}

function errorOf(e) {
  if (!(e instanceof sdb.SessionDBError)) throw e
  const out = { error: e.kind }
  if (e instanceof sdb.ContextOverflowError) {
    out.breakdown = { capacity: e.capacity, system: e.system, pinned: e.pinned, recent: e.recent, tool_results: e.toolResults, other: e.other, protected_total: e.protectedTotal, remedies: e.remedies }
  }
  return out
}

const sync = (f) => { try { return f() } catch (e) { return errorOf(e) } }
const hex = (h) => Buffer.from(h, 'hex')

// Case inputs and expectations use the core's snake_case names; the typed
// records use camelCase fields, mapped here by plain field access.
const itemIn = (x) => ({ seq: x.seq, role: x.role, kind: x.kind, tokens: x.tokens, pinned: x.pinned, text: x.text, callIds: x.call_ids, compacted: x.compacted })
const optionsIn = (o) => (o == null ? o : { recentUserTurns: o.recent_user_turns, model: o.model })
const transformationOut = (t) => ({ seq: t.seq, last_seq: t.lastSeq ?? null, action: t.action, tokens_before: t.tokensBefore, tokens_after: t.tokensAfter, summary: t.summary })
const planOut = (p) => ({
  capacity: p.capacity,
  target_percent: p.targetPercent,
  target_tokens: p.targetTokens,
  tokens_before: p.tokensBefore,
  tokens_after: p.tokensAfter,
  reached_target: p.reachedTarget,
  transformations: p.transformations.map(transformationOut),
  compacted_seqs: p.compactedSeqs,
})
const digestOut = (d) => ({
  id: d.id,
  title: d.title,
  model: d.model,
  provider: d.provider,
  cwd: d.cwd,
  created_at_ms: d.createdAtMs,
  roles: d.roles,
  texts: d.texts,
  active_texts: d.activeTexts,
  tool_calls: d.toolCalls,
  tool_results: d.toolResults,
  plan_steps: d.planSteps,
  compactions: d.compactions,
  lines: d.lines,
  bytes: d.bytes,
  skipped: d.skipped.map((s) => ({ line: s.line, reason: s.reason })),
  surrogates_replaced: d.surrogatesReplaced,
  missing_final_newline: d.missingFinalNewline,
  kept_raw: d.keptRaw,
  other_lines: d.otherLines,
})

const SAMPLES = join(ROOT, '..', 'shared', 'samples')

const RUNNERS = {
  read_thclaws(c) {
    const data = c.input.text !== undefined ? Buffer.from(c.input.text, 'utf8') : Buffer.from(c.input.base64, 'base64')
    return digestOut(sdb.readThclawsDigest(data, 'fallback'))
  },
  write_thclaws(c) {
    const text = sdb.writeThclawsJson(c.input.session)
    assert.ok(text.endsWith('\n'))
    return { lines: text.split('\n').filter((l) => l.length > 0) }
  },
  async import_file(c, t) {
    if (!existsSync(SAMPLES)) return t.skip('../shared/samples is absent')
    const st = await sdb.SessionStore.open({ path: join(mkdtempSync(join(tmpdir(), 'sessiondb-conf-')), 's.db'), key: Buffer.alloc(32, 8) })
    const path = join(SAMPLES, c.input.sample)
    const rep = await st.importFile(path)
    const again = await st.importFile(path)
    await st.close()
    assert.deepEqual([again.status, again.sessions], ['up_to_date', []])
    return {
      format: rep.format,
      status: rep.status,
      sessions: rep.sessions.map((x) => ({ session_id: x.sessionId, entries: x.entries, tool_calls: x.toolCalls, tool_results: x.toolResults, input_tokens: x.inputTokens, output_tokens: x.outputTokens, cached_tokens: x.cachedTokens })),
    }
  },
  async decrypt_field(c) {
    const env = typeof c.envelope === 'string' ? c.envelope : JSON.stringify(c.envelope)
    try {
      return { plaintext: (await sdb.decryptField(hex(c.key_hex), c.record_id, env)).toString('utf8') }
    } catch (e) {
      return errorOf(e)
    }
  },
  async workspace_index(c) {
    return { index: await sdb.workspaceIndex(hex(c.key_hex), c.path) }
  },
  aad: (c) => ({ aad: sdb.envelopeAad(c.record_id) }),
  effective_context_capacity: ({ input: i }) =>
    sync(() => {
      const b = sdb.capacityBreakdown(i.raw, i.output_reserve, i.model_max_output)
      return { raw: b.raw, output_reserve: b.outputReserve, safety_margin: b.safetyMargin, capacity: b.capacity }
    }),
  meter: ({ input: i }) =>
    sync(() => {
      const m = sdb.meter(i.active_tokens, i.capacity)
      return { active_tokens: m.activeTokens, capacity: m.capacity, percent: m.percent, label: m.label, band: m.band, overflow: m.overflow, should_compact: sdb.shouldCompact(i.active_tokens, i.capacity) }
    }),
  count_tokens: ({ input: i }) => {
    const t = sdb.countTokens(i.model, i.text, i.host_count)
    return { tokens: t.tokens, method: t.method, encoding: t.encoding }
  },
  compact_context(c) {
    const i = c.input
    const items = i.items.map(itemIn)
    const args = [i.capacity, i.target_percent, optionsIn(i.options)]
    let plan
    try {
      plan = sdb.compactContext(items, ...args)
    } catch (e) {
      return errorOf(e)
    }
    const again = sdb.compactContext(sdb.applyCompaction(plan, items), ...args)
    assert.deepEqual(again.transformations, [], 'idempotent')
    assert.equal(again.tokensAfter, plan.tokensAfter)
    const out = planOut(plan)
    out.second_run = planOut(again)
    const want = c.expect && c.expect.second_run
    if (want) {
      for (const [k, v] of Object.entries(want)) assert.deepEqual(out.second_run[k], v, `second_run.${k}`)
      out.second_run = want
    }
    return out
  },
}

let ran = 0
let total = 0
for (const f of files(CONF)) {
  const doc = JSON.parse(readFileSync(f, 'utf8'))
  const rel = relative(CONF, f)
  for (const c of doc.cases || []) {
    total++
    const op = c.op || c.function || doc.function || (c.steps ? 'store_steps' : undefined)
    const run = op === 'store_steps' ? async (c) => { await runStoreCase(c); ran++ } : RUNNERS[op]
    test(`${rel} :: ${c.name}`, { skip: run ? false : `op ${op} not bound in Node yet` }, async (t) => {
      const got = await run(c, t)
      if (got === undefined) return
      if ('error' in c) {
        assert.equal(got.error, c.error)
        if (c.breakdown) assert.deepEqual(got.breakdown, c.breakdown)
      } else {
        if (!('error' in c.expect)) assert.equal(got.error, undefined, JSON.stringify(got))
        for (const [k, v] of Object.entries(c.expect)) assert.deepEqual(got[k], v, `${rel} ${c.name}: field ${k}`)
      }
      ran++
    })
  }
}

after(() => {
  console.log(`conformance: ${ran} of ${total} cases run by Node`)
  if (process.env.SESSIONDB_CONFORMANCE_COUNT_FILE) writeFileSync(process.env.SESSIONDB_CONFORMANCE_COUNT_FILE, `${ran} ${total}\n`)
})
