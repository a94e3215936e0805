import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawn } from 'node:child_process'
import { sdb, KEY, OTHER_KEY, tempDb, MemoryKeyProvider, openTemp } from './helpers.mjs'

test('every core error kind has its Error subclass with its code', () => {
  const kinds = sdb.errorKinds()
  const names = {
    RecoveryLocked: 'RecoveryLockedError', KeyMismatch: 'KeyMismatchError', KeyStoreUnavailable: 'KeyStoreUnavailableError',
    NotFound: 'NotFoundError', Conflict: 'ConflictError', AuthenticationFailed: 'AuthenticationError', Corrupt: 'CorruptError',
    Busy: 'BusyError', InvalidInput: 'InvalidInputError', Io: 'IoError', Database: 'DatabaseError',
    ContextOverflow: 'ContextOverflowError', Closed: 'ClosedError',
  }
  assert.deepEqual(kinds.map((k) => k.name), Object.keys(names))
  for (const { name, code } of kinds) {
    const cls = sdb[names[name]]
    assert.equal(cls.code, code)
    const e = new cls('m')
    assert.ok(e instanceof sdb.SessionDBError && e instanceof Error)
    assert.deepEqual([e.code, e.kind, e.name], [code, name, names[name]])
  }
})

test('NotFound with its exact message', async () => {
  const st = await sdb.SessionStore.open({ path: tempDb(), key: KEY })
  const e = await st.getSession('missing-id').catch((x) => x)
  assert.ok(e instanceof sdb.NotFoundError)
  assert.equal(e.message, 'not found: session `missing-id`')
  assert.equal(e.code, 'ERR_NOT_FOUND')
  await st.close()
})

test('a wrong key is KeyMismatchError', async () => {
  const path = tempDb()
  await (await sdb.SessionStore.open({ path, key: KEY })).close()
  const e = await sdb.SessionStore.open({ path, key: OTHER_KEY }).catch((x) => x)
  assert.ok(e instanceof sdb.KeyMismatchError)
  assert.deepEqual([e.code, e.backend], ['ERR_KEY_MISMATCH', 'host-provided key bytes'])
})

test('a provider without a key for an existing database is RecoveryLockedError, and no key is written', async () => {
  const path = tempDb()
  await (await sdb.SessionStore.open({ path, key: KEY })).close()
  const p = new MemoryKeyProvider(null)
  const e = await sdb.SessionStore.open({ path, keyProvider: p }).catch((x) => x)
  assert.ok(e instanceof sdb.RecoveryLockedError, String(e))
  assert.equal(e.code, 'ERR_RECOVERY_LOCKED')
  assert.deepEqual([p.gets, p.sets], [1, 0])
})

test('invalid input: short key, key and provider together', async () => {
  await assert.rejects(sdb.SessionStore.open({ path: tempDb(), key: Buffer.alloc(5) }), (e) => e instanceof sdb.InvalidInputError && e.message === "invalid input: key: 5 bytes, neither the 32-byte data key nor its base64 text (a key file's content)")
  await assert.rejects(sdb.SessionStore.open({ path: tempDb(), key: KEY, keyProvider: new MemoryKeyProvider() }), sdb.InvalidInputError)
})

test('not a database is CorruptError; a path under a file is IoError', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sessiondb-node-'))
  writeFileSync(join(dir, 'junk.db'), Buffer.alloc(4096, 'x'))
  await assert.rejects(sdb.SessionStore.open({ path: join(dir, 'junk.db'), key: KEY }), sdb.CorruptError)
  writeFileSync(join(dir, 'file'), 'x')
  const e = await sdb.SessionStore.open({ path: join(dir, 'file', 'sub', 's.db'), key: KEY }).catch((x) => x)
  assert.ok(e instanceof sdb.IoError, String(e))
  assert.equal(e.code, 'ERR_IO')
})

test('a key provider that throws is KeyStoreUnavailableError naming it', async () => {
  const path = tempDb()
  const locked = { getKey() { throw new Error('keychain locked') }, setKey() {}, backendName: 'Test Vault' }
  const e = await sdb.SessionStore.open({ path, keyProvider: locked }).catch((x) => x)
  assert.ok(e instanceof sdb.KeyStoreUnavailableError, String(e))
  assert.equal(e.backend, 'Test Vault')
  assert.match(e.message, /getKey\(\) threw: keychain locked/)
})

