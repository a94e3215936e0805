// The indicator's logic (src/status.ts) against the real sessiondb package,
// under plain Node (VS Code itself cannot run here). 128,000-token window:
// Effective Context Capacity 115,200 (seed 000); N = floor(100 x active / 115,200).

import { test } from 'node:test'
import * as assert from 'node:assert/strict'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { InvalidInputError, SessionStore } from 'sessiondb'
import { BAND_STYLES, errorView, noSessionView, workspaceMeter } from '../src/status'

const settings = { rawContextWindow: 128000, outputReserve: null }

async function freshStore(): Promise<{ store: SessionStore; workspace: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdb-vscode-'))
  const workspace = path.join(dir, 'project')
  fs.mkdirSync(workspace)
  const store = await SessionStore.open({ path: path.join(dir, 'sessions.db'), key: Buffer.alloc(32, 3) })
  return { store, workspace }
}

test('a workspace without a session shows Ctx -', async () => {
  const { store, workspace } = await freshStore()
  assert.deepEqual(await workspaceMeter(store, workspace, settings), noSessionView(workspace))
  assert.deepEqual(await workspaceMeter(store, null, settings), { text: 'Ctx -', tooltip: 'sessiondb: no folder is open', band: null, sessionId: null })
  await store.close()
})

test('the most recent session of the workspace is measured, with the band of its percentage', async () => {
  const { store, workspace } = await freshStore()
  const older = await store.createSession('older', workspace)
  await store.appendEntries(older.id, [{ role: 'user', content: 'old', tokens: 1000 }])
  const other = await store.createSession('elsewhere', path.join(workspace, '..'))
  await store.appendEntries(other.id, [{ role: 'user', content: 'x', tokens: 115200 }])
  const latest = await store.createSession('latest', workspace)
  // 80,640 tokens = 70% of 115,200: the first amber percentage.
  await store.appendEntries(latest.id, [{ role: 'user', content: 'hello', tokens: 80000 }, { role: 'assistant', content: 'hi', tokens: 640 }])
  const view = await workspaceMeter(store, workspace, settings)
  assert.deepEqual(view, {
    text: 'Ctx 70%',
    tooltip: 'latest: 80,640 of 115,200 tokens of Effective Context Capacity (amber)',
    band: 'amber',
    sessionId: latest.id,
  })
  assert.deepEqual(BAND_STYLES[view.band!], { color: 'charts.yellow', background: null })
  await store.close()
})

test('bands follow the seed: 69% green, 85% orange, 95% red, over 100% overflow', async () => {
  const { store, workspace } = await freshStore()
  const s = await store.createSession('meter', workspace)
  const seen: string[] = []
  // Cumulative tokens: 79,488 (69%), 97,920 (85%), 109,440 (95%), 126,720 (110%).
  for (const add of [79488, 18432, 11520, 17280]) {
    await store.appendEntries(s.id, [{ role: 'user', content: 'turn', tokens: add }])
    const v = await workspaceMeter(store, workspace, settings)
    seen.push(`${v.text} ${v.band}`)
  }
  assert.deepEqual(seen, ['Ctx 69% green', 'Ctx 85% orange', 'Ctx 95% red', 'Ctx 110% red'])
  const over = await workspaceMeter(store, workspace, settings)
  assert.match(over.tooltip, /Over capacity/)
  await store.close()
})

test('a bad window rejects with the typed error, which the item shows as Ctx ?', async () => {
  const { store, workspace } = await freshStore()
  await store.createSession('s', workspace)
  const err = await workspaceMeter(store, workspace, { rawContextWindow: -1, outputReserve: null }).then(() => null, (e: unknown) => e)
  assert.ok(err instanceof InvalidInputError, String(err))
  const view = errorView(err)
  assert.equal(view.text, 'Ctx ?')
  assert.match(view.tooltip, /^sessiondb: InvalidInputError: /)
  await store.close()
})
