"""Exceptions of sessiondb: one class per core error kind, under
:class:`SessionDBError`.

Every instance has ``kind`` (the core ``ErrorKind`` name, e.g.
``"RecoveryLocked"``) and ``code`` (the same string Node uses, e.g.
``"ERR_RECOVERY_LOCKED"``). Messages never contain user content.
"""

from __future__ import annotations

from typing import List

from .types import ErrorCode, ErrorKind

__all__ = [
    "SessionDBError",
    "RecoveryLockedError",
    "KeyMismatchError",
    "KeyStoreUnavailableError",
    "NotFoundError",
    "ConflictError",
    "AuthenticationError",
    "CorruptError",
    "BusyError",
    "InvalidInputError",
    "IoError",
    "FileNotFoundIoError",
    "PermissionIoError",
    "DatabaseError",
    "ContextOverflowError",
    "ClosedError",
]


class SessionDBError(Exception):
    """Base class of every sessiondb error."""

    kind: ErrorKind = ""  # type: ignore[assignment]  # every subclass sets its own
    code: ErrorCode = ""  # type: ignore[assignment]


class RecoveryLockedError(SessionDBError):
    """The database exists but its data key is missing; no new key was written."""

    kind = "RecoveryLocked"
    code = "ERR_RECOVERY_LOCKED"
    backend: str = ""


class KeyMismatchError(SessionDBError):
    """A key was found but it does not open this database."""

    kind = "KeyMismatch"
    code = "ERR_KEY_MISMATCH"
    backend: str = ""


class KeyStoreUnavailableError(SessionDBError):
    """No credential store reachable, or it refused access (never read as "no key")."""

    kind = "KeyStoreUnavailable"
    code = "ERR_KEY_STORE_UNAVAILABLE"
    backend: str = ""
    remedy: str = ""


class NotFoundError(SessionDBError, LookupError):
    """A session, entry, operation or event does not exist."""

    kind = "NotFound"
    code = "ERR_NOT_FOUND"


class ConflictError(SessionDBError):
    """The request conflicts with what is stored (e.g. same event id, other payload)."""

    kind = "Conflict"
    code = "ERR_CONFLICT"


class AuthenticationError(SessionDBError):
    """An AEAD tag did not verify: a ciphertext was altered, moved or swapped."""

    kind = "AuthenticationFailed"
    code = "ERR_AUTHENTICATION_FAILED"


class CorruptError(SessionDBError):
    """Stored data is not in the expected shape."""

    kind = "Corrupt"
    code = "ERR_CORRUPT"


class BusyError(SessionDBError):
    """Another writer held the database lock past the busy timeout."""

    kind = "Busy"
    code = "ERR_BUSY"
    #: The configured busy timeout, in milliseconds.
    timeout_ms: int = 0
    #: How long the call really waited before giving up, in milliseconds.
    waited_ms: int = 0


class InvalidInputError(SessionDBError, ValueError):
    """An argument is out of range or malformed."""

    kind = "InvalidInput"
    code = "ERR_INVALID_INPUT"


class IoError(SessionDBError, OSError):
    """The operating system refused a file operation."""

    kind = "Io"
    code = "ERR_IO"


class FileNotFoundIoError(IoError, FileNotFoundError):
    """An :class:`IoError` where the OS said "not found"."""


class PermissionIoError(IoError, PermissionError):
    """An :class:`IoError` where the OS said "permission denied"."""


class DatabaseError(SessionDBError):
    """SQLite reported an error that is none of the above."""

    kind = "Database"
    code = "ERR_DATABASE"


class ContextOverflowError(SessionDBError):
    """Irreducible context overflow: protected content alone exceeds the
    Effective Context Capacity. Token breakdown as attributes (tokens)."""

    kind = "ContextOverflow"
    code = "ERR_CONTEXT_OVERFLOW"
    capacity: int = 0
    system: int = 0
    pinned: int = 0
    recent: int = 0
    tool_results: int = 0
    other: int = 0
    protected_total: int = 0
    remedies: List[str] = []


class ClosedError(SessionDBError):
    """The store was closed, or is used in a child process after ``fork()``."""

    kind = "Closed"
    code = "ERR_CLOSED"
