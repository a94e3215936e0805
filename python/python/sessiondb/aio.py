"""asyncio front of :class:`sessiondb.SessionStore`.

Every call that touches disk or crypto runs in a worker thread
(:func:`asyncio.to_thread`), and the native call releases the GIL, so the
event loop keeps running while a long read or an import works. Results and
errors are those of the synchronous store (:mod:`sessiondb.errors`).

Example::

    from sessiondb.aio import AsyncSessionStore

    store = await AsyncSessionStore.open("sessions.db", key=key_bytes)
    s = await store.create_session("chat")
    await store.append_transcript(s.id, "user", "hello")
    async for entry in store.iter_transcript(s.id):
        ...
    await store.close()
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, AsyncIterator, Callable, List, Tuple

from ._native import EntryMeta, SessionStore, TranscriptEntry

# Methods that answer from memory, without disk or crypto: called directly.
_IMMEDIATE = frozenset({"path", "instance_id", "key_backend", "open_recovery_report"})
# Entries converted to Python objects per worker call. The conversion holds
# the GIL (the native read itself does not), so a 10,000-entry page is read
# as several calls and the event loop runs between them.
_CHUNK = 500


class AsyncSessionStore:
    """An asyncio handle over one :class:`SessionStore` (shared, thread-safe).

    Every store method is available as a coroutine with the same arguments
    and result (``await store.get_transcript(sid)``); properties that need no
    I/O (``path``, ``instance_id``, ``key_backend``) are plain attributes.
    """

    def __init__(self, store: SessionStore) -> None:
        self._store = store

    @classmethod
    async def open(cls, *args: Any, **kwargs: Any) -> "AsyncSessionStore":
        """Open a store off the event loop (same arguments as :class:`SessionStore`)."""
        return cls(await asyncio.to_thread(SessionStore, *args, **kwargs))

    @property
    def sync(self) -> SessionStore:
        """The synchronous store underneath."""
        return self._store

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if name in _IMMEDIATE or not callable(attr):
            return attr

        @functools.wraps(attr)
        async def call(*args: Any, **kwargs: Any) -> Any:
            return await asyncio.to_thread(attr, *args, **kwargs)

        return call

    async def _paged(self, read: Callable[[str, int, int], List[Any]], session_id: str, from_seq: int, limit: int) -> List[Any]:
        if limit <= 0 or limit > 10_000:
            return await asyncio.to_thread(read, session_id, from_seq, limit)  # the store raises InvalidInputError
        out: List[Any] = []
        seq = from_seq
        while len(out) < limit:
            n = min(_CHUNK, limit - len(out))
            page = await asyncio.to_thread(read, session_id, seq, n)
            out.extend(page)
            if len(page) < n:
                break
            last = page[-1]
            seq = (last[0] if isinstance(last, tuple) else last).seq + 1
        return out

    async def get_transcript(self, session_id: str, from_seq: int = 1, limit: int = 1000) -> List[TranscriptEntry]:
        """:meth:`SessionStore.get_transcript`, read in chunks so the loop keeps running."""
        return await self._paged(self._store.get_transcript, session_id, from_seq, limit)

    async def get_transcript_with_meta(self, session_id: str, from_seq: int = 1, limit: int = 1000) -> List[Tuple[TranscriptEntry, EntryMeta]]:
        """:meth:`SessionStore.get_transcript_with_meta`, read in chunks."""
        return await self._paged(self._store.get_transcript_with_meta, session_id, from_seq, limit)

    async def iter_transcript(self, session_id: str, from_seq: int = 1, page_size: int = 1000) -> AsyncIterator[TranscriptEntry]:
        """Every entry from ``from_seq``, one page (``page_size`` entries) per worker call."""
        seq = from_seq
        while True:
            page = await self.get_transcript(session_id, seq, page_size)
            if not page:
                return
            for e in page:
                yield e
            seq = page[-1].seq + 1

    async def close(self) -> None:
        """Close the handle (checkpoints the WAL) off the event loop."""
        await asyncio.to_thread(self._store.close)

    async def __aenter__(self) -> "AsyncSessionStore":
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()


__all__ = ["AsyncSessionStore"]
