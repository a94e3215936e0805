// The installed package's TypeScript declarations: the napi-generated
// native.d.ts declares an interface for every record and no result is `any`
// (only JSON payloads of journal events are); typed use of the package
// compiles with tsc --strict (the TypeScript the napi CLI brings along).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const PKG = dirname(require.resolve(join(process.env.SESSIONDB_PKG || '..', 'package.json')))
const dts = readFileSync(join(PKG, 'native.d.ts'), 'utf8')
// Doc comments (from each record's field docs) are left out of the shape checks.
const flat = dts.replace(/\/\*\*[\s\S]*?\*\//g, '').replace(/\s+/g, ' ')

test('native.d.ts declares the record interfaces', () => {
  for (const name of [
    'CapacityBreakdown', 'ModelLimits', 'ContextMeter', 'TokenCount', 'Transformation', 'CompactionPlan', 'ContextItem',
    'CompactionOptions', 'TurnGovernance', 'CompactedRun', 'ContextStatus', 'CompactionHistoryEntry', 'ContextGovernance', 'Authority',
    'SavedSessionState', 'OpenedSession', 'SessionImport', 'SkippedLine', 'ReadReport', 'FileImport', 'DigestSkippedLine',
    'ThclawsDigest', 'EntryMeta', 'NewEntryWithMeta', 'TranscriptEntryWithMeta', 'ItemPage', 'ActiveItem', 'ActiveContextView',
  ]) {
    assert.match(dts, new RegExp(`export interface ${name} \\{`), name)
  }
  assert.match(flat, /export interface ContextStatus \{ model\?: string capacity: number meter: ContextMeter turns: Array<TurnGovernance> compacted: Array<CompactedRun> \}/)
  assert.match(flat, /export interface TurnGovernance \{ seq: number state: 'verbatim' \| 'compacted' \| 'excluded' pinned: boolean compactedBy\?: number \}/)
  assert.match(flat, /export interface CompactedRun \{ firstSeq: number lastSeq: number transformation: Transformation \}/)
  assert.match(flat, /band: 'green' \| 'amber' \| 'orange' \| 'red'/)
  assert.match(flat, /export interface ContextGovernance \{ pinned: Array<number> excluded: Array<number> compacted: Array<CompactedRun> history: Array<CompactionHistoryEntry> \}/)
  assert.match(flat, /export interface EntryMeta \{ model\?: string provider\?: string extra\?: Record<string, unknown> item\?: string \}/)
  assert.match(flat, /export interface ItemPage \{ itemsJson: string seqs: Array<number> withoutItem: Array<TranscriptEntryWithMeta> \}/)
  assert.match(flat, /export interface ActiveContextView \{ model\?: string capacity: number tokens: number items: Array<ActiveItem> \}/)
  assert.match(flat, /export interface ActiveItem \{ seq: number lastSeq\?: number role: string state: 'verbatim' \| 'compacted' \| 'excluded' tokens: number text\?: string \}/)
})

test('native.d.ts: typed results, `any` only for JSON payloads', () => {
  for (const sig of [
    /contextStatus\([^)]*\): Promise<ContextStatus>/,
    /activeContext\(sessionId: string, rawWindow: number, outputReserve\?: number \| undefined \| null, model\?: string \| undefined \| null\): Promise<ActiveContextView>/,
    /getTranscriptTailWithMeta\(sessionId: string, limit\?: number \| undefined \| null\): Promise<TranscriptEntryWithMeta\[\]>/,
    /getEntryItems\(sessionId: string, fromSeq\?: number \| undefined \| null, limit\?: number \| undefined \| null\): Promise<ItemPage>/,
    /getEntryItemsTail\(sessionId: string, limit\?: number \| undefined \| null\): Promise<ItemPage>/,
    /compactSession\([^)]*\): Promise<CompactionPlan>/,
    /recoverContextGovernance\(sessionId: string\): Promise<ContextGovernance>/,
    /openSavedSession\(sessionId: string\): Promise<OpenedSession>/,
    /importFile\([^)]*\): Promise<FileImport>/,
    /importPaths\(paths: Array<string>\): Promise<FileImport\[\]>/,
    /appendEntriesWithMeta\(sessionId: string, entries: Array<NewEntryWithMeta>, idempotencyKey\?: string \| undefined \| null\): Promise<TranscriptEntry\[\]>/,
    /getTranscriptWithMeta\(sessionId: string, fromSeq\?: number \| undefined \| null, limit\?: number \| undefined \| null\): Promise<TranscriptEntryWithMeta\[\]>/,
    /function capacityBreakdown\([^)]*\): CapacityBreakdown/,
    /function knownModelLimits\(model: string\): ModelLimits \| null/,
    /function meter\(activeTokens: number, capacity: number\): ContextMeter/,
    /function countTokens\([^)]*\): TokenCount/,
    /function compactContext\(items: Array<ContextItem>, [^)]*options\?: CompactionOptions[^)]*\): CompactionPlan/,
    /function applyCompaction\(plan: CompactionPlan, items: Array<ContextItem>\): Array<ContextItem>/,
    /function readThclawsDigest\([^)]*\): ThclawsDigest/,
  ]) {
    assert.match(flat, sig)
  }
  const anyLines = dts.split('\n').filter((l) => /:\s*any\b|<any>|\bany\[\]|\| any\b/.test(l))
  assert.deepEqual(anyLines.filter((l) => !/payload/.test(l)), [])
})

