"""Type stubs of the native module ``sessiondb._native`` (checked by
``python -m mypy.stubtest sessiondb`` against the built module).

Written by sessiondb-bridge from bridge/api.rs and python/_native.hand.pyi
(what python/src declares by hand; each ``# bridge:`` line there marks
where generated text goes): edit those, then run
``SESSIONDB_BLESS=1 cargo test -p sessiondb-bridge --test snapshots``."""

import os
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union, final

from sessiondb.inputs import CompactionOptionsDict, ContextItemDict, PortableSessionDict
# bridge: header

__version__: str

# bridge: records

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
    # bridge: methods

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
# bridge: functions
