"""Type stubs of the native module ``sessiondb._native`` (checked by
``python -m mypy.stubtest sessiondb`` against the built module).

Written by sessiondb-bridge from bridge/api.rs and python/_native.hand.pyi
(what python/src declares by hand; each ``# bridge:`` line there marks
where generated text goes): edit those, then run
``SESSIONDB_BLESS=1 cargo test -p sessiondb-bridge --test snapshots``."""

import os
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union, final

from sessiondb.inputs import CompactionOptionsDict, ContextItemDict, PortableSessionDict
from sessiondb.types import Band, ContentFormat, ExportFormat, ImportStatus, Outcome, Role, SourceFormat

__all__ = [
    "ActiveContextView",
    "ActiveItem",
    "AppendOutcome",
    "Authority",
    "CapacityBreakdown",
    "CompactedRun",
    "CompactionHistoryEntry",
    "CompactionPlan",
    "ContextExtension",
    "ContextGovernance",
    "ContextItem",
    "ContextMeter",
    "ContextStatus",
    "CopyConflict",
    "CopyReport",
    "DigestSkippedLine",
    "EntryMeta",
    "FileImport",
    "Highlight",
    "ItemPage",
    "JournalEvent",
    "ModelLimits",
    "NewEntry",
    "OpenOperation",
    "OpenedSession",
    "PrunedSession",
    "ReadReport",
    "RebuildReport",
    "RecoveryReport",
    "SavedSessionState",
    "SearchHit",
    "SearchOptions",
    "SearchResults",
    "Session",
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
    "TurnGovernance",
    "UnreadableField",
    "Viewer",
    "WriteReport",
    "__version__",
    "_bench_core",
    "active_context_items",
    "apply_compaction",
    "canonical_workspace",
    "capacity_breakdown",
    "compact_context",
    "count_tokens",
    "decrypt_field",
    "default_db_path",
    "detect_format",
    "effective_context_capacity",
    "effective_context_capacity_for_model",
    "encoding_for_model",
    "encrypt_field",
    "envelope_aad",
    "error_kinds",
    "estimate_tokens",
    "governance_turns",
    "import_recovery_key",
    "known_model_limits",
    "meter",
    "parse_recovery_key",
    "read_thclaws_digest",
    "recovery_key_text",
    "should_compact",
    "summarize_item",
    "truncate_chars",
    "workspace_index",
    "write_thclaws_json",
]

__version__: str

