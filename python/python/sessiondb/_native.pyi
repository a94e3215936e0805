"""Type stubs of the native module ``sessiondb._native`` (checked by
``python -m mypy.stubtest sessiondb`` against the built module)."""

import os
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union, final

from sessiondb.inputs import CompactionOptionsDict, ContextItemDict, PortableSessionDict
from sessiondb.types import Band, ContentFormat, ImportStatus, Outcome, Role, SourceFormat

__all__ = [
    "ActiveContextView",
    "ActiveItem",
    "Authority",
    "CapacityBreakdown",
    "CompactionHistoryEntry",
    "CompactionPlan",
    "ContextGovernance",
    "ContextItem",
    "ContextMeter",
    "ContextStatus",
    "DigestSkippedLine",
    "FileImport",
    "ModelLimits",
    "OpenedSession",
    "ReadReport",
    "SavedSessionState",
    "SessionImport",
    "SkippedLine",
    "ThclawsDigest",
    "TokenCount",
    "Transformation",
    "TurnGovernance",
    "AppendOutcome",
    "ContextExtension",
    "CopyConflict",
    "CopyReport",
    "EntryMeta",
    "ItemPage",
    "JournalEvent",
    "NewEntry",
    "OpenOperation",
    "RecoveryReport",
    "Session",
    "SessionStore",
    "StoreStats",
    "TokenTotals",
    "TranscriptEntry",
    "TranscriptIterator",
    "UnreadableField",
    "__version__",
    "_bench_core",
    "apply_compaction",
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
    "import_recovery_key",
    "parse_recovery_key",
    "recovery_key_text",
    "estimate_tokens",
    "encoding_for_model",
    "truncate_chars",
    "detect_format",
    "known_model_limits",
    "meter",
    "should_compact",
    "read_thclaws_digest",
    "workspace_index",
    "write_thclaws_json",
]

__version__: str