test('busy: another process holds the write lock past busyTimeoutMs', async (t) => {
  const path = tempDb()
  const st = await sdb.SessionStore.open({ path, key: KEY, busyTimeoutMs: 50 })
  const s = await st.createSession('busy')
  // Another process (POSIX locks do not separate two SQLite copies in one process).
  const holder = spawn('python3', ['-c', [
    'import sqlite3, sys',
    'c = sqlite3.connect(sys.argv[1], isolation_level=None)',
    'c.execute("BEGIN IMMEDIATE")',
    'print("locked", flush=True)',
    'sys.stdin.readline()',
    'c.execute("ROLLBACK")',
  ].join('\n'), path], { stdio: ['pipe', 'pipe', 'inherit'] })
  const ready = await new Promise((res) => {
    holder.stdout.once('data', (d) => res(String(d).trim()))
    holder.once('error', () => res('no python3'))
    holder.once('exit', () => res('exited'))
  })
  if (ready !== 'locked') {
    await st.close()
    t.skip(`cannot hold the lock from another process: ${ready}`)
    return
  }
  try {
    const e = await st.appendTranscript(s.id, 'user', 'x').catch((x) => x)
    assert.ok(e instanceof sdb.BusyError, String(e))
    assert.deepEqual([e.code, e.timeoutMs], ['ERR_BUSY', 50])
  } finally {
    holder.stdin.write('go\n')
    await new Promise((res) => holder.once('exit', res))
  }
  assert.equal((await st.appendTranscript(s.id, 'user', 'x')).seq, 1)
  await st.close()
})

test('ContextOverflowError carries the breakdown', () => {
  const items = [{ seq: 1, role: 'system', kind: 'system', tokens: 2000, text: 'sys' }]
  const e = (() => { try { sdb.compactContext(items, 1000) } catch (x) { return x } })()
  assert.ok(e instanceof sdb.ContextOverflowError, String(e))
  assert.deepEqual([e.code, e.capacity, e.system, e.pinned, e.recent, e.toolResults, e.other, e.protectedTotal],
    ['ERR_CONTEXT_OVERFLOW', 1000, 2000, 0, 0, 0, 0, 2000])
  assert.equal(e.remedies[0], 'Shorten the system prompt (system: 2000 tokens).')
})

// Every module function whose declaration returns a Promise is wrapped as one
// (index.js ASYNC_FUNCTIONS): a bad argument rejects with a SessionDBError
// subclass and never throws synchronously (detectFormat was missing from the
// list and rejected with a plain Error).
test('every Promise-returning module function rejects with typed errors, never throws', async () => {
  const { readFileSync } = await import('node:fs')
  const dts = readFileSync(join(process.env.SESSIONDB_PKG || '..', 'native.d.ts'), 'utf8')
  const names = [...dts.matchAll(/^export declare function (\w+)\(.*\): Promise</gm)].map((m) => m[1])
  assert.deepEqual(names.sort(), ['_benchCore', '_importRecoveryKey', 'canonicalWorkspace', 'decryptField', 'detectFormat', 'encryptField', 'workspaceIndex'])
  // `_importRecoveryKey` is exported as `importRecoveryKey` (index.js binds its key provider).
  assert.equal(sdb._importRecoveryKey, undefined)
  for (const name of names.map((n) => (n === '_importRecoveryKey' ? 'importRecoveryKey' : n))) {
    let p
    assert.doesNotThrow(() => {
      p = sdb[name](123)
    }, name)
    await assert.rejects(p, sdb.SessionDBError, name)
  }
})

