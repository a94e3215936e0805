// The README's "With the OpenAI Agents SDK (JS)" snippet, run verbatim (issue 16 item 7).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = process.env.SESSIONDB_REPO || join(HERE, '..', '..')

function snippet(heading, lang) {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const at = text.indexOf(`\n### ${heading}\n`)
  assert.ok(at >= 0, `no heading ${heading}`)
  const m = new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'm').exec(text.slice(at))
  assert.ok(m, `no ${lang} block after ${heading}`)
  return m[1]
}

test('the README @openai/agents snippet runs verbatim, offline', () => {
  const code = snippet('With the OpenAI Agents SDK (JS)', 'js')
  assert.ok(code.split('\n').length <= 16)
  // Beside the app's (or the package's own) node_modules, so `sessiondb/agents` resolves.
  const dir = mkdtempSync(join(HERE, '..', '.readme-agents-'))
  try {
    writeFileSync(join(dir, 'snippet.mjs'), code)
    const r = spawnSync(process.execPath, [join(dir, 'snippet.mjs')], { encoding: 'utf8', cwd: dir })
    assert.deepEqual([r.status, r.stderr], [0, ''])
    assert.equal(r.stdout, "[ { role: 'assistant', content: 'lib.rs and main.rs' } ]\n{ role: 'assistant', content: 'lib.rs and main.rs' }\n1\n")
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