test('index.d.ts re-exports native.d.ts and errors.d.ts', () => {
  const index = readFileSync(join(PKG, 'index.d.ts'), 'utf8')
  assert.match(index, /export \* from '\.\/native'/)
  assert.match(index, /export \* from '\.\/errors'/)
})

const ROOT = process.env.SESSIONDB_REPO || join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const TSC = join(ROOT, 'node', 'node_modules', 'typescript', 'bin', 'tsc')

const CHECK_TS = `import * as sdb from 'sessiondb'

declare const store: sdb.SessionStore

export async function main(): Promise<void> {
  const st: sdb.ContextStatus = await store.contextStatus('id', 128000)
  const label: string = st.meter.label
  const band: 'green' | 'amber' | 'orange' | 'red' = st.meter.band
  // @ts-expect-error a typed record, not any
  st.meter.nope
  const plan: sdb.CompactionPlan = sdb.compactContext([{ seq: 1, role: 'user', kind: 'message', tokens: 1 }], 100, null, { recentUserTurns: 0 })
  const items: sdb.ContextItem[] = sdb.applyCompaction(plan, [])
  const t: sdb.Transformation | undefined = plan.transformations[0]
  const planned: sdb.CompactionPlan = await store.compactSession('id', 16000, null, null, null, true)
  const opened: sdb.OpenedSession = await store.openSavedSession('id')
  const first: sdb.TranscriptEntry | undefined = opened.knowledge.transcript[0]
  const manual: 'manual' = opened.authority.permissionProfile
  const gov: sdb.ContextGovernance = await store.recoverContextGovernance('id')
  const c: sdb.Transformation | undefined = gov.compacted[0]?.transformation
  const run: sdb.CompactedRun | undefined = st.compacted[0]
  const by: number | null | undefined = st.turns[0]?.compactedBy
  const rep: sdb.FileImport = await store.importFile('f.jsonl')
  const entries: number[] = rep.sessions.map((s) => s.entries)
  const reps: sdb.FileImport[] = await store.importPaths(['a', 'b'])
  const d: sdb.ThclawsDigest = sdb.readThclawsDigest(new Uint8Array() as Buffer)
  const tc: sdb.TokenCount = sdb.countTokens('gpt-4o', 'hi')
  const m: sdb.ModelLimits | null = sdb.knownModelLimits('gpt-4o')
  const b: sdb.CapacityBreakdown = sdb.capacityBreakdown(128000)
  const written: sdb.TranscriptEntry[] = await store.appendEntriesWithMeta('id', [{ entry: { role: 'user', content: 'hi' }, meta: { model: 'gpt-5', extra: { phase: 'x' } } }])
  const withMeta: sdb.TranscriptEntryWithMeta[] = await store.getTranscriptWithMeta('id')
  const extra: Record<string, unknown> | undefined = withMeta[0]?.meta.extra
  const seq: number | undefined = withMeta[0]?.entry.seq
  // @ts-expect-error the kind is a union of the core's names
  sdb.compactContext([{ seq: 1, role: 'user', kind: 'speech', tokens: 1 }], 100)
  const role: sdb.Role = (await store.appendTranscript('id', 'assistant', 'hi')).role
  const fmt: sdb.ContentFormat = (await store.getTranscript('id'))[0]?.format ?? 'text'
  await store.appendEntries('id', [{ role: 'tool', content: '[]', format: 'blocks' }])
  await store.completeOperation('id', 'op', 'succeeded')
  await store.importFile('f.jsonl', 'claude-code')
  // @ts-expect-error a role typo
  await store.appendTranscript('id', 'usr', 'hi')
  // @ts-expect-error a format typo
  await store.appendEntries('id', [{ role: 'user', content: 'x', format: 'json' }])
  // @ts-expect-error an outcome typo
  await store.completeOperation('id', 'op', 'success')
  // @ts-expect-error a source format typo
  await store.importFile('f.jsonl', 'claude')
  // @ts-expect-error a band typo
  if (st.meter.band === 'yellow') void 0
  try {
    await store.getSession('id')
  } catch (e) {
    if (e instanceof sdb.SessionDBError) {
      const code: sdb.ErrorCode = e.code
      const kind: sdb.ErrorKind = e.kind
      // @ts-expect-error an error code typo
      if (e.code === 'ERR_NOTFOUND') void 0
      void [code, kind]
    }
  }
  {
    await using scoped = await sdb.SessionStore.open({ path: '/tmp/x.db' })
    void scoped
  }
  void [role, fmt]
  void [label, band, items, t, planned, first, manual, c, entries, d, tc, m, b, written, extra, seq]
}
`

