//! sessiondb: the encrypted, journaled, crash-safe store for AI agent sessions.
//!
//! See `DESIGN.md` (shared) and the README's API table. Modules:
//! [`paths`] (default DB path, canonical workspaces), [`crypto`] (the
//! `EncryptedField` envelope), [`keys`] (key sources), [`store`]
//! (`SessionStore`), [`journal`] (idempotent event journal, recovery),
//! [`context`] (capacity, meter, compaction), [`restore`] (restore
//! boundary), [`portable`] (JSONL import/export).

pub mod context;
pub mod crypto;
pub mod backend;
#[doc(hidden)]
pub mod bench;
pub mod error;
pub mod keys;
pub mod paths;
pub mod primitives;
pub mod privacy;
pub mod portable;
pub mod restore;
pub mod search;
#[cfg(feature = "viewer")]
pub mod serve;
pub mod store;

/// The journal lives with the store's write path ([`store::journal`]).
pub use store::journal;

pub use crypto::{DataKey, EncryptedField};
pub use error::{ContextOverflowBreakdown, Error, ErrorKind, Result};
pub use journal::{AppendOutcome, JournalEvent, NewEvent, OperationOutcome, RecoveryReport};
pub use keys::{KeyProvider, KeySource};
pub use search::{Highlight, OffsetUnit, RebuildReport, SearchHit, SearchOptions, SearchResults};
pub use store::{
    AppendTurn, CheckReport, ContentFormat, CopyConflict, CopyReport, ContextExtensionRecord, EntryMeta, ItemPage, NewEntry, NewSession, OpenOptions, Role, SessionRecord, SessionStore, StoreStats,
    TokenTotals, TokenUsage, TranscriptEntry, UnreadableField, WorkspaceFilter,
};
