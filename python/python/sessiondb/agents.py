"""OpenAI Agents SDK session backed by sessiondb.

:class:`SessionDBSession` implements the SDK's ``Session`` protocol
(``agents.memory.session.Session`` of ``openai-agents``: ``get_items``,
``add_items``, ``pop_item``, ``clear_session``), built like the SDK's own
``SQLiteSession(session_id, db_path)``::

    from agents import Agent, Runner
    from sessiondb.agents import SessionDBSession

    session = SessionDBSession("user-123", path="sessions.db", key=key_bytes)
    result = await Runner.run(agent, "hello", session=session)

Each SDK item is one transcript entry: the item's JSON is kept whole and
exactly as the entry's structured item (``EntryMeta.item``, encrypted in
the entry's metadata; entries written by earlier versions kept it under
``extra["agents_item"]`` and still read back), and the entry's content is
the item's text (message text, a tool call's name and
arguments, a tool's output), so the context meter and compaction count the
conversation, not JSON. ``pop_item`` retracts the last entry (it stays
stored, and is left out of reads, export, fork and the context). The SDK
package is not imported here: any object with the SDK's item shape works.

``ttl=`` (seconds) leaves expired items out of reads, as the SDK's
``EncryptedSession``; :meth:`SessionDBSession.sweep_expired` retracts them.
:class:`AdvancedSessionDBSession` (module ``sessiondb.agents_advanced``) is
the SDK's ``AdvancedSQLiteSession``: branches, usage, turns and lookup.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import time
import uuid
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, TypeVar, Union

from . import errors
from ._native import EntryMeta, ItemPage, SessionStore, TranscriptEntry, should_compact
from .types import Role

#: Metadata key under which earlier versions kept the SDK item's JSON text
#: (``EntryMeta.extra``); still read, no longer written.
ITEM_KEY = "agents_item"

#: Entries read per page by a full ``get_items()`` (one read and one
#: ``json.loads`` each); a ``limit`` up to ``MAX_PAGE`` is one read.
PAGE = 1000
MAX_PAGE = 10_000

#: Idempotency keys of interrupted ``add_items`` calls kept for their retry.
RETRY_KEYS = 64

_T = TypeVar("_T")


def _item_of(entry: Any, meta: EntryMeta) -> Dict[str, Any]:
    """The SDK item of a stored entry: its structured item, else the legacy
    ``extra["agents_item"]``, else ``{"role", "content"}`` of an entry
    written without one (e.g. imported)."""
    raw = meta.item
    if raw is None:
        legacy = meta.extra.get(ITEM_KEY)
        raw = legacy if isinstance(legacy, str) else None
    if raw is not None:
        item: Dict[str, Any] = json.loads(raw)
        return item
    return {"role": entry.role, "content": entry.content}


def _page_items(page: ItemPage, seqs: Optional[List[int]]) -> List[Any]:
    """The SDK items of one :class:`ItemPage`, in order: one ``json.loads``
    of its items array; each entry without a structured item (its element is
    ``null``) through :func:`_item_of`. ``seqs``: ``page.seqs`` if already
    read."""
    items: List[Any] = json.loads(page.items_json)
    without = page.without_item
    if without:
        at = {s: i for i, s in enumerate(page.seqs if seqs is None else seqs)}
        for entry, meta in without:
            items[at[entry.seq]] = _item_of(entry, meta)
    return items


# ``json.dumps(x, ensure_ascii=False)`` builds an encoder per call; one
# encoder with the same settings gives the same text for less.
_dumps = json.JSONEncoder(ensure_ascii=False).encode


def item_text(item: Dict[str, Any]) -> str:
    """The text of an SDK item that counts for tokens and summaries: a
    message's text parts, a function call's ``name(arguments)``, a tool
    output, a reasoning summary; other items their JSON."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") or p.get("refusal") or "" for p in content if isinstance(p, dict)]
        if any(parts):
            return "\n".join(p for p in parts if p)
    kind = item.get("type")
    if kind == "function_call":
        return f"{item.get('name', '')}({item.get('arguments', '')})"
    if kind in ("function_call_output", "custom_tool_call_output", "computer_call_output"):
        out = item.get("output")
        return out if isinstance(out, str) else _dumps(out)
    if kind == "reasoning":
        return "\n".join(s.get("text", "") for s in item.get("summary") or [] if isinstance(s, dict))
    return _dumps(item)


