'use strict'
// `sessiondb/agents`: a `Session` of the OpenAI Agents SDK for JavaScript
// (`@openai/agents`: getSessionId, getItems, addItems, popItem, clearSession)
// stored in sessiondb: encrypted, crash-safe, journaled. The SDK is not
// imported here: any item of the SDK's shape works, and the package needs
// no dependency on it.
//
// Each SDK item is one transcript entry: the item's JSON is the entry's
// structured item (EntryMeta.item: kept whole and byte-exact, encrypted) and
// the entry's content is the item's text (a message's text, a call's
// `name(arguments)`, a tool's output), so the context meter and compaction
// count the conversation, not JSON. popItem retracts the last entry (it
// stays stored and is left out of reads, export, fork and the context).

const { createHash, randomUUID } = require('node:crypto')
const sdb = require('./index.js')

/** Largest page the store reads in one call (the core's MAX_PAGE). */
const MAX_PAGE = 10000
/** Entries per read (and per JSON.parse) of a full getItems(). */
const PAGE = 1000

/**
 * The text of an SDK item that counts for tokens and summaries: a message's
 * text parts (or its string content), a function call's `name(arguments)`,
 * a tool result's text output, a reasoning item's text; other items their JSON.
 */
function itemText(item) {
  const content = item.content
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    const parts = content.filter((p) => p && typeof p === 'object').map((p) => p.text || p.refusal || p.transcript || '')
    if (parts.some((p) => p)) return parts.filter((p) => p).join('\n')
  }
  switch (item.type) {
    case 'function_call':
    case 'hosted_tool_call':
      return `${item.name ?? ''}(${item.arguments ?? ''})`
    case 'function_call_result':
    case 'computer_call_result':
    case 'shell_call_output':
    case 'apply_patch_call_output': {
      const out = item.output
      if (typeof out === 'string') return out
      if (out && typeof out === 'object' && !Array.isArray(out) && typeof out.text === 'string') return out.text
      return JSON.stringify(out ?? null)
    }
    default:
      return JSON.stringify(item)
  }
}

/**
 * The transcript role of an SDK item: its message role (`developer` is
 * `system`), `tool` for tool results and outputs, else `assistant`.
 */
function itemRole(item) {
  switch (item.role) {
    case 'user':
      return 'user'
    case 'assistant':
      return 'assistant'
    case 'system':
    case 'developer':
      return 'system'
  }
  const t = String(item.type ?? '')
  return t.endsWith('_result') || t.endsWith('_output') ? 'tool' : 'assistant'
}

/** The SDK item of a stored entry: its structured item, else `{ role, content }` (an entry written without one). */
function itemOf({ entry, meta }) {
  if (typeof meta.item === 'string') return JSON.parse(meta.item)
  return { role: entry.role, content: entry.content }
}

/**
 * The SDK items of one `ItemPage` (`getEntryItems`), in order: one JSON.parse
 * of its items array; each entry without a structured item (a `null`
 * element) as `itemOf`.
 */
function pageItems(page) {
  const items = JSON.parse(page.itemsJson)
  if (page.withoutItem.length > 0) {
    const at = new Map(page.seqs.map((s, i) => [s, i]))
    for (const p of page.withoutItem) items[at.get(p.entry.seq)] = itemOf(p)
  }
  return items
}

/** The stored form of an SDK item: its transcript entry and the item's JSON as the entry's structured item. */
function rowOf(item) {
  return { entry: { role: itemRole(item), content: itemText(item) }, meta: { item: JSON.stringify(item) } }
}

/** An invalid history transaction (the SDK's own messages, `@openai/agents-core` memorySession.ts). */
function invalid(message) {
  return new sdb.InvalidInputError(`Session history ${message}`)
}

/**
 * `value` as plain JSON data, or throws: strings, booleans, finite numbers,
 * null, dense arrays and plain objects of enumerable data properties
 * (undefined properties are dropped, as JSON.stringify drops them; keys
 * in sorted order). Dates,
 * binary data, bigints, symbols, functions, cycles, accessors and class
 * instances are refused, so what is stored is exactly what is read back.
 */
