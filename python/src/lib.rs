//! `sessiondb._native`: the pyo3 bindings of the sessiondb core. Thin: each
//! method converts arguments, calls the core with the GIL released, and maps
//! the error to a `sessiondb.errors` class. The public Python API is the
//! `sessiondb` package (python/python/sessiondb), which re-exports these.

mod context;
mod errors;
mod funcs;
mod json;
mod keys;
mod records;
mod results;
mod store;

use pyo3::prelude::*;

#[pymodule]
mod _native {
    #[pymodule_export]
    use crate::records::{
        AppendOutcome, ContextExtension, CopyConflict, CopyReport, EntryMeta, ItemPage, JournalEvent, OpenOperation, RecoveryReport, Session, StoreStats, TokenTotals,
        TranscriptEntry, UnreadableField,
    };
    #[pymodule_export]
    use crate::results::{
        ActiveContextView, ActiveItem, Authority, CapacityBreakdown, CompactionHistoryEntry, CompactionPlan, ContextGovernance, ContextItem, ContextMeter,
        ContextStatus, DigestSkippedLine, FileImport, ModelLimits, OpenedSession, ReadReport, SavedSessionState,
        SessionImport, SkippedLine, ThclawsDigest, TokenCount, Transformation, TurnGovernance,
    };
    #[pymodule_export]
    use crate::store::{import_recovery_key, NewEntry, SessionStore, TranscriptIterator};
    #[pymodule_export]
    use crate::funcs::{
        _bench_core, canonical_workspace, decrypt_field, default_db_path, encrypt_field, envelope_aad, error_kinds,
        parse_recovery_key, read_thclaws_digest, recovery_key_text, workspace_index, write_thclaws_json,
    };

    #[pymodule_export]
    use crate::context::{
        apply_compaction, capacity_breakdown, compact_context, count_tokens, detect_format, effective_context_capacity,
        effective_context_capacity_for_model, encoding_for_model, estimate_tokens, known_model_limits, meter, should_compact,
        truncate_chars,
    };

    use super::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        Ok(())
    }
}
