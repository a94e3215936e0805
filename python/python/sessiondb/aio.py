"""asyncio front of :class:`sessiondb.SessionStore`.

Every call that touches disk or crypto runs in a worker thread, and the
native call releases the GIL, so the event loop keeps running while a long
read or an import works. Reads run in :func:`asyncio.to_thread`'s pool;
every call that writes runs on the handle's one writer thread, in call
order, so writes issued in order land in order even when one of them was
cancelled or timed out (it still runs, whole or not at all, before the
next). Their results come back to the loop in slices of at most
``_SLICE_S`` seconds (and ``_SLICE_N`` results) per loop turn, so 10,000
appends in flight do not hold the loop while they complete. To make a retried append store its entries once, pass the same
``idempotency_key`` (``append_entries``, ``append_entries_with_meta``).
Results and errors are those of the synchronous store
(:mod:`sessiondb.errors`).

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
import collections
import concurrent.futures
import functools
import threading
import time
from typing import Any, AsyncIterator, Callable, List, Tuple

from ._native import EntryMeta, SessionStore, TranscriptEntry

# Methods that answer from memory, without disk or crypto: called directly
# (keep in step with IMMEDIATE in python/scripts/aio_stub.py, which writes
# aio.pyi, the typed signatures of every method installed below).
_IMMEDIATE = frozenset({"open_recovery_report"})
# Written here by hand (or not offered): not installed from SessionStore.
_HAND_WRITTEN = frozenset({"open_default", "close", "get_transcript", "get_transcript_with_meta", "iter_transcript"})
# Methods that only read the store: run concurrently in asyncio's thread
# pool. Every other method writes (or may) and runs on the handle's writer
# thread, in call order.
_READS = frozenset(
    {
        "active_context",
        "context_status",
        "export_thclaws",
        "export_thclaws_to_file",
        "find_session",
        "get_entry_items",
        "get_entry_items_tail",
        "get_session",
        "get_transcript_tail",
        "get_transcript_tail_with_meta",
        "journal_events",
        "list_context_extensions",
        "list_sessions",
        "list_sessions_for_workspace",
        "open_operations",
        "recent_sessions",
        "resolve_session",
        "search",
        "serve",
        "sidebar_sessions",
        "stats",
        "token_totals",
    }
)
# Entries converted to Python objects per worker call. The conversion holds
# the GIL (the native read itself does not), so a 10,000-entry page is read
# as several calls and the event loop runs between them.
_CHUNK = 500
# Most time (seconds) and results one loop turn spends handing write results
# back (each releases a waiting task, which runs in the next turn).
_SLICE_S = 0.002
_SLICE_N = 256


class _Writer:
    """The handle's writer: calls run on one thread in submission order;
    their outcomes go back to the loop in bounded slices (``_drain``).

    Submitting is a deque append (the thread is started through a
    one-thread executor only when it is idle), and the thread wakes the loop
    once per slice (``call_soon_threadsafe``), not once per call: issue 33
    item 2 measured 10,000 gathered appends holding the loop 389 ms with
    one ``run_in_executor`` per call.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.lock = threading.Lock()
        self.todo: "collections.deque[Tuple[Callable[[], Any], asyncio.Future[Any]]]" = collections.deque()
        self.done: "collections.deque[Tuple[asyncio.Future[Any], bool, Any]]" = collections.deque()
        self.running = False  # the thread is taking calls from ``todo``
        self.scheduled = False  # a ``_drain`` is due on the loop
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="sessiondb-aio-writer")

    def submit(self, call: Callable[[], Any]) -> "asyncio.Future[Any]":
        fut = self.loop.create_future()
        with self.lock:
            self.todo.append((call, fut))
            start = not self.running
            self.running = True
        if start:
            self.pool.submit(self._run)
        return fut

    def _run(self) -> None:
        """On the writer thread: every queued call, in order, until none is left."""
        while True:
            with self.lock:
                if not self.todo:
                    self.running = False
                    return
                call, fut = self.todo.popleft()
            try:
                out = (fut, True, call())
            except BaseException as e:  # handed to the awaiting task, as run_in_executor does
                out = (fut, False, e)
            with self.lock:
                self.done.append(out)
                wake = not self.scheduled
                self.scheduled = True
            if wake:
                try:
                    self.loop.call_soon_threadsafe(self._drain)
                except RuntimeError:  # the loop is closed: nobody awaits these any more
                    pass

    def _drain(self) -> None:
        """On the loop: settle results, oldest first, for at most ``_SLICE_S``
        seconds and ``_SLICE_N`` results; the rest in the next turn."""
        t0 = time.perf_counter()
        for n in range(_SLICE_N):
            with self.lock:
                if not self.done:
                    self.scheduled = False
                    return
                fut, ok, value = self.done.popleft()
            if not fut.cancelled():
                if ok:
                    fut.set_result(value)
                else:
                    fut.set_exception(value)
            if n % 16 == 15 and time.perf_counter() - t0 > _SLICE_S:
                break
        self.loop.call_soon(self._drain)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False)


