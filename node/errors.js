'use strict'
// Errors of sessiondb: one Error subclass per core error kind, each with
// `code` (e.g. 'ERR_RECOVERY_LOCKED') and `kind` (e.g. 'RecoveryLocked').
// Messages never contain user content.

const MARKER = '\u0001'

class SessionDBError extends Error {
  constructor(message, info = {}) {
    super(message)
    this.name = new.target.name
    this.code = new.target.code
    this.kind = new.target.kind
    for (const [k, v] of Object.entries(info)) {
      if (!['code', 'kind', 'message', 'breakdown'].includes(k) && v !== null && v !== undefined) this[k] = v
    }
  }
}
SessionDBError.code = 'ERR_SESSIONDB'
SessionDBError.kind = 'SessionDB'

const KINDS = [
  ['RecoveryLocked', 'ERR_RECOVERY_LOCKED', 'RecoveryLockedError'],
  ['KeyMismatch', 'ERR_KEY_MISMATCH', 'KeyMismatchError'],
  ['KeyStoreUnavailable', 'ERR_KEY_STORE_UNAVAILABLE', 'KeyStoreUnavailableError'],
  ['NotFound', 'ERR_NOT_FOUND', 'NotFoundError'],
  ['Conflict', 'ERR_CONFLICT', 'ConflictError'],
  ['AuthenticationFailed', 'ERR_AUTHENTICATION_FAILED', 'AuthenticationError'],
  ['Corrupt', 'ERR_CORRUPT', 'CorruptError'],
  ['Busy', 'ERR_BUSY', 'BusyError'],
  ['InvalidInput', 'ERR_INVALID_INPUT', 'InvalidInputError'],
  ['Io', 'ERR_IO', 'IoError'],
  ['Database', 'ERR_DATABASE', 'DatabaseError'],
  ['ContextOverflow', 'ERR_CONTEXT_OVERFLOW', 'ContextOverflowError'],
  ['Closed', 'ERR_CLOSED', 'ClosedError'],
]

const classes = { SessionDBError }
const byKind = {}
for (const [kind, code, name] of KINDS) {
  // A named class per kind (so stack traces and `err.name` show it).
  const cls = { [name]: class extends SessionDBError {} }[name]
  cls.code = code
  cls.kind = kind
  classes[name] = cls
  byKind[kind] = cls
}

class ContextOverflowError extends classes.ContextOverflowError {
  constructor(message, info = {}) {
    super(message, info)
    const b = info.breakdown || {}
    this.capacity = b.capacity
    this.system = b.system
    this.pinned = b.pinned
    this.recent = b.recent
    this.toolResults = b.toolResults
    this.other = b.other
    this.protectedTotal = b.protectedTotal
    this.remedies = b.remedies
  }
}
Object.defineProperty(ContextOverflowError, 'name', { value: 'ContextOverflowError' })
ContextOverflowError.code = 'ERR_CONTEXT_OVERFLOW'
ContextOverflowError.kind = 'ContextOverflow'
classes.ContextOverflowError = ContextOverflowError
byKind.ContextOverflow = ContextOverflowError

// napi-rs statuses of an argument that cannot be converted to the Rust type
// (`getSession(123)`: StringExpected): the caller's input is invalid.
const NAPI_ARGUMENT_STATUSES = new Set([
  'InvalidArg', 'ObjectExpected', 'StringExpected', 'NameExpected', 'FunctionExpected',
  'NumberExpected', 'BooleanExpected', 'ArrayExpected', 'BigintExpected', 'DateExpected',
  'ArrayBufferExpected', 'DetachableArraybufferExpected',
])

/** Turn an error thrown by the native addon into its SessionDBError subclass. */
/** The `    at ...` lines of a stack, without its message (which may span lines). */
function frames(stack) {
  const lines = stack.split('\n')
  const first = lines.findIndex((l) => /^\s+at /.test(l))
  return first < 0 ? '' : lines.slice(first).join('\n')
}

function fromNative(e) {
  if (e && !(e instanceof SessionDBError) && NAPI_ARGUMENT_STATUSES.has(e.code) && typeof e.message === 'string') {
    // napi quotes the whole value it could not convert: a key Buffer passed
    // where a string was expected would put the key bytes in the message.
    let message = e.message.replace(/(JavaScript value) `[\s\S]*` (into rust type)/, '$1 $2')
    // The open option `key` (napi's own words name Rust types): say what it takes.
    if (/ on OpenOptions\.key$/.test(message)) {
      message = 'key: expected a Buffer or Uint8Array (the 32-byte data key) or a string (the base64 text of a key file)'
    }
    const err = new byKind.InvalidInput(`invalid input: ${message}`, { napiStatus: e.code })
    if (e.stack) err.stack = `${err.name}: ${err.message}\n` + frames(e.stack)
    return err
  }
  if (!e || typeof e.message !== 'string' || e.message[0] !== MARKER) return e
  let info
  try {
    info = JSON.parse(e.message.slice(1))
  } catch {
    return e
  }
  const cls = byKind[info.kind] || SessionDBError
  const err = new cls(info.message, info)
  if (e.stack) err.stack = `${err.name}: ${info.message}\n` + frames(e.stack)
  return err
}

module.exports = { ...classes, fromNative, KINDS }
