// sessiondb/agents against the real @openai/agents package (installed by
// scripts/test-node.sh): its Runner with a fake model and a function tool,
// side by side with the SDK's own MemorySession, and the Session contract.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sdb, KEY, tempDb } from './helpers.mjs'

let sdk = null
try {
  sdk = await import('@openai/agents')
} catch {
  // not installed: the tests below are skipped (scripts/test-node.sh installs it)
}
const skip = !sdk && '@openai/agents is not installed (scripts/test-node.sh installs it)'
// The installed package's subpath export when tests run against it, else the source tree.
const { SessionDBSession, itemText, itemRole } = process.env.SESSIONDB_PKG ? await import('sessiondb/agents') : await import('../agents.mjs')

/** A Model that answers each request with the next scripted output and records the requests. */
class FakeModel {
  constructor(outputs) {
    this.outputs = outputs
    this.inputs = []
  }
  async getResponse(request) {
    this.inputs.push(structuredClone(request.input))
    return { usage: new sdk.Usage(), output: this.outputs.shift(), responseId: `resp_${this.inputs.length}` }
  }
  async *getStreamedResponse() {
    throw new Error('FakeModel does not stream')
  }
}

const USER1 = { type: 'message', role: 'user', content: 'Weather in Tokyo?' }
const CALL = { type: 'function_call', callId: 'c1', name: 'get_weather', arguments: '{"city":"Tokyo"}', status: 'completed' }
const RESULT = { type: 'function_call_result', name: 'get_weather', callId: 'c1', status: 'completed', output: { type: 'text', text: 'Sunny, 24 C in Tokyo' } }
const ANSWER1 = { type: 'message', role: 'assistant', status: 'completed', id: 'msg_1', content: [{ type: 'output_text', text: 'It is sunny in Tokyo (24 C).' }] }
const USER2 = { type: 'message', role: 'user', content: 'Thanks ✓ 日本' }
const ANSWER2 = { type: 'message', role: 'assistant', status: 'completed', id: 'msg_2', content: [{ type: 'output_text', text: 'You are welcome.' }] }

function scripted() {
  return new FakeModel([[{ ...CALL, id: 'fc_1' }], [ANSWER1], [ANSWER2]])
}

function agentWith(model) {
  const getWeather = sdk.tool({
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    strict: true,
    execute: async ({ city }) => `Sunny, 24 C in ${city}`,
  })
  return new sdk.Agent({ name: 'weather', instructions: 'Answer briefly.', model, tools: [getWeather] })
}

test('Runner.run over two turns with a function tool: exactly the items MemorySession keeps, each turn', { skip }, async () => {
  sdk.setTracingDisabled(true)
  const path = tempDb()
  const ours = new SessionDBSession({ sessionId: 'run-1', path, key: KEY })
  const theirs = new sdk.MemorySession({ sessionId: 'run-1' })
  const models = [scripted(), scripted()]
  const results = []
  for (const [i, session] of [ours, theirs].entries()) {
    const agent = agentWith(models[i])
    const r1 = await sdk.run(agent, 'Weather in Tokyo?', { session })
    const after1 = await session.getItems()
    const r2 = await sdk.run(agent, 'Thanks ✓ 日本', { session })
    results.push({ out: [r1.finalOutput, r2.finalOutput], after1, after2: await session.getItems() })
  }
  const [o, t] = results
  assert.deepEqual(o.out, ['It is sunny in Tokyo (24 C).', 'You are welcome.'])
  assert.deepEqual(o.after1, [USER1, CALL, RESULT, ANSWER1])
  assert.deepEqual(o.after2, [USER1, CALL, RESULT, ANSWER1, USER2, ANSWER2])
  assert.deepEqual(o, t)
  // The model saw the same history through either session.
  assert.deepEqual(models[0].inputs, models[1].inputs)
  assert.deepEqual(models[0].inputs[2], [USER1, CALL, RESULT, ANSWER1, USER2])
  // What is stored: each item's JSON whole as the structured item, its text as the content.
  const st = await ours.store()
  const rows = await st.getTranscriptWithMeta('run-1')
  assert.deepEqual(rows.map((r) => [r.entry.role, r.entry.content]), [
    ['user', 'Weather in Tokyo?'],
    ['assistant', 'get_weather({"city":"Tokyo"})'],
    ['tool', 'Sunny, 24 C in Tokyo'],
    ['assistant', 'It is sunny in Tokyo (24 C).'],
    ['user', 'Thanks ✓ 日本'],
    ['assistant', 'You are welcome.'],
  ])
  assert.deepEqual(rows.map((r) => r.meta.item), [USER1, CALL, RESULT, ANSWER1, USER2, ANSWER2].map((x) => JSON.stringify(x)))
  await ours.close()
  const raw = Buffer.concat([readFileSync(path), ...(() => { try { return [readFileSync(path + '-wal')] } catch { return [] } })()])
  for (const canary of ['Sunny, 24 C', 'get_weather', 'function_call_result', 'You are welcome']) assert.equal(raw.includes(canary), false, canary)
})

