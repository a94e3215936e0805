// The README's Node example (the default store, OS keyring) and node/README.md's
// first example (a key in hand), run as written (issue 27 item 5: every code
// block of the README and docs runs in a test; the block checker is
// cli/tests/doc_blocks.rs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = process.env.SESSIONDB_REPO || join(HERE, '..', '..')

/** The first `lang` block after `heading` in `doc`. */
function block(doc, heading, lang) {
  const text = '\n' + readFileSync(join(ROOT, doc), 'utf8')
  const at = text.indexOf(`\n${heading}\n`)
  assert.ok(at >= 0, `no heading ${heading} in ${doc}`)
  const m = new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'm').exec(text.slice(at))
  assert.ok(m, `no ${lang} block after ${heading} in ${doc}`)
  return m[1]
}

function onPath(cmd) {
  return (process.env.PATH || '').split(':').some((d) => existsSync(join(d, cmd)))
}

// Beside the app's (or the package's own) node_modules, so `sessiondb` resolves.
function scratch() {
  return mkdtempSync(join(HERE, '..', '.readme-examples-'))
}

test('the README Node example runs on the default store', (t) => {
  if (!onPath('gnome-keyring-daemon') || !onPath('dbus-daemon')) {
    t.skip('needs gnome-keyring-daemon and dbus-daemon (scripts/install-system-deps.sh) for the OS keyring')
    return
  }
  const dir = scratch()
  try {
    writeFileSync(join(dir, 'example.mjs'), block('README.md', '## Node', 'js'))
    mkdirSync(join(dir, 'home'))
    const env = { ...process.env, HOME: join(dir, 'home'), XDG_STATE_HOME: join(dir, 'state') }
    const r = spawnSync(join(ROOT, 'scripts/with-secret-service.sh'), ['--unlocked', process.execPath, 'example.mjs'], { encoding: 'utf8', cwd: dir, env })
    assert.equal(r.status, 0, r.stderr)
    assert.equal(r.stdout, '1 user Rename the login handler\n2 assistant Done.\nCtx 0% green\n')
    assert.ok(existsSync(join(dir, 'state/sessiondb/sessions.db')))
    assert.match(readFileSync(join(dir, 'session.jsonl'), 'utf8'), /"text":"Rename the login handler"/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the package README example runs with a key in hand', () => {
  const dir = scratch()
  try {
    writeFileSync(join(dir, 'example.mjs'), block('node/README.md', '# sessiondb (Node)', 'js'))
    const r = spawnSync(process.execPath, ['example.mjs'], { encoding: 'utf8', cwd: dir })
    assert.deepEqual([r.status, r.stderr], [0, ''])
    assert.equal(r.stdout, 'Ctx 0%\n')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
