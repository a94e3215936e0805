"""sessiondb: the encrypted, journaled, crash-safe store for AI agent sessions.

Python bindings of the Rust core (pyo3). Every call that touches disk or
crypto releases the GIL; a :class:`SessionStore` may be shared between
threads. Errors are :class:`SessionDBError` subclasses (see
:mod:`sessiondb.errors`).

Example::

    import sessiondb

    with sessiondb.SessionStore("sessions.db", key=key_bytes) as store:
        s = store.create_session("refactor auth", workspace_path=".")
        store.append_transcript(s.id, "user", "hello")
        for entry in store.iter_transcript(s.id):
            print(entry.seq, entry.role, entry.content)
"""

from __future__ import annotations

from typing import Optional, Protocol

from . import errors, inputs, types
from ._native import (
    AppendOutcome,
    Authority,
    CapacityBreakdown,
    CompactedRun,
    CompactionHistoryEntry,
    CompactionPlan,
    ContextExtension,
    ContextGovernance,
    ContextItem,
    ContextMeter,
    ContextStatus,
    CopyConflict,
    CopyReport,
    ActiveContextView,
    ActiveItem,
    DigestSkippedLine,
    EntryMeta,
    ItemPage,
    FileImport,
    JournalEvent,
    ModelLimits,
    NewEntry,
    OpenedSession,
    OpenOperation,
    PrunedSession,
    ReadReport,
    RebuildReport,
    RecoveryReport,
    SearchHit,
    SearchOptions,
    SearchResults,
    Highlight,
    SavedSessionState,
    Session,
    SessionImport,
    SessionStore,
    SkippedLine,
    StoreStats,
    ThclawsDigest,
    TokenCount,
    TokenTotals,
    TranscriptEntry,
    TranscriptIterator,
    Transformation,
    WriteReport,
    TurnGovernance,
    UnreadableField,
    Viewer,
    __version__,
    apply_compaction,
    active_context_items,
    governance_turns,
    summarize_item,
    canonical_workspace,
    capacity_breakdown,
    compact_context,
    count_tokens,
    effective_context_capacity,
    effective_context_capacity_for_model,
    estimate_tokens,
    encoding_for_model,
    truncate_chars,
    detect_format,
    known_model_limits,
    meter,
    should_compact,
    decrypt_field,
    default_db_path,
    encrypt_field,
    envelope_aad,
    error_kinds,
    import_recovery_key,
    parse_recovery_key,
    read_thclaws_digest,
    recovery_key_text,
    workspace_index,
    write_thclaws_json,
)
from .errors import (
    AuthenticationError,
    BusyError,
    ClosedError,
    ConflictError,
    ContextOverflowError,
    CorruptError,
    DatabaseError,
    FileNotFoundIoError,
    InvalidInputError,
    IoError,
    KeyMismatchError,
    KeyStoreUnavailableError,
    NotFoundError,
    PermissionIoError,
    RecoveryLockedError,
    SessionDBError,
)
from .inputs import CompactionOptionsDict, ContextItemDict, PortableSessionDict, PortableTurnDict
from .types import Band, ContentFormat, ErrorCode, ErrorKind, ExportFormat, ImportStatus, Outcome, Role, SourceFormat


class KeyProvider(Protocol):
    """A host key source (``SessionStore(key_provider=...)``).

    ``get_key`` returns the 32 stored key bytes, or ``None`` when there is no
    key yet; it must *raise* when the store is locked or unreachable (never
    return ``None`` for that). ``set_key`` persists a freshly generated key
    (called once, when a new database is created). An optional
    ``backend_name`` (str or method) names the backend in error messages.
    """

    def get_key(self) -> Optional[bytes]: ...

    def set_key(self, key: bytes) -> None: ...