def item_role(item: Dict[str, Any]) -> Role:
    """The transcript role of an SDK item: its message role (``developer``
    is ``system``), ``tool`` for tool outputs, else ``assistant``."""
    role = item.get("role")
    if role == "user":
        return "user"
    if role == "assistant":
        return "assistant"
    if role in ("system", "developer"):
        return "system"
    if str(item.get("type", "")).endswith("_output"):
        return "tool"
    return "assistant"


def _settings(value: Any) -> Any:
    """The SDK's ``SessionSettings`` for ``value`` (None: the default
    settings) when the SDK is installed; else ``value`` as given (a dict
    becomes an object with its ``limit``)."""
    try:
        from agents.memory.session_settings import SessionSettings, coerce_session_settings
    except ImportError:
        if isinstance(value, dict):
            import types

            return types.SimpleNamespace(limit=value.get("limit"))
        return value
    return SessionSettings() if value is None else coerce_session_settings(value)


def _dict(item: Any) -> Dict[str, Any]:
    """An SDK item as a dict (a pydantic model is dumped as the SDK does)."""
    return item if isinstance(item, dict) else item.model_dump(exclude_unset=True)


def _fingerprint(items: List[Any]) -> str:
    """Canonical JSON of ``items``: equal for a retry of the same items."""
    return json.dumps([_dict(i) for i in items], sort_keys=True, ensure_ascii=False)


