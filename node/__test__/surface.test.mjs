// The installed package against the one surface list (tests/api/surface.json,
// issue 11 item 4): every listed method is a function (or getter) on
// SessionStore, every listed function is exported, and the generated
// native.d.ts / index.d.ts declare each with the listed parameters, optional
// where the list has a default, and each record with its fields
// (tests/api/surface.py node). A missing method or field fails here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sdb } from './helpers.mjs'

const ROOT = process.env.SESSIONDB_REPO || join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const PKG = process.env.SESSIONDB_PKG || join(dirname(fileURLToPath(import.meta.url)), '..')
// The whole list: surface.json over what bridge/api.rs declares (tests/api/surface.py json).
const surface = JSON.parse(execFileSync('python3', [join(ROOT, 'tests', 'api', 'surface.py'), 'json'], { encoding: 'utf8' }))
const camel = (s) => s.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase())
const nodeName = (name, e) => (e.node && e.node.name) || camel(name)

test('every listed SessionStore method exists on the loaded class', () => {
  const proto = sdb.SessionStore.prototype
  const missing = []
  for (const [name, e] of Object.entries(surface.methods)) {
    if (e.node === null) continue
    const n = nodeName(name, e)
    const d = Object.getOwnPropertyDescriptor(proto, n)
    const ok = n === 'open' ? typeof sdb.SessionStore.open === 'function' : d && (typeof d.value === 'function' || typeof d.get === 'function')
    if (!ok) missing.push(n)
  }
  assert.deepEqual(missing, [])
})

test('every listed function is exported', () => {
  const missing = Object.entries(surface.functions)
    .filter(([, e]) => e.node !== null)
    .map(([name, e]) => nodeName(name, e))
    .filter((n) => typeof sdb[n] !== 'function')
  assert.deepEqual(missing, [])
})

test('the .d.ts declares the listed parameters, optional ones and record fields', () => {
  const files = [join(PKG, 'native.d.ts'), join(PKG, 'index.d.ts')]
  const out = execFileSync('python3', [join(ROOT, 'tests', 'api', 'surface.py'), 'node', ...files], { encoding: 'utf8' })
  assert.match(out, /surface node: 0 difference/)
})

test('errors.js and errors.d.ts have every kind of the error declaration (bridge/api.rs), with its code and fields', () => {
  const out = execFileSync('python3', [join(ROOT, 'tests', 'api', 'surface.py'), 'errors'], { encoding: 'utf8' })
  assert.match(out, /surface errors: 0 difference/)
})
