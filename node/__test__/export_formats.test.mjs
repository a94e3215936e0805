// Readable exports (issue 28 item 7): exportThclaws(sessionId, format) with
// 'markdown' (a transcript to share, secrets redacted) and 'json' (the
// neutral model as one document); thClaws JSONL stays the default. The same
// handmade session and exact texts as core/tests/portable_export_formats.rs
// (the same key, so the same redaction marker).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { sdb, openTemp } from './helpers.mjs'

const AWS = 'AKIALALEMEL33243OLIB'
const MARKER = '[REDACTED:aws-access-token:998170a8]'
const LINES = [
  { type: 'header', id: 'sess-md', model: 'anthropic/claude-sonnet-4', cwd: '/w/p', created_at: 1767225600 },
  { type: 'rename', title: 'Fix the <build>' },
  { type: 'user', content: [{ type: 'text', text: `Deploy with key ${AWS}, please.` }], timestamp: 1767225601 },
  {
    type: 'assistant',
    content: [
      { type: 'thinking', content: 'The user wants a deploy.\nCheck the script first.' },
      { type: 'text', text: "Here is the script:\n\n````sh\necho '```'\n````\n" },
      { type: 'tool_use', id: 'call_1', name: 'Bash', input: { command: 'ls ```' } },
    ],
    timestamp: 1767225602,
  },
  { type: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: `deploy.sh\nAWS=${AWS}` }], timestamp: 1767225603 },
  { type: 'assistant', content: [{ type: 'text', text: 'Done.' }], timestamp: 1767225604 },
]

const MARKDOWN = `# Fix the &lt;build&gt;

- session: \`sess-md\`
- model: anthropic/claude-sonnet-4
- created: 2026-01-01T00:00:00Z

## User · 2026-01-01T00:00:01Z · #1

Deploy with key ${MARKER}, please.

## Assistant · 2026-01-01T00:00:02Z · #2

<details><summary>Thinking</summary>

\`\`\`
The user wants a deploy.
Check the script first.
\`\`\`

</details>

Here is the script:

\`\`\`\`sh
echo '\`\`\`'
\`\`\`\`

<details><summary>Bash</summary>

\`\`\`\`json
{
  "command": "ls \`\`\`"
}
\`\`\`\`

</details>

## Tool · 2026-01-01T00:00:03Z · #3

<details><summary>Bash output</summary>

\`\`\`
deploy.sh
AWS=${MARKER}
\`\`\`

</details>

## Assistant · 2026-01-01T00:00:04Z · #4

Done.
`

const MODEL = { model: 'anthropic/claude-sonnet-4', provider: 'anthropic' }
const NONE = { model: null, provider: null }
const DOCUMENT = {
  compactions: [],
  created_at_ms: 1767225600000,
  cwd: '/w/p',
  id: 'sess-md',
  model: 'anthropic/claude-sonnet-4',
  provider: 'anthropic',
  provider_state: null,
  snapshots: [],
  title: 'Fix the <build>',
  turns: [
    { blocks: [{ text: `Deploy with key ${AWS}, please.`, type: 'text' }], extra: {}, ...NONE, role: 'user', seq: 1, timestamp_ms: 1767225601000 },
    {
      blocks: [
        { content: 'The user wants a deploy.\nCheck the script first.', type: 'thinking' },
        { text: "Here is the script:\n\n````sh\necho '```'\n````\n", type: 'text' },
        { id: 'call_1', input: { command: 'ls ```' }, name: 'Bash', type: 'tool_use' },
      ],
      extra: {},
      ...MODEL,
      role: 'assistant',
      seq: 2,
      timestamp_ms: 1767225602000,
    },
    { blocks: [{ content: `deploy.sh\nAWS=${AWS}`, tool_use_id: 'call_1', type: 'tool_result' }], extra: {}, ...NONE, role: 'user', seq: 3, timestamp_ms: 1767225603000 },
    { blocks: [{ text: 'Done.', type: 'text' }], extra: {}, ...MODEL, role: 'assistant', seq: 4, timestamp_ms: 1767225604000 },
  ],
}

async function withSession() {
  const st = await openTemp()
  const f = join(dirname(st.path), 'sess-md.jsonl')
  writeFileSync(f, LINES.map((l) => JSON.stringify(l) + '\n').join(''))
  const rep = await st.importFile(f, 'thclaws')
  assert.equal(rep.sessions[0].entries, 4)
  return st
}

test('markdown export is the exact redacted transcript', async () => {
  const st = await withSession()
  assert.equal(await st.exportThclaws('sess-md', 'markdown'), MARKDOWN)
})

test('json export is the neutral model as one pretty document', async () => {
  const st = await withSession()
  const text = await st.exportThclaws('sess-md', 'json')
  assert.deepEqual(JSON.parse(text), DOCUMENT)
  // serde_json's pretty form is JSON.stringify's with two spaces (keys sorted in DOCUMENT).
  assert.equal(text, JSON.stringify(DOCUMENT, null, 2) + '\n')
})

test('thclaws JSONL stays the default', async () => {
  const st = await withSession()
  const text = await st.exportThclaws('sess-md')
  assert.equal(text, await st.exportThclaws('sess-md', 'thclaws'))
  assert.equal(text, await st.exportThclaws('sess-md', null))
  assert.deepEqual(text.trim().split('\n').map((l) => JSON.parse(l).type), ['header', 'plan_snapshot', 'goal_snapshot', 'user', 'assistant', 'user', 'assistant', 'rename'])
  assert.ok(text.includes(AWS))
})

test('export to a file takes the format', async () => {
  const st = await withSession()
  const out = join(dirname(st.path), 'out.md')
  const rep = await st.exportThclawsToFile('sess-md', out, 'markdown')
  assert.equal(readFileSync(out, 'utf8'), MARKDOWN)
  assert.deepEqual([rep.lines, rep.bytes, rep.turns], [MARKDOWN.split('\n').length - 1, Buffer.byteLength(MARKDOWN), 4])
})

test('an unknown format is InvalidInputError', async () => {
  const st = await withSession()
  await assert.rejects(async () => st.exportThclaws('sess-md', 'html'), (e) => e instanceof sdb.InvalidInputError && /thclaws, markdown \(md\), json/.test(e.message))
})