@final
class Session:
    """A session's metadata (decrypted). Times in ms since the Unix epoch."""
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> Optional[str]: ...
    @property
    def workspace_path(self) -> Optional[str]: ...
    @property
    def model(self) -> Optional[str]: ...
    @property
    def provider(self) -> Optional[str]: ...
    @property
    def work_mode(self) -> Optional[str]: ...
    @property
    def created_at_ms(self) -> int: ...
    @property
    def updated_at_ms(self) -> int: ...
    @property
    def entry_count(self) -> int: ...
    @property
    def forked_from(self) -> Optional[str]: ...
    @property
    def forked_at_seq(self) -> Optional[int]: ...
    @property
    def unreadable(self) -> List[UnreadableField]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class UnreadableField:
    """A stored field that could not be read (a damaged row): `field` (e.g.
    `name`), `record_id` (e.g. `session:<id>:name`), `kind`
    (`AuthenticationFailed` or `Corrupt`) and `reason`.
    """
    @property
    def field(self) -> str: ...
    @property
    def record_id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def reason(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class TranscriptEntry:
    """One transcript entry (decrypted). `role`: user|assistant|tool|system;
    `format`: text|blocks; `tokens`: host-supplied count, if any.
    """
    @property
    def session_id(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def role(self) -> Role: ...
    @property
    def format(self) -> ContentFormat: ...
    @property
    def content(self) -> str: ...
    @property
    def created_at_ms(self) -> int: ...
    @property
    def tokens(self) -> Optional[int]: ...
    @property
    def source_line(self) -> Optional[int]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class EntryMeta:
    """Per-entry metadata (`append_entries_with_meta`, `get_transcript_with_meta`):
    the model and provider that produced the entry, the source's other
    fields (`extra`, a dict of JSON values: Claude `tool_use_result`, Codex
    `phase`...) and a structured item (`item`: a framework item's JSON text,
    e.g. an Agents SDK item, kept byte-exact and encrypted; the entry's
    content is the text that counts for tokens). Empty metadata is `EntryMeta()`.
    """
    def __new__(
        cls,
        model: Optional[str] = None,
        provider: Optional[str] = None,
        extra: Optional[Dict[str, Any]] = None,
        item: Optional[str] = None,
    ) -> "EntryMeta": ...
    @property
    def item(self) -> Optional[str]:
        """The structured item's JSON text, byte-exact as appended (None: none)."""
    @property
    def model(self) -> Optional[str]: ...
    @property
    def provider(self) -> Optional[str]: ...
    @property
    def extra(self) -> Dict[str, Any]:
        """The source fields as a new dict (JSON values) on each read."""
    def to_dict(self) -> Dict[str, Any]:
        """The metadata as plain data: `{"model", "provider", "extra", "item"}`."""

@final
class ItemPage:
    """A page of structured items (`get_entry_items`, `get_entry_items_tail`):
    `items_json`, one JSON array text with one element per visible entry
    in seq order (its `EntryMeta.item` verbatim, `null` for an entry
    without one: one `json.loads` gives the items); `seqs`, the entries'
    seqs in the same order; `without_item`, `(TranscriptEntry, EntryMeta)`
    pairs of the entries without an item, in seq order.
    """
    @property
    def items_json(self) -> str: ...
    @property
    def seqs(self) -> List[int]: ...
    @property
    def without_item(self) -> List[Tuple[TranscriptEntry, EntryMeta]]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class TokenTotals:
    """Sums of a session's token ledger, in tokens."""
    @property
    def input(self) -> int: ...
    @property
    def output(self) -> int: ...
    @property
    def cached(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ContextExtension:
    """One context extension (pin, exclusion, compaction record...); `body` is JSON text."""
    @property
    def session_id(self) -> str: ...
    @property
    def n(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def created_at_ms(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class AppendOutcome:
    """What a journal append did; `duplicate` = the event id was already there."""
    @property
    def seq(self) -> int: ...
    @property
    def aggregate_version(self) -> int: ...
    @property
    def duplicate(self) -> bool: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class RecoveryReport:
    """What a recovery pass did: `marked_unknown` = `(session_id, operation_id)` pairs."""
    @property
    def marked_unknown(self) -> List[Tuple[str, str]]: ...
    @property
    def skipped_live(self) -> int: ...
    @property
    def failed(self) -> List[Tuple[str, str, str]]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class OpenOperation:
    """An operation dispatched without a terminal event."""
    @property
    def session_id(self) -> str: ...
    @property
    def operation_id(self) -> str: ...
    @property
    def owner(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class CopyConflict:
    """A session `SessionStore.copy_to` refused, left unchanged in the
    destination: `kind` is `Conflict` (the destination holds rows the
    source does not) or `Corrupt` (a damaged row in the source).
    """
    @property
    def session_id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def reason(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class CopyReport:
    """What `SessionStore.copy_to` added to the destination, per kind of row
    (counts), and the sessions it refused.
    """
    @property
    def sessions_seen(self) -> int: ...
    @property
    def sessions_created(self) -> int: ...
    @property
    def sessions_updated(self) -> int: ...
    @property
    def sessions_deleted(self) -> int: ...
    @property
    def entries(self) -> int: ...
    @property
    def retractions(self) -> int: ...
    @property
    def tokens(self) -> int: ...
    @property
    def extensions(self) -> int: ...
    @property
    def events(self) -> int: ...
    @property
    def open_operations(self) -> int: ...
    @property
    def import_records(self) -> int: ...
    @property
    def conflicts(self) -> List[CopyConflict]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class StoreStats:
    """Store figures (`sessiondb doctor`); sizes in bytes."""
    @property
    def path(self) -> str: ...
    @property
    def key_backend(self) -> str: ...
    @property
    def schema_version(self) -> int: ...
    @property
    def sessions(self) -> int: ...
    @property
    def transcript_entries(self) -> int: ...
    @property
    def journal_events(self) -> int: ...
    @property
    def open_operations(self) -> int: ...
    @property
    def db_bytes(self) -> int: ...
    @property
    def wal_bytes(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class JournalEvent:
    """One journal event (decrypted). `payload` is the JSON value (dict, list...);
    `created_at` an RFC 3339 UTC timestamp.
    """
    @property
    def event_id(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def aggregate_version(self) -> int: ...
    @property
    def operation_id(self) -> Optional[str]: ...
    @property
    def kind(self) -> str: ...
    @property
    def payload(self) -> Any: ...
    @property
    def created_at(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]:
        """The event as plain data: `{attribute: value}`."""

@final
class CapacityBreakdown:
    """Every term of the Effective Context Capacity, in tokens."""
    @property
    def raw(self) -> int: ...
    @property
    def output_reserve(self) -> int: ...
    @property
    def safety_margin(self) -> int: ...
    @property
    def capacity(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ModelLimits:
    """Published limits of a model, in tokens."""
    @property
    def context_window(self) -> int: ...
    @property
    def max_output(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ContextMeter:
    """One reading of the context meter: `label` is `Ctx N%`, `band`
    green|amber|orange|red, `overflow` = active_tokens > capacity.
    """
    @property
    def active_tokens(self) -> int: ...
    @property
    def capacity(self) -> int: ...
    @property
    def percent(self) -> int: ...
    @property
    def label(self) -> str: ...
    @property
    def band(self) -> Band: ...
    @property
    def overflow(self) -> bool: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class TokenCount:
    """A token count: `method` exact|estimate|host; `encoding`
    (o200k_base|cl100k_base) only for exact counts.
    """
    @property
    def tokens(self) -> int: ...
    @property
    def method(self) -> str: ...
    @property
    def encoding(self) -> Optional[str]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class Transformation:
    """The transformation record of one compacted item, or of a run of
    items from `seq` to `last_seq` replaced by one summary; `action`
    summarized|tool_result_preview; `summary` at most 240 characters.
    """
    @property
    def seq(self) -> int: ...
    @property
    def last_seq(self) -> Optional[int]: ...
    @property
    def action(self) -> str: ...
    @property
    def tokens_before(self) -> int: ...
    @property
    def tokens_after(self) -> int: ...
    @property
    def summary(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class CompactionPlan:
    """A compaction plan (tokens): `compacted_seqs` are the seqs of
    `transformations`. The saved transcript is never modified.
    """
    @property
    def capacity(self) -> int: ...
    @property
    def target_percent(self) -> int: ...
    @property
    def target_tokens(self) -> int: ...
    @property
    def tokens_before(self) -> int: ...
    @property
    def tokens_after(self) -> int: ...
    @property
    def reached_target(self) -> bool: ...
    @property
    def transformations(self) -> List[Transformation]: ...
    @property
    def compacted_seqs(self) -> List[int]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ContextItem:
    """One item of the active model context (`compact_context` input, also
    accepted as a dict; `apply_compaction` output). `kind`:
    message|tool_call|tool_result|system.
    """
    def __new__(
        cls,
        seq: int,
        role: Role,
        kind: str,
        tokens: int,
        pinned: bool = False,
        text: str = "",
        call_ids: Optional[Sequence[str]] = None,
        compacted: bool = False,
    ) -> "ContextItem": ...
    @property
    def seq(self) -> int: ...
    @property
    def role(self) -> Role: ...
    @property
    def kind(self) -> str: ...
    @property
    def tokens(self) -> int: ...
    @property
    def pinned(self) -> bool: ...
    @property
    def text(self) -> str: ...
    @property
    def call_ids(self) -> List[str]: ...
    @property
    def compacted(self) -> bool: ...
    def to_dict(self) -> Dict[str, Any]:
        """The item as plain data: `{attribute: value}` (the dict form `compact_context` accepts)."""

@final
class TurnGovernance:
    """One turn as `/context` shows it: `state` verbatim|compacted|excluded;
    `compaction` is the record in force for this turn, if any.
    """
    @property
    def seq(self) -> int: ...
    @property
    def state(self) -> str: ...
    @property
    def pinned(self) -> bool: ...
    @property
    def compaction(self) -> Optional[Transformation]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ActiveItem:
    """One item of what the model sees next: `state` verbatim|compacted|excluded,
    `tokens` it costs (0 when excluded), `text` what is sent (None when
    excluded); a run of compacted entries covers `seq`..`last_seq`.
    """
    @property
    def seq(self) -> int: ...
    @property
    def last_seq(self) -> Optional[int]: ...
    @property
    def role(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def tokens(self) -> int: ...
    @property
    def text(self) -> Optional[str]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ActiveContextView:
    """What the model sees next (`active_context`): `items` in order,
    `tokens` their sum, `capacity` the Effective Context Capacity.
    """
    @property
    def model(self) -> Optional[str]: ...
    @property
    def capacity(self) -> int: ...
    @property
    def tokens(self) -> int: ...
    @property
    def items(self) -> List[ActiveItem]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ContextStatus:
    """Where a stored session's context stands (`/context`): `model` picks
    the tokenizer (None: estimate), `capacity` in tokens.
    """
    @property
    def model(self) -> Optional[str]: ...
    @property
    def capacity(self) -> int: ...
    @property
    def meter(self) -> ContextMeter: ...
    @property
    def turns(self) -> List[TurnGovernance]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class CompactionHistoryEntry:
    """One recorded compaction: the context extension number `n`, when
    (ms since the Unix epoch) and the plan as recorded.
    """
    @property
    def n(self) -> int: ...
    @property
    def created_at_ms(self) -> int: ...
    @property
    def plan(self) -> CompactionPlan: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ContextGovernance:
    """Pins, exclusions and compactions of a session, replayed: `pinned`
    and `excluded` seqs ascending, `compacted` the record in force per
    seq, `history` every recorded compaction, oldest first.
    """
    @property
    def pinned(self) -> List[int]: ...
    @property
    def excluded(self) -> List[int]: ...
    @property
    def compacted(self) -> Dict[int, Transformation]: ...
    @property
    def history(self) -> List[CompactionHistoryEntry]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class Authority:
    """The authority of an opened session: always fresh (`permission_profile`
    "manual", no full access, no sensitive-transfer grant, no approvals).
    """
    @property
    def permission_profile(self) -> str: ...
    @property
    def full_access(self) -> bool: ...
    @property
    def sensitive_transfer(self) -> bool: ...
    @property
    def temporary_approvals(self) -> List[str]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class SavedSessionState:
    """A saved session's knowledge, as stored: metadata, the whole
    transcript, token totals, governance and the other context extensions.
    """
    @property
    def session(self) -> Session: ...
    @property
    def transcript(self) -> List[TranscriptEntry]: ...
    @property
    def token_totals(self) -> TokenTotals: ...
    @property
    def governance(self) -> ContextGovernance: ...
    @property
    def other_extensions(self) -> List[ContextExtension]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class OpenedSession:
    """A saved session, opened (seed 000 "Session Restoration Boundary")."""
    @property
    def knowledge(self) -> SavedSessionState: ...
    @property
    def authority(self) -> Authority: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class SessionImport:
    """Per-session figures of one file import (tokens for the `*_tokens` fields)."""
    @property
    def session_id(self) -> str: ...
    @property
    def created(self) -> bool: ...
    @property
    def entries(self) -> int: ...
    @property
    def tool_calls(self) -> int: ...
    @property
    def tool_results(self) -> int: ...
    @property
    def usage_records(self) -> int: ...
    @property
    def input_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def cached_tokens(self) -> int: ...
    @property
    def context_extensions(self) -> int: ...
    @property
    def skipped_already_stored(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class SkippedLine:
    """A line a reader skipped: `reason` torn_tail|invalid_utf8|invalid_json|not_an_object;
    `column` (1-based) only for invalid_json.
    """
    @property
    def line(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def reason(self) -> str: ...
    @property
    def column(self) -> Optional[int]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ReadReport:
    """What a reader saw in one file: every line is imported or counted
    here (`kinds`, `not_imported`, `kept_raw` map a line kind to a count).
    """
    @property
    def format(self) -> Optional[SourceFormat]: ...
    @property
    def lines(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def kinds(self) -> Dict[str, int]: ...
    @property
    def not_imported(self) -> Dict[str, int]: ...
    @property
    def kept_raw(self) -> Dict[str, int]: ...
    @property
    def skipped(self) -> List[SkippedLine]: ...
    @property
    def surrogates_replaced(self) -> List[int]: ...
    @property
    def blank_lines(self) -> int: ...
    @property
    def missing_final_newline(self) -> bool: ...
    @property
    def already_imported_lines(self) -> int: ...
    @property
    def merged_lines(self) -> int: ...
    @property
    def duplicate_usage(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class FileImport:
    """The import report of one file. `format` thclaws|codex|claude-code;
    `status` imported|up_to_date|source_changed|unrecognized|failed, with
    the failure message (no content) in `error`.
    """
    @property
    def path(self) -> str: ...
    @property
    def format(self) -> Optional[SourceFormat]: ...
    @property
    def status(self) -> ImportStatus: ...
    @property
    def error(self) -> Optional[str]: ...
    @property
    def from_line(self) -> int: ...
    @property
    def sessions(self) -> List[SessionImport]: ...
    @property
    def read(self) -> Optional[ReadReport]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class DigestSkippedLine:
    """A line the thClaws reader skipped (`reason` as in `SkippedLine`)."""
    @property
    def line(self) -> int: ...
    @property
    def reason(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ThclawsDigest:
    """What the thClaws reader saw in one file (`read_thclaws_digest`)."""
    @property
    def id(self) -> str: ...
    @property
    def title(self) -> Optional[str]: ...
    @property
    def model(self) -> Optional[str]: ...
    @property
    def provider(self) -> Optional[str]: ...
    @property
    def cwd(self) -> Optional[str]: ...
    @property
    def created_at_ms(self) -> Optional[int]: ...
    @property
    def roles(self) -> List[str]: ...
    @property
    def texts(self) -> List[str]: ...
    @property
    def active_texts(self) -> List[str]: ...
    @property
    def tool_calls(self) -> int: ...
    @property
    def tool_results(self) -> int: ...
    @property
    def plan_steps(self) -> int: ...
    @property
    def compactions(self) -> int: ...
    @property
    def lines(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def skipped(self) -> List[DigestSkippedLine]: ...
    @property
    def surrogates_replaced(self) -> List[int]: ...
    @property
    def missing_final_newline(self) -> bool: ...
    @property
    def kept_raw(self) -> Dict[str, int]: ...
    @property
    def other_lines(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class NewEntry:
    """One entry to append (`SessionStore.append_entries`). `role`:
    user|assistant|tool|system; `format`: text|blocks; times in ms since the
    Unix epoch (None = now); `tokens`: a host-supplied count.
    """
    def __new__(
        cls,
        role: Role,
        content: str,
        format: ContentFormat = "text",
        created_at_ms: Optional[int] = None,
        tokens: Optional[int] = None,
        source_line: Optional[int] = None,
    ) -> "NewEntry": ...
    @property
    def role(self) -> Role: ...
    @property
    def content(self) -> str: ...
    @property
    def format(self) -> ContentFormat: ...
    @property
    def created_at_ms(self) -> Optional[int]: ...
    @property
    def tokens(self) -> Optional[int]: ...
    @property
    def source_line(self) -> Optional[int]: ...

@final
class TranscriptIterator:
    """Iterator over a transcript, one page per core call (`iter_transcript`)."""
    def __iter__(self) -> "TranscriptIterator":
        """Implement iter(self)."""
    def __next__(self) -> TranscriptEntry:
        """Implement next(self)."""

@final
class SessionStore:
    """The encrypted session store. Thread-safe; use as a context manager or
    call `close()`. A handle used in a child process after `os.fork()`
    raises `ClosedError`: open the store again in the child.
    """
    def __new__(
        cls,
        path: Union[str, "os.PathLike[str]", None] = None,
        *,
        key: Optional[bytes] = None,
        key_provider: Any = None,
        app: str = "sessiondb",
        busy_timeout_ms: int = 10000,
        recover: bool = True,
    ) -> "SessionStore": ...
    @classmethod
    def open_default(cls) -> "SessionStore":
        """Open the default store of the default app with the OS keyring."""
    def __enter__(self) -> "SessionStore": ...
    def __exit__(self, *_args: object) -> bool: ...
    def close(self) -> None:
        """Close the handle (checkpoints the WAL). Later calls raise ClosedError. Idempotent."""
    @property
    def closed(self) -> bool:
        """True once `close()` ran."""
    @property
    def path(self) -> str:
        """The database file path."""
    @property
    def instance_id(self) -> str:
        """This handle's owner id (recorded on the operations it dispatches)."""
    @property
    def key_backend(self) -> str:
        """Which key backend the data key came from."""
    def open_recovery_report(self) -> RecoveryReport:
        """The report of the recovery pass run at open."""
    def copy_to(self, dest: SessionStore) -> CopyReport:
        """Copy this store into `dest` (another SessionStore: a file or a
        PostgreSQL URL), incrementally, moving ciphertext as it is: rows per
        kind added and the sessions refused (`CopyReport.conflicts`). Raises
        KeyMismatchError (dest has another data key; nothing is written),
        ClosedError, BusyError, IoError.
        """
    def recovery_key(self) -> str:
        """This store's data key as a recovery key: 56 base32 characters (key
        and a 3-byte checksum) in 14 groups of 4 joined by `-`. Whoever holds
        it can decrypt every session.
        """
    def stats(self) -> StoreStats:
        """Schema version, counts and file sizes."""
    def create_session(
        self,
        name: Optional[str] = None,
        workspace_path: Optional[str] = None,
        *,
        id: Optional[str] = None,
        model: Optional[str] = None,
        provider: Optional[str] = None,
        work_mode: Optional[str] = None,
        created_at_ms: Optional[int] = None,
        forked_from: Optional[str] = None,
        forked_at_seq: Optional[int] = None,
    ) -> Session:
        """Create a session. `workspace_path` is made canonical; `id` = None
        gives a new uuid v7. Raises ConflictError (id exists), InvalidInputError.
        """
    def get_session(self, id: str) -> Session:
        """One session. Raises NotFoundError."""
    def list_sessions(self, limit: Optional[int] = None) -> List[Session]:
        """Every session, most recently active first, at most `limit`."""
    def list_sessions_for_workspace(
        self, scope: str, path: Optional[str] = None, limit: Optional[int] = None
    ) -> List[Session]:
        """Sessions by workspace. `scope`: "current" (bound to `path`), "other"
        (bound to another workspace than `path`), "unbound", "all".
        """
    def find_session(self, id_prefix_or_title: str) -> Session:
        """Resolve a full id, a unique id prefix or an exact title.
        Raises NotFoundError, ConflictError (ambiguous).
        """
    def rename_session(self, id: str, name: Optional[str]) -> Session:
        """Set (or clear with None) a session's title. Raises NotFoundError."""
    def set_session_model(self, id: str, model: Optional[str], provider: Optional[str] = None) -> Session:
        """Change the model (and provider); the session id stays. Raises NotFoundError."""
    def set_work_mode(self, id: str, work_mode: Optional[str]) -> Session:
        """Set the work mode. Raises NotFoundError."""
    def delete_session(self, id: str) -> None:
        """Delete a session with its transcript, tokens and context extensions
        (its journal stays). Raises NotFoundError.
        """
    def append_transcript(self, session_id: str, role: Role, content: str) -> TranscriptEntry:
        """Append one entry; returns it with its seq. Raises NotFoundError, InvalidInputError."""
    def append_entries(self, session_id: str, entries: List[NewEntry]) -> List[TranscriptEntry]:
        """Append several entries in one transaction (all or none)."""
    def get_transcript(self, session_id: str, from_seq: int = 1, limit: int = 1000) -> List[TranscriptEntry]:
        """One page: up to `limit` (1..=10000) entries with `seq >= from_seq`.
        Raises NotFoundError, AuthenticationError, InvalidInputError.
        """
    def retract_entry(self, session_id: str, seq: int) -> Optional[TranscriptEntry]:
        """Retract entry `seq`: it stays stored but is left out of reads, counts,
        export, fork and the context from now on (one EntryRetracted journal
        event). Returns the entry, or None when it was already retracted.
        Raises NotFoundError (session or seq), BusyError.
        """
    def retract_last_entry(self, session_id: str) -> Optional[TranscriptEntry]:
        """Retract the last visible entry and return it (None when there is
        none): the Agents SDK's `pop_item`. Raises NotFoundError, BusyError.
        """
    def get_transcript_tail(self, session_id: str, limit: int = 1000) -> List[TranscriptEntry]:
        """The last `limit` (1..=10000) entries, in seq order (all of a shorter session).
        Raises NotFoundError, AuthenticationError, InvalidInputError.
        """
    def append_entries_with_meta(
        self, session_id: str, entries: List[Tuple[NewEntry, EntryMeta]]
    ) -> List[TranscriptEntry]:
        """`append_entries` with per-entry metadata: `entries` is a list of
        `(NewEntry, EntryMeta)` pairs, one transaction (all or none).
        Raises NotFoundError, InvalidInputError (e.g. a model or provider
        name over 256 bytes or with control characters).
        """
    def get_transcript_tail_with_meta(
        self, session_id: str, limit: int = 1000
    ) -> List[Tuple[TranscriptEntry, EntryMeta]]:
        """The last `limit` (1..=10000) entries with their metadata, in seq
        order, in one read: a list of `(TranscriptEntry, EntryMeta)` pairs.
        Raises NotFoundError, AuthenticationError, InvalidInputError, CorruptError.
        """
    def get_transcript_with_meta(
        self, session_id: str, from_seq: int = 1, limit: int = 1000
    ) -> List[Tuple[TranscriptEntry, EntryMeta]]:
        """`get_transcript` with each entry's metadata: a list of
        `(TranscriptEntry, EntryMeta)` pairs (empty `EntryMeta()` for entries
        written without). Raises NotFoundError, AuthenticationError,
        InvalidInputError, CorruptError.
        """
    def get_entry_items(self, session_id: str, from_seq: int = 1, limit: int = 1000) -> ItemPage:
        """Up to `limit` (1..=10000) entries with `seq >= from_seq` as their
        structured items, one read: an `ItemPage` (`json.loads(page.items_json)`
        is the list of items, `None` where an entry has none: those entries
        are in `page.without_item`, their seqs in `page.seqs`). Contents of
        entries with an item are not decrypted. Raises NotFoundError,
        AuthenticationError, InvalidInputError, CorruptError.
        """
    def get_entry_items_tail(self, session_id: str, limit: int = 1000) -> ItemPage:
        """The last `limit` (1..=10000) entries as their structured items, in
        seq order, in one read: an `ItemPage` (see `get_entry_items`).
        Raises NotFoundError, AuthenticationError, InvalidInputError, CorruptError.
        """
    def iter_transcript(self, session_id: str, from_seq: int = 1, page_size: int = 1000) -> TranscriptIterator:
        """Iterate over a whole transcript from `from_seq`, fetching `page_size` entries per call."""
    def record_tokens(
        self,
        session_id: str,
        *,
        input: int = 0,
        output: int = 0,
        cached: int = 0,
        model: Optional[str] = None,
        provider: Optional[str] = None,
    ) -> None:
        """Add one token-ledger record (tokens). Raises NotFoundError, InvalidInputError."""
    def token_totals(self, session_id: str) -> TokenTotals:
        """Sums of a session's token ledger. Raises NotFoundError."""
    def append_context_extension(self, session_id: str, kind: str, body_json: str) -> int:
        """Append a context extension (`body_json`: JSON text); returns its number `n`."""
    def list_context_extensions(self, session_id: str) -> List[ContextExtension]:
        """Every context extension of a session, in `n` order."""
    def journal_append(
        self, event_id: str, session_id: str, kind: str, payload: Any, operation_id: Optional[str] = None
    ) -> AppendOutcome:
        """Append one journal event, idempotent by `event_id`; `payload` is any
        JSON-serialisable value. Raises ConflictError (same id, other
        payload), NotFoundError, InvalidInputError.
        """
    def dispatch_operation(self, session_id: str, operation_id: str, payload: Any = None) -> AppendOutcome:
        """Record that an operation's effect was dispatched (owned by this handle)."""
    def complete_operation(
        self, session_id: str, operation_id: str, outcome: Outcome, payload: Any = None
    ) -> AppendOutcome:
        """Record an operation's terminal event. `outcome`: succeeded, failed,
        blocked, cancelled, unknown. Raises ConflictError, NotFoundError.
        """
    def journal_events(self, session_id: str, from_seq: int = 1, limit: int = 1000) -> List[JournalEvent]:
        """Journal events of a session from `from_seq`, at most `limit`."""
    def open_operations(self) -> List[OpenOperation]:
        """Operations dispatched without a terminal event."""
    def recover(self) -> RecoveryReport:
        """Run the recovery pass now (it also runs at open)."""
    def active_context(
        self, session_id: str, raw_window: int, output_reserve: Optional[int] = None, model: Optional[str] = None
    ) -> ActiveContextView:
        """What the model sees next for a `raw_window`-token window: every entry
        verbatim, compacted (a run is one item) or excluded, with its tokens,
        in order; only verbatim contents are decrypted. Records nothing (call
        `compact_session` first). Raises NotFoundError, InvalidInputError.
        """
    def context_status(
        self, session_id: str, raw_window: int, output_reserve: Optional[int] = None, model: Optional[str] = None
    ) -> ContextStatus:
        """Where a stored session's context stands: `model`, `capacity`,
        `meter`, `turns`. `raw_window` in tokens. Raises NotFoundError, InvalidInputError.
        """
    def compact_session(
        self,
        session_id: str,
        raw_window: int,
        output_reserve: Optional[int] = None,
        model: Optional[str] = None,
        target_percent: Optional[int] = None,
        dry_run: bool = False,
    ) -> CompactionPlan:
        """Plan (and unless `dry_run`, record) compaction of a stored session
        like `/compact`; the transcript is never modified. Returns the plan.
        Raises ContextOverflowError, NotFoundError, InvalidInputError.
        """
    def recover_context_governance(self, session_id: str) -> ContextGovernance:
        """Pins, exclusions and compaction history of a session, replayed."""
    def record_turn_decision(self, session_id: str, kind: str, seqs: Sequence[int]) -> int:
        """Record a turn decision (`kind`: pin, unpin, exclude, include) for
        transcript `seqs`; returns the extension number.
        """
    def open_saved_session(self, session_id: str) -> OpenedSession:
        """Open a saved session (seed 000 "Session Restoration Boundary"):
        `knowledge` (session, transcript, token_totals, governance,
        other_extensions) and a fresh `authority` (Manual, no full access,
        no grants). Reads only.
        """
    def import_file(self, path: Union[str, "os.PathLike[str]"], format: Optional[SourceFormat] = None) -> FileImport:
        """Import one session file (thClaws JSONL, Codex rollout or Claude Code
        transcript; `format` "thclaws" | "codex" | "claude-code", None =
        detect). Returns the file's import report.
        """
    def import_paths(self, paths: Sequence[Union[str, "os.PathLike[str]"]]) -> List[FileImport]:
        """Import every session file under `paths` (files or directory trees;
        inside a directory only `*.jsonl` files, format detected per file).
        Returns one report per file, in the order of `paths` (each tree in
        sorted walk order). Nothing aborts the whole import: a path that
        cannot be read becomes a `failed` report whose `error` names it. The
        GIL is released for the whole import; there is no progress callback.
        """
    def export_thclaws(self, session_id: str) -> str:
        """The session as thClaws JSONL text (what real thClaws reads)."""
    def fork_session(self, session_id: str, at_seq: Optional[int] = None, summary: Optional[str] = None) -> Session:
        """Fork a session (seed 002 `/fork`): entries up to `at_seq` (default
        all), or one `system` entry with `summary`. Raises NotFoundError, InvalidInputError.
        """
    def resolve_session(self, reference: str, workspace: Optional[str] = None) -> Session:
        """Resolve a reference as `/load` and `--resume` do: `last` = the most
        recent session bound to `workspace`; otherwise an id, unique id prefix
        or exact title. Raises NotFoundError, ConflictError (ambiguous).
        """
    def recent_sessions(self) -> List[Session]:
        """The 20 most recently active sessions (seed 002 `/sessions`)."""
    def sidebar_sessions(self) -> List[Session]:
        """Sidebar order (seed 002): the 10 most recent sessions, titled first."""
    def record_compaction(self, session_id: str, plan: CompactionPlan) -> Optional[int]:
        """Record a compaction plan; returns its context extension number, or
        None for a plan without transformations (not recorded). Raises NotFoundError.
        """

def default_db_path(app: str = "sessiondb") -> str:
    """Default database path for `app` (seed 000 `sessionsDbPath()`)."""
def canonical_workspace(path: str) -> str:
    """Canonical form of a workspace path (absolute, symlinks resolved, NFC...),
    relative paths taken against the current directory.
    """
def error_kinds() -> List[Tuple[str, str, str]]:
    """`(name, code, python class name)` of every core error kind."""
def recovery_key_text(key: bytes) -> str:
    """The recovery key text of a 32-byte data key: base32 (RFC 4648) of the
    key and a 3-byte checksum (SHA-256 of `"sessiondb recovery key v1\\\\0"` +
    key), 56 characters in 14 groups of 4 joined by `-`. Raises
    InvalidInputError unless `key` is 32 bytes.
    """
def parse_recovery_key(text: str) -> bytes:
    """The 32-byte data key of a recovery key (any case; whitespace and `-`
    ignored). Raises InvalidInputError: "recovery key checksum mismatch" for
    a mistyped key, or the wrong length or character.
    """
def import_recovery_key(
    recovery_key: str,
    path: Union[str, "os.PathLike[str]", None] = None,
    *,
    key_provider: Any = None,
    app: str = "sessiondb",
) -> SessionStore:
    """Import a recovery key for the store at `path` (None = the default path
    for `app`) and open it: the text is checked (checksum), then against the
    database's key-check value, then stored in the credential store
    (`key_provider`'s `set_key`, else the OS keyring under service `app`).
    Raises InvalidInputError (mistyped: "recovery key checksum mismatch"),
    NotFoundError (no database file), KeyMismatchError (another database's
    key; nothing stored), ConflictError (the credential store holds another
    key for `app`; nothing overwritten), KeyStoreUnavailableError.
    """
def envelope_aad(record_id: str) -> str:
    """The AAD of an envelope v1 for `record_id`: `record_id:v1:aes-256-gcm`."""
def decrypt_field(key: bytes, record_id: str, envelope_json: str) -> bytes:
    """Decrypt an `EncryptedField` envelope (JSON text) written for
    `record_id`. Raises AuthenticationError, CorruptError, InvalidInputError.
    """
def encrypt_field(key: bytes, record_id: str, plaintext: bytes) -> str:
    """Encrypt `plaintext` for `record_id` with a fresh random nonce; returns the envelope JSON text."""
def workspace_index(key: bytes, canonical_path: str) -> str:
    """Hex HMAC-SHA-256 workspace index of an already canonical path."""
def read_thclaws_digest(data: bytes, fallback_id: str = "session") -> ThclawsDigest:
    """Read thClaws JSONL bytes and return what the reader saw (the fields of
    `tests/conformance/portable/read_thclaws.json`).
    Raises InvalidInputError when the bytes hold no session.
    """
def write_thclaws_json(session: PortableSessionDict) -> str:
    """Write a session dict `{id, title?, model?, provider?, cwd?, created_at_ms?,
    turns: [{role, blocks, timestamp_ms?, model?, provider?}]}` as thClaws
    JSONL text. Raises InvalidInputError.
    """
def _bench_core(path: Union[str, "os.PathLike[str]"], key: bytes, items: List[str], page: int, batch: int = 1) -> Tuple[float, float]:
    """Benchmark helper: the same work as `bench_vs_agents_sdk.py`'s sessiondb
    run, in Rust only: append the items (one `append_transcript` per item, or
    `append_entries` of `batch` items per call when `batch > 1`), then read
    everything back in pages of `page`. Returns `(append_s, read_s)`.
    """
def effective_context_capacity(
    raw: int, output_reserve: Optional[int] = None, model_max_output: Optional[int] = None
) -> int:
    """Effective Context Capacity in tokens (seed 000 "Context Utilization
    Meter"): raw − max(min(output_reserve, model_max_output), ⌈8% raw⌉) −
    max(2048, ⌈2% raw⌉). Raises InvalidInputError.
    """
def capacity_breakdown(
    raw: int, output_reserve: Optional[int] = None, model_max_output: Optional[int] = None
) -> CapacityBreakdown:
    """Every term of the capacity (tokens). Raises InvalidInputError."""
def effective_context_capacity_for_model(model: str, output_reserve: Optional[int] = None) -> int:
    """Capacity for a known model name (its window and maximum output). Raises InvalidInputError."""
def known_model_limits(model: str) -> Optional[ModelLimits]:
    """Known limits of a model (`context_window`, `max_output`), or None."""
def meter(active_tokens: int, capacity: int) -> ContextMeter:
    """The meter: `percent`, `label` ("Ctx N%"), `band` (green|amber|orange|red), `overflow`...
    Raises InvalidInputError (capacity 0).
    """
def should_compact(projected_tokens: int, capacity: int) -> bool:
    """True when the projected context exceeds the capacity (compact before the provider call)."""
def count_tokens(model: str, text: str, host_count: Optional[int] = None) -> TokenCount:
    """Token count of `text` for `model`: `tokens`, `method`
    (exact|estimate|host) and `encoding` for exact counts. A host count always wins.
    """
def estimate_tokens(text: str) -> int:
    """The documented estimate (no tokenizer), in tokens."""
def compact_context(
    items: Sequence[Union[ContextItem, ContextItemDict]],
    capacity: int,
    target_percent: Optional[int] = None,
    options: Optional[CompactionOptionsDict] = None,
) -> CompactionPlan:
    """Plan compaction of `items` (`ContextItem` objects or dicts: seq, role,
    kind, tokens, text, pinned...) down to `target_percent` (default 70) of
    `capacity`. Raises ContextOverflowError (breakdown attributes),
    InvalidInputError.
    """
def apply_compaction(
    plan: Union[CompactionPlan, Dict[str, Any]], items: Sequence[Union[ContextItem, ContextItemDict]]
) -> List[ContextItem]:
    """The context `items` with `plan` (a `CompactionPlan` or its dict form)
    applied: compacted items replaced by their summaries.
    """

def encoding_for_model(model: str) -> Optional[Literal["o200k_base", "cl100k_base"]]:
    """The tiktoken encoding of a model name (`o200k_base`, `cl100k_base`), or
    None when its family has none.
    """
def truncate_chars(text: str, max_chars: int) -> str:
    """Cut `text` to at most `max_chars` characters, ending with `…` when cut,
    never inside a character or a common grapheme cluster.
    """
def detect_format(path: Union[str, "os.PathLike[str]"]) -> Optional[SourceFormat]:
    """The format of a session file from its first lines (`thclaws`, `codex`,
    `claude-code`), or None when it is none of them. Raises IoError.
    """