def serve(
    path=None,
    *,
    app: str = "sessiondb",
    bind: Optional[str] = None,
    port: int = 0,
    allow_remote: bool = False,
    window: int = 128_000,
    **open_options,
) -> None:
    """Serve the local, read-only viewer of a store until Ctrl-C, as
    ``sessiondb serve`` does (docs/viewer.md): open the store at ``path``
    (None = the default path for ``app``; ``open_options`` are the other
    keywords of :class:`SessionStore`), print the one-time sign-in URL on
    stdout, block until KeyboardInterrupt, then stop the viewer and close
    the store. The ``current`` / ``other`` workspace filters compare with
    the working directory. For a viewer that runs beside your own code, use
    :meth:`SessionStore.serve`, which returns a :class:`Viewer` at once.
    Raises what :class:`SessionStore` and :meth:`SessionStore.serve` raise.
    """
    import os

    with SessionStore(path, app=app, **open_options) as store:
        with store.serve(bind=bind, port=port, allow_remote=allow_remote, workspace=os.getcwd(), window=window) as viewer:
            # Ctrl-C can come as soon as the URL is out (a script that
            # reads it and signals at once): inside the try, not before it.
            try:
                print(viewer.url, flush=True)
                viewer.wait()
            except KeyboardInterrupt:
                pass


__all__ = [
    "AppendOutcome",
    "AuthenticationError",
    "Authority",
    "BusyError",
    "CapacityBreakdown",
    "ClosedError",
    "CompactedRun",
    "CompactionHistoryEntry",
    "CompactionOptionsDict",
    "CompactionPlan",
    "ConflictError",
    "ContextExtension",
    "ContextGovernance",
    "ContextItem",
    "ContextItemDict",
    "ContextMeter",
    "ContextOverflowError",
    "ContextStatus",
    "ActiveContextView",
    "ActiveItem",
    "CorruptError",
    "DatabaseError",
    "DigestSkippedLine",
    "EntryMeta",
    "ItemPage",
    "FileImport",
    "FileNotFoundIoError",
    "InvalidInputError",
    "IoError",
    "JournalEvent",
    "KeyMismatchError",
    "KeyProvider",
    "KeyStoreUnavailableError",
    "ModelLimits",
    "NewEntry",
    "NotFoundError",
    "OpenOperation",
    "OpenedSession",
    "PermissionIoError",
    "PrunedSession",
    "PortableSessionDict",
    "PortableTurnDict",
    "Band",
    "ContentFormat",
    "ErrorCode",
    "ErrorKind",
    "ImportStatus",
    "Outcome",
    "Role",
    "SourceFormat",
    "ExportFormat",
    "ReadReport",
    "RecoveryLockedError",
    "RecoveryReport",
    "SavedSessionState",
    "Session",
    "SessionDBError",
    "SessionImport",
    "SessionStore",
    "SkippedLine",
    "StoreStats",
    "ThclawsDigest",
    "TokenCount",
    "TokenTotals",
    "TranscriptEntry",
    "TranscriptIterator",
    "Transformation",
    "WriteReport",
    "TurnGovernance",
    "UnreadableField",
    "Viewer",
    "__version__",
    "apply_compaction",
    "active_context_items",
    "governance_turns",
    "summarize_item",
    "canonical_workspace",
    "capacity_breakdown",
    "compact_context",
    "count_tokens",
    "decrypt_field",
    "default_db_path",
    "effective_context_capacity",
    "effective_context_capacity_for_model",
    "encrypt_field",
    "envelope_aad",
    "error_kinds",
    "errors",
    "estimate_tokens",
    "encoding_for_model",
    "truncate_chars",
    "detect_format",
    "inputs",
    "types",
    "known_model_limits",
    "meter",
    "read_thclaws_digest",
    "should_compact",
    "workspace_index",
    "write_thclaws_json",
    "CopyConflict",
    "CopyReport",
    "import_recovery_key",
    "parse_recovery_key",
    "recovery_key_text",
    "Highlight",
    "RebuildReport",
    "SearchHit",
    "SearchOptions",
    "SearchResults",
    "serve",
]
