// sessiondb (Node binding) vs the same design written directly in Node:
// better-sqlite3 12 (WAL, same pragmas) + node:crypto AES-256-GCM per field
// with the record-id AAD - what a TypeScript host does today.
// Same 10,000 items of 1 KiB; one committed append per item, then read all
// back. Prints throughput and the maximum event-loop delay during each run
// (perf_hooks.monitorEventLoopDelay), plus the Rust core alone.
//
// Also: BURST appends (default 10,000) issued at once and awaited with
// Promise.all, with the worst event-loop delay seen by a 1 ms timer while
// they are issued and completed, and the stored order checked.
//
// Run: scripts/bench-node.sh   Env: BENCH_N (default 10000), BENCH_ROUNDS
// (default 1), BENCH_BURST
// (default 10000), SESSIONDB_PKG, SESSIONDB_PKG_BEFORE (another build of the
// package, e.g. main's, measured in the same run: its rows are marked
// "before").
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const sdb = require(process.env.SESSIONDB_PKG || '..')
const before = process.env.SESSIONDB_PKG_BEFORE ? require(process.env.SESSIONDB_PKG_BEFORE) : null
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

async function benchSessiondb(dir, pkg = sdb, name = 'sessiondb.db') {
  const st = await pkg.SessionStore.open({ path: join(dir, name), key: KEY })
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
async function benchSessiondbInflight(dir, pkg = sdb, name = 'sessiondb-inflight.db') {
  const st = await pkg.SessionStore.open({ path: join(dir, name), key: KEY })
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

// BURST appends issued in one synchronous loop and awaited together
// (Promise.all): the worst event-loop delay covers issuing them, their
// completions and everything between. `issueMs` is the synchronous loop
// alone. Every append must land in call order: seq i holds item i-1.
const BURST = Number(process.env.BENCH_BURST ?? 10000)
async function benchBurst(dir, pkg = sdb, name = 'sessiondb-burst.db') {
  const st = await pkg.SessionStore.open({ path: join(dir, name), key: KEY })
  const sid = (await st.createSession('bench')).id
  const items = Array.from({ length: BURST }, (_, i) => ITEMS[i % N])
  let issueMs = 0
  const append = await measure(async () => {
    const t = performance.now()
    const ps = items.map((it) => st.appendTranscript(sid, 'user', it))
    issueMs = performance.now() - t
    await Promise.all(ps)
  })
  let i = 0
  let outOfOrder = 0
  for await (const e of st.iterTranscript(sid, { pageSize: 1000 })) {
    if (e.seq !== i + 1 || e.content !== items[i]) outOfOrder++
    i++
  }
  if (i !== BURST) throw new Error(`stored ${i}`)
  await st.close()
  return { append, issueMs, outOfOrder }
}

// The floor of the burst: the same BURST calls of a function that only
// copies its text out of the JS heap (Buffer.from, a native call, as any
// binding's argument conversion) and returns a resolved promise.
async function benchBurstFloor() {
  const items = Array.from({ length: BURST }, (_, i) => ITEMS[i % N])
  let issueMs = 0
  const append = await measure(async () => {
    const t = performance.now()
    const ps = items.map((it) => Promise.resolve(Buffer.from(it, 'utf8')))
    issueMs = performance.now() - t
    await Promise.all(ps)
  })
  return { append, issueMs }
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

async function benchBetterSqlite(dir, name = 'baseline.db') {
  const db = new Database(join(dir, name))
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
// BENCH_ROUNDS rounds, each running every case once (interleaved, so a change
// of the machine's load hits all of them); every figure printed is the median
// over the rounds, out-of-order counts are summed.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1)
const median = (xs) => {
  const v = [...xs].sort((x, y) => x - y)
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2
}
const med = (runs, f) => median(runs.map(f))
try {
  const runs = [['', sdb]]
  if (before) runs.push([' (before)', before])
  const rounds = []
  for (let r = 0; r < ROUNDS; r++) {
    const round = { res: [] }
    for (const [tag, pkg] of runs) {
      const k = `${r}-${round.res.length}`
      round.res.push({
        tag,
        ours: await benchSessiondb(dir, pkg, `sessiondb${k}.db`),
        inflight: await benchSessiondbInflight(dir, pkg, `sessiondb-inflight${k}.db`),
        burst: await benchBurst(dir, pkg, `sessiondb-burst${k}.db`),
      })
    }
    round.floor = await benchBurstFloor()
    round.base = await benchBetterSqlite(dir, `baseline${r}.db`)
    round.core = await sdb._benchCore(join(dir, `core${r}.db`), KEY, ITEMS, 1000)
    rounds.push(round)
  }
  const pick = (i, f) => med(rounds, (rd) => f(rd.res[i]))
  const res = runs.map(([tag], i) => ({
    tag,
    ours: { append: { s: pick(i, (x) => x.ours.append.s), maxDelayMs: pick(i, (x) => x.ours.append.maxDelayMs) }, read: { s: pick(i, (x) => x.ours.read.s), maxDelayMs: pick(i, (x) => x.ours.read.maxDelayMs) } },
    inflight: { append: { s: pick(i, (x) => x.inflight.append.s), maxDelayMs: pick(i, (x) => x.inflight.append.maxDelayMs) } },
    burst: { append: { s: pick(i, (x) => x.burst.append.s), maxDelayMs: pick(i, (x) => x.burst.append.maxDelayMs) }, issueMs: pick(i, (x) => x.burst.issueMs), outOfOrder: rounds.reduce((n, rd) => n + rd.res[i].burst.outOfOrder, 0) },
  }))
  const floor = { append: { maxDelayMs: med(rounds, (rd) => rd.floor.append.maxDelayMs) }, issueMs: med(rounds, (rd) => rd.floor.issueMs) }
  const base = { append: { s: med(rounds, (rd) => rd.base.append.s), maxDelayMs: med(rounds, (rd) => rd.base.append.maxDelayMs) }, read: { s: med(rounds, (rd) => rd.base.read.s), maxDelayMs: med(rounds, (rd) => rd.base.read.maxDelayMs) } }
  const coreA = med(rounds, (rd) => rd.core.appendS)
  const coreR = med(rounds, (rd) => rd.core.readS)
  if (ROUNDS > 1) console.log(`medians of ${ROUNDS} interleaved rounds; burst worst delays per round: ${res.map(({ tag }, i) => `sessiondb${tag} ${rounds.map((rd) => rd.res[i].burst.append.maxDelayMs.toFixed(1)).join('/')}`).join(', ')}, floor ${rounds.map((rd) => rd.floor.append.maxDelayMs.toFixed(1)).join('/')} ms`)
  const rate = (s, n = N) => (Number.isFinite(s) ? Math.round(n / s).toLocaleString('en-US') : '-')
  const row = (name, a, r, da, dr, n = N) => console.log(`${name.padEnd(44)} ${rate(a, n).padStart(9)} ${rate(r).padStart(9)} ${da.padStart(12)} ${dr.padStart(12)}`)
  console.log(`${N} items of 1 KiB, one committed append per item, then read all back`)
  console.log(`${''.padEnd(44)} ${'append/s'.padStart(9)} ${'read/s'.padStart(9)} ${'max delay A'.padStart(12)} ${'max delay R'.padStart(12)}`)
  const ms = (x) => `${x.toFixed(1)} ms`
  for (const { tag, ours, inflight, burst } of res) {
    row(`sessiondb${tag} (Node binding, Promises)`, ours.append.s, ours.read.s, ms(ours.append.maxDelayMs), ms(ours.read.maxDelayMs))
    row(`sessiondb${tag}, ${INFLIGHT} appends in flight`, inflight.append.s, NaN, ms(inflight.append.maxDelayMs), '-')
    row(`sessiondb${tag}, ${BURST} in flight (Promise.all)`, burst.append.s, NaN, ms(burst.append.maxDelayMs), '-', BURST)
  }
  row('better-sqlite3 + node:crypto AES-GCM', base.append.s, base.read.s, ms(base.append.maxDelayMs), ms(base.read.maxDelayMs))
  row('sessiondb Rust core alone', coreA, coreR, '-', '-')
  for (const { tag, ours, inflight, burst } of res) {
    console.log(`sessiondb${tag}:`)
    console.log(`  awaited append vs the Rust core ${(coreA / ours.append.s).toFixed(2)}x (goal >= 0.8x), vs better-sqlite3 ${(base.append.s / ours.append.s).toFixed(2)}x (goal >= 1.5x); ${INFLIGHT} in flight vs better-sqlite3 ${(base.append.s / inflight.append.s).toFixed(2)}x; read vs better-sqlite3 ${(base.read.s / ours.read.s).toFixed(2)}x, vs the core ${(coreR / ours.read.s).toFixed(2)}x`)
    console.log(`  ${BURST} appends in flight: worst event-loop delay ${ms(burst.append.maxDelayMs)} (goal <= 10 ms), of which issuing them took ${ms(burst.issueMs)} in one synchronous loop; ${burst.outOfOrder} stored out of call order`)
    console.log(`  max event-loop delay of the awaited runs: ${ms(Math.max(ours.append.maxDelayMs, ours.read.maxDelayMs, inflight.append.maxDelayMs))}`)
  }
  console.log(`floor of the burst: ${BURST} calls that copy the text and return a resolved promise: worst event-loop delay ${ms(floor.append.maxDelayMs)}, issuing ${ms(floor.issueMs)}`)
  console.log(`better-sqlite3 max event-loop delay ${ms(Math.max(base.append.maxDelayMs, base.read.maxDelayMs))} (blocks for its whole run)`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