test('numbers are checked, never truncated, zeroed or wrapped', async () => {
  const st = await openTemp()
  const s = await st.createSession('n')
  await st.appendTranscript(s.id, 'user', 'one')
  await st.appendTranscript(s.id, 'user', 'two')
  const bad = async (p, re) => {
    await assert.rejects(p, (e) => e instanceof sdb.InvalidInputError && re.test(e.message))
  }
  // napi's own conversion made 1.5 seq 1, NaN 0 and 2**32 + 3 a limit of 3.
  await bad(async () => st.retractEntry(s.id, 1.5), /seq must be a whole number of at most 2\^53 - 1, not 1.5/)
  await bad(async () => st.forkSession(s.id, NaN), /atSeq must be a whole number/)
  await bad(async () => st.listSessions(-1), /limit is out of range: -1/)
  await bad(async () => st.getTranscriptTailWithMeta(s.id, 2 ** 32 + 3), /limit is out of range: 4294967299/)
  await bad(async () => st.getTranscript(s.id, Infinity), /fromSeq must be a whole number/)
  await bad(async () => st.getEntryItems(s.id, 1, 0.5), /limit must be a whole number/)
  assert.throws(() => sdb.compactContext([], 1000, 300), (e) => e instanceof sdb.InvalidInputError && /targetPercent is out of range: 300/.test(e.message))
  // Options numbers too (napi's u32 made 1.5 one turn and -1 4294967295 turns).
  assert.throws(() => sdb.compactContext([], 1000, 50, { recentUserTurns: 1.5 }), (e) => e instanceof sdb.InvalidInputError && e.message === 'invalid input: recentUserTurns must be a whole number of at most 2^53 - 1, not 1.5')
  assert.throws(() => sdb.compactContext([], 1000, 50, { recentUserTurns: -1 }), (e) => e instanceof sdb.InvalidInputError && e.message === 'invalid input: recentUserTurns is out of range: -1')
  // Open options too (napi's u32 made busyTimeoutMs 1.5 one ms).
  await bad(async () => sdb.SessionStore.open({ path: tempDb(), key: KEY, busyTimeoutMs: 1.5 }), /^invalid input: busyTimeoutMs must be a whole number of at most 2\^53 - 1, not 1.5$/)
  // createSession's options (napi's i64 made createdAtMs 1.5 one ms).
  await bad(async () => st.createSession('c', null, { createdAtMs: 1.5 }), /^invalid input: createdAtMs must be a whole number of at most 2\^53 - 1, not 1.5$/)
  await bad(async () => st.createSession('c', null, { forkedAtSeq: -1 }), /^invalid input: forkedAtSeq is out of range: -1$/)
  // Nothing was retracted, forked or created by the refused calls.
  assert.deepEqual((await st.getTranscript(s.id)).map((e) => e.content), ['one', 'two'])
  assert.equal((await st.listSessions()).length, 1)
  assert.equal((await st.createSession('c', null, { createdAtMs: 1000, id: 'c1' })).createdAtMs, 1000)
  // Whole numbers still work, including the largest safe one as a seq.
  assert.equal((await st.getTranscript(s.id, 2)).length, 1)
  assert.deepEqual(await st.getTranscript(s.id, Number.MAX_SAFE_INTEGER), [])
  await st.close()
})

test('records built by callers: left-out fields take their defaults, bad names are refused when passed in', async () => {
  // NewEntry and ContextItem are generated from bridge/api.rs.
  const st = await openTemp()
  const s = await st.createSession('built')
  const [e] = await st.appendEntries(s.id, [{ role: 'user', content: 'hi' }])
  assert.deepEqual([e.seq, e.format, e.tokens, e.sourceLine], [1, 'text', undefined, undefined])
  const bad = await st.appendEntries(s.id, [{ role: 'user', content: 'x' }, { role: 'robot', content: 'y' }]).catch((x) => x)
  assert.ok(bad instanceof sdb.InvalidInputError)
  assert.equal(bad.message, 'invalid input: role must be one of user, assistant, tool, system')
  const fmt = await st.appendEntries(s.id, [{ role: 'user', content: 'x', format: 'html' }]).catch((x) => x)
  assert.equal(fmt.message, 'invalid input: content format must be `text` or `blocks`')
  assert.equal((await st.getSession(s.id)).entryCount, 1)
  const kind = (() => { try { sdb.summarizeItem({ seq: 1, role: 'user', kind: 'note', tokens: 3 }) } catch (x) { return x } })()
  assert.ok(kind instanceof sdb.InvalidInputError)
  assert.equal(kind.message, 'invalid input: kind is not one of its known values ("note")')
  const [item] = sdb.applyCompaction({ capacity: 10, targetPercent: 70, targetTokens: 7, tokensBefore: 3, tokensAfter: 3, reachedTarget: true, transformations: [], compactedSeqs: [] }, [{ seq: 1, role: 'user', kind: 'message', tokens: 3 }])
  assert.deepEqual(item, { seq: 1, role: 'user', kind: 'message', tokens: 3, pinned: false, text: '', callIds: [], compacted: false })
  await st.close()
})

