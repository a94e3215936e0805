// ES module entry of `sessiondb`: the same objects as the CommonJS entry
// (index.js), as named exports and as the default export. The list is checked
// against index.js by __test__/package.test.mjs, so the two cannot drift.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const sdb = require('./index.js')

export default sdb
export const {
  SessionStore,
  Viewer,
  SessionDBError,
  RecoveryLockedError,
  KeyMismatchError,
  KeyStoreUnavailableError,
  NotFoundError,
  ConflictError,
  AuthenticationError,
  CorruptError,
  BusyError,
  InvalidInputError,
  IoError,
  DatabaseError,
  ContextOverflowError,
  ClosedError,
  errorKinds,
  defaultDbPath,
  canonicalWorkspace,
  envelopeAad,
  decryptField,
  encryptField,
  workspaceIndex,
  effectiveContextCapacity,
  capacityBreakdown,
  effectiveContextCapacityForModel,
  knownModelLimits,
  meter,
  shouldCompact,
  countTokens,
  estimateTokens,
  compactContext,
  applyCompaction,
  summarizeItem,
  activeContextItems,
  governanceTurns,
  _benchCore,
  readThclawsDigest,
  writeThclawsJson,
  detectFormat,
  truncateChars,
  encodingForModel,
  recoveryKeyText,
  parseRecoveryKey,
  importRecoveryKey,
} = sdb
