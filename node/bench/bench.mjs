// sessiondb (Node binding) vs the same design written directly in Node:
// better-sqlite3 12 (WAL, same pragmas) + node:crypto AES-256-GCM per field
// with the record-id AAD - what a TypeScript host does today.
// Same 10,000 items of 1 KiB; one committed append per item, then read all
// back. Prints throughput and the maximum event-loop delay during each run
// (perf_hooks.monitorEventLoopDelay), plus the Rust core alone.
//
// Run: scripts/bench-node.sh   Env: BENCH_N (default 10000), SESSIONDB_PKG.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const sdb = require(process.env.SESSIONDB_PKG || '..')
const Database = require('better-sqlite3')

const N = Number(process.env.BENCH_N || 10000)
const KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i))
const payload = (i) => {
  let s = `entry ${i} `
  while (s.length < 1024) s += 'lorem ipsum dolor sit amet '
  return s.slice(0, 1024)
}
const ITEMS = Array.from({ length: N }, (_, i) => payload(i))

async function measure(fn) {
  const h = monitorEventLoopDelay({ resolution: 1 })
  // A 1 ms timer: the largest gap between its ticks is how long the loop was
  // blocked (the histogram alone cannot see a loop that never turns).
  let last = performance.now()
  let maxGap = 0
  const timer = setInterval(() => {
    const now = performance.now()
    maxGap = Math.max(maxGap, now - last)
    last = now
  }, 1)
  h.enable()
  await new Promise((r) => setTimeout(r, 5))
  const t = performance.now()
  await fn()
  const s = (performance.now() - t) / 1000
  await new Promise((r) => setTimeout(r, 5)) // let the timer see a blocked loop
  h.disable()
  clearInterval(timer)
  return { s, maxDelayMs: Math.max(h.max / 1e6, maxGap - 1) }
}

async function benchSessiondb(dir) {
  const st = await sdb.SessionStore.open({ path: join(dir, 'sessiondb.db'), key: KEY })
  const sid = (await st.createSession('bench')).id
  const append = await measure(async () => {
    for (const it of ITEMS) await st.appendTranscript(sid, 'user', it)
  })
  let bytes = 0
  const read = await measure(async () => {
    for await (const e of st.iterTranscript(sid, { pageSize: 1000 })) bytes += e.content.length
  })
  if (bytes !== N * 1024) throw new Error(`read ${bytes}`)
  await st.close()
  return { append, read }
}

// The same appends issued by a host that does not wait for each one before
// the next (e.g. messages streamed in while earlier ones are still being
// saved): at most INFLIGHT appends pending. Every append is still its own
// committed, journaled write; concurrent ones share a group commit.
const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 8)
async function benchSessiondbInflight(dir) {
  const st = await sdb.SessionStore.open({ path: join(dir, 'sessiondb-inflight.db'), key: KEY })
  const sid = (await st.createSession('bench')).id
  let next = 0
  const append = await measure(async () => {
    async function worker() {
      while (next < N) await st.appendTranscript(sid, 'user', ITEMS[next++])
    }
    await Promise.all(Array.from({ length: INFLIGHT }, worker))
  })
  let count = 0
  for await (const _ of st.iterTranscript(sid, { pageSize: 1000 })) count++
  if (count !== N) throw new Error(`stored ${count}`)
  await st.close()
  return { append }
}

function seal(recordId, text) {
  const n = randomBytes(12)
  const c = createCipheriv('aes-256-gcm', KEY, n)
  c.setAAD(Buffer.from(`${recordId}:v1:aes-256-gcm`))
  const ct = Buffer.concat([c.update(text, 'utf8'), c.final()])
  return JSON.stringify({ n: n.toString('base64'), c: ct.toString('base64'), t: c.getAuthTag().toString('base64'), v: 1, alg: 'aes-256-gcm' })
}