test('numbers inside records are checked like parameters, and invalid states are refused (red-team pass)', async () => {
  const st = await openTemp()
  const s = await st.createSession('nums')
  const bad = async (p, msg) => {
    const e = await p.catch((x) => x)
    assert.ok(e instanceof sdb.InvalidInputError, String(e))
    assert.equal(e.message, msg)
  }
  await bad(st.appendEntries(s.id, [{ role: 'user', content: 'x', tokens: NaN }]), 'invalid input: tokens must be a whole number of at most 2^53 - 1, not NaN')
  await bad(st.appendEntries(s.id, [{ role: 'user', content: 'x', createdAtMs: 1.5 }]), 'invalid input: createdAtMs must be a whole number of at most 2^53 - 1, not 1.5')
  await bad(st.recordTokens(s.id, { input: 1.5 }), 'invalid input: input must be a whole number of at most 2^53 - 1, not 1.5')
  await bad(st.recordTokens(s.id, { input: 1, output: -1 }), 'invalid input: output is out of range: -1')
  assert.equal((await st.getSession(s.id)).entryCount, 0)
  assert.deepEqual(await st.tokenTotals(s.id), { input: 0, output: 0, cached: 0 })
  await st.appendEntries(s.id, Array.from({ length: 12 }, (_, i) => ({ role: 'user', content: `t${i + 1}` })))
  const t = (seq, lastSeq) => ({ seq, lastSeq, action: 'summarized', tokensBefore: 5, tokensAfter: 1, summary: 'S' })
  const plan = (transformations, targetPercent = 70) => ({ capacity: 100, targetPercent, targetTokens: 70, tokensBefore: 0, tokensAfter: 0, reachedTarget: true, transformations, compactedSeqs: [] })
  await bad(st.recordCompaction(s.id, plan([t(1, 10), t(5, 12)])), 'invalid input: compaction of seq 5 must come after seq 10 (transformations are ascending and do not overlap)')
  await bad(st.recordCompaction(s.id, plan([t(1, 2)], 101)), 'invalid input: target_percent 101 is above 100')
  await bad(st.recordCompaction(s.id, plan([t(1, 2)], 256)), 'invalid input: targetPercent is out of range: 256')
  assert.deepEqual(await st.listContextExtensions(s.id), [])
  const G = (compacted) => ({ pinned: [], excluded: [], history: [], compacted })
  const refused = (f, msg) => {
    let e
    try { f() } catch (x) { e = x }
    assert.ok(e instanceof sdb.InvalidInputError, String(e))
    assert.equal(e.message, msg)
  }
  const runs = [{ firstSeq: 11, lastSeq: 15, transformation: t(11, 15) }, { firstSeq: 1, lastSeq: 5, transformation: t(1, 5) }]
  const outOfOrder = 'invalid input: compacted run 1..=5 (transformation 1..=5) must come after the previous run (runs are ascending and do not overlap)'
  refused(() => sdb.governanceTurns(G(runs), 20), outOfOrder)
  const entries = await st.getTranscript(s.id)
  refused(() => sdb.activeContextItems(entries, G(runs), ''), outOfOrder)
  refused(() => sdb.governanceTurns(G([{ firstSeq: 0.5, lastSeq: 2, transformation: t(1, 5) }]), 3), 'invalid input: firstSeq must be a whole number of at most 2^53 - 1, not 0.5')
  // A key Buffer where a string belongs: the message names the type, never the bytes.
  const e = (() => { try { sdb.parseRecoveryKey(KEY) } catch (x) { return x } })()
  assert.ok(e instanceof sdb.InvalidInputError)
  assert.equal(e.message, 'invalid input: Failed to convert JavaScript value into rust type `String`')
  assert.ok(!e.stack.includes('"data"'), e.stack)
  await st.close()
})
