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

const { randomUUID } = require('node:crypto')
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
      const rows = items.map((item) => ({ entry: { role: itemRole(item), content: itemText(item) }, meta: { item: JSON.stringify(item) } }))
      try {
        await st.appendEntriesWithMeta(this.sessionId, rows, key)
      } catch (e) {
        if (!(e instanceof sdb.NotFoundError)) throw e
        try {
          await st.createSession(null, null, { id: this.sessionId })
        } catch (c) {
          if (!(c instanceof sdb.ConflictError)) throw c // else created by another handle just now
        }
        await st.appendEntriesWithMeta(this.sessionId, rows, key)
      }
    })
    return run.catch((e) => {
      this._retryKeys.set(fingerprint, key)
      while (this._retryKeys.size > RETRY_KEYS) this._retryKeys.delete(this._retryKeys.keys().next().value)
      throw e
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
