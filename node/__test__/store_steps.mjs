// Runner of the store conformance cases (tests/conformance/store/*.json):
// sequences of store calls with expected results and error kinds (the call
// vocabulary is in the file's `description`). Results are compared with
// snake_case keys, like the core's serde forms.
import assert from 'node:assert/strict'
import { sdb, tempDb } from './helpers.mjs'

const KEY = Buffer.alloc(32, 7)
const snake = (k) => k.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())
// A record's fields in snake_case; values (journal payloads) are left as they are.
const rec = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [snake(k), v === undefined ? null : v]))
const page = (a) => [a.from_seq ?? null, a.limit ?? null]

const CALLS = {
  // tests/conformance/search/: hits sorted by (session id, seq), each with the
  // snippet's highlighted substrings as JavaScript slices its own strings
  // with its UTF-16 offsets.
  search: async (s, a) => {
    const r = await s.search(a.query, { limit: a.limit, sessions: a.sessions ?? false })
    const hits = r.hits.map((h) => ({
      session_id: h.sessionId, seq: h.seq, role: h.role ?? null, field: h.field, snippet: h.snippet,
      marked: h.highlights.map((x) => h.snippet.slice(x.start, x.end)),
    }))
    hits.sort((x, y) => (x.session_id < y.session_id ? -1 : x.session_id > y.session_id ? 1 : x.seq - y.seq))
    return { total: r.total, hits }
  },
  delete_session: (s, a) => s.deleteSession(a.id).then(() => null),
  create_session: (s, a) => s.createSession(a.name ?? null).then(rec),
  get_session: (s, a) => s.getSession(a.id).then(rec),
  rename_session: (s, a) => s.renameSession(a.id, a.name).then(rec),
  append_transcript: (s, a) => s.appendTranscript(a.session_id, a.role, a.content).then(rec),
  append_generated: async (s, a) => {
    const entries = Array.from({ length: a.count }, (_, i) => ({ role: a.role, content: a.content.replaceAll('{i}', String(i + 1)) }))
    await s.appendEntries(a.session_id, entries)
    return null
  },
  retract_entry: (s, a) => s.retractEntry(a.session_id, a.seq).then((e) => (e ? rec(e) : null)),
  retract_last_entry: (s, a) => s.retractLastEntry(a.session_id).then((e) => (e ? rec(e) : null)),
  get_transcript_tail: (s, a) => s.getTranscriptTail(a.session_id, a.limit).then((l) => l.map(rec)),
  get_transcript: (s, a) => s.getTranscript(a.session_id, ...page(a)).then((l) => l.map(rec)),
  append_with_item: (s, a) => s.appendEntriesWithMeta(a.session_id, [{ entry: { role: a.role, content: a.content }, meta: { item: a.item } }]).then((l) => rec(l[0])),
  get_transcript_tail_with_meta: (s, a) =>
    s.getTranscriptTailWithMeta(a.session_id, a.limit).then((l) => l.map((x) => ({ entry: rec(x.entry), meta: { model: x.meta.model ?? null, provider: x.meta.provider ?? null, item: x.meta.item ?? null } }))),
  active_context: (s, a) => s.activeContext(a.session_id, a.raw_window).then((v) => ({ ...rec(v), items: v.items.map(rec) })),
  fork_session: (s, a) => s.forkSession(a.session_id, a.at_seq ?? null).then(rec),
  record_tokens: (s, a) => s.recordTokens(a.session_id, { input: a.input, output: a.output, cached: a.cached }).then(() => null),
  token_totals: (s, a) => s.tokenTotals(a.session_id).then(rec),
  recovery_key_text: async (s, a) => sdb.recoveryKeyText(Buffer.from(a.key_hex, 'hex')),
  parse_recovery_key: async (s, a) => sdb.parseRecoveryKey(a.text).toString('hex'),
  journal_append: (s, a) => s.journalAppend({ eventId: a.event_id, sessionId: a.session_id, kind: a.kind, payload: a.payload }).then(rec),
  journal_events: (s, a) => s.journalEvents(a.session_id).then((l) => l.map(rec)),
  dispatch_operation: (s, a) => s.dispatchOperation(a.session_id, a.operation_id).then(rec),
  complete_operation: (s, a) => s.completeOperation(a.session_id, a.operation_id, a.outcome).then(rec),
  open_operations: (s) => s.openOperations().then((l) => l.map((o) => ({ session_id: o.sessionId, operation_id: o.operationId }))),
  open_recovery_report: async (s) => {
    const r = s.openRecoveryReport()
    return {
      marked_unknown: r.markedUnknown.map((o) => [o.sessionId, o.operationId]),
      skipped_live: r.skippedLive,
      failed: r.failed.map(rec),
    }
  },
}

function subst(v, saved) {
  if (typeof v === 'string' && v.startsWith('$')) return saved[v.slice(1)]
  if (Array.isArray(v)) return v.map((x) => subst(x, saved))
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, subst(x, saved)]))
  return v
}

function mismatch(e, a, at = 'result') {
  if (e && typeof e === 'object' && !Array.isArray(e) && a && typeof a === 'object' && !Array.isArray(a)) {
    for (const [k, ev] of Object.entries(e)) {
      if (!(k in a) && ev === null) continue // Node leaves an absent optional field out
      if (!(k in a)) return `${at}.${k}: missing in ${JSON.stringify(a)}`
      const m = mismatch(ev, a[k], `${at}.${k}`)
      if (m) return m
    }
    return null
  }
  if (Array.isArray(e) && Array.isArray(a) && e.length === a.length) {
    for (let i = 0; i < e.length; i++) {
      const m = mismatch(e[i], a[i], `${at}[${i}]`)
      if (m) return m
    }
    return null
  }
  try {
    assert.deepEqual(a, e)
    return null
  } catch {
    return `${at}: expected ${JSON.stringify(e)}, got ${JSON.stringify(a)}`
  }
}

/** Run one case on a fresh store; throws naming the step. */
export async function runStoreCase(c) {
  const path = tempDb()
  let store = await sdb.SessionStore.open({ path, key: KEY })
  const saved = {}
  try {
    for (const [i, step] of c.steps.entries()) {
      const what = `case ${c.name} step ${i} (${step.call})`
      if (step.call === 'reopen') {
        await store.close()
        store = await sdb.SessionStore.open({ path, key: KEY })
        continue
      }
      let got
      try {
        got = await CALLS[step.call](store, subst(step.args || {}, saved))
      } catch (e) {
        if (!(e instanceof sdb.SessionDBError)) throw e
        assert.equal(e.kind, step.error, `${what}: failed with ${e.kind}: ${e.message}`)
        continue
      }
      assert.equal(step.error, undefined, `${what}: expected ${step.error}, got ${JSON.stringify(got)}`)
      if (step.as) saved[step.as] = got.id
      if ('expect' in step) assert.equal(mismatch(subst(step.expect, saved), got), null, what)
      if ('expect_len' in step) assert.equal(got.length, step.expect_len, what)
      if ('expect_first' in step) assert.equal(mismatch(subst(step.expect_first, saved), got[0], 'first'), null, what)
      if ('expect_last' in step) assert.equal(mismatch(subst(step.expect_last, saved), got[got.length - 1], 'last'), null, what)
    }
  } finally {
    await store.close()
  }
}