@final
class Session:
    """A session's metadata, decrypted."""
    @property
    def id(self) -> str:
        """Session id (uuid v7 for new sessions; the source id for imports)."""
    @property
    def name(self) -> Optional[str]:
        """Title; none = untitled (listed by id)."""
    @property
    def workspace_path(self) -> Optional[str]:
        """Canonical workspace path the session is bound to, if any."""
    @property
    def model(self) -> Optional[str]:
        """Model name (e.g. `claude-sonnet-4-6`)."""
    @property
    def provider(self) -> Optional[str]:
        """Provider name (e.g. `anthropic`)."""
    @property
    def work_mode(self) -> Optional[str]:
        """Work mode (host-defined, e.g. `plan`, `build`)."""
    @property
    def created_at_ms(self) -> int:
        """Creation time, milliseconds since the Unix epoch."""
    @property
    def updated_at_ms(self) -> int:
        """Last activity time, milliseconds since the Unix epoch."""
    @property
    def entry_count(self) -> int:
        """Number of transcript entries (retracted ones not counted)."""
    @property
    def forked_from(self) -> Optional[str]:
        """The session this one was forked from."""
    @property
    def forked_at_seq(self) -> Optional[int]:
        """The last seq of the parent copied into this fork."""
    @property
    def unreadable(self) -> List[UnreadableField]:
        """Fields that could not be read (a damaged row); empty when healthy."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class UnreadableField:
    """A stored field that could not be read (a damaged row)."""
    @property
    def field(self) -> str:
        """Which field: `name`, `workspace_path`, `content`, `meta`, `body`, `payload`, `tokens`, `value`."""
    @property
    def record_id(self) -> str:
        """The record id, e.g. `session:<id>:name`."""
    @property
    def kind(self) -> str:
        """`AuthenticationFailed` or `Corrupt`."""
    @property
    def reason(self) -> str:
        """Why, without user content."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class TranscriptEntry:
    """One transcript entry, decrypted."""
    @property
    def session_id(self) -> str:
        """Owning session."""
    @property
    def seq(self) -> int:
        """Gapless per-session sequence number, from 1."""
    @property
    def role(self) -> Role:
        """Author role."""
    @property
    def format(self) -> ContentFormat:
        """How to read `content`."""
    @property
    def content(self) -> str:
        """The content, verbatim."""
    @property
    def created_at_ms(self) -> int:
        """Time written, ms since the Unix epoch."""
    @property
    def tokens(self) -> Optional[int]:
        """Token count of this entry if the host or importer supplied one."""
    @property
    def source_line(self) -> Optional[int]:
        """Line number in the imported source file, if imported."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class NewEntry:
    """One entry to append (`append_entries`)."""
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
    def role(self) -> Role:
        """Author role."""
    @property
    def content(self) -> str:
        """The content, stored verbatim (encrypted)."""
    @property
    def format(self) -> ContentFormat:
        """How to read `content` (default `text`; Kotlin/Swift: required)."""
    @property
    def created_at_ms(self) -> Optional[int]:
        """Time written, ms since the Unix epoch (none = now)."""
    @property
    def tokens(self) -> Optional[int]:
        """Host-supplied token count."""
    @property
    def source_line(self) -> Optional[int]:
        """Line number in an imported source file."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class RecoveryReport:
    """What a recovery pass did (seed 000, "Recovery Pass"). Python keeps the
    operations as `(session_id, operation_id)` pairs and
    `(session_id, operation_id, kind)` triples.
    """
    @property
    def marked_unknown(self) -> List[Tuple[str, str]]:
        """Operations marked `OperationUnknownOutcome`."""
    @property
    def skipped_live(self) -> int:
        """Open operations left alone because their owner is alive."""
    @property
    def failed(self) -> List[Tuple[str, str, str]]:
        """Operations that could not be marked (retried by the next pass)."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class TokenTotals:
    """Sums of a session's token ledger (seed 000 `tokenTotals`), in tokens."""
    @property
    def input(self) -> int:
        """Sum of input tokens."""
    @property
    def output(self) -> int:
        """Sum of output tokens."""
    @property
    def cached(self) -> int:
        """Sum of cached tokens."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ContextExtension:
    """One context extension (pins, exclusions, compaction records, plans...), decrypted."""
    @property
    def session_id(self) -> str:
        """Owning session."""
    @property
    def n(self) -> int:
        """Per-session number, from 1, gapless."""
    @property
    def kind(self) -> str:
        """Kind (plaintext, not user content): e.g. `pin`, `unpin`, `exclude`, `compaction`."""
    @property
    def body(self) -> str:
        """The body (JSON text), decrypted."""
    @property
    def created_at_ms(self) -> int:
        """Time written, ms since the Unix epoch."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class AppendOutcome:
    """What a journal append did."""
    @property
    def seq(self) -> int:
        """The event's per-session seq (the original one for a duplicate)."""
    @property
    def aggregate_version(self) -> int:
        """The event's store-wide aggregate_version."""
    @property
    def duplicate(self) -> bool:
        """True if the event was already there (nothing was written)."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class StoreStats:
    """Store figures (`sessiondb doctor`): schema version, counts, file sizes, key backend."""
    @property
    def path(self) -> str:
        """Database file path (a PostgreSQL store: its URL without the password)."""
    @property
    def key_backend(self) -> str:
        """The key backend the data key came from (`file`: a key file, see `key_file`)."""
    @property
    def key_file(self) -> Optional[str]:
        """The key file holding the data key when `key_backend` is `file` (a
        machine without an OS credential store); else none.
        """
    @property
    def schema_version(self) -> int:
        """The schema version (SQLite `PRAGMA user_version`)."""
    @property
    def sessions(self) -> int:
        """Number of sessions."""
    @property
    def transcript_entries(self) -> int:
        """Number of transcript entries."""
    @property
    def journal_events(self) -> int:
        """Number of journal events."""
    @property
    def open_operations(self) -> int:
        """Operations dispatched without a terminal event."""
    @property
    def db_bytes(self) -> int:
        """Size of the database file in bytes."""
    @property
    def wal_bytes(self) -> int:
        """Size of the `-wal` file in bytes (0 if absent)."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class CopyReport:
    """What `copy_to` added to the destination per kind of row (counts), and
    the sessions it refused.
    """
    @property
    def sessions_seen(self) -> int:
        """Sessions examined in the source."""
    @property
    def sessions_created(self) -> int:
        """Session rows created in the destination."""
    @property
    def sessions_updated(self) -> int:
        """Session rows of the destination overwritten with the source's."""
    @property
    def sessions_deleted(self) -> int:
        """Sessions deleted in the destination (deleted in the source)."""
    @property
    def entries(self) -> int:
        """Transcript entries added (retracted ones included)."""
    @property
    def retractions(self) -> int:
        """Retractions added."""
    @property
    def tokens(self) -> int:
        """Token-ledger rows added."""
    @property
    def extensions(self) -> int:
        """Context extensions added."""
    @property
    def events(self) -> int:
        """Journal events added."""
    @property
    def open_operations(self) -> int:
        """Operations recorded open in the destination."""
    @property
    def import_records(self) -> int:
        """Import bookkeeping rows added."""
    @property
    def conflicts(self) -> List[CopyConflict]:
        """Sessions refused, left unchanged in the destination."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class CopyConflict:
    """A session `copy_to` refused: `kind` is `Conflict` (the destination holds
    rows the source does not) or `Corrupt` (a damaged row in the source).
    """
    @property
    def session_id(self) -> str:
        """The session id."""
    @property
    def kind(self) -> str:
        """`Conflict` or `Corrupt`."""
    @property
    def reason(self) -> str:
        """Why, without user content."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class JournalEvent:
    """One journal event, decrypted."""
    @property
    def event_id(self) -> str:
        """Event id (the caller's idempotency key)."""
    @property
    def session_id(self) -> str:
        """Session (aggregate) id."""
    @property
    def seq(self) -> int:
        """Per-session seq, from 1, gapless."""
    @property
    def aggregate_version(self) -> int:
        """Store-wide commit order, from 1."""
    @property
    def operation_id(self) -> Optional[str]:
        """Operation id, if the event belongs to one."""
    @property
    def kind(self) -> str:
        """The event's kind."""
    @property
    def payload(self) -> Any:
        """The payload: the JSON value (Python: what `json.loads` gives;
        Kotlin/Swift: `payloadJson`, its JSON text).
        """
    @property
    def created_at(self) -> str:
        """RFC 3339 UTC timestamp with milliseconds."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class EntryMeta:
    """Per-entry metadata (`append_entries_with_meta`, `get_transcript_with_meta`):
    the model and provider that produced the entry, the source's other
    fields (`extra`, a JSON object: Claude `tool_use_result`, `uuid`; Codex
    `phase`...) and a structured item (`item`: a framework item's JSON text,
    e.g. an Agents SDK item, kept byte-exact and encrypted; the entry's
    content is the text that counts for tokens). Empty metadata is
    `EntryMeta()`.
    """
    def __new__(
        cls,
        model: Optional[str] = None,
        provider: Optional[str] = None,
        extra: Optional[Dict[str, Any]] = None,
        item: Optional[str] = None,
    ) -> "EntryMeta": ...
    @property
    def model(self) -> Optional[str]:
        """Model that produced the entry (at most 256 bytes)."""
    @property
    def provider(self) -> Optional[str]:
        """Provider that served it (at most 256 bytes)."""
    @property
    def extra(self) -> Dict[str, Any]:
        """The source fields as a JSON object, stored encrypted. Python: a dict
        (a new one on each read; `InvalidInputError` for a value that is not
        a dict, `TypeError` for one not JSON-serialisable); Node: an object
        (always set on output); Kotlin/Swift: `extraJson`, its compact text
        (`{}` when there are none).
        """
    @property
    def item(self) -> Optional[str]:
        """The structured item's JSON text, byte-exact as appended (none when
        the entry has no item).
        `InvalidInput` on append when it is not the JSON text of one value.
        """
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ItemPage:
    """A page of structured items (`get_entry_items`, `get_entry_items_tail`):
    `items_json`, one JSON array text with one element per visible entry in
    seq order (its `EntryMeta.item` verbatim, `null` for an entry without
    one: one JSON parse gives the items); `seqs`, the entries' seqs in the
    same order; `without_item`, the entries without an item with their
    metadata, in seq order.
    """
    @property
    def items_json(self) -> str:
        """The items as one JSON array text."""
    @property
    def seqs(self) -> List[int]:
        """The entries' seqs, in the order of the items."""
    @property
    def without_item(self) -> List[Tuple[TranscriptEntry, EntryMeta]]:
        """The entries without an item, with their metadata."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class OpenOperation:
    """An operation dispatched without a terminal event."""
    @property
    def session_id(self) -> str:
        """Session id."""
    @property
    def operation_id(self) -> str:
        """Operation id."""
    @property
    def owner(self) -> str:
        """Instance id of the store handle that dispatched it."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ReadReport:
    """What a reader saw in one file: every line is imported or counted here."""
    @property
    def format(self) -> Optional[SourceFormat]:
        """Format read."""
    @property
    def lines(self) -> int:
        """Lines seen, skipped ones included."""
    @property
    def bytes(self) -> int:
        """Bytes up to the end of the last whole line (where an incremental import resumes)."""
    @property
    def kinds(self) -> Dict[str, int]:
        """Every parsed line by kind."""
    @property
    def not_imported(self) -> Dict[str, int]:
        """Lines counted but not imported (duplicates, bookkeeping), by kind."""
    @property
    def kept_raw(self) -> Dict[str, int]:
        """Lines of unknown kind kept verbatim, by kind."""
    @property
    def skipped(self) -> List[SkippedLine]:
        """Lines that could not be read, with line numbers and reasons."""
    @property
    def surrogates_replaced(self) -> List[int]:
        """Lines where a lone UTF-16 surrogate escape was replaced by U+FFFD."""
    @property
    def blank_lines(self) -> int:
        """Blank lines (ignored)."""
    @property
    def missing_final_newline(self) -> bool:
        """The last line was complete JSON without its final newline."""
    @property
    def already_imported_lines(self) -> int:
        """Lines already imported by an earlier import."""
    @property
    def merged_lines(self) -> int:
        """Claude Code: assistant lines merged into an earlier line of the same message id."""
    @property
    def duplicate_usage(self) -> int:
        """Claude Code: usage figures not counted again for an already counted message id."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class WriteReport:
    """What an export wrote."""
    @property
    def lines(self) -> int:
        """Lines written (header included)."""
    @property
    def bytes(self) -> int:
        """Bytes written."""
    @property
    def turns(self) -> int:
        """Turns written (compaction messages and empty turns not included)."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class CapacityBreakdown:
    """Every term of the Effective Context Capacity formula, in tokens."""
    @property
    def raw(self) -> int:
        """Raw context window of the model (tokens)."""
    @property
    def output_reserve(self) -> int:
        """Tokens kept free for the answer: `max(min(reserve, model max output), ⌈8% raw⌉)`."""
    @property
    def safety_margin(self) -> int:
        """Safety margin: `max(2,048, ⌈2% raw⌉)`."""
    @property
    def capacity(self) -> int:
        """`raw − output reserve − safety margin`, always ≥ 1."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ModelLimits:
    """Published limits of a model (tokens)."""
    @property
    def context_window(self) -> int:
        """Raw context window (input + output), tokens."""
    @property
    def max_output(self) -> int:
        """Maximum output tokens per response."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class TokenCount:
    """A token count and how it was obtained."""
    @property
    def tokens(self) -> int:
        """Number of tokens."""
    @property
    def method(self) -> str:
        """`exact` (the model's tokenizer), `estimate` (`⌈UTF-8 bytes / 3⌉`) or
        `host` (Kotlin/Swift: the `CountMethod`, the encoding in `Exact`).
        """
    @property
    def encoding(self) -> Optional[Literal["o200k_base", "cl100k_base"]]:
        """The encoding of an exact count; none otherwise."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ContextMeter:
    """One reading of the context meter."""
    @property
    def active_tokens(self) -> int:
        """Active tokens measured (tokens)."""
    @property
    def capacity(self) -> int:
        """Effective Context Capacity measured against (tokens)."""
    @property
    def percent(self) -> int:
        """`N = ⌊100 × active tokens / capacity⌋`; not capped (250 = 2.5× capacity)."""
    @property
    def label(self) -> str:
        """The status text, exactly `Ctx N%` (e.g. `Ctx 87%`)."""
    @property
    def band(self) -> Band:
        """Severity band of `percent`."""
    @property
    def overflow(self) -> bool:
        """Active tokens > capacity (exactly 100 % fits and is not overflow)."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class Transformation:
    """The transformation record of one compacted item, or of a run of items
    from `seq` to `last_seq` replaced by one summary.
    """
    @property
    def seq(self) -> int:
        """The item's seq (a run: its first item's seq)."""
    @property
    def last_seq(self) -> Optional[int]:
        """A run: the seq of its last item; none: one item."""
    @property
    def action(self) -> str:
        """What was done."""
    @property
    def tokens_before(self) -> int:
        """Tokens before (the item's tokens)."""
    @property
    def tokens_after(self) -> int:
        """Tokens of `summary`."""
    @property
    def summary(self) -> str:
        """The replacement text, at most 240 characters."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class TurnGovernance:
    """One turn as `/context` shows it."""
    @property
    def seq(self) -> int:
        """Transcript seq."""
    @property
    def state(self) -> str:
        """Verbatim, compacted or excluded (exclusion wins over compaction)."""
    @property
    def pinned(self) -> bool:
        """Pinned by the user."""
    @property
    def compacted_by(self) -> Optional[int]:
        """The run in force for this turn, if any: its `first_seq` in
        `compacted` (of the `ContextStatus` or `ContextGovernance` it came
        with). Kept while excluded, so `include` brings the summary back.
        """
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class CompactedRun:
    """A compaction run in force: seqs `first_seq..=last_seq` are sent as
    `transformation`'s summary, held once for the whole range (a pin inside
    a recorded run leaves two runs with the same transformation).
    """
    @property
    def first_seq(self) -> int:
        """First seq this run is in force for."""
    @property
    def last_seq(self) -> int:
        """Last seq this run is in force for (>= `first_seq`)."""
    @property
    def transformation(self) -> Transformation:
        """The transformation as recorded (its `seq`/`last_seq`: the run as
        recorded, before a pin or a later run took seqs from it).
        """
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ContextStatus:
    """Where a stored session's context stands (what `/context` shows)."""
    @property
    def model(self) -> Optional[str]:
        """Model whose tokenizer and output limit were used (none: estimate, no cap)."""
    @property
    def capacity(self) -> int:
        """Effective Context Capacity in tokens."""
    @property
    def meter(self) -> ContextMeter:
        """Active-context utilization (never cumulative usage)."""
    @property
    def turns(self) -> List[TurnGovernance]:
        """Per-turn state: verbatim, compacted or excluded, and pinned; a
        compacted turn names its run (`compacted_by`).
        """
    @property
    def compacted(self) -> List[CompactedRun]:
        """The compaction runs in force, ascending by `first_seq`, non-overlapping."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ActiveItem:
    """One item of what the model sees next (`active_context`)."""
    @property
    def seq(self) -> int:
        """The entry's seq (a compacted run: its first seq)."""
    @property
    def last_seq(self) -> Optional[int]:
        """A compacted run: its last seq."""
    @property
    def role(self) -> str:
        """The entry's role (a run: its first entry's)."""
    @property
    def state(self) -> str:
        """Verbatim, compacted (the summary replaces it) or excluded (not sent)."""
    @property
    def tokens(self) -> int:
        """Tokens the item costs in the request (0 when excluded)."""
    @property
    def text(self) -> Optional[str]:
        """What is sent: the entry's content, the summary, or none when excluded."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ActiveContextView:
    """What the model sees next (DESIGN.md "Context governance")."""
    @property
    def model(self) -> Optional[str]:
        """The model asked for, else the session's."""
    @property
    def capacity(self) -> int:
        """Effective Context Capacity (tokens)."""
    @property
    def tokens(self) -> int:
        """Sum of the items' tokens (the meter's active tokens)."""
    @property
    def items(self) -> List[ActiveItem]:
        """Every entry that is not retracted, in order: verbatim, compacted (a run is one item) or excluded."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class CompactionPlan:
    """A compaction plan (the saved transcript is never modified)."""
    @property
    def capacity(self) -> int:
        """Effective Context Capacity planned against (tokens)."""
    @property
    def target_percent(self) -> int:
        """Target utilization (percent)."""
    @property
    def target_tokens(self) -> int:
        """`⌊capacity × target_percent / 100⌋` (tokens)."""
    @property
    def tokens_before(self) -> int:
        """Sum of the items' tokens before the plan."""
    @property
    def tokens_after(self) -> int:
        """Sum after the plan is applied."""
    @property
    def reached_target(self) -> bool:
        """`tokens_after ≤ target_tokens`; false: everything compactable was
        compacted and the context fits capacity but not the target.
        """
    @property
    def transformations(self) -> List[Transformation]:
        """One record per compacted item or run, in seq order. Empty: nothing to do."""
    @property
    def compacted_seqs(self) -> List[int]:
        """The seqs of `transformations`, every seq of each run, ascending
        (derived: not read when a plan is passed back in).
        """
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ContextItem:
    """One item of the active model context, in the order it would be sent
    (`compact_context` input, `apply_compaction` output). Python also
    accepts a plain dict of these fields.
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
    def seq(self) -> int:
        """Transcript sequence number; strictly increasing along the list."""
    @property
    def role(self) -> Role:
        """`user`, `assistant`, `tool`, `system`... (`user` + `message` counts as a user turn)."""
    @property
    def kind(self) -> str:
        """What the item is."""
    @property
    def tokens(self) -> int:
        """Tokens the item costs in the request."""
    @property
    def pinned(self) -> bool:
        """Pinned by the user: always verbatim."""
    @property
    def text(self) -> str:
        """The item's text (for a tool call: the serialized calls). Read only to summarize."""
    @property
    def call_ids(self) -> List[str]:
        """Tool-call ids linking calls and results."""
    @property
    def compacted(self) -> bool:
        """Already a summary from an earlier compaction; never summarized again."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class CompactionHistoryEntry:
    """One recorded compaction (history entry)."""
    @property
    def n(self) -> int:
        """The context extension's number."""
    @property
    def created_at_ms(self) -> int:
        """When it was recorded, ms since the Unix epoch."""
    @property
    def plan(self) -> CompactionPlan:
        """The plan as recorded."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ContextGovernance:
    """The replayed governance state of a session (pins, exclusions, compactions)."""
    @property
    def pinned(self) -> List[int]:
        """Pinned seqs, ascending."""
    @property
    def excluded(self) -> List[int]:
        """Excluded seqs, ascending."""
    @property
    def compacted(self) -> List[CompactedRun]:
        """The compaction runs in force, ascending by `first_seq` and
        non-overlapping (each seq in at most one): every summary once,
        however many seqs its run covers.
        """
    @property
    def history(self) -> List[CompactionHistoryEntry]:
        """Every recorded compaction, oldest first."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class SavedSessionState:
    """A saved session's knowledge, as stored: metadata, the whole transcript,
    token totals, governance and the other context extensions.
    """
    @property
    def session(self) -> Session:
        """Metadata (the workspace binding kept as stored, never rebound)."""
    @property
    def transcript(self) -> List[TranscriptEntry]:
        """The complete transcript, every entry verbatim, in seq order."""
    @property
    def token_totals(self) -> TokenTotals:
        """Cumulative token usage (ledger sums, tokens)."""
    @property
    def governance(self) -> ContextGovernance:
        """Pins, exclusions and compaction history, replayed."""
    @property
    def other_extensions(self) -> List[ContextExtension]:
        """Every context extension that is not governance (artifacts, plans,
        tool and verification history...), in `n` order.
        """
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class Authority:
    """The authority of an opened session: always fresh (never stored)."""
    @property
    def permission_profile(self) -> str:
        """Always `manual`."""
    @property
    def full_access(self) -> bool:
        """Always false (Full Access is never restored)."""
    @property
    def sensitive_transfer(self) -> bool:
        """Always false (sensitive-transfer authorization is never restored)."""
    @property
    def temporary_approvals(self) -> List[str]:
        """Always empty (temporary approvals are never restored)."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class OpenedSession:
    """A saved session, opened: its knowledge and a fresh authority."""
    @property
    def knowledge(self) -> SavedSessionState:
        """Everything restored from storage."""
    @property
    def authority(self) -> Authority:
        """Always fresh: manual permissions, no full access, no sensitive-transfer
        grant, no temporary approvals.
        """
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class PrunedSession:
    """A session a retention policy deletes (or, in a dry run, would delete)."""
    @property
    def session_id(self) -> str:
        """Session id."""
    @property
    def title(self) -> Optional[str]:
        """Its name, if any."""
    @property
    def reason(self) -> str:
        """`max_age_days` or `max_sessions`."""
    @property
    def updated_at_ms(self) -> int:
        """Its last activity, milliseconds since the Unix epoch."""
    @property
    def entry_count(self) -> int:
        """Its transcript entries."""
    @property
    def last_seq(self) -> int:
        """Its last entry's seq when planned (0: none)."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class SkippedLine:
    """A line a reader skipped."""
    @property
    def line(self) -> int:
        """1-based line number."""
    @property
    def offset(self) -> int:
        """Byte offset of the line's first byte."""
    @property
    def reason(self) -> str:
        """Why: `torn_tail`, `invalid_utf8`, `invalid_json`, `not_an_object` or
        `too_long` (Kotlin/Swift: the `SkipReason`, the column in `InvalidJson`).
        """
    @property
    def column(self) -> Optional[int]:
        """1-based column where parsing failed, for `invalid_json` only."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class FileImport:
    """The import report of one file."""
    @property
    def path(self) -> str:
        """The file as given (after directory walking)."""
    @property
    def format(self) -> Optional[SourceFormat]:
        """Detected (or stored) format."""
    @property
    def status(self) -> ImportStatus:
        """Outcome."""
    @property
    def error(self) -> Optional[str]:
        """The failure message (names the step, no content) of a `failed` status."""
    @property
    def from_line(self) -> int:
        """First line emitted this time (1 for a first import)."""
    @property
    def sessions(self) -> List[SessionImport]:
        """Sessions written, main first."""
    @property
    def read(self) -> Optional[ReadReport]:
        """The reader's report (line kinds, skipped lines...), when the file was read."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class DigestSkippedLine:
    """A line the thClaws reader skipped, as the digest reports it."""
    @property
    def line(self) -> int:
        """1-based line number."""
    @property
    def reason(self) -> str:
        """As in `SkippedLine`."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class ThclawsDigest:
    """What the thClaws reader saw in one file (`read_thclaws_digest`; the
    fields of tests/conformance/portable/read_thclaws.json).
    """
    @property
    def id(self) -> str:
        """Session id (header `id`, else the fallback id)."""
    @property
    def title(self) -> Optional[str]:
        """Title (latest `rename`)."""
    @property
    def model(self) -> Optional[str]:
        """Model as the file names it."""
    @property
    def provider(self) -> Optional[str]:
        """Provider."""
    @property
    def cwd(self) -> Optional[str]:
        """Working directory."""
    @property
    def created_at_ms(self) -> Optional[int]:
        """Creation time, ms since the Unix epoch."""
    @property
    def roles(self) -> List[str]:
        """Every turn's role, in order."""
    @property
    def texts(self) -> List[str]:
        """Every text block, in order."""
    @property
    def active_texts(self) -> List[str]:
        """Text blocks of the active history (after the last compaction)."""
    @property
    def tool_calls(self) -> int:
        """Tool-use blocks."""
    @property
    def tool_results(self) -> int:
        """Tool-result blocks."""
    @property
    def plan_steps(self) -> int:
        """Steps of the latest plan."""
    @property
    def compactions(self) -> int:
        """Compaction checkpoints."""
    @property
    def lines(self) -> int:
        """Lines seen, skipped ones included."""
    @property
    def bytes(self) -> int:
        """Offset after the last complete line."""
    @property
    def skipped(self) -> List[DigestSkippedLine]:
        """Lines that could not be read."""
    @property
    def surrogates_replaced(self) -> List[int]:
        """Lines where a lone surrogate escape became U+FFFD."""
    @property
    def missing_final_newline(self) -> bool:
        """The last line was complete JSON without its final newline."""
    @property
    def kept_raw(self) -> Dict[str, int]:
        """Lines of unknown kind kept verbatim, by kind."""
    @property
    def other_lines(self) -> int:
        """Lines of unknown kind kept in the session."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class SessionImport:
    """Per-session figures of one file import."""
    @property
    def session_id(self) -> str:
        """Store session id."""
    @property
    def created(self) -> bool:
        """True when this import created the session."""
    @property
    def entries(self) -> int:
        """Transcript entries appended."""
    @property
    def tool_calls(self) -> int:
        """Tool-use blocks in those entries."""
    @property
    def tool_results(self) -> int:
        """Tool-result blocks in those entries."""
    @property
    def usage_records(self) -> int:
        """Token-ledger records added."""
    @property
    def input_tokens(self) -> int:
        """Input tokens added (cached included)."""
    @property
    def output_tokens(self) -> int:
        """Output tokens added."""
    @property
    def cached_tokens(self) -> int:
        """Cached input tokens added."""
    @property
    def context_extensions(self) -> int:
        """Context extensions added (plan, goal, compaction, raw lines...)."""
    @property
    def skipped_already_stored(self) -> int:
        """Turns skipped because the session already holds them (the same
        source record, by identity: Claude `uuid`, or the turn's content and
        timestamp; for sessions imported before issue 14, by source line).
        """
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class SearchOptions:
    """Options of `search`: every field may be left out."""
    def __new__(
        cls,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        sessions: bool = False,
        workspace_path: Optional[str] = None,
        snippet_chars: Optional[int] = None,
    ) -> "SearchOptions": ...
    @property
    def limit(self) -> Optional[int]:
        """Hits per page, 1..=1000 (none: 20)."""
    @property
    def cursor(self) -> Optional[str]:
        """The `next_cursor` of the previous page (same query and mode)."""
    @property
    def sessions(self) -> bool:
        """Best hit per session (a resume picker) instead of every entry."""
    @property
    def workspace_path(self) -> Optional[str]:
        """The path `workspace:current` / `workspace:other` compare with (none:
        the process's current directory).
        """
    @property
    def snippet_chars(self) -> Optional[int]:
        """Snippet length in characters, 20..=2000 (none: 160)."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class Highlight:
    """One highlighted range of a snippet, `[start, end)` in the host's own
    string indexing: Python `str` indices (code points); JavaScript, Kotlin
    and Swift UTF-16 code units (Swift: `snippet.utf16`).
    """
    @property
    def start(self) -> int:
        """First index."""
    @property
    def end(self) -> int:
        """One past the last index."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class SearchHit:
    """One search hit."""
    @property
    def session_id(self) -> str:
        """Session id."""
    @property
    def seq(self) -> int:
        """Entry seq; 0 for a hit in the session's title."""
    @property
    def role(self) -> Optional[str]:
        """`user`, `assistant`, `tool` or `system`; none for a title hit."""
    @property
    def time_ms(self) -> int:
        """Entry time (title: the session's last activity), ms since the Unix epoch."""
    @property
    def score(self) -> float:
        """Relevance (BM25; higher is better)."""
    @property
    def field(self) -> str:
        """Where the snippet is from: `text`, `tool`, `output`, `thinking` or `title`."""
    @property
    def snippet(self) -> str:
        """A window of that text (`…` where cut, control characters as spaces)."""
    @property
    def highlights(self) -> List[Highlight]:
        """The matches in `snippet`."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class SearchResults:
    """A page of search hits."""
    @property
    def hits(self) -> List[SearchHit]:
        """Hits, best first."""
    @property
    def total(self) -> int:
        """Matching entries (sessions mode: sessions) over all pages."""
    @property
    def next_cursor(self) -> Optional[str]:
        """Pass as `cursor` for the next page; none on the last page."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class RebuildReport:
    """What `rebuild_search_index` did."""
    @property
    def documents(self) -> int:
        """Documents indexed (entries and titles)."""
    @property
    def content_bytes(self) -> int:
        """Plaintext bytes of text indexed."""
    @property
    def index_bytes(self) -> int:
        """Bytes of the encrypted index files."""
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

@final
class TranscriptIterator:
    """Iterator over a transcript, one page per core call (`iter_transcript`)."""
    def __iter__(self) -> "TranscriptIterator":
        """Implement iter(self)."""
    def __next__(self) -> TranscriptEntry:
        """Implement next(self)."""

@final
class Viewer:
    """A running read-only viewer (`SessionStore.serve()`); `url` signs one
    browser in. A context manager: leaving the block stops it.
    """
    @property
    def url(self) -> str:
        """The address to open once: `http://HOST:PORT/?token=TOKEN` (the token
        signs one browser in, then is spent).
        """
    @property
    def host(self) -> str:
        """The address listened on, e.g. "127.0.0.1"."""
    @property
    def port(self) -> int:
        """The port listened on."""
    @property
    def running(self) -> bool:
        """True until `stop()`."""
    def stop(self) -> None:
        """Stop serving: the requests in progress are answered, then the port
        is closed. Stopping twice is a no-op.
        """
    def wait(self, timeout: Optional[float] = None) -> bool:
        """Block until the viewer is stopped (from another thread), at most
        `timeout` seconds (None or inf: for ever); True once stopped. Ctrl-C
        (KeyboardInterrupt) interrupts it. Raises ValueError for a negative
        or NaN timeout.
        """
    def __enter__(self) -> "Viewer": ...
    def __exit__(self, *args: object) -> bool: ...

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
        key: Union[bytes, str, None] = None,
        key_provider: Any = None,
        app: str = "sessiondb",
        busy_timeout_ms: int = 10000,
        recover: bool = True,
        compress: Optional[bool] = None,
        redact: Optional[Literal["off", "on-export", "on-write"]] = None,
        redact_rules: Union[str, "os.PathLike[str]", None] = None,
    ) -> "SessionStore": ...
    @classmethod
    def open_default(cls) -> "SessionStore":
        """Open the default store of the default app with the OS keyring."""
    def __enter__(self) -> "SessionStore": ...
    def __exit__(self, *_args: object) -> bool: ...
    def iter_transcript(self, session_id: str, from_seq: int = 1, page_size: int = 1000) -> TranscriptIterator:
        """Iterate over a whole transcript from `from_seq`, fetching `page_size` entries per call."""
    def serve(self, *, bind: Optional[str] = None, port: int = 0, allow_remote: bool = False, workspace: Optional[str] = None, window: int = 128000) -> Viewer:
        """Start the local, read-only web viewer of this store (docs/viewer.md)
        on background threads and return at once. `bind`: the address to
        listen on (default "127.0.0.1"; another than loopback raises
        InvalidInputError unless `allow_remote`); `port`: 0 (default) picks
        a free one; `workspace`: the directory the `current` / `other`
        filters compare with (None: only `unbound` and `all`); `window`: the
        meter's default raw context window, tokens. Raises InvalidInputError
        (a bad address, port or window), IoError (the port is in use).
        """
    @property
    def path(self) -> str:
        """The database file path."""
    @property
    def instance_id(self) -> str:
        """This handle's owner id (recorded on the operations it dispatches)."""
    @property
    def key_backend(self) -> str:
        """Which key backend the data key came from."""
    @property
    def closed(self) -> bool:
        """True once `close()` ran."""
    def close(self) -> None:
        """Close the handle (checkpoints the WAL, releases the owner lock).
        Later calls fail with `Closed`; closing twice is a no-op (Kotlin:
        `closeStore()`). Node: the appends called before it, even not
        awaited, are stored first; those called after it fail with `Closed`.
        """
    def stats(self) -> StoreStats:
        """Schema version, counts and file sizes.

        Raises ClosedError.
        """
    def recovery_key(self) -> str:
        """This store's data key as a recovery key: 56 base32 characters (key
        and a 3-byte checksum) in 14 groups of 4 joined by `-`. Whoever holds
        it can decrypt every session.
        """
    def copy_to(self, dest: SessionStore) -> CopyReport:
        """Copy this store into `dest` (another store: a file or a PostgreSQL
        URL), incrementally, moving ciphertext as it is: the rows added per
        kind and the sessions refused (`conflicts`). `KeyMismatch`: dest has
        another data key; nothing is written.

        Raises KeyMismatchError, ClosedError, BusyError, IoError.
        """
    def list_sessions_for_workspace(self, scope: str, path: Optional[str] = None, limit: Optional[int] = None) -> List[Session]:
        """Sessions by workspace, most recently active first, at most `limit`.
        `scope`: "current" (bound to `path`), "other" (bound to another
        workspace than `path`), "unbound", "all". Only the page is decrypted
        (the HMAC workspace index selects it).

        Raises InvalidInputError.
        """
    def create_session(self, name: Optional[str] = None, workspace_path: Optional[str] = None, *, id: Optional[str] = None, model: Optional[str] = None, provider: Optional[str] = None, work_mode: Optional[str] = None, created_at_ms: Optional[int] = None, forked_from: Optional[str] = None, forked_at_seq: Optional[int] = None) -> Session:
        """Create a session titled `name` (none = untitled), bound to
        `workspace_path` (made canonical) if given; the other fields of
        `NewSession` are keyword arguments (Python) or an options object
        (Node). `id` none = a new uuid v7; an `id` that exists is `Conflict`.

        Raises ConflictError, InvalidInputError, ClosedError.
        """
    def get_session(self, id: str) -> Session:
        """One session.

        Raises NotFoundError.
        """
    def list_sessions(self, limit: Optional[int] = None) -> List[Session]:
        """Every session, most recently active first, at most `limit` (none = all)."""
    def find_session(self, id_prefix_or_title: str) -> Session:
        """Resolve a full id, a unique id prefix or an exact title.

        Raises NotFoundError, ConflictError.
        """
    def delete_session(self, id: str) -> None:
        """Delete a session with its transcript, tokens and context extensions
        (its journal stays).

        Raises NotFoundError.
        """
    def prune(self, max_age_days: Optional[int] = None, max_sessions: Optional[int] = None, keep_named: bool = True, keep_latest: int = 1, dry_run: bool = False) -> List[PrunedSession]:
        """Delete sessions by a retention policy (issue 30; SECURITY.md
        "Deletion"): those whose last activity is more than `max_age_days`
        days old, or that rank past the newest `max_sessions`; the newest
        `keep_latest` and (with `keep_named`) named sessions are kept, and so
        is a session written to meanwhile. Each deletion is a `SessionDeleted`
        journal event `{entries, reason, title, updated_at_ms}`. `dry_run`:
        list what would go, delete nothing. No limit: nothing. Oldest first.

        Raises BusyError, ClosedError.
        """
    def append_transcript(self, session_id: str, role: Role, content: str) -> TranscriptEntry:
        """Append one entry; returns it with its seq.

        Raises NotFoundError, InvalidInputError.
        """
    def append_entries(self, session_id: str, entries: List[NewEntry], idempotency_key: Optional[str] = None) -> List[TranscriptEntry]:
        """Append entries in one transaction (all or none); returns them with
        their seqs, which are gapless. With an `idempotency_key` (1..=128
        characters without whitespace, control characters or `:`; it becomes
        the append's journal event id), a retry of a call that timed out or
        was cancelled stores the entries once and returns what the first call
        stored; the key used for other entries or another event is `Conflict`.

        Raises NotFoundError, InvalidInputError, ConflictError.
        """
    def append_entries_with_meta(self, session_id: str, entries: List[Tuple[NewEntry, EntryMeta]], idempotency_key: Optional[str] = None) -> List[TranscriptEntry]:
        """`append_entries` with per-entry metadata, one transaction (all or
        none): a model or provider name over 256 bytes or with control
        characters, an `extra` (Kotlin/Swift `extraJson`) that is not a JSON
        object or an `item` that is not JSON text is `InvalidInput`. The
        `idempotency_key` is `append_entries`' (the metadata is part of what
        a retry must repeat).

        Raises NotFoundError, InvalidInputError, ClosedError, ConflictError.
        """
    def append_agents_items(self, session_id: str, items: List[str], idempotency_key: Optional[str] = None, created_at_ms: Optional[int] = None) -> int:
        """Append Agents SDK items (each item's JSON text) in one transaction,
        as the Python adapter's `add_items` stores them: each item kept whole
        as the entry's `item`, the entry's role and content derived from it
        (`item_role`, `item_text`), written at `created_at_ms` (none = now),
        under `idempotency_key` as `append_entries`. Returns the first item's
        seq (0 for no items). An item that is not a JSON object is
        `InvalidInput`. Python only (the adapter's one native call per turn).

        Raises NotFoundError, InvalidInputError, ClosedError, ConflictError.
        """
    def replace_tail_items(self, session_id: str, expected_items: List[str], entries: List[Tuple[NewEntry, EntryMeta]], idempotency_key: Optional[str] = None) -> List[TranscriptEntry]:
        """Replace the session's last visible entries, which must hold
        `expected_items` (JSON texts, oldest first, compared as JSON values
        with each entry's `item`; an entry without one as `{"role",
        "content"}`), with `entries`, in one transaction with one
        `TranscriptTailReplaced` journal event: the replaced entries are
        retracted, the new ones appended. No expected items: an append that
        records its key even with no entries. Returns the appended entries.
        The Agents SDK JS session's history transactions. With an
        `idempotency_key`, the same change again is a no-op returning what
        the first stored; a tail that does not match, or the key used for
        another change, is `Conflict` and writes nothing.

        Raises NotFoundError, InvalidInputError, ClosedError, ConflictError.
        """
    def get_transcript(self, session_id: str, from_seq: int = 1, limit: int = 1000) -> List[TranscriptEntry]:
        """One page: up to `limit` (1..=10000) entries with `seq >= from_seq`.

        Raises NotFoundError, AuthenticationError, InvalidInputError.
        """
    def get_transcript_tail(self, session_id: str, limit: int = 1000) -> List[TranscriptEntry]:
        """The last `limit` (1..=10000) entries, in seq order (all of a shorter session).

        Raises NotFoundError, AuthenticationError, InvalidInputError.
        """
    def get_transcript_with_meta(self, session_id: str, from_seq: int = 1, limit: int = 1000) -> List[Tuple[TranscriptEntry, EntryMeta]]:
        """`get_transcript` with each entry's metadata (an empty `EntryMeta`
        for entries written without).

        Raises NotFoundError, AuthenticationError, InvalidInputError, CorruptError.
        """
    def get_transcript_tail_with_meta(self, session_id: str, limit: int = 1000) -> List[Tuple[TranscriptEntry, EntryMeta]]:
        """The last `limit` (1..=10000) entries with their metadata, in seq
        order, in one read.

        Raises NotFoundError, AuthenticationError, InvalidInputError, CorruptError.
        """
    def get_entry_items(self, session_id: str, from_seq: int = 1, limit: int = 1000) -> ItemPage:
        """Up to `limit` (1..=10000) entries with `seq >= from_seq` as their
        structured items, in one read (see `ItemPage`). Contents of entries
        with an item are not decrypted.

        Raises NotFoundError, AuthenticationError, InvalidInputError, CorruptError.
        """
    def get_entry_items_tail(self, session_id: str, limit: int = 1000) -> ItemPage:
        """The last `limit` (1..=10000) entries as their structured items, in
        seq order, in one read (see `ItemPage`).

        Raises NotFoundError, AuthenticationError, InvalidInputError, CorruptError.
        """
    def retract_entry(self, session_id: str, seq: int) -> Optional[TranscriptEntry]:
        """Retract entry `seq`: it stays stored but is left out of reads, counts,
        export, fork and the context from now on (one EntryRetracted journal
        event). Returns the entry, or none when it was already retracted.

        Raises NotFoundError, BusyError.
        """
    def retract_last_entry(self, session_id: str) -> Optional[TranscriptEntry]:
        """Retract the last visible entry and return it (none when there is
        none): the Agents SDK's `pop_item`.

        Raises NotFoundError, BusyError.
        """
    def token_totals(self, session_id: str) -> TokenTotals:
        """Sums of a session's token ledger.

        Raises NotFoundError.
        """
    def append_context_extension(self, session_id: str, kind: str, body_json: str) -> int:
        """Append a context extension (pin, plan, artifact...): `kind` in
        plaintext, `body_json` JSON text (stored encrypted). Returns its number `n`.

        Raises NotFoundError, InvalidInputError.
        """
    def list_context_extensions(self, session_id: str) -> List[ContextExtension]:
        """A session's context extensions, in `n` order.

        Raises NotFoundError, AuthenticationError.
        """
    def context_status(self, session_id: str, raw_window: int, output_reserve: Optional[int] = None, model: Optional[str] = None) -> ContextStatus:
        """Meter and per-turn state of a stored session (`/context`) for a model
        with a `raw_window`-token context window and an optional output
        reserve (tokens). `model` defaults to the session's model; it picks
        the tokenizer and caps the reserve by the model's known maximum output.

        Raises NotFoundError, InvalidInputError.
        """
    def active_context(self, session_id: str, raw_window: int, output_reserve: Optional[int] = None, model: Optional[str] = None) -> ActiveContextView:
        """What the model sees next for a `raw_window`-token window (DESIGN.md
        "Context governance"): every visible entry in order, verbatim,
        compacted (a run is one item with its summary) or excluded, with its
        tokens, from stored counts. Records nothing.

        Raises NotFoundError, InvalidInputError, AuthenticationError, CorruptError.
        """
    def resolve_session(self, reference: str, workspace: Optional[str] = None) -> Session:
        """Resolve a reference (id, unique id prefix or exact title) as
        `/load` does (seed 002), preferring sessions of `workspace`.

        Raises NotFoundError, ConflictError.
        """
    def recent_sessions(self) -> List[Session]:
        """The 20 most recently active sessions (seed 002 `/sessions`)."""
    def rename_session(self, id: str, name: Optional[str]) -> Session:
        """Set (a string) or clear (none) a session's title.

        Raises NotFoundError.
        """
    def set_session_model(self, id: str, model: Optional[str], provider: Optional[str] = None) -> Session:
        """Change a session's model and provider; the id stays (seed 002 `/model`).

        Raises NotFoundError.
        """
    def set_work_mode(self, id: str, work_mode: Optional[str]) -> Session:
        """Set a session's work mode (host-defined, e.g. `plan`, `build`).

        Raises NotFoundError.
        """
    def journal_events(self, session_id: str, from_seq: int = 1, limit: int = 1000) -> List[JournalEvent]:
        """Journal events of a session from `from_seq` (inclusive), at most `limit` (1..=10000).

        Raises NotFoundError, AuthenticationError, InvalidInputError.
        """
    def record_tokens(self, session_id: str, *, input: int = 0, output: int = 0, cached: int = 0, model: Optional[str] = None, provider: Optional[str] = None) -> None:
        """Add one token-ledger record (seed 000 `recordTokens(entry)`; Python:
        the record's fields as keyword arguments).

        Raises NotFoundError, InvalidInputError.
        """
    def journal_append(self, event_id: str, session_id: str, kind: str, payload: Any, operation_id: Optional[str] = None) -> AppendOutcome:
        """Append one journal event, idempotent by `event_id`: the same event
        again returns the original seq with `duplicate = true` (Python: the
        event's fields as arguments). The session is the event's aggregate:
        it need not be a stored session. `Conflict`: the same id with other
        content, or a second dispatch or terminal of one operation;
        `NotFound`: a terminal event of an operation never dispatched.

        Raises ConflictError, NotFoundError, InvalidInputError.
        """
    def dispatch_operation(self, session_id: str, operation_id: str, payload: Optional[Any] = None) -> AppendOutcome:
        """Record that an operation's effect was dispatched, owned by this
        handle (`payload`: any JSON value, `null` when left out; Kotlin/Swift
        `payloadJson`, JSON text). Idempotent for the same payload;
        `Conflict`: dispatched before with another payload.

        Raises ConflictError, InvalidInputError.
        """
    def complete_operation(self, session_id: str, operation_id: str, outcome: Outcome, payload: Optional[Any] = None) -> AppendOutcome:
        """Record an operation's terminal event (idempotent for the same outcome
        and payload). `NotFound`: never dispatched.

        Raises ConflictError, NotFoundError, InvalidInputError.
        """
    def open_operations(self) -> List[OpenOperation]:
        """Operations dispatched without a terminal event."""
    def recover(self) -> RecoveryReport:
        """Run the recovery pass (seed 000, "Recovery Pass"): mark every open
        operation whose owner is gone `OperationUnknownOutcome`.

        Raises BusyError, ClosedError.
        """
    def open_recovery_report(self) -> RecoveryReport:
        """The report of the recovery pass run at open."""
    def recover_context_governance(self, session_id: str) -> ContextGovernance:
        """Replay a session's pins, exclusions and compactions (after a restart).

        Raises NotFoundError, AuthenticationError, CorruptError.
        """
    def record_turn_decision(self, session_id: str, kind: str, seqs: Sequence[int]) -> int:
        """Record a governance decision (`kind` = `pin`, `unpin`, `exclude` or
        `include`) on transcript seqs; returns the extension number `n`.

        Raises InvalidInputError, NotFoundError.
        """
    def open_saved_session(self, session_id: str) -> OpenedSession:
        """Open a saved session (seed 000, "Session Restoration Boundary"): its
        knowledge (transcript, model, work mode, workspace, token totals,
        governance, other extensions) and a fresh authority. Reads only.

        Raises NotFoundError, AuthenticationError, CorruptError.
        """
    def export_thclaws(self, session_id: str, format: Optional[ExportFormat] = None) -> str:
        """A stored session as text in `format`: `thclaws` (the default: JSONL
        that real thClaws reads), `markdown` (a transcript to share, secrets
        always redacted) or `json` (the neutral model as one pretty-printed
        document). thClaws and JSON are redacted only under the store's
        redaction policy (`on-export`, `on-write`).

        Raises NotFoundError, AuthenticationError.
        """
    def export_thclaws_to_file(self, session_id: str, path: Union[str, "os.PathLike[str]"], format: Optional[ExportFormat] = None) -> WriteReport:
        """Export a stored session in `format` (as `export_thclaws`; default
        thClaws JSONL, streamed) into the file at `path` (written to a private
        0600 temporary file beside it, renamed over it once complete: a failed
        export leaves the old file); returns what was written.

        Raises NotFoundError, IoError, AuthenticationError.
        """
    def import_paths(self, paths: Sequence[Union[str, "os.PathLike[str]"]]) -> List[FileImport]:
        """Import every session file under `paths` (files or directory trees;
        inside a directory only `*.jsonl` files, format detected per file).
        Returns one report per file, in the order of `paths` (each tree in
        sorted walk order). Nothing aborts the whole import: a path that
        cannot be read becomes a `failed` report whose `error` names it.
        There is no progress callback (Kotlin/Swift: a listener).
        """
    def import_file(self, path: Union[str, "os.PathLike[str]"], format: Optional[SourceFormat] = None) -> FileImport:
        """Import one session file (thClaws JSONL, Codex rollout or Claude Code
        transcript; format detected unless given). Incremental: a file
        imported before resumes after its last imported line. Problems with
        the file are in the report's status.

        Raises IoError, ClosedError.
        """
    def compact_session(self, session_id: str, raw_window: int, output_reserve: Optional[int] = None, model: Optional[str] = None, target_percent: Optional[int] = None, dry_run: bool = False) -> CompactionPlan:
        """Plan compaction of a stored session's active context down to
        `target_percent` (default 70) of capacity (`/compact`); unless
        `dry_run`, record the plan. The saved transcript is never modified.

        Raises ContextOverflowError, NotFoundError, InvalidInputError.
        """
    def fork_session(self, session_id: str, at_seq: Optional[int] = None, summary: Optional[str] = None) -> Session:
        """Fork a session (seed 002 `/fork`): a new session with the same model,
        provider and workspace, `forked_from`/`forked_at_seq` recorded, seeded
        with `summary` (one `system` entry) or with a copy of the entries up to
        and including `at_seq` (none = the last); with neither, with a summary
        of the whole old history.

        Raises NotFoundError, InvalidInputError.
        """
    def record_compaction(self, session_id: str, plan: CompactionPlan) -> Optional[int]:
        """Record a compaction plan (a context extension); returns its number
        `n`, or none for a plan without transformations (not recorded).

        Raises NotFoundError, InvalidInputError.
        """
    def sidebar_sessions(self) -> List[Session]:
        """Sidebar order (seed 002): the 10 most recent sessions, titled first."""
    def search(self, query: str, options: Optional[SearchOptions] = None) -> SearchResults:
        """Search every session's messages, tool calls and outputs, thinking and
        titles (docs/search.md gives the query language: words, "phrases",
        prefix*, -excluded, OR, role:, session:, model:, after:, before:,
        in:, workspace:). The encrypted index catches up with the store first:
        every committed entry of any handle is found, deleted and retracted
        content never is. Highlights count code points (Python `str` indices).

        Raises InvalidInputError, IoError, ClosedError, BusyError.
        """
    def rebuild_search_index(self) -> RebuildReport:
        """Rebuild the encrypted search index from the store (it is a cache:
        searching never needs this; after it, searches start from a fresh index).

        Raises IoError, ClosedError.
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
def error_kinds() -> List[Tuple[str, str, str]]:
    """`(name, code, python class name)` of every core error kind."""
def effective_context_capacity(raw: int, output_reserve: Optional[int] = None, model_max_output: Optional[int] = None) -> int:
    """Effective Context Capacity in tokens (seed 000 "Context Utilization
    Meter"): `raw − max(min(output_reserve, model_max_output), ⌈8% raw⌉) −
    max(2048, ⌈2% raw⌉)`; 128,000 → 115,200. `output_reserve` and
    `model_max_output`: none when not configured or unknown. Never
    guesses a window.

    Raises InvalidInputError.
    """
def capacity_breakdown(raw: int, output_reserve: Optional[int] = None, model_max_output: Optional[int] = None) -> CapacityBreakdown:
    """Every term of the Effective Context Capacity (tokens).

    Raises InvalidInputError.
    """
def effective_context_capacity_for_model(model: str, output_reserve: Optional[int] = None) -> int:
    """Effective Context Capacity for a known model name (its window and
    maximum output), in tokens.

    Raises InvalidInputError.
    """
def known_model_limits(model: str) -> Optional[ModelLimits]:
    """Published limits of a known model (case-insensitive prefix match), or
    none: the caller must then pass the window itself.
    """
def meter(active_tokens: int, capacity: int) -> ContextMeter:
    """The meter for `active_tokens` against `capacity` (tokens): percent,
    the `Ctx N%` label, band and overflow.

    Raises InvalidInputError.
    """
def should_compact(projected_tokens: int, capacity: int) -> bool:
    """True when the projected context exceeds the capacity (compact before
    the provider call).
    """
def count_tokens(model: str, text: str, host_count: Optional[int] = None) -> TokenCount:
    """Token count of `text` for `model`: exact with the model's tokenizer,
    else the documented estimate; a host count always wins.
    """
def estimate_tokens(text: str) -> int:
    """The documented estimate `⌈UTF-8 bytes / 3⌉` (no tokenizer), in tokens."""
def encoding_for_model(model: str) -> Optional[Literal["o200k_base", "cl100k_base"]]:
    """The tiktoken encoding of a model name, or none when its family has none."""
def truncate_chars(text: str, max_chars: int) -> str:
    """Cut `text` to at most `max_chars` characters, ending with `…` when
    cut, never inside a character or a common grapheme cluster.
    """
def active_context_items(entries: Sequence[TranscriptEntry], governance: ContextGovernance, model: str) -> List[ContextItem]:
    """The active context for the planner, from `entries` and `governance`
    (as `recover_context_governance` returns it): excluded turns left out,
    compacted turns as their summaries, tokens = the entry's count or
    `count_tokens(model, content)`.

    Raises InvalidInputError.
    """
def compact_context(items: Sequence[Union[ContextItem, ContextItemDict]], capacity: int, target_percent: Optional[int] = None, options: Optional[CompactionOptionsDict] = None) -> CompactionPlan:
    """Plan the compaction of the active context (seed 000, "Context
    Compaction"): compact the oldest unpinned, unprotected items until the
    context is ≤ `target_percent` (default 70) of `capacity` (tokens); a
    tool call is never split from its result; summaries ≤ 240 characters.
    `items`: `ContextItem`s in order (Python: or dicts of their fields);
    `options`: the planner's (Python: a dict). `InvalidInput`: capacity 0,
    target > 100, seqs not increasing; `ContextOverflow`, with the token
    breakdown, when protected content alone exceeds capacity.

    Raises ContextOverflowError, InvalidInputError.
    """
def apply_compaction(plan: Union[CompactionPlan, Dict[str, Any]], items: Sequence[Union[ContextItem, ContextItemDict]]) -> List[ContextItem]:
    """The active context after `plan`: each transformed item gets its
    summary (`compacted = true`, `tokens = tokens_after`); the others are
    unchanged. Python: `plan` and `items` may be dicts (InvalidInputError
    when one does not fit).
    """
def summarize_item(item: Union[ContextItem, ContextItemDict]) -> str:
    """The deterministic summary of one item, at most 240 characters (seed
    000, "Context Compaction"). Python: `item` may be a dict
    (InvalidInputError when it does not fit).
    """
def governance_turns(governance: ContextGovernance, entry_count: int) -> List[TurnGovernance]:
    """Per-turn view of seqs `1..=entry_count` under `governance` (exclusion
    wins, then compaction); at most 1,000,000 turns.

    Raises InvalidInputError.
    """
def envelope_aad(record_id: str) -> str:
    """The AAD of an envelope v1 for `record_id`: `record_id:v1:aes-256-gcm`."""
def encrypt_field(key: bytes, record_id: str, plaintext: bytes) -> str:
    """Encrypt `plaintext` for `record_id` under the 32-byte `key` with a
    fresh random nonce; returns the envelope's JSON text.

    Raises InvalidInputError.
    """
def decrypt_field(key: bytes, record_id: str, envelope_json: str) -> bytes:
    """Decrypt an envelope (JSON text) written for `record_id`; returns the
    plaintext bytes.

    Raises InvalidInputError, CorruptError, AuthenticationError.
    """
def workspace_index(key: bytes, canonical_path: str) -> str:
    """The workspace index of an already canonical path: lowercase hex of
    HMAC-SHA-256 under the index subkey of the 32-byte `key`.

    Raises InvalidInputError.
    """
def recovery_key_text(key: bytes) -> str:
    """The recovery key text of a 32-byte data key: base32 (RFC 4648) of the
    key and a 3-byte checksum, 56 characters in 14 groups of 4 joined by `-`.

    Raises InvalidInputError.
    """
def parse_recovery_key(text: str) -> bytes:
    """The 32-byte data key of a recovery key (any case; whitespace and `-`
    ignored); "recovery key checksum mismatch" for a mistyped key.

    Raises InvalidInputError.
    """
def detect_format(path: Union[str, "os.PathLike[str]"]) -> Optional[SourceFormat]:
    """The format of a session file from its first lines, or none when it is
    none of thClaws, Codex rollout or Claude Code.

    Raises IoError.
    """
def read_thclaws_digest(data: bytes, fallback_id: str = "session") -> ThclawsDigest:
    """Read thClaws JSONL bytes and return what the reader saw (the fields
    of tests/conformance/portable/read_thclaws.json). Pure parsing.
    `InvalidInput`: the bytes hold no session.

    Raises InvalidInputError.
    """
def write_thclaws_json(session: PortableSessionDict) -> str:
    """Write a session `{id, title?, model?, provider?, cwd?, created_at_ms?,
    turns: [{role, blocks, timestamp_ms?, model?, provider?}]}` (Python: a
    dict, `PortableSessionDict`; Node: an object) as thClaws JSONL text.
    Pure. `InvalidInput`: no `id`, `turns` not an array, an unknown role,
    a turn's `blocks` not an array.

    Raises InvalidInputError.
    """
def default_db_path(app: str = "sessiondb") -> str:
    """The default database path for `app` (seed 000 `sessionsDbPath()`):
    `$XDG_STATE_HOME/<app>/sessions.db` on Linux (falling back to
    `~/.local/state`), `~/Library/Application Support/<app>/sessions.db`
    on macOS, `%LOCALAPPDATA%\\<app>\\sessions.db` on Windows.
    `InvalidInput`: an app name that is not one path component; `Io`: no
    home directory is known.

    Raises InvalidInputError, IoError.
    """
def canonical_workspace(path: str) -> str:
    """Canonical form of a workspace path (absolute, `.`/`..` resolved,
    symlinks resolved for the longest existing prefix, NFC; DESIGN.md
    "Workspace index"), a relative path taken against the current
    directory. Reads the disk.

    Raises InvalidInputError, IoError.
    """
def _bench_core(path: Union[str, "os.PathLike[str]"], key: bytes, items: List[str], page: int, batch: int = 1) -> Tuple[float, float]:
    """Benchmark helper, not API: the sessiondb run of the hosts' benchmarks
    (python/bench/bench_vs_agents_sdk.py, node/bench/bench.mjs) in Rust
    only. Opens the store at `path` under the 32-byte `key`, creates a
    session, appends `items` as user text (one `append_transcript` per
    item, or `append_entries` of `batch` items per call when `batch > 1`),
    then reads everything back in pages of `page` entries. Returns the
    wall-clock seconds of the append and the read phase (Python: the tuple
    `(append_s, read_s)`). Errors: those of opening the store, appending
    and reading (`InvalidInput` for a key that is not 32 bytes).
    """
