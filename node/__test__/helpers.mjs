import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'

// Tests run against the installed package (SESSIONDB_PKG = its directory),
// or the source tree when run by hand with `npm test`.
const require = createRequire(import.meta.url)
export const sdb = require(process.env.SESSIONDB_PKG || '..')

export const KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i))
export const OTHER_KEY = Buffer.alloc(32, 7)

export function tempDb() {
  const dir = mkdtempSync(join(tmpdir(), 'sessiondb-node-'))
  return join(dir, 'state', 'sessions.db')
}

export async function openTemp(extra = {}) {
  return sdb.SessionStore.open({ path: tempDb(), key: KEY, ...extra })
}

export class MemoryKeyProvider {
  constructor(key = null) {
    this.key = key
    this.gets = 0
    this.sets = 0
  }
  getKey() {
    this.gets++
    return this.key
  }
  setKey(key) {
    this.sets++
    this.key = Buffer.from(key)
  }
}

/**
 * Run the first ```js block of docs/DOC (e.g. 'search.md') with `SessionStore`,
 * a fresh `DB_PATH`, `KEY` and a `console.log` that collects lines (objects as
 * JSON); the block's `store` is closed after it. Returns the lines.
 */
export async function runDocBlock(doc) {
  const { readFileSync } = await import('node:fs')
  const { fileURLToPath } = await import('node:url')
  const root = process.env.SESSIONDB_REPO || fileURLToPath(new URL('../..', import.meta.url))
  const code = /^```js\n([\s\S]*?)^```$/m.exec(readFileSync(`${root}/docs/${doc}`, 'utf8'))[1]
  const lines = []
  const log = (...args) => lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '))
  const AsyncFunction = (async () => {}).constructor
  const run = new AsyncFunction('SessionStore', 'DB_PATH', 'KEY', 'console', code + '\nawait store.close()')
  await run(sdb.SessionStore, tempDb(), KEY, { log })
  return lines
}
