/** Base class of every sessiondb error. `code` is the core ErrorKind code. */
export declare class SessionDBError extends Error {
  readonly code: ErrorCode
  readonly kind: ErrorKind
}
/** The core ErrorKind names (`err.kind`). */
export type ErrorKind =
  | 'RecoveryLocked' | 'KeyMismatch' | 'KeyStoreUnavailable' | 'NotFound' | 'Conflict' | 'AuthenticationFailed'
  | 'Corrupt' | 'Busy' | 'InvalidInput' | 'Io' | 'Database' | 'ContextOverflow' | 'Closed'
/** The error codes (`err.code`, the same strings as Python's `SessionDBError.code`). */
export type ErrorCode =
  | 'ERR_RECOVERY_LOCKED' | 'ERR_KEY_MISMATCH' | 'ERR_KEY_STORE_UNAVAILABLE' | 'ERR_NOT_FOUND' | 'ERR_CONFLICT'
  | 'ERR_AUTHENTICATION_FAILED' | 'ERR_CORRUPT' | 'ERR_BUSY' | 'ERR_INVALID_INPUT' | 'ERR_IO' | 'ERR_DATABASE'
  | 'ERR_CONTEXT_OVERFLOW' | 'ERR_CLOSED'
export declare class RecoveryLockedError extends SessionDBError {
  readonly code: 'ERR_RECOVERY_LOCKED'
  readonly backend: string
}
export declare class KeyMismatchError extends SessionDBError {
  readonly code: 'ERR_KEY_MISMATCH'
  readonly backend: string
}
export declare class KeyStoreUnavailableError extends SessionDBError {
  readonly code: 'ERR_KEY_STORE_UNAVAILABLE'
  readonly backend: string
  readonly remedy: string
}
export declare class NotFoundError extends SessionDBError {
  readonly code: 'ERR_NOT_FOUND'
}
export declare class ConflictError extends SessionDBError {
  readonly code: 'ERR_CONFLICT'
}
export declare class AuthenticationError extends SessionDBError {
  readonly code: 'ERR_AUTHENTICATION_FAILED'
}
export declare class CorruptError extends SessionDBError {
  readonly code: 'ERR_CORRUPT'
}
export declare class BusyError extends SessionDBError {
  readonly code: 'ERR_BUSY'
  /** The configured busy timeout, in milliseconds. */
  readonly timeoutMs: number
  /** How long the call really waited before giving up, in milliseconds. */
  readonly waitedMs: number
}
export declare class InvalidInputError extends SessionDBError {
  readonly code: 'ERR_INVALID_INPUT'
}
/** The OS refused a file operation; `ioKind` is 'ENOENT', 'EACCES', 'ENOSPC' or 'EIO'. */
export declare class IoError extends SessionDBError {
  readonly code: 'ERR_IO'
  readonly ioKind: 'ENOENT' | 'EACCES' | 'ENOSPC' | 'EIO'
  readonly errno?: number
}
export declare class DatabaseError extends SessionDBError {
  readonly code: 'ERR_DATABASE'
}
/** Irreducible context overflow, with the protected tokens by category. */
export declare class ContextOverflowError extends SessionDBError {
  readonly code: 'ERR_CONTEXT_OVERFLOW'
  readonly capacity: number
  readonly system: number
  readonly pinned: number
  readonly recent: number
  readonly toolResults: number
  readonly other: number
  readonly protectedTotal: number
  readonly remedies: string[]
}
export declare class ClosedError extends SessionDBError {
  readonly code: 'ERR_CLOSED'
}