class SessionDBSession:
    """An Agents SDK ``Session`` stored in sessiondb (encrypted, crash-safe).

    * ``session_id``: the sessiondb session id (created on first use).
    * ``path``: database file; ``None`` is the default store of the OS user.
    * ``key``: 32 key bytes, or a key file's base64 text (``str``); ``None`` uses the OS
      credential store (on a machine without one: a key file, with a warning).
    * ``store``: an open :class:`SessionStore` to share instead of ``path``/``key``.
    * ``window``: the model's raw context window in tokens. With it,
      ``get_items`` returns the active context (DESIGN.md "Context
      governance"): when the stored history exceeds the window's capacity it
      is compacted first (the plan is recorded; the transcript is never
      changed), a compacted run comes back as one ``{"role": "user",
      "content": <summary>}`` item, and excluded turns are left out. So an SDK
      app gets compaction without code.
    * ``model``: picks the tokenizer for ``window`` (default: the session's).
    * ``session_settings``: the SDK's ``SessionSettings`` (or a dict of its
      fields, coerced by the SDK when it is installed): its ``limit`` is the
      default of ``get_items(limit=None)``, as in the SDK's sessions.
    * ``ttl``: seconds an item lives, as the SDK's ``EncryptedSession(ttl=)``:
      an item written more than ``ttl`` seconds ago (``clock() - written >
      ttl``) is left out of ``get_items`` and skipped by ``pop_item``;
      :meth:`sweep_expired` retracts the expired entries, each one
      ``EntryRetracted`` journal event (never deleted silently). With a
      ``ttl`` the items are stamped with ``clock()`` when written (the
      entry's ``created_at_ms``). Not combined with ``window`` (yet).
    * ``clock``: seconds since the epoch (default :func:`time.time`); a test
      passes its own.
    """

    def __init__(
        self,
        session_id: str,
        path: Optional[str] = None,
        key: Union[bytes, str, None] = None,
        window: Optional[int] = None,
        *,
        model: Optional[str] = None,
        store: Optional[SessionStore] = None,
        session_settings: Any = None,
        ttl: Optional[float] = None,
        clock: Optional[Callable[[], float]] = None,
    ) -> None:
        if window is not None and window <= 0:
            raise errors.InvalidInputError("window must be a positive number of tokens")
        if ttl is not None and ttl < 0:
            raise errors.InvalidInputError("ttl must be a number of seconds >= 0")
        if ttl is not None and window is not None:
            raise errors.InvalidInputError("ttl and window cannot be combined")
        self.ttl = ttl
        self._clock = clock
        self.session_id = session_id
        self.window = window
        self.model = model
        self.session_settings = _settings(session_settings)
        self._owns = store is None
        self._store = store if store is not None else (SessionStore(path, key=key) if path is not None or key is not None else SessionStore.open_default())
        # Every call runs on this session's one worker thread, in call order
        # (created on first use): a call that was cancelled or timed out
        # still runs (whole or not at all) before the next one, so calls
        # issued in order land in order.
        self._worker: Optional[concurrent.futures.ThreadPoolExecutor] = None
        # Items fingerprint -> the idempotency key (and the write time, ms,
        # when items are stamped) of an interrupted add_items, reused by a
        # retry of the same items (stored once).
        self._retry_keys: Dict[str, Tuple[str, Optional[int]]] = {}

    async def _run(self, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` on this session's worker thread, after every call
        submitted before it (the native call releases the GIL)."""
        if self._worker is None:
            self._worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="sessiondb-agents")
        return await asyncio.get_running_loop().run_in_executor(self._worker, functools.partial(fn, *args))

    @property
    def store(self) -> SessionStore:
        """The store underneath."""
        return self._store

    def _active_items(self, window: int) -> List[Dict[str, Any]]:
        st = self._store
        status = st.context_status(self.session_id, window, model=self.model)
        if should_compact(status.meter.active_tokens, status.capacity):
            st.compact_session(self.session_id, window, model=self.model)
        view = st.active_context(self.session_id, window, model=self.model)
        verbatim = [i.seq for i in view.items if i.state == "verbatim"]
        raw: Dict[int, Any] = {}
        if verbatim:
            for seqs, items in self._pages(verbatim[0]):
                raw.update(zip(seqs, items))
        out: List[Dict[str, Any]] = []
        for item in view.items:
            if item.state == "compacted":
                out.append({"role": "user", "content": item.text})
            elif item.state == "verbatim":
                out.append(raw[item.seq])
        return out

    def _pages(self, from_seq: int, sid: Optional[str] = None) -> Iterator[Tuple[List[int], List[Any]]]:
        """``(seqs, items)`` of each page of the visible entries from
        ``from_seq`` on, ``PAGE`` entries a page (one read and one
        ``json.loads`` each, so the GIL is never held for long)."""
        while True:
            page = self._store.get_entry_items(sid or self.session_id, from_seq, PAGE)
            seqs = page.seqs
            if not seqs:
                return
            yield seqs, _page_items(page, seqs)
            if len(seqs) < PAGE:
                return  # fewer than asked: no visible entry after these
            from_seq = seqs[-1] + 1

    def now(self) -> float:
        """The session's clock: seconds since the epoch."""
        return self._clock() if self._clock is not None else time.time()

    def _expired(self, created_at_ms: int, now: float) -> bool:
        """Whether an entry written at ``created_at_ms`` is past the ttl at
        ``now`` (the SDK's Fernet rule: expired once ``now > written + ttl``)."""
        return self.ttl is not None and now - created_at_ms / 1000.0 > self.ttl

    def _rows(self, sid: str) -> List[Tuple[TranscriptEntry, Dict[str, Any]]]:
        """``(entry, item)`` of every visible, unexpired entry of ``sid``, in
        order (``[]`` when the session does not exist)."""
        now = self.now()
        out: List[Tuple[TranscriptEntry, Dict[str, Any]]] = []
        from_seq = 1
        try:
            while True:
                page = self._store.get_transcript_with_meta(sid, from_seq, PAGE)
                out.extend((e, _item_of(e, m)) for e, m in page if not self._expired(e.created_at_ms, now))
                if len(page) < PAGE:
                    return out
                from_seq = page[-1][0].seq + 1
        except errors.NotFoundError:
            return []

    def _items(self, limit: Optional[int], sid: Optional[str] = None) -> List[Dict[str, Any]]:
        sid = sid or self.session_id
        if limit is None:
            limit = getattr(self.session_settings, "limit", None)
        # As the SDK's SQLiteSession: 0 is no items, a negative limit all of them.
        if limit is not None and limit < 0:
            limit = None
        if limit == 0:
            return []
        if self.ttl is not None:
            live = [item for _, item in self._rows(sid)]
            return live if limit is None else live[-limit:]
        try:
            items: List[Any] = []
            if self.window is not None:
                items = self._active_items(self.window)
                return items if limit is None else items[-limit:]
            if limit is not None and limit <= MAX_PAGE:
                # One read of the tail.
                page = self._store.get_entry_items_tail(sid, limit)
                return _page_items(page, None)
            for _, chunk in self._pages(1, sid):
                items.extend(chunk)
        except errors.NotFoundError:
            return []  # no session yet: no items, as in the SDK's sessions
        return items if limit is None else items[-limit:]

    async def get_items(self, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """The history in order; with ``limit`` (default: ``session_settings.limit``),
        the latest ``limit`` items: none for 0, all for a negative limit (the
        SDK's ``SQLiteSession`` semantics)."""
        return await self._run(self._items, limit)

    def _add(self, items: List[Any], key: str, stamp: Optional[int] = None, sid: Optional[str] = None) -> None:
        sid = sid or self.session_id
        # One native call: the core derives each entry's role and text from
        # the item's JSON (`item_role`, `item_text`, ported to Rust).
        texts = [_dumps(_dict(item)) for item in items]
        try:
            self._store.append_agents_items(sid, texts, key, stamp)
        except errors.NotFoundError:
            if sid != self.session_id:
                raise  # a branch deleted meanwhile is not recreated
            try:
                self._store.create_session(id=sid)
            except errors.ConflictError:
                pass  # created by another handle just now
            self._store.append_agents_items(sid, texts, key, stamp)

    async def add_items(self, items: List[Any]) -> None:
        """Append items in one transaction (all or none), exactly once.

        Each call carries an idempotency key (the append's journal event
        id). When a call is cancelled or times out (``asyncio.wait_for``) or
        fails, its key is kept, and a later ``add_items`` of the same items
        on this session reuses it: the items are stored once, whether the
        interrupted call landed or not. Calls land in the order they were
        made, an interrupted one included."""
        items = list(items)
        if not items:
            return
        fingerprint = _fingerprint(items) if self._retry_keys else None
        kept = self._retry_keys.pop(fingerprint, None) if fingerprint is not None else None
        key, stamp = kept if kept is not None else (uuid.uuid4().hex, int(self.now() * 1000) if self.ttl is not None else None)
        try:
            await self._run(self._add, items, key, stamp)
        except BaseException:
            self._retry_keys[fingerprint if fingerprint is not None else _fingerprint(items)] = (key, stamp)
            while len(self._retry_keys) > RETRY_KEYS:
                self._retry_keys.pop(next(iter(self._retry_keys)))
            raise

    def _pop(self, sid: Optional[str] = None) -> Optional[Dict[str, Any]]:
        sid = sid or self.session_id
        while True:
            try:
                tail = self._store.get_transcript_tail_with_meta(sid, 1)
            except errors.NotFoundError:
                return None
            if not tail:
                return None
            entry, meta = tail[0]
            if self._store.retract_entry(sid, entry.seq) is None:
                continue  # another handle popped it first
            if self._expired(entry.created_at_ms, self.now()):
                continue  # expired: retracted (drained) and skipped, as EncryptedSession
            return _item_of(entry, meta)

    async def pop_item(self) -> Optional[Dict[str, Any]]:
        """Retract and return the most recent item (``None`` when empty);
        with a ``ttl``, expired items on the way are retracted and skipped
        (``EncryptedSession.pop_item``)."""
        return await self._run(self._pop)

    def _sweep(self, sids: List[str]) -> List[Tuple[str, int]]:
        now = self.now()
        gone: List[Tuple[str, int]] = []
        if self.ttl is None:
            return gone
        for sid in sids:
            from_seq = 1
            try:
                while True:
                    page = self._store.get_transcript(sid, from_seq, PAGE)
                    for e in page:
                        if self._expired(e.created_at_ms, now) and self._store.retract_entry(sid, e.seq) is not None:
                            gone.append((sid, e.seq))
                    if len(page) < PAGE:
                        break
                    from_seq = page[-1].seq + 1
            except errors.NotFoundError:
                continue
        return gone

    def _sweep_sessions(self) -> List[str]:
        """The sessions :meth:`sweep_expired` sweeps."""
        return [self.session_id]

    async def sweep_expired(self) -> List[Tuple[str, int]]:
        """Retract every entry past the ``ttl`` (none without a ``ttl``):
        each is one ``EntryRetracted`` journal event, the entry stays stored
        and is left out of reads, export, fork and search. Returns
        ``(session id, seq)`` of each retracted entry, in order (the
        advanced session sweeps its branches' sessions too)."""
        return await self._run(lambda: self._sweep(self._sweep_sessions()))

    def _clear(self) -> None:
        try:
            self._store.delete_session(self.session_id)
        except errors.NotFoundError:
            pass

    async def clear_session(self) -> None:
        """Delete the session and its items (the journal keeps that it happened)."""
        await self._run(self._clear)

    def close(self) -> None:
        """Close the store if this session opened it (a shared ``store`` stays open)."""
        if self._worker is not None:
            self._worker.shutdown(wait=True)  # calls still queued land first
            self._worker = None
        if self._owns:
            self._store.close()


__all__ = ["SessionDBSession", "item_text", "item_role", "ITEM_KEY"]

from .agents_advanced import AdvancedSessionDBSession  # noqa: E402  (it builds on SessionDBSession)

__all__.append("AdvancedSessionDBSession")
