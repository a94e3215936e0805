// A typed @openai/agents app whose history lives in sessiondb. Offline: the
// model is scripted (a tool call, then answers), the tool is real.
// node/__test__/agents.test.mjs compiles it with tsc --strict and runs it.
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, run, setTracingDisabled, tool, Usage } from '@openai/agents'
import type { AgentInputItem, AgentOutputItem, Model, ModelRequest, ModelResponse, Session, StreamEvent } from '@openai/agents'
import { SessionDBSession } from 'sessiondb/agents'

/** A Model that answers each request with the next scripted output. */
class ScriptedModel implements Model {
  constructor(private readonly outputs: AgentOutputItem[][]) {}
  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    return { usage: new Usage(), output: this.outputs.shift() ?? [] }
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(_request: ModelRequest): AsyncIterable<StreamEvent> {
    throw new Error('not streamed')
  }
}

const getWeather = tool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
  execute: async (input: unknown) => `Sunny in ${(input as { city: string }).city}`,
})

setTracingDisabled(true)
const model = new ScriptedModel([
  [{ type: 'function_call', callId: 'c1', name: 'get_weather', arguments: '{"city":"Tokyo"}', status: 'completed' }],
  [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Sunny in Tokyo.' }] }],
  [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'You are welcome.' }] }],
])
const agent = new Agent({ name: 'weather', instructions: 'Answer briefly.', model, tools: [getWeather] })

const path = join(mkdtempSync(join(tmpdir(), 'agents-app-')), 'conversations.db')
const sdbSession = new SessionDBSession({ sessionId: 'user-123', path, key: randomBytes(32) })
const session: Session = sdbSession // the SDK's interface, checked by tsc
for (const question of ['Weather in Tokyo?', 'Thanks!']) {
  const result = await run(agent, question, { session })
  console.log(`${question} -> ${String(result.finalOutput)}`)
}
const items: AgentInputItem[] = await session.getItems()
console.log(items.map((i) => ('role' in i ? i.role : i.type)).join(' '))
const last: AgentInputItem | undefined = await session.popItem()
console.log(`popped ${last && 'role' in last ? last.role : 'nothing'}; ${(await session.getItems()).length} left`)
await sdbSession.close()

/** Never called: uses that tsc --strict must reject. */
export async function typeErrors(): Promise<void> {
  // @ts-expect-error the window is a number of tokens
  void new SessionDBSession({ window: '128k' })
  // @ts-expect-error popItem may find nothing
  const item: AgentInputItem = await session.popItem()
  void item
}
