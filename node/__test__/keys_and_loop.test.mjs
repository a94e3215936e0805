import { test } from 'node:test'
import assert from 'node:assert/strict'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { sdb, KEY, tempDb, openTemp, MemoryKeyProvider } from './helpers.mjs'

test('a key provider object creates, then reuses the key', async () => {
  const path = tempDb()
  const p = new MemoryKeyProvider()
  let st = await sdb.SessionStore.open({ path, keyProvider: p })
  assert.equal(st.keyBackend, 'JS key provider MemoryKeyProvider')
  const sid = (await st.createSession('kp')).id
  await st.close()
  assert.deepEqual([p.gets, p.sets], [1, 1])
  assert.ok(Buffer.isBuffer(p.key) && p.key.length === 32)
  st = await sdb.SessionStore.open({ path, keyProvider: p })
  assert.equal((await st.getSession(sid)).name, 'kp')
  await st.close()
  assert.deepEqual([p.gets, p.sets], [2, 1])
  st = await sdb.SessionStore.open({ path, key: p.key })
  assert.equal((await st.getSession(sid)).name, 'kp')
  await st.close()
})

test('the event loop is not blocked while the core works', async () => {
  const st = await openTemp()
  const s = await st.createSession('loop')
  const big = 'x'.repeat(64 * 1024)
  let ticks = 0
  const timer = setInterval(() => ticks++, 1)
  const h = monitorEventLoopDelay({ resolution: 1 })
  h.enable()
  const t0 = performance.now()
  const writes = []
  for (let i = 0; i < 200; i++) writes.push(st.appendTranscript(s.id, 'user', big))
  await Promise.all(writes)
  let n = 0
  for await (const _ of st.iterTranscript(s.id, { pageSize: 20 })) n++
  const ms = performance.now() - t0
  h.disable()
  clearInterval(timer)
  assert.equal(n, 200)
  const maxMs = h.max / 1e6
  // The timer kept firing while 200 x 64 KiB were encrypted, written and read back.
  assert.ok(ticks >= Math.min(20, ms / 10), `only ${ticks} timer ticks in ${ms.toFixed(0)} ms`)
  // Blocking would show as one delay about as long as the whole run; the
  // bound leaves room for OS scheduling on a loaded 2-core CI machine.
  assert.ok(maxMs < Math.max(100, ms / 4), `max event-loop delay ${maxMs.toFixed(1)} ms over a ${ms.toFixed(0)} ms run`)
  await st.close()
})

test('concurrent promises on one store all land, gapless', async () => {
  const st = await openTemp()
  const s = await st.createSession('conc')
  await Promise.all(Array.from({ length: 100 }, (_, i) => st.appendTranscript(s.id, 'user', `m${i}`)))
  const seqs = (await st.getTranscript(s.id, 1, 1000)).map((e) => e.seq)
  assert.deepEqual(seqs, Array.from({ length: 100 }, (_, i) => i + 1))
  await st.close()
})

test('16 processes starting at once all succeed with one key (key bytes and a host key provider)', async () => {
  const { spawn } = await import('node:child_process')
  const { writeFileSync, readFileSync, mkdirSync } = await import('node:fs')
  const { dirname, join } = await import('node:path')
  const pkg = process.env.SESSIONDB_PKG || new URL('..', import.meta.url).pathname
  const child = `
    const sdb = require(${JSON.stringify(pkg)})
    const fs = require('node:fs')
    const [db, mode, keyfile, go] = process.argv.slice(1)
    const provider = {
      getKey() { try { const b = fs.readFileSync(keyfile); return b.length === 32 ? b : null } catch { return null } },
      setKey(k) { fs.writeFileSync(keyfile, Buffer.from(k)) },
    }
    ;(async () => {
      while (!fs.existsSync(go)) await new Promise((r) => setTimeout(r, 1))
      const opts = mode === 'bytes' ? { path: db, key: Buffer.from(Array.from({ length: 32 }, (_, i) => i)) } : { path: db, keyProvider: provider }
      const st = await sdb.SessionStore.open(opts)
      const s = await st.createSession(null)
      for (let i = 0; i < 10; i++) await st.appendTranscript(s.id, 'user', 'entry ' + i)
      await st.close()
      console.log('OK', s.id)
    })().catch((e) => { console.error(e.code, e.message); process.exit(3) })`
  const rounds = Number(process.env.SESSIONDB_STRESS_ROUNDS || 1)
  for (const mode of ['bytes', 'provider']) {
    for (let r = 0; r < rounds; r++) {
      const db = join(dirname(tempDb()), `r${r}`, 'sessions.db')
      mkdirSync(dirname(db), { recursive: true })
      const keyfile = db + '.key'
      for (const phase of ['fresh', 'existing']) {
        const go = `${db}.${phase}.go`
        const kids = Array.from({ length: 16 }, () => {
          const k = spawn(process.execPath, ['-e', child, db, mode, keyfile, go], { stdio: ['ignore', 'pipe', 'pipe'] })
          let err = ''
          k.stderr.on('data', (d) => { err += d })
          return new Promise((resolve) => k.on('close', (code) => resolve(code === 0 ? null : err.trim())))
        })
        writeFileSync(go, '')
        const failed = (await Promise.all(kids)).filter((x) => x !== null)
        assert.deepEqual(failed, [], `${mode} round ${r} ${phase}`)
      }
      const key = mode === 'bytes' ? KEY : readFileSync(keyfile)
      const st = await sdb.SessionStore.open({ path: db, key })
      const sessions = await st.listSessions()
      assert.equal(sessions.length, 32)
      assert.deepEqual([...new Set(sessions.map((s) => s.entryCount))], [10])
      await st.close()
    }
  }
})
