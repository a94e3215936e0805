// ES module entry of `sessiondb/agents`: the same objects as agents.js.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const agents = require('./agents.js')

export default agents
export const { SessionDBSession, itemText, itemRole } = agents
