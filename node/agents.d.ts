// Types of `sessiondb/agents`: an `@openai/agents` Session stored in sessiondb.
import type { AgentInputItem, Session, SessionHistoryRewriteArgs, SessionHistoryTransactionArgs } from '@openai/agents'
import type { SessionStore } from './index'

/** Options of {@link SessionDBSession}. */
export interface SessionDBSessionOptions {
  /** The sessiondb session id (default: a new UUID; created on the first addItems). */
  sessionId?: string
  /** Database file (with `key` or the OS credential store); absent with `key` absent: the default store. */
  path?: string
  /** The data key: 32 bytes, or the base64 text of a key file; absent: the OS credential store (or, on a machine without one, a key file). */
  key?: Uint8Array | string
  /** An open store (or a Promise of one) to share; `close()` leaves it open. */
  store?: SessionStore | Promise<SessionStore>
  /**
   * The model's raw context window in tokens: getItems returns the active context, compacted
   * first when the history exceeds the window's capacity (a compacted run is one
   * `{ role: 'user', content: summary }` item; excluded turns are left out).
   */
  window?: number
  /** Picks the tokenizer for `window` (default: the session's model). */
  model?: string
}

/**
 * An `@openai/agents` Session stored in sessiondb: each item is one encrypted transcript entry
 * whose structured item is the item's JSON (kept byte-exact) and whose content is the item's
 * text (what the context meter counts). Rejects with the SessionDBError subclasses of `sessiondb`.
 */
/** Options of `SessionDBSession.addItems`. */
export interface AddItemsOptions {
  /** The append's idempotency key (1..=128 characters, no whitespace or `:`); default: a new one per call, or a failed call's for its retry. */
  idempotencyKey?: string
  /** Aborted before the call's turn comes: nothing is stored and the call rejects. */
  signal?: AbortSignal
}

export declare class SessionDBSession implements Session {
  constructor(options?: SessionDBSessionOptions)
  readonly sessionId: string
  readonly window: number | null
  readonly model: string | null
  /** The store underneath (opened on first use). */
  store(): Promise<SessionStore>
  getSessionId(): Promise<string>
  /** The history in order; with `limit`, the latest `limit` items (none for `limit <= 0`). */
  getItems(limit?: number): Promise<AgentInputItem[]>
  /**
   * Append items in one transaction (all or none), exactly once: each call
   * carries an idempotency key (`options.idempotencyKey`, else the key of an
   * earlier failed or aborted call of the same items, else a new one), so a
   * retry stores the items once. `options.signal` aborted before the call's
   * turn stores nothing; calls land in the order they are made.
   */
  addItems(items: AgentInputItem[], options?: AddItemsOptions): Promise<void>
  /**
   * Apply a history transaction atomically and exactly once (the SDK's
   * `SessionHistoryTransactionAwareSession`): `append_items`, or
   * `replace_suffix` compared as JSON in the same store transaction. One
   * `TranscriptTailReplaced` journal event. The same operation again is a
   * no-op; the operation id reused for another transaction, or a suffix that
   * no longer matches, rejects with a ConflictError and changes nothing;
   * items that are not plain JSON data reject with an InvalidInputError.
   */
  applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void>
  /**
   * Apply history mutations (`replace_function_call`), as the SDK's
   * `applySessionHistoryMutations`: the history from the first changed item
   * on is replaced in one store write.
   */
  applyHistoryMutations(args: SessionHistoryRewriteArgs): Promise<void>
  /** Retract and return the most recent item (undefined when there is none). */
  popItem(): Promise<AgentInputItem | undefined>
  /** Delete the session and its items. */
  clearSession(): Promise<void>
  /** Close the store if this session opened it. */
  close(): Promise<void>
}

/** The text of an SDK item that counts for tokens and summaries. */
export declare function itemText(item: AgentInputItem): string
/** The transcript role of an SDK item. */
export declare function itemRole(item: AgentInputItem): 'user' | 'assistant' | 'tool' | 'system'