function open(recordId, env) {
  const e = JSON.parse(env)
  const d = createDecipheriv('aes-256-gcm', KEY, Buffer.from(e.n, 'base64'))
  d.setAAD(Buffer.from(`${recordId}:v1:aes-256-gcm`))
  d.setAuthTag(Buffer.from(e.t, 'base64'))
  return Buffer.concat([d.update(Buffer.from(e.c, 'base64')), d.final()]).toString('utf8')
}

async function benchBetterSqlite(dir) {
  const db = new Database(join(dir, 'baseline.db'))
  db.pragma('busy_timeout = 10000')
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.exec('CREATE TABLE t (session_id TEXT NOT NULL, seq INTEGER NOT NULL, content_enc TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID')
  const next = db.prepare("SELECT COALESCE(MAX(seq), 0) + 1 AS s FROM t WHERE session_id = 's'")
  const ins = db.prepare("INSERT INTO t (session_id, seq, content_enc) VALUES ('s', ?, ?)")
  const appendOne = db.transaction((text) => {
    const seq = next.get().s
    ins.run(seq, seal(`transcript:s:${seq}:content`, text))
  })
  const append = await measure(async () => {
    for (const it of ITEMS) appendOne.immediate(it)
  })
  let bytes = 0
  const sel = db.prepare("SELECT seq, content_enc FROM t WHERE session_id = 's' ORDER BY seq")
  const read = await measure(async () => {
    for (const r of sel.iterate()) bytes += open(`transcript:s:${r.seq}:content`, r.content_enc).length
  })
  if (bytes !== N * 1024) throw new Error(`read ${bytes}`)
  db.close()
  return { append, read }
}

const dir = mkdtempSync(join(tmpdir(), 'sessiondb-bench-'))
try {
  const ours = await benchSessiondb(dir)
  const inflight = await benchSessiondbInflight(dir)
  const base = await benchBetterSqlite(dir)
  const { appendS: coreA, readS: coreR } = await sdb._benchCore(join(dir, 'core.db'), KEY, ITEMS, 1000)
  const rate = (s) => (Number.isFinite(s) ? Math.round(N / s).toLocaleString('en-US') : '-')
  const row = (name, a, r, da, dr) => console.log(`${name.padEnd(40)} ${rate(a).padStart(9)} ${rate(r).padStart(9)} ${da.padStart(12)} ${dr.padStart(12)}`)
  console.log(`${N} items of 1 KiB, one committed append per item, then read all back`)
  console.log(`${''.padEnd(40)} ${'append/s'.padStart(9)} ${'read/s'.padStart(9)} ${'max delay A'.padStart(12)} ${'max delay R'.padStart(12)}`)
  const ms = (x) => `${x.toFixed(1)} ms`
  row('sessiondb (Node binding, Promises)', ours.append.s, ours.read.s, ms(ours.append.maxDelayMs), ms(ours.read.maxDelayMs))
  row(`sessiondb, ${INFLIGHT} appends in flight`, inflight.append.s, NaN, ms(inflight.append.maxDelayMs), '-')
  row('better-sqlite3 + node:crypto AES-GCM', base.append.s, base.read.s, ms(base.append.maxDelayMs), ms(base.read.maxDelayMs))
  row('sessiondb Rust core alone', coreA, coreR, '-', '-')
  console.log(`throughput vs better-sqlite3: append ${(base.append.s / ours.append.s).toFixed(2)}x awaited one by one, ${(base.append.s / inflight.append.s).toFixed(2)}x with ${INFLIGHT} in flight; read ${(base.read.s / ours.read.s).toFixed(2)}x (goal >= 1x)`)
  console.log(`max event-loop delay: sessiondb ${ms(Math.max(ours.append.maxDelayMs, ours.read.maxDelayMs, inflight.append.maxDelayMs))} (goal < 20 ms), better-sqlite3 ${ms(Math.max(base.append.maxDelayMs, base.read.maxDelayMs))} (blocks for its whole run)`)
  console.log(`binding overhead vs the Rust core: append ${(ours.append.s / coreA).toFixed(2)}x, read ${(ours.read.s / coreR).toFixed(2)}x`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