function tsc(source) {
  const dir = mkdtempSync(join(tmpdir(), 'sessiondb-ts-'))
  writeFileSync(join(dir, 'check.ts'), source)
  // No @types/node here: the one Node type the declarations use.
  writeFileSync(join(dir, 'globals.d.ts'), 'declare class Buffer extends Uint8Array {}\n')
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: 'es2022',
    module: 'commonjs',
    moduleResolution: 'bundler',
    lib: ['es2022', 'esnext.disposable'],
    types: [],
    paths: { sessiondb: [join(PKG, 'index.d.ts')] },
  }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check.ts', 'globals.d.ts'] }))
  try {
    execFileSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' })
    return { ok: true, out: '' }
  } catch (e) {
    return { ok: false, out: `${e.stdout}${e.stderr}` }
  }
}

const noTsc = existsSync(TSC) ? false : `no TypeScript at ${TSC}`

test('typed use of the package compiles with tsc --strict', { skip: noTsc }, () => {
  const r = tsc(CHECK_TS)
  assert.ok(r.ok, `tsc: ${r.out}`)
})

test('a typo in a role fails tsc --strict', { skip: noTsc }, () => {
  const r = tsc(`import * as sdb from 'sessiondb'
declare const store: sdb.SessionStore
export async function main(): Promise<void> {
  await store.appendTranscript('id', 'usr', 'hi')
}
`)
  assert.equal(r.ok, false)
  assert.match(r.out, /check\.ts\(4,\d+\): error TS2345: Argument of type '"usr"' is not assignable/)
})
