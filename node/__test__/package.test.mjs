// The package as installed: ESM and CommonJS entries, the platform package,
// and Promise-returning methods that never throw synchronously.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { sdb, openTemp } from './helpers.mjs'

const pkgDir = process.env.SESSIONDB_PKG
const require = createRequire(import.meta.url)

test('the ES module entry has the CommonJS entry as named and default exports', async () => {
  const esm = await import(pkgDir ? pathToFileURL(join(pkgDir, 'index.mjs')).href : '../index.mjs')
  const names = Object.keys(esm).filter((k) => k !== 'default').sort()
  assert.deepEqual(names, Object.keys(sdb).sort())
  for (const n of names) assert.equal(esm[n], sdb[n], n)
  assert.equal(esm.default, sdb)
})

test('the exports map resolves import, require and types', { skip: !pkgDir && 'needs the installed package' }, () => {
  const pkg = require(join(pkgDir, 'package.json'))
  assert.deepEqual(pkg.exports['.'], { types: './index.d.ts', import: './index.mjs', require: './index.js' })
  assert.deepEqual(pkg.optionalDependencies, { 'sessiondb-linux-x64-gnu': pkg.version })
  const plat = require(join(pkgDir, '..', 'sessiondb-linux-x64-gnu', 'package.json'))
  assert.deepEqual([plat.os, plat.cpu, plat.libc], [['linux'], ['x64'], ['glibc']])
})

test('promise-returning methods never throw synchronously: a bad argument rejects with InvalidInputError', async () => {
  const st = await openTemp()
  let returned
  assert.doesNotThrow(() => {
    returned = st.getSession(123)
  })
  assert.ok(returned instanceof Promise)
  await assert.rejects(returned, (e) => e instanceof sdb.InvalidInputError && e.code === 'ERR_INVALID_INPUT' && e.napiStatus === 'StringExpected')
  const sync = new Set(['constructor', 'path', 'instanceId', 'keyBackend', 'openRecoveryReport'])
  const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(st)).filter(
    (n) => !sync.has(n) && typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(st), n).value === 'function',
  )
  assert.ok(methods.length >= 35, `${methods.length} methods`)
  for (const name of methods.filter((n) => n !== 'iterTranscript' && n !== 'close')) {
    let p
    assert.doesNotThrow(() => {
      p = st[name](123, 123, 123, 123, 123, 123)
    }, name)
    assert.ok(p instanceof Promise, name)
    // Methods without arguments (stats, recover...) resolve; the others reject, typed.
    await p.then(
      () => {},
      (e) => assert.ok(e instanceof sdb.SessionDBError, `${name}: ${e}`),
    )
  }
  // The module's own Promise-returning functions and open() too.
  for (const f of [() => sdb.SessionStore.open({ path: 123, key: Buffer.alloc(32) }), () => sdb.canonicalWorkspace(123), () => sdb.encryptField(1, 2, 3)]) {
    let p
    assert.doesNotThrow(() => {
      p = f()
    })
    await assert.rejects(p, sdb.InvalidInputError)
  }
  // Synchronous functions still throw at once.
  assert.throws(() => sdb.meter('x', 1), sdb.InvalidInputError)
  await st.close()
})

test('without its platform package the error names the package to install', { skip: !pkgDir && 'needs the installed package' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'sessiondb-noplat-'))
  try {
    cpSync(pkgDir, join(dir, 'node_modules', 'sessiondb'), { recursive: true })
    assert.throws(
      () => require(join(dir, 'node_modules', 'sessiondb')),
      (e) => e.code === 'ERR_SESSIONDB_NATIVE_BINDING' && e.platformPackage === 'sessiondb-linux-x64-gnu' &&
        e.message.startsWith('sessiondb: the native binding for this platform could not be loaded: install `sessiondb-linux-x64-gnu`'),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
