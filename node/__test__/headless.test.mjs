// A machine with no keyring (issue 27 items 1 and 2): no D-Bus session bus
// and a fresh HOME, as a container, CI job or SSH session has. The README's
// example and the Agents SDK switch run as written: the first open creates
// the key in ~/.config/sessiondb/keys/ and says so once on stderr; later runs
// find it. The key is taken as bytes or as a key file's base64 text; anything
// else is InvalidInputError.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sdb, KEY, tempDb } from './helpers.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = process.env.SESSIONDB_REPO || join(HERE, '..', '..')

/** This process's environment without D-Bus, XDG overrides or sessiondb settings; HOME in a fresh directory. */
function headless() {
  const base = mkdtempSync(join(tmpdir(), 'sessiondb-headless-'))
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k !== 'DBUS_SESSION_BUS_ADDRESS' && !k.startsWith('XDG_') && !k.startsWith('SESSIONDB_') || k === 'SESSIONDB_PKG'),
  )
  mkdirSync(join(base, 'home'))
  mkdirSync(join(base, 'run'))
  return { base, home: join(base, 'home'), env: { ...env, HOME: join(base, 'home'), XDG_RUNTIME_DIR: join(base, 'run') } }
}

function keyFiles(home) {
  const dir = join(home, '.config', 'sessiondb', 'keys')
  return existsSync(dir) ? readdirSync(dir).map((f) => join(dir, f)) : []
}

function warning(keyFile) {
  return (
    `sessiondb: warning: no OS keyring is reachable, so the data key of this new database is in the key file ${keyFile} (mode 0600). ` +
    'Back it up (`sessiondb key export`): without it the sessions are lost. SESSIONDB_NO_KEY_FILE=1 turns this off.\n'
  )
}

/** Run `code` as an ES module beside the package's node_modules (so `sessiondb` resolves). */
function runModule(code, env, cwd) {
  const dir = mkdtempSync(join(HERE, '..', '.headless-'))
  try {
    writeFileSync(join(dir, 'main.mjs'), code)
    return spawnSync(process.execPath, [join(dir, 'main.mjs')], { encoding: 'utf8', cwd, env })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function readmeExample() {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const blocks = [...text.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]).filter((b) => b.startsWith('// example.mjs'))
  assert.equal(blocks.length, 1, "the README's Node example (a block starting `// example.mjs`)")
  return blocks[0]
}

test('the README Node example runs as written without a keyring', () => {
  const { base, home, env } = headless()
  const work = join(base, 'work')
  mkdirSync(work)
  const r = runModule(readmeExample(), env, work)
  assert.equal(r.status, 0, r.stderr)
  assert.equal(r.stdout, '1 user Rename the login handler\n2 assistant Done.\nCtx 0% green\n')
  const files = keyFiles(home)
  assert.equal(files.length, 1)
  assert.equal(r.stderr, warning(files[0]))
  assert.equal(statSync(files[0]).mode & 0o777, 0o600)
  // The second run: no warning, the same key.
  const again = runModule(readmeExample() + "\nconsole.log((await (await sdb.SessionStore.open()).listSessions()).length)\n", env, work)
  assert.deepEqual([again.status, again.stderr], [0, ''])
  assert.ok(again.stdout.endsWith('\n2\n'), again.stdout)
  assert.deepEqual(keyFiles(home), files)
  rmSync(base, { recursive: true, force: true })
})

const AGENTS_SWITCH = `
import { SessionDBSession } from 'sessiondb/agents'
const session = new SessionDBSession({ sessionId: 'user-123', path: 'c.db' })
await session.addItems([{ role: 'user', content: 'hi' }])
console.log((await session.getItems()).length, (await session.store()).keyBackend)
await session.close()
`

test('the Agents SDK switch runs without a keyring, and the key file opens the database as a string or a Buffer', async () => {
  const { base, home, env } = headless()
  let r = runModule(AGENTS_SWITCH, env, base)
  assert.equal(r.status, 0, r.stderr)
  assert.equal(r.stdout, '1 file\n')
  const files = keyFiles(home)
  assert.equal(files.length, 1)
  assert.equal(r.stderr, warning(files[0]))
  r = runModule(AGENTS_SWITCH, env, base)
  assert.deepEqual([r.status, r.stdout, r.stderr], [0, '2 file\n', ''])
  const text = readFileSync(files[0], 'utf8')
  for (const key of [text, text.trim(), readFileSync(files[0]), Buffer.from(text.trim(), 'base64'), new Uint8Array(Buffer.from(text.trim(), 'base64'))]) {
    const st = await sdb.SessionStore.open({ path: join(base, 'c.db'), key })
    assert.deepEqual((await st.listSessions()).map((s) => s.id), ['user-123'])
    await st.close()
  }
  rmSync(base, { recursive: true, force: true })
})

test('with SESSIONDB_NO_KEY_FILE=1 the error is short and names what to do', () => {
  const { base, home, env } = headless()
  const r = runModule(
    "import sdb from 'sessiondb'\ntry { await sdb.SessionStore.open({ path: 'c.db' }) } catch (e) { console.log(e.code); console.log(e.message) }\n",
    { ...env, SESSIONDB_NO_KEY_FILE: '1' },
    base,
  )
  assert.equal(r.status, 0, r.stderr)
  assert.equal(
    r.stdout,
    'ERR_KEY_STORE_UNAVAILABLE\nkey store unavailable: Secret Service (D-Bus): not running (no D-Bus session bus: a container, server, CI job or SSH session). ' +
      'Pass the key yourself (CLI --key-file FILE, made by `sessiondb key init --file FILE`; hosts: the `key` option), or allow the key file (unset SESSIONDB_NO_KEY_FILE)\n',
  )
  assert.deepEqual([existsSync(join(base, 'c.db')), keyFiles(home)], [false, []])
  rmSync(base, { recursive: true, force: true })
})

test('the key as base64 text of a key file, with its newline', async () => {
  const path = tempDb()
  let st = await sdb.SessionStore.open({ path, key: KEY })
  const sid = (await st.createSession('k')).id
  await st.close()
  for (const key of [KEY.toString('base64'), KEY.toString('base64') + '\n', Buffer.from(KEY.toString('base64') + '\n')]) {
    st = await sdb.SessionStore.open({ path, key })
    assert.equal((await st.getSession(sid)).name, 'k')
    assert.equal(st.keyBackend, 'host-provided key bytes')
    await st.close()
  }
})

test('any other key is InvalidInputError naming what is wrong', async () => {
  const cases = [
    ['not a key!', 'invalid input: key: not the base64 text of a data key (10 characters; a key file holds 44 characters of base64 and a newline) and not 32 bytes'],
    [KEY.toString('base64').slice(0, 40), 'invalid input: key: base64 of 30 bytes, a data key is 32 bytes (44 characters of base64)'],
    [KEY.subarray(0, 31), "invalid input: key: 31 bytes, neither the 32-byte data key nor its base64 text (a key file's content)"],
  ]
  for (const [key, message] of cases) {
    const path = tempDb()
    await assert.rejects(sdb.SessionStore.open({ path, key }), (e) => e instanceof sdb.InvalidInputError && e.message === message)
    assert.equal(existsSync(path), false)
  }
  for (const key of [123, { a: 1 }, [1, 2]]) {
    await assert.rejects(sdb.SessionStore.open({ path: tempDb(), key }), (e) => e instanceof sdb.InvalidInputError && e.code === 'ERR_INVALID_INPUT' && e.message === 'invalid input: key: expected a Buffer or Uint8Array (the 32-byte data key) or a string (the base64 text of a key file)')
  }
})
