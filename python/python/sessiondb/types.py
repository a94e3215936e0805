"""The string values of the API as ``Literal`` types, for type checkers
(issue 15 item 4): a typo in a role, band, outcome, format or error code
fails ``mypy --strict``. At run time they are plain strings; the core
rejects an unknown value with :class:`sessiondb.InvalidInputError`."""

from __future__ import annotations

from typing import Literal

__all__ = ["Role", "ContentFormat", "Band", "Outcome", "SourceFormat", "ExportFormat", "ImportStatus", "ErrorKind", "ErrorCode"]

#: Who wrote a transcript entry (seed 000 ``TranscriptRole``).
Role = Literal["user", "assistant", "tool", "system"]
#: How an entry's ``content`` is read: plain text or a JSON array of content blocks.
ContentFormat = Literal["text", "blocks"]
#: Context meter band (seed 000 "Context Utilization Meter"): 0-69 green, 70-84 amber, 85-94 orange, >= 95 red.
Band = Literal["green", "amber", "orange", "red"]
#: How an operation ended (its terminal journal event).
Outcome = Literal["succeeded", "failed", "blocked", "cancelled", "unknown"]
#: A session file format the importers read.
SourceFormat = Literal["thclaws", "codex", "claude-code", "gemini-cli", "opencode", "agents-sdk"]
#: What ``export_thclaws(session_id, format)`` writes: thClaws JSONL (default), Markdown or the neutral model as JSON.
ExportFormat = Literal["thclaws", "markdown", "json"]
#: What an import did with one file.
ImportStatus = Literal["imported", "up_to_date", "source_changed", "unrecognized", "failed"]
#: The core ``ErrorKind`` names (``SessionDBError.kind``).
ErrorKind = Literal[
    "RecoveryLocked", "KeyMismatch", "KeyStoreUnavailable", "NotFound", "Conflict", "AuthenticationFailed",
    "Corrupt", "Busy", "InvalidInput", "Io", "Database", "ContextOverflow", "Closed",
]
#: The error codes (``SessionDBError.code``, the same strings as Node's ``err.code``).
ErrorCode = Literal[
    "ERR_RECOVERY_LOCKED", "ERR_KEY_MISMATCH", "ERR_KEY_STORE_UNAVAILABLE", "ERR_NOT_FOUND", "ERR_CONFLICT",
    "ERR_AUTHENTICATION_FAILED", "ERR_CORRUPT", "ERR_BUSY", "ERR_INVALID_INPUT", "ERR_IO", "ERR_DATABASE",
    "ERR_CONTEXT_OVERFLOW", "ERR_CLOSED",
]
