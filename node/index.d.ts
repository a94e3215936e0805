// Types of the `sessiondb` package: the napi-generated declarations of the
// native addon (native.d.ts, written by `napi build`) plus the error classes
// and the helpers index.js adds.
export * from './native'
export * from './errors'
import type { OpenOptions, TranscriptEntry } from './native'

declare module './native' {
  namespace SessionStore {
    /**
     * Open (creating if needed) a store. Key: `options.key` (32 bytes), else
     * `options.keyProvider` (`getKey()`/`setKey(key)`, called synchronously),
     * else the OS keyring. Rejects with RecoveryLockedError, KeyMismatchError,
     * KeyStoreUnavailableError, CorruptError, IoError, InvalidInputError.
     */
    function open(options?: OpenOptions | null): Promise<SessionStore>
  }
  interface SessionStore {
    /** Every entry of a transcript from `fromSeq` (default 1), `pageSize` (default 1000) per native call. */
    iterTranscript(sessionId: string, options?: { fromSeq?: number; pageSize?: number }): AsyncGenerator<TranscriptEntry>
  }
}