function plainJson(value, ancestors = new Set()) {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('unsupported')
    return value
  }
  if (typeof value !== 'object' || ancestors.has(value)) throw new Error('unsupported')
  ancestors.add(value)
  try {
    if (Array.isArray(value)) {
      if (Reflect.ownKeys(value).length !== value.length + 1) throw new Error('unsupported')
      return Array.from({ length: value.length }, (_, i) => {
        const d = Object.getOwnPropertyDescriptor(value, String(i))
        if (!d || !d.enumerable || !('value' in d) || d.value === undefined) throw new Error('unsupported')
        return plainJson(d.value, ancestors)
      })
    }
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) throw new Error('unsupported')
    const keys = Reflect.ownKeys(value)
    if (keys.some((k) => typeof k !== 'string')) throw new Error('unsupported')
    // Keys sorted: equal items are stored as equal text, so a retry matches.
    const out = {}
    for (const key of keys.sort()) {
      const d = Object.getOwnPropertyDescriptor(value, key)
      if (!d.enumerable || !('value' in d)) throw new Error('unsupported')
      if (d.value !== undefined) out[key] = plainJson(d.value, ancestors)
    }
    return out
  } finally {
    ancestors.delete(value)
  }
}

/** SDK items as plain JSON data: each an object with a string `type` or `role`. */
function plainItems(items) {
  try {
    const out = plainJson(items)
    if (out.some((i) => i === null || typeof i !== 'object' || Array.isArray(i) || (typeof i.type !== 'string' && typeof i.role !== 'string'))) throw new Error('unsupported')
    return out
  } catch {
    throw invalid('transaction items contain invalid or unsupported data.')
  }
}

/** `{ operationId, transaction }` checked as the SDK's MemorySession checks it, its items as plain JSON. */
function checkTransaction(args) {
  if (!args || typeof args !== 'object') throw invalid('transaction arguments are invalid.')
  const { operationId, transaction } = args
  if (typeof operationId !== 'string' || !operationId.trim()) throw invalid('transaction operationId must be a non-empty string.')
  if (!transaction || typeof transaction !== 'object') throw invalid('transaction must be an object.')
  const keys = Object.keys(transaction).sort().join(',')
  if (transaction.type === 'append_items') {
    if (keys !== 'items,type' || !Array.isArray(transaction.items)) throw invalid('append transaction fields are invalid.')
    return { operationId, expected: [], items: plainItems(transaction.items) }
  }
  if (transaction.type !== 'replace_suffix') throw new sdb.InvalidInputError('Unsupported session history transaction type.')
  if (keys !== 'expectedSuffix,replacement,type' || !Array.isArray(transaction.expectedSuffix) || !Array.isArray(transaction.replacement)) {
    throw invalid('suffix transaction fields are invalid.')
  }
  return { operationId, expected: plainItems(transaction.expectedSuffix), items: plainItems(transaction.replacement) }
}

/**
 * The journal event id of a history transaction: `txn-` and the first 40
 * hex digits of the SHA-256 of the session's creation time (ms) and the
 * operation id (any non-empty string in the SDK; an event id has no
 * whitespace or `:` and at most 128 characters). The creation time makes
 * operation ids start afresh after `clearSession`, which deletes the
 * session, as the SDK's MemorySession forgets them on clear.
 */
function operationKey(createdAtMs, operationId) {
  return `txn-${createHash('sha256').update(`${createdAtMs}\n${operationId}`).digest('hex').slice(0, 40)}`
}

/**
 * An `@openai/agents` Session stored in sessiondb.
 *
 * `new SessionDBSession({ sessionId, path, key, store, window, model })`:
 * - `sessionId`: the sessiondb session id (default: a new UUID; the session is created on the first addItems);
 * - `path` / `key`: the database file and its key (32 bytes or a key file's base64 text) (`SessionStore.open({ path, key })`;
 *   without `key`, the OS credential store); neither: the default store of the OS user;
 * - `store`: an open `SessionStore` (or a Promise of one) to share instead; it is not closed by `close()`;
 * - `window`: the model's raw context window in tokens. With it, getItems returns the active context:
 *   compacted first when the history exceeds the window's capacity (the plan is recorded, the
 *   transcript never changes); a compacted run comes back as one `{ role: 'user', content: summary }`
 *   item, and excluded turns are left out;
 * - `model`: picks the tokenizer for `window` (default: the session's).
 * The store is opened on first use. Calls on one instance run one after another.
 */
/** Idempotency keys of failed addItems calls kept for their retry. */
const RETRY_KEYS = 64

class SessionDBSession {
  constructor(options = {}) {
    const { sessionId, path, key, store, window, model } = options ?? {}
    if (window !== undefined && window !== null && !(Number.isInteger(window) && window > 0)) {
      throw new sdb.InvalidInputError('window must be a positive number of tokens')
    }
    this.sessionId = sessionId ?? randomUUID()
    this.window = window ?? null
    this.model = model ?? null
    this._owns = store === undefined || store === null
    this._store = this._owns ? null : Promise.resolve(store)
    this._open = { path, key }
    this._queue = Promise.resolve()
    // Items fingerprint -> the key of a failed or aborted addItems, reused by its retry.
    this._retryKeys = new Map()
  }