class AsyncSessionStore:
    """An asyncio handle over one :class:`SessionStore` (shared, thread-safe).

    Every store method is available as a coroutine with the same arguments
    and result (``await store.get_transcript(sid)``); properties that need no
    I/O (``path``, ``instance_id``, ``key_backend``, ``closed``) are plain
    attributes. The methods are installed from :class:`SessionStore` at
    import; their types are in ``aio.pyi`` (written from the sync stub by
    python/scripts/aio_stub.py), so ``mypy --strict`` checks async calls as
    it checks sync ones.
    """

    def __init__(self, store: SessionStore) -> None:
        self._store = store
        self._writer: "_Writer | None" = None

    def _write(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> "asyncio.Future[Any]":
        """A future of ``fn(*args, **kwargs)`` run on the writer thread, after
        every write submitted before it."""
        w = self._writer
        if w is None or w.loop is not asyncio.get_running_loop():
            if w is not None:
                w.shutdown()
            w = self._writer = _Writer(asyncio.get_running_loop())
        return w.submit(functools.partial(fn, *args, **kwargs))

    @classmethod
    async def open(cls, *args: Any, **kwargs: Any) -> "AsyncSessionStore":
        """Open a store off the event loop (same arguments as :class:`SessionStore`)."""
        return cls(await asyncio.to_thread(SessionStore, *args, **kwargs))

    @property
    def sync(self) -> SessionStore:
        """The synchronous store underneath."""
        return self._store

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
        """Close the handle (checkpoints the WAL) off the event loop, after
        every write submitted before."""
        await self._write(self._store.close)
        if self._writer is not None:
            self._writer.shutdown()
            self._writer = None

    async def __aenter__(self) -> "AsyncSessionStore":
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()


def _install() -> None:
    """Give AsyncSessionStore every public method and property of
    SessionStore: properties read through, ``_IMMEDIATE`` methods are called
    directly, every other method becomes a coroutine run in a worker thread
    (its signature and docstring are the sync method's: ``functools.wraps``)."""

    def prop(name: str) -> property:
        return property(lambda self: getattr(self._store, name), doc=getattr(SessionStore, name).__doc__)

    def immediate(name: str, method: Any) -> Callable[..., Any]:
        @functools.wraps(method)
        def call(self: AsyncSessionStore, *args: Any, **kwargs: Any) -> Any:
            return getattr(self._store, name)(*args, **kwargs)

        return call

    def coroutine(name: str, method: Any) -> Callable[..., Any]:
        if name in _READS:

            @functools.wraps(method)
            async def read(self: AsyncSessionStore, *args: Any, **kwargs: Any) -> Any:
                return await asyncio.to_thread(getattr(self._store, name), *args, **kwargs)

            return read

        @functools.wraps(method)
        async def write(self: AsyncSessionStore, *args: Any, **kwargs: Any) -> Any:
            return await self._write(getattr(self._store, name), *args, **kwargs)

        return write

    for name, method in vars(SessionStore).items():
        if name.startswith("_") or name in _HAND_WRITTEN or name in vars(AsyncSessionStore):
            continue
        if not callable(method):  # a getter (path, instance_id, key_backend, closed)
            setattr(AsyncSessionStore, name, prop(name))
        elif name in _IMMEDIATE:
            setattr(AsyncSessionStore, name, immediate(name, method))
        else:
            setattr(AsyncSessionStore, name, coroutine(name, method))


_install()

__all__ = ["AsyncSessionStore"]