test('the Session contract: getSessionId, getItems(limit), popItem, clearSession, as MemorySession', { skip }, async () => {
  const ours = new SessionDBSession({ sessionId: 'c-1', path: tempDb(), key: KEY })
  const theirs = new sdk.MemorySession({ sessionId: 'c-1' })
  const items = [USER1, CALL, RESULT, ANSWER1, USER2]
  for (const s of [ours, theirs]) {
    assert.equal(await s.getSessionId(), 'c-1')
    assert.deepEqual(await s.getItems(), [])
    assert.equal(await s.popItem(), undefined)
    await s.addItems([])
    await s.addItems(items.slice(0, 3))
    await s.addItems(items.slice(3))
  }
  for (const limit of [undefined, 0, -1, 1, 2, 5, 9]) {
    assert.deepEqual(await ours.getItems(limit), await theirs.getItems(limit), `limit ${limit}`)
  }
  assert.deepEqual(await ours.getItems(2), [ANSWER1, USER2])
  assert.deepEqual(await ours.popItem(), USER2)
  assert.deepEqual(await theirs.popItem(), USER2)
  assert.deepEqual(await ours.getItems(), [USER1, CALL, RESULT, ANSWER1])
  // Popped = retracted: still stored, out of reads and counts, in the journal.
  const st = await ours.store()
  assert.equal((await st.getSession('c-1')).entryCount, 4)
  assert.equal((await st.journalEvents('c-1')).filter((e) => e.kind === 'EntryRetracted').length, 1)
  await ours.clearSession()
  await theirs.clearSession()
  assert.deepEqual(await ours.getItems(), [])
  assert.deepEqual(await theirs.getItems(), [])
  assert.equal(await ours.popItem(), undefined)
  await ours.clearSession() // nothing to clear: no error
  await ours.addItems([USER1])
  assert.deepEqual(await ours.getItems(), [USER1])
  await ours.close()
})

