// Scenarios for appends_under_load.test.mjs, each run in its own process
// (a libuv pool size is fixed at the first pool task): appends in flight
// mixed with other pool work, close, worker_threads, process exit. Prints
// one JSON line with what the scenario saw; the test checks it.
import { Worker, isMainThread, workerData, parentPort } from 'node:worker_threads'
import { readFile } from 'node:fs/promises'
import { pbkdf2 } from 'node:crypto'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { sdb, KEY, tempDb } from './helpers.mjs'

const pbkdf2p = promisify(pbkdf2)
const self = fileURLToPath(import.meta.url)
const open = (path, extra = {}) => sdb.SessionStore.open({ path, key: KEY, ...extra })
const outcome = (r) => (r.status === 'fulfilled' ? r.value.map((e) => e.seq) : r.reason.code)
const one = (p) => p.then((e) => [e])

// Appends issued without awaiting, from `n` calls: one store, two sessions
// (one counted with gpt-4o's tokenizer), redaction on write, failing calls
// of every kind, reads, fs and crypto pool work in between.
async function mixed(n) {
  const path = tempDb()
  const st = await open(path, { redact: 'on-write' })
  const a = (await st.createSession('a', null, { model: 'gpt-4o' })).id
  const b = (await st.createSession('b')).id
  const calls = []
  const other = []
  for (let i = 0; i < n; i++) {
    const sid = i % 3 === 2 ? b : a
    // A secret the built-in rules redact, in every 7th entry.
    const text = i % 7 === 0 ? `m${i} key AKIAQWERTYUIOPASDFGH` : `m${i}`
    if (i % 2 === 0) calls.push(one(st.appendTranscript(sid, 'user', text)))
    else calls.push(st.appendEntries(sid, [{ role: 'assistant', content: text }, { role: 'tool', content: `${text}+` }]))
    if (i % 50 === 25) other.push(st.getTranscript(a, 1, 20), readFile(self), pbkdf2p('pw', 'salt', 2000, 32, 'sha256'))
    if (i === 100) calls.push(one(st.appendTranscript('no-such-session', 'user', 'x')))
    if (i === 200) calls.push(st.appendEntries(a, [{ role: 'user', content: 'x' }], 'bad key'))
    if (i === 300) calls.push(st.appendEntries(a, [{ role: 'user', content: 'k1' }], 'key-1'))
    // The retry while the first is in flight, then the key reused.
    if (i === 301) calls.push(st.appendEntries(a, [{ role: 'user', content: 'k1' }], 'key-1'))
    if (i === 302) calls.push(st.appendEntries(a, [{ role: 'user', content: 'other' }], 'key-1'))
    if (i === 400) calls.push(st.appendEntriesWithMeta(a, [{ entry: { role: 'user', content: 'x' }, meta: { model: 'bad\u0001model' } }]))
    if (i === 401) calls.push(st.appendEntries(a, []))
  }
  const out = (await Promise.allSettled(calls)).map(outcome)
  await Promise.all(other)
  const stored = {}
  for (const sid of [a, b]) stored[sid === a ? 'a' : 'b'] = (await st.getTranscript(sid, 1, 10000)).map((e) => e.content)
  await st.close()
  return { out, stored }
}

// `n` appends in flight, close() issued after the first `n / 2`, then `n / 2`
// more; the file reopened.
async function closing(n) {
  const path = tempDb()
  const st = await open(path)
  const sid = (await st.createSession('c')).id
  const calls = []
  let closed
  for (let i = 0; i < n; i++) {
    if (i === n / 2) closed = st.close()
    calls.push(st.appendTranscript(sid, 'user', `m${i}`).then((e) => e.seq))
  }
  const out = (await Promise.allSettled(calls)).map((r) => (r.status === 'fulfilled' ? r.value : r.reason.code))
  await closed
  const later = await Promise.allSettled([st.appendTranscript(sid, 'user', 'late')])
  const re = await open(path)
  const stored = (await re.getTranscript(sid, 1, 10000)).map((e) => e.content)
  await re.close()
  return { out, later: later[0].reason?.code, stored }
}

// Several stores at once: three on their own files, two on one file (the
// same session). Each store's calls are issued interleaved with the others'.
async function stores(n) {
  const shared = tempDb()
  const sts = [await open(tempDb()), await open(tempDb()), await open(tempDb()), await open(shared)]
  sts.push(await open(shared))
  const sids = []
  for (const st of sts.slice(0, 4)) sids.push((await st.createSession('s')).id)
  sids.push(sids[3])
  const calls = sts.map(() => [])
  for (let i = 0; i < n; i++) {
    sts.forEach((st, k) => calls[k].push(st.appendTranscript(sids[k], 'user', `${k}:${i}`).then((e) => e.seq, (e) => e.code)))
  }
  const out = await Promise.all(calls.map((c) => Promise.all(c)))
  const stored = []
  for (let k = 0; k < 4; k++) stored.push((await sts[k].getTranscript(sids[k], 1, 10000)).map((e) => e.content))
  for (const st of sts) await st.close()
  return { out, stored }
}

// Worker threads, each with its own store on one file, appending in flight
// to its own session; one more worker terminated with appends in flight;
// then the main thread's own appends, fs and crypto work (the pool is the
// process's).
async function workers(n) {
  const path = tempDb()
  const st = await open(path)
  const sids = []
  for (let k = 0; k < 4; k++) sids.push((await st.createSession(`w${k}`)).id)
  const run = (k, terminate) => {
    const w = new Worker(self, { workerData: { path, sid: sids[k], k, n } })
    return new Promise((resolve, reject) => {
      w.on('message', (m) => {
        if (m === 'started' && terminate) w.terminate().then(() => resolve('terminated'))
        else if (m !== 'started') resolve(m)
      })
      w.on('error', reject)
    })
  }
  const done = await Promise.all([run(0), run(1), run(2), run(3, true), pbkdf2p('pw', 'salt', 20000, 32, 'sha256')])
  const after = []
  for (let i = 0; i < 200; i++) after.push(st.appendTranscript(sids[0], 'user', `main${i}`).then((e) => e.seq))
  await Promise.all([readFile(self), pbkdf2p('pw', 'salt', 2000, 32, 'sha256')])
  const afterSeqs = await Promise.all(after)
  const stored = []
  for (let k = 0; k < 4; k++) stored.push((await st.getTranscript(sids[k], 1, 10000)).map((e) => e.content))
  await st.close()
  return { done: done.slice(0, 4), afterSeqs, stored }
}

async function worker({ path, sid, k, n }) {
  const st = await open(path)
  const calls = []
  for (let i = 0; i < n; i++) calls.push(st.appendTranscript(sid, 'user', `${k}:${i}`).then((e) => e.seq, (e) => e.code))
  parentPort.postMessage('started')
  const seqs = await Promise.all(calls)
  await st.close()
  parentPort.postMessage(seqs)
}

// `n` appends in flight; process.exit(0) once the 100th has settled.
async function exiting(n, path) {
  const st = await open(path)
  const sid = (await st.createSession('e', null, { id: 'exit-session' })).id
  for (let i = 0; i < n; i++) {
    const p = st.appendTranscript(sid, 'user', `m${i}`)
    if (i === 99) p.then(() => process.exit(0))
  }
  await new Promise(() => {})
}

if (!isMainThread) {
  await worker(workerData)
} else {
  const [scenario, n, path] = process.argv.slice(2)
  const f = { mixed, closing, stores, workers, exiting }[scenario]
  const r = await f(Number(n), path)
  process.stdout.write(JSON.stringify(r) + '\n')
}
