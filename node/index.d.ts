// Types of the `sessiondb` package: the napi-generated declarations of the
// native addon (native.d.ts, written by `napi build`) plus the error classes
// and the helpers index.js adds.
export * from './native'
export * from './errors'
import type { ContextMeter, OpenOptions, SessionStore, TranscriptEntry } from './native'

/**
 * Import a recovery key for the store `options` names (`path`, `app`,
 * `keyProvider`; default the OS keyring) and open it: the text is checked
 * (checksum), then against the database's key-check value, then stored in the
 * credential store. Rejects with InvalidInputError (mistyped: "recovery key
 * checksum mismatch"), NotFoundError, KeyMismatchError (another database's
 * key; nothing stored), ConflictError (the credential store holds another key
 * for the app), KeyStoreUnavailableError.
 */
export declare function importRecoveryKey(recoveryKey: string, options?: OpenOptions | null): Promise<SessionStore>

/** Who wrote a transcript entry (seed 000 `TranscriptRole`). */
export type Role = TranscriptEntry['role']
/** How an entry's `content` is read. */
export type ContentFormat = TranscriptEntry['format']
/** Context meter band: 0-69 green, 70-84 amber, 85-94 orange, >= 95 red. */
export type Band = ContextMeter['band']
/** How an operation ended (`completeOperation`). */
export type Outcome = 'succeeded' | 'failed' | 'blocked' | 'cancelled' | 'unknown'
/** A session file format the importers read. */
export type SourceFormat = 'thclaws' | 'codex' | 'claude-code' | 'gemini-cli' | 'opencode' | 'agents-sdk'
/** What `exportThclaws(sessionId, format)` writes: thClaws JSONL (default), Markdown or the neutral model as JSON. */
export type ExportFormat = 'thclaws' | 'markdown' | 'json'

declare module './native' {
  namespace SessionStore {
    /**
     * Open (creating if needed) a store. Key: `options.key` (32 bytes, or the
     * base64 text of a key file as a string or Buffer), else
     * `options.keyProvider` (`getKey()`/`setKey(key)`, called synchronously),
     * else the OS keyring. Rejects with RecoveryLockedError, KeyMismatchError,
     * KeyStoreUnavailableError, CorruptError, IoError, InvalidInputError.
     */
    function open(options?: OpenOptions | null): Promise<SessionStore>
  }
  interface SessionStore {
    /** `await using store = await SessionStore.open(...)` closes the store at the end of the scope. */
    [Symbol.asyncDispose](): Promise<void>
    /** Every entry of a transcript from `fromSeq` (default 1), `pageSize` (default 1000) per native call. */
    iterTranscript(sessionId: string, options?: { fromSeq?: number; pageSize?: number }): AsyncGenerator<TranscriptEntry>
  }
  interface Viewer {
    /** `await using viewer = await store.serve()` stops the viewer at the end of the scope. */
    [Symbol.asyncDispose](): Promise<void>
  }
}