test('two sessions on one store, driven at once, keep their own items; a default id is a UUID', async () => {
  const store = await sdb.SessionStore.open({ path: tempDb(), key: KEY })
  const a = new SessionDBSession({ sessionId: 'a', store })
  const b = new SessionDBSession({ sessionId: 'b', store: Promise.resolve(store) })
  const n = 40
  await Promise.all([
    ...Array.from({ length: n }, (_, i) => a.addItems([{ role: 'user', content: `a${i}` }])),
    ...Array.from({ length: n }, (_, i) => b.addItems([{ role: 'assistant', content: `b${i}` }])),
  ])
  // Calls on one instance run in order; the two instances interleave.
  assert.deepEqual(await a.getItems(), Array.from({ length: n }, (_, i) => ({ role: 'user', content: `a${i}` })))
  assert.deepEqual(await b.getItems(3), [37, 38, 39].map((i) => ({ role: 'assistant', content: `b${i}` })))
  await a.close() // a shared store stays open
  assert.equal((await store.getSession('b')).entryCount, n)
  assert.match(await new SessionDBSession({ store }).getSessionId(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  assert.throws(() => new SessionDBSession({ store, window: 0 }), sdb.InvalidInputError)
  await store.close()
})

test('getItems reads pages of 1,000: retracted entries left out, entries without an item as { role, content }, every limit', async () => {
  const s = new SessionDBSession({ sessionId: 'pages', path: tempDb(), key: KEY })
  const n = 2003 // two full pages and a short one
  let want = Array.from({ length: n }, (_, i) => ({ role: 'user', content: `m${i}`, i }))
  await s.addItems(want)
  const st = await s.store()
  await st.appendTranscript('pages', 'assistant', 'plain') // an entry without an item
  want.push({ role: 'assistant', content: 'plain' })
  for (const seq of [1, 1000, 1001, n]) await st.retractEntry('pages', seq) // the first, both sides of a page boundary, the last item
  want = want.filter((_, k) => ![0, 999, 1000, n - 1].includes(k))
  assert.deepEqual(await s.getItems(), want)
  for (const limit of [1, 2, 1000, 1001, want.length, want.length + 5, 10000, 10001]) {
    assert.deepEqual(await s.getItems(limit), want.slice(-limit), String(limit))
  }
  assert.deepEqual(await s.popItem(), { role: 'assistant', content: 'plain' })
  assert.deepEqual(await s.getItems(), want.slice(0, -1))
  await s.close()
})

test('with a window, getItems is the active context: compacted once the history overflows', async () => {
  const s = new SessionDBSession({ sessionId: 'gov', path: tempDb(), key: KEY, window: 10000 })
  // About 1,000 tokens each (estimate: 3 bytes a token); capacity 7,152.
  const turns = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${String(i + 1).padStart(2, '0')} ` + 'word '.repeat(599) }))
  await s.addItems(turns.slice(0, 2))
  assert.deepEqual(await s.getItems(), turns.slice(0, 2))
  const st = await s.store()
  assert.deepEqual(await st.listContextExtensions('gov'), [])
  await s.addItems(turns.slice(2))
  const items = await s.getItems()
  const plan = (await st.recoverContextGovernance('gov')).history[0].plan
  const run = plan.transformations[0]
  assert.deepEqual([run.seq, run.lastSeq], [1, plan.compactedSeqs.length])
  assert.deepEqual(items, [{ role: 'user', content: run.summary }, ...turns.slice(run.lastSeq)])
  assert.ok(plan.tokensAfter * 100 <= plan.capacity * 70)
  assert.equal((await st.getTranscript('gov')).length, 12)
  assert.deepEqual(await s.getItems(), items)
  assert.equal((await st.listContextExtensions('gov')).length, 1)
  assert.deepEqual(await s.getItems(2), turns.slice(-2))
  await s.close()
})

test('itemText and itemRole: the text the meter counts and the role of each item kind', () => {
  assert.deepEqual([USER1, CALL, RESULT, ANSWER1].map(itemText), ['Weather in Tokyo?', 'get_weather({"city":"Tokyo"})', 'Sunny, 24 C in Tokyo', 'It is sunny in Tokyo (24 C).'])
  assert.deepEqual([USER1, CALL, RESULT, ANSWER1, { role: 'system', content: 'x' }].map(itemRole), ['user', 'assistant', 'tool', 'assistant', 'system'])
  const other = { type: 'reasoning', content: [] }
  assert.equal(itemText(other), '{"type":"reasoning","content":[]}')
})

// The typed example app: tsc --strict (with the SDK's own types), then run.
const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = process.env.SESSIONDB_REPO || join(HERE, '..', '..')
const TSC = join(ROOT, 'node', 'node_modules', 'typescript', 'bin', 'tsc')
const noTsc = skip || (!existsSync(TSC) && `no TypeScript at ${TSC}`) || (!existsSync(join(HERE, '..', 'node_modules', '@types', 'node')) && 'no @types/node (scripts/test-node.sh installs it)')

test('the example app (node/examples/agents-app.mts) compiles with tsc --strict and runs offline', { skip: noTsc }, () => {
  // Inside the app directory, so that its node_modules (sessiondb, @openai/agents) resolve.
  const dir = mkdtempSync(join(HERE, '..', '.agents-app-'))
  try {
    // A copy of the example, so that its imports resolve from the app, not the repository.
    mkdirSync(join(dir, 'src'))
    copyFileSync(join(ROOT, 'node', 'examples', 'agents-app.mts'), join(dir, 'src', 'agents-app.mts'))
    const compilerOptions = { strict: true, skipLibCheck: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', outDir: join(dir, 'out'), rootDir: join(dir, 'src'), types: ['node'], typeRoots: [join(HERE, '..', 'node_modules', '@types')] }
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: [join(dir, 'src', 'agents-app.mts')] }))
    const r = spawnSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' })
    assert.equal(r.status, 0, `tsc: ${r.stdout}${r.stderr}`)
    // Compiled beside the app's node_modules: run it there.
    const out = spawnSync(process.execPath, [join(dir, 'out', 'agents-app.mjs')], { encoding: 'utf8', cwd: dir })
    assert.equal(out.stderr, '')
    assert.equal(out.stdout, ['Weather in Tokyo? -> Sunny in Tokyo.', 'Thanks! -> You are welcome.', 'user function_call function_call_result assistant user assistant', 'popped assistant; 5 left', ''].join('\n'))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