  /** The store underneath (opened on first use). */
  store() {
    if (this._store === null) {
      const { path, key } = this._open
      this._store = sdb.SessionStore.open(path === undefined && key === undefined ? undefined : { path, key })
    }
    return this._store
  }

  /** Run `fn(store)` after every earlier call of this instance. */
  _serial(fn) {
    const run = this._queue.then(() => this.store()).then(fn)
    this._queue = run.catch(() => {})
    return run
  }

  async getSessionId() {
    return this.sessionId
  }

  /** The history in order; with `limit`, the latest `limit` items. */
  getItems(limit) {
    return this._serial(async (st) => {
      if (limit !== undefined && limit !== null && limit <= 0) return []
      try {
        if (this.window !== null) {
          const items = await this._activeItems(st)
          return limit === undefined || limit === null ? items : items.slice(-limit)
        }
        if (limit !== undefined && limit !== null && limit <= MAX_PAGE) {
          return pageItems(await st.getEntryItemsTail(this.sessionId, limit))
        }
        const items = []
        for (const [, chunk] of await this._pages(st, 1)) for (const item of chunk) items.push(item)
        return limit === undefined || limit === null ? items : items.slice(-limit)
      } catch (e) {
        if (e instanceof sdb.NotFoundError) return []
        throw e
      }
    })
  }

  /** `[seqs, items]` of each page of the visible entries from seq `from` on. */
  async _pages(st, from) {
    const out = []
    for (;;) {
      const page = await st.getEntryItems(this.sessionId, from, PAGE)
      const n = page.seqs.length
      if (n === 0) return out
      out.push([page.seqs, pageItems(page)])
      if (n < PAGE) return out // fewer than asked: no visible entry after these
      from = page.seqs[n - 1] + 1
    }
  }

  async _activeItems(st) {
    const model = this.model ?? undefined
    const status = await st.contextStatus(this.sessionId, this.window, null, model)
    if (sdb.shouldCompact(status.meter.activeTokens, status.capacity)) {
      await st.compactSession(this.sessionId, this.window, null, model)
    }
    const view = await st.activeContext(this.sessionId, this.window, null, model)
    const verbatim = view.items.filter((i) => i.state === 'verbatim')
    const bySeq = new Map()
    if (verbatim.length > 0) {
      for (const [seqs, items] of await this._pages(st, verbatim[0].seq)) seqs.forEach((s, k) => bySeq.set(s, items[k]))
    }
    const out = []
    for (const i of view.items) {
      if (i.state === 'compacted') out.push({ role: 'user', content: i.text })
      else if (i.state === 'verbatim') out.push(bySeq.get(i.seq))
    }
    return out
  }

  /**
   * Append items in one transaction (all or none), exactly once.
   *
   * Each call carries an idempotency key (the append's journal event id):
   * `options.idempotencyKey`, else the key of an earlier call of the same
   * items on this instance that failed or was aborted, else a new one. So
   * a retry after a failure stores the items once, whether the failed call
   * landed or not. `options.signal` (an AbortSignal) aborted before the
   * call's turn comes stores nothing and rejects with its reason; once the
   * call has started it lands whole. Calls land in the order they are made.
   */
  addItems(items, options = {}) {
    const { idempotencyKey, signal } = options ?? {}
    if (!items || items.length === 0) return this._serial(async () => {})
    const fingerprint = JSON.stringify(items)
    const key = idempotencyKey ?? this._retryKeys.get(fingerprint) ?? randomUUID()
    this._retryKeys.delete(fingerprint)
    const run = this._serial(async (st) => {
      signal?.throwIfAborted()
      const rows = items.map(rowOf)
      await this._creating(st, () => st.appendEntriesWithMeta(this.sessionId, rows, key))
    })
    return run.catch((e) => {
      this._retryKeys.set(fingerprint, key)
      while (this._retryKeys.size > RETRY_KEYS) this._retryKeys.delete(this._retryKeys.keys().next().value)
      throw e
    })
  }

  /** `write()`, creating the session first when it does not exist yet. */
  async _creating(st, write) {
    try {
      return await write()
    } catch (e) {
      if (!(e instanceof sdb.NotFoundError)) throw e
      try {
        await st.createSession(null, null, { id: this.sessionId })
      } catch (c) {
        if (!(c instanceof sdb.ConflictError)) throw c // else created by another handle just now
      }
      return write()
    }
  }

  /**
   * Apply a history transaction atomically and exactly once (the SDK's
   * `SessionHistoryTransactionAwareSession`, `@openai/agents-core`
   * memory/session.ts): `{ operationId, transaction }` with `transaction`
   * `{ type: 'append_items', items }` or `{ type: 'replace_suffix',
   * expectedSuffix, replacement }`. One store write (`replaceTailItems`):
   * the suffix is compared as JSON in the same transaction, the replaced
   * entries are retracted, the new ones appended, one
   * `TranscriptTailReplaced` journal event whose id derives from
   * `operationId` and the session's creation time (so ids start afresh
   * after `clearSession`, as in MemorySession). The same operation again is a no-op; the operation id
   * reused for another transaction, or a suffix that no longer matches,
   * rejects with a ConflictError (the SDK's messages) and changes nothing.
   * Invalid arguments or items that are not plain JSON data (including
   * binary data, which the SDK's MemorySession accepts) reject with an
   * InvalidInputError before anything is written.
   */
  applyHistoryTransaction(args) {
    let txn
    try {
      txn = checkTransaction(args)
    } catch (e) {
      return Promise.reject(e)
    }
    return this._serial(async (st) => {
      const expected = txn.expected.map((i) => JSON.stringify(i))
      const write = async () => {
        const key = operationKey((await st.getSession(this.sessionId)).createdAtMs, txn.operationId)
        return st.replaceTailItems(this.sessionId, expected, txn.items.map(rowOf), key)
      }
      try {
        await (expected.length === 0 ? this._creating(st, write) : write())
      } catch (e) {
        if (e instanceof sdb.NotFoundError) throw new sdb.ConflictError('Session history suffix no longer matches the transaction precondition.')
        if (!(e instanceof sdb.ConflictError)) throw e
        if (/no longer hold the expected items/.test(e.message)) throw new sdb.ConflictError('Session history suffix no longer matches the transaction precondition.')
        throw new sdb.ConflictError('Session history operation was already applied with a different transaction.')
      }
    })
  }

  /**
   * Apply history mutations (the SDK's `SessionHistoryRewriteAwareSession`):
   * `{ mutations: [{ type: 'replace_function_call', callId, replacement }] }`
   * replaces every `function_call` item with that `callId` by one
   * `replacement` at the first one's place, as the SDK's
   * `applySessionHistoryMutations` does; other mutation types are ignored,
   * as there. Stored entries are never rewritten: the history from the
   * first changed item on is replaced in one store write (compared, retracted
   * and appended atomically), retried when another handle wrote in between.
   */
  applyHistoryMutations(args) {
    if (!args || !Array.isArray(args.mutations)) return Promise.reject(invalid('mutations are invalid.'))
    if (args.mutations.length === 0) return this._serial(async () => {})
    return this._serial(async (st) => {
      for (let attempt = 0; ; attempt++) {
        let pages
        try {
          pages = await this._pages(st, 1)
        } catch (e) {
          if (e instanceof sdb.NotFoundError) return
          throw e
        }
        const items = pages.flatMap(([, chunk]) => chunk)
        let next = items
        for (const m of args.mutations) {
          if (m?.type !== 'replace_function_call') continue
          const out = []
          let kept = false
          for (const item of next) {
            if (item?.type === 'function_call' && item.callId === m.callId) {
              if (!kept) out.push(m.replacement)
              kept = true
            } else out.push(item)
          }
          next = out
        }
        let from = 0
        while (from < items.length && from < next.length && next[from] === items[from]) from++
        if (from === items.length && from === next.length) return
        const expected = items.slice(from).map((i) => JSON.stringify(i))
        const replacement = plainItems(next.slice(from))
        try {
          await st.replaceTailItems(this.sessionId, expected, replacement.map(rowOf))
          return
        } catch (e) {
          // Another handle changed the history meanwhile: read it again.
          if (!(e instanceof sdb.ConflictError) || attempt >= 4) throw e
        }
      }
    })
  }

  /** Retract and return the most recent item (undefined when there is none). */
  popItem() {
    return this._serial(async (st) => {
      for (;;) {
        let tail
        try {
          tail = await st.getTranscriptTailWithMeta(this.sessionId, 1)
        } catch (e) {
          if (e instanceof sdb.NotFoundError) return undefined
          throw e
        }
        if (tail.length === 0) return undefined
        // null: another handle retracted it first; take the next one.
        if ((await st.retractEntry(this.sessionId, tail[0].entry.seq)) !== null) return itemOf(tail[0])
      }
    })
  }

  /** Delete the session and its items (the journal keeps that it happened). */
  clearSession() {
    return this._serial(async (st) => {
      try {
        await st.deleteSession(this.sessionId)
      } catch (e) {
        if (!(e instanceof sdb.NotFoundError)) throw e
      }
    })
  }

  /** Close the store if this session opened it (a shared `store` stays open). */
  async close() {
    await this._queue
    if (this._owns && this._store !== null) await (await this._store).close()
  }
}

module.exports = { SessionDBSession, itemText, itemRole }
