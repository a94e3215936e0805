"""The Agents SDK's ``AdvancedSQLiteSession`` on sessiondb: branches, usage
per run, turn and tool, and content lookup (issue 29 item 1).

:class:`AdvancedSessionDBSession` has the methods, return shapes and errors
of ``agents.extensions.memory.AdvancedSQLiteSession`` (openai-agents
0.22-0.24, ``docs/sessions/advanced_sqlite_session.md``), on the store's own
records:

* The ``main`` branch is the sessiondb session ``session_id`` itself. Any
  other branch is a sessiondb session made by
  ``SessionStore.fork_session(source, at_seq)`` (``forked_from`` /
  ``forked_at_seq`` recorded, titled ``"<session_id> branch <name>"``), so
  export, search and the CLI see it as a session of its own.
* The branch map lives in the root session's context extensions (kind
  ``agents.branch``: name, session id, parent branch, turn; kind
  ``agents.branch_deleted``), so another instance or process on the same
  database sees the branches. The current branch is per instance, starting at
  ``main``, as in the SDK.
* Turns are counted from the branch's items: turn ``n`` starts at its
  ``n``-th user message (items before the first are turn 0), the SDK's
  ``user_turn_number`` (equal to its ``branch_turn_number``).
* ``store_run_usage(result)`` records the run's usage twice: one record per
  turn (root extension ``agents.turn_usage``, with the seq of the turn's
  first entry as its anchor, so a turn emptied by ``pop_item`` drops its
  usage, as the SDK's) and the token ledger of the branch's session
  (``record_tokens``: input, output and cached tokens), so
  ``store.token_totals(branch session)`` sums what ``get_session_usage``
  reports for it.
* ``find_turns_by_content`` asks the store's encrypted search index
  (``session:<id> role:user word*...``) and keeps the hits that hold the
  search term, as the SDK's ``LIKE`` (ASCII case-insensitive substring).
  It differs from the SDK for a match that starts inside a word (``ats``
  in ``cats``): the index matches words and word prefixes. A term without a
  word of two ASCII letters or digits is matched by reading the turns.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
import time
from typing import Any, Dict, List, Optional, Set, Tuple, Union

from . import errors
from ._native import SearchOptions, SessionStore, TranscriptEntry
from .agents import SessionDBSession

_logger = logging.getLogger(__name__)

#: Context extension kinds on the root session.
BRANCH_KIND = "agents.branch"
BRANCH_DELETED_KIND = "agents.branch_deleted"
BRANCH_RESERVED_KIND = "agents.branch_reserved"
USAGE_KIND = "agents.turn_usage"

#: Item types counted by ``get_tool_usage`` (the SDK's list).
_TOOL_TYPES = {
    "tool_call", "function_call", "computer_call", "file_search_call", "web_search_call",
    "code_interpreter_call", "tool_search_call", "custom_tool_call", "mcp_call",
    "mcp_approval_request", "shell_call", "apply_patch_call",
}


def _content_preview(content: Any, max_length: Optional[int] = None) -> str:
    """A user message's content as text (a list of parts as JSON), cut at
    ``max_length`` characters with ``...`` (the SDK's ``_content_preview``)."""
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if max_length is not None and len(text) > max_length:
        return text[:max_length] + "..."
    return text


def message_type(item: Dict[str, Any]) -> str:
    """The SDK's message type of an item: ``user``, ``assistant``, its ``type``, else ``other``."""
    if isinstance(item, dict):
        if item.get("role") == "user":
            return "user"
        if item.get("role") == "assistant":
            return "assistant"
        if item.get("type"):
            return str(item.get("type"))
    return "other"


def tool_name(item: Dict[str, Any]) -> Optional[str]:
    """The SDK's tool name of an item (``AdvancedSQLiteSession._extract_tool_name``):
    ``server_label.name`` for MCP, the type for built-in tools, ``tool_search``,
    ``namespace.name`` (a namespace equal to the name collapses), else none."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind in {"mcp_call", "mcp_approval_request"} and "server_label" in item:
        label, name = item.get("server_label"), item.get("name")
        if name and label:
            return f"{label}.{name}"
        if label:
            return str(label)
        return str(name) if name else None
    if kind in {"computer_call", "file_search_call", "web_search_call", "code_interpreter_call",
                "shell_call", "apply_patch_call", "tool_search_call", "tool_search_output"}:
        return "tool_search" if kind in {"tool_search_call", "tool_search_output"} else str(kind)
    if "name" in item:
        name = item.get("name")
        if name is None:
            return None
        name_s = str(name)
        ns = item.get("namespace")
        ns_s = str(ns) if ns is not None else None
        if name_s and ns_s and ns_s == name_s:
            return name_s
        if name_s and ns_s:
            return f"{ns_s}.{name_s}"
        return name_s or None
    return None


def _timestamp(ms: int) -> str:
    """``YYYY-MM-DD HH:MM:SS`` (UTC), SQLite's ``CURRENT_TIMESTAMP`` form the SDK returns."""
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


class _Row:
    """One item of a branch with its turn."""

    __slots__ = ("seq", "created_at_ms", "item", "turn", "type", "tool_name")

    def __init__(self, entry: TranscriptEntry, item: Dict[str, Any], turn: int) -> None:
        self.seq = entry.seq
        self.created_at_ms = entry.created_at_ms
        self.item = item
        self.turn = turn
        self.type = message_type(item)
        self.tool_name = tool_name(item)


class _Branches:
    """The branch map read from the root session's context extensions."""

    def __init__(self) -> None:
        self.live: Dict[str, Dict[str, Any]] = {}  # name -> record, creation order
        self.used: Set[str] = {"main"}


class AdvancedSessionDBSession(SessionDBSession):
    """``AdvancedSQLiteSession``'s API on sessiondb (see the module doc).

    Arguments are :class:`SessionDBSession`'s (``session_id`` may also be
    given by keyword, as the SDK's ``AdvancedSQLiteSession(session_id=...)``),
    ``ttl`` and ``clock`` included. ``window`` (active context) is not
    offered here: a branch's history is read whole."""

    def __init__(
        self,
        session_id: str,
        path: Optional[str] = None,
        key: Union[bytes, str, None] = None,
        *,
        store: Optional[SessionStore] = None,
        session_settings: Any = None,
        ttl: Optional[float] = None,
        clock: Any = None,
        logger: Optional[logging.Logger] = None,
    ) -> None:
        super().__init__(session_id, path, key, store=store, session_settings=session_settings, ttl=ttl, clock=clock)
        self._branch = "main"
        self._logger = logger if logger is not None else _logger

    @property
    def _current_branch_id(self) -> str:
        """The current branch (the SDK's attribute of that name)."""
        return self._branch

    # -- the branch map -------------------------------------------------

    def _extensions(self) -> List[Tuple[str, Dict[str, Any]]]:
        try:
            exts = self._store.list_context_extensions(self.session_id)
        except errors.NotFoundError:
            return []
        return [(x.kind, json.loads(x.body)) for x in exts if x.kind.startswith("agents.")]

    def _branches(self) -> _Branches:
        b = _Branches()
        for kind, body in self._extensions():
            if kind == BRANCH_KIND:
                b.live[body["branch_id"]] = body
                b.used.add(body["branch_id"])
            elif kind == BRANCH_DELETED_KIND:
                b.live.pop(body["branch_id"], None)
            elif kind == BRANCH_RESERVED_KIND:
                b.used.update(body["branch_ids"])
        return b

    def _sid(self, branch_id: str, branches: Optional[_Branches] = None) -> Optional[str]:
        """The sessiondb session of a branch (None: no such branch)."""
        if branch_id == "main":
            return self.session_id
        rec = (branches or self._branches()).live.get(branch_id)
        return rec["session_id"] if rec is not None else None

    def _current(self, branches: Optional[_Branches] = None) -> str:
        """The current branch; one that is gone (deleted or cleared by
        another instance) falls back to ``main``, as the SDK's after a clear."""
        if self._branch != "main" and self._branch not in (branches or self._branches()).live:
            self._branch = "main"
        return self._branch

    def _at(self, branch_id: Optional[str]) -> Optional[str]:
        """The session of ``branch_id`` (None: the current branch)."""
        branches = self._branches()
        return self._sid(branch_id if branch_id is not None else self._current(branches), branches)

    def _turn_rows(self, sid: Optional[str]) -> List[_Row]:
        if sid is None:
            return []
        rows: List[_Row] = []
        turn = 0
        for entry, item in self._rows(sid):
            if isinstance(item, dict) and item.get("role") == "user":
                turn += 1
            rows.append(_Row(entry, item, turn))
        return rows

    def _count(self, sid: Optional[str]) -> int:
        if sid is None:
            return 0
        try:
            return self._store.get_session(sid).entry_count
        except errors.NotFoundError:
            return 0

    def _add(self, items: List[Any], key: str, stamp: Optional[int] = None, sid: Optional[str] = None) -> None:
        super()._add(items, key, stamp, self._at(None))

    def _pop(self, sid: Optional[str] = None) -> Optional[Dict[str, Any]]:
        return super()._pop(self._at(None))

    def _sweep_sessions(self) -> List[str]:
        return [self.session_id] + [r["session_id"] for r in self._branches().live.values()]

    # -- Session protocol -------------------------------------------------

    async def get_items(self, limit: Optional[int] = None, branch_id: Optional[str] = None) -> List[Dict[str, Any]]:
        """The items of ``branch_id`` (default: the current branch), as
        :meth:`SessionDBSession.get_items`; an unknown branch has none."""
        def read() -> List[Dict[str, Any]]:
            sid = self._at(branch_id)
            return [] if sid is None else self._items(limit, sid)

        return await self._run(read)

    async def add_items(self, items: List[Any]) -> None:
        """Append items to the current branch (the branch when called)."""
        await super().add_items(items)

    def _clear_all(self) -> None:
        branches = self._branches()
        for rec in branches.live.values():
            try:
                self._store.delete_session(rec["session_id"])
            except errors.NotFoundError:
                pass
        self._clear()
        used = sorted(branches.used - {"main"})
        if used:
            # Branch names stay used after a clear (the SDK's reservations):
            # the cleared session keeps them and nothing else.
            try:
                self._store.create_session(id=self.session_id)
            except errors.ConflictError:
                pass
            self._store.append_context_extension(self.session_id, BRANCH_RESERVED_KIND, json.dumps({"branch_ids": used}))
        self._branch = "main"

    async def clear_session(self) -> None:
        """Delete the session, its branches' sessions and usage records; the
        current branch becomes ``main``. Branch names used stay used."""
        await self._run(self._clear_all)

    # -- usage ------------------------------------------------------------

    def _store_usage(self, usage: Any) -> None:
        branches = self._branches()
        branch = self._current(branches)
        sid = self._sid(branch, branches)
        rows = self._turn_rows(sid)
        if sid is None or not rows:
            self._logger.debug("Skipping usage store: no current turn on the branch")
            return
        turn = rows[-1].turn
        anchor = next(r.seq for r in rows if r.turn == turn)

        def details(d: Any) -> Optional[Dict[str, Any]]:
            if not d:
                return None
            try:
                out: Dict[str, Any] = json.loads(json.dumps(d.__dict__))
                return out
            except (TypeError, ValueError, AttributeError):
                return None

        ind = details(getattr(usage, "input_tokens_details", None))
        outd = details(getattr(usage, "output_tokens_details", None))
        tokens_in, tokens_out = int(usage.input_tokens or 0), int(usage.output_tokens or 0)
        rec = {
            "branch_id": branch,
            "session_id": sid,
            "turn": turn,
            "anchor_seq": anchor,
            "requests": usage.requests or 0,
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "total_tokens": usage.total_tokens or 0,
            "input_tokens_details": ind,
            "output_tokens_details": outd,
        }
        self._store.append_context_extension(self.session_id, USAGE_KIND, json.dumps(rec))
        cached = (ind or {}).get("cached_tokens") or 0
        self._store.record_tokens(sid, input=tokens_in, output=tokens_out, cached=int(cached))

    async def store_run_usage(self, result: Any) -> None:
        """Record ``result.context_wrapper.usage`` (a ``RunResult``'s) for the
        current turn of the current branch: a later call for the same turn
        replaces it in the per-turn records (the SDK's), and adds to the
        branch session's token ledger. Errors are logged, never raised (the
        SDK's)."""
        try:
            usage = result.context_wrapper.usage
            if usage is None:
                return
            await self._run(self._store_usage, usage)
        except Exception as e:  # the SDK swallows usage errors; no user data is logged
            self._logger.error("Failed to store session usage: %s", type(e).__name__)

    def _usage(self, branch_id: Optional[str]) -> List[Dict[str, Any]]:
        """The valid per-turn usage records of ``branch_id`` (None: every
        branch), the last one per (branch, turn): a record counts while its
        turn still starts at its anchor entry."""
        branches = self._branches()
        exts = self._extensions()
        names = [branch_id] if branch_id is not None else ["main"] + list(branches.live)
        if branch_id == "":
            names = [self._current(branches)]
        out: List[Dict[str, Any]] = []
        for name in names:
            sid = self._sid(name, branches)
            if sid is None:
                continue
            starts: Dict[int, int] = {}
            for r in self._turn_rows(sid):
                starts.setdefault(r.turn, r.seq)
            latest: Dict[int, Dict[str, Any]] = {}
            for kind, body in exts:
                if kind == USAGE_KIND and body["session_id"] == sid and starts.get(body["turn"]) == body["anchor_seq"]:
                    latest[body["turn"]] = body
            out.extend(latest[t] for t in sorted(latest))
        return out

    async def get_session_usage(self, branch_id: Optional[str] = None) -> Optional[Dict[str, int]]:
        """Usage summed over the turns of ``branch_id`` (None or empty: every
        branch): ``requests``, ``input_tokens``, ``output_tokens``,
        ``total_tokens``, ``total_turns``; None when there is none."""
        recs = await self._run(self._usage, branch_id or None)
        if not recs:
            return None
        return {
            "requests": sum(r["requests"] for r in recs),
            "input_tokens": sum(r["input_tokens"] for r in recs),
            "output_tokens": sum(r["output_tokens"] for r in recs),
            "total_tokens": sum(r["total_tokens"] for r in recs),
            "total_turns": len(recs),
        }

    async def get_turn_usage(
        self, user_turn_number: Optional[int] = None, branch_id: Optional[str] = None
    ) -> Union[List[Dict[str, Any]], Dict[str, Any]]:
        """One turn's usage (``{}`` when none) or every turn's, in turn order,
        of ``branch_id`` (default: the current branch)."""
        recs = await self._run(self._usage, branch_id if branch_id is not None else "")
        keys = ("requests", "input_tokens", "output_tokens", "total_tokens", "input_tokens_details", "output_tokens_details")
        if user_turn_number is not None:
            for r in recs:
                if r["turn"] == user_turn_number:
                    return {k: r[k] for k in keys}
            return {}
        return [{"user_turn_number": r["turn"], **{k: r[k] for k in keys}} for r in recs]

    async def get_tool_usage(self, branch_id: Optional[str] = None) -> List[Tuple[str, int, int]]:
        """``(tool_name, uses, turn)`` per tool and turn of ``branch_id``
        (default: the current branch), in turn order (the SDK's query: tool
        calls, and a ``tool_search_output`` without a ``tool_search_call`` in
        its turn)."""
        def read() -> List[Tuple[str, int, int]]:
            rows = self._turn_rows(self._at(branch_id))
            calls = {(r.turn, r.tool_name) for r in rows if r.type == "tool_search_call"}
            counts: Dict[Tuple[int, Any], int] = {}
            for r in rows:
                if r.type in _TOOL_TYPES:
                    name = r.tool_name if r.tool_name is not None else (r.type if r.type in ("shell_call", "apply_patch_call") else None)
                elif r.type == "tool_search_output" and (r.turn, r.tool_name) not in calls:
                    name = r.tool_name
                else:
                    continue
                counts[(r.turn, name)] = counts.get((r.turn, name), 0) + 1
            order = sorted(counts, key=lambda k: (k[0], k[1] is not None, k[1] or ""))
            return [(name, counts[(turn, name)], turn) for turn, name in order]

        return await self._run(read)

    # -- turns and content ------------------------------------------------

    @staticmethod
    def _turn_dict(r: _Row, max_length: Optional[int]) -> Dict[str, Any]:
        content = r.item.get("content", "")
        return {
            "turn": r.turn,
            "content": _content_preview(content, max_length),
            "full_content": content,
            "timestamp": _timestamp(r.created_at_ms),
            "can_branch": True,
        }

    async def get_conversation_turns(self, branch_id: Optional[str] = None) -> List[Dict[str, Any]]:
        """The user turns of ``branch_id`` (default: the current branch):
        ``turn``, ``content`` (cut at 100 characters), ``full_content``,
        ``timestamp`` (``YYYY-MM-DD HH:MM:SS`` UTC), ``can_branch``."""
        def read() -> List[Dict[str, Any]]:
            rows = self._turn_rows(self._at(branch_id))
            return [self._turn_dict(r, 100) for r in rows if r.type == "user"]

        return await self._run(read)

    def _find(self, search_term: str, branch_id: Optional[str]) -> List[Dict[str, Any]]:
        sid = self._at(branch_id)
        rows = [r for r in self._turn_rows(sid) if r.type == "user"]
        pattern = re.compile(re.escape(search_term), re.IGNORECASE | re.ASCII)

        def holds(r: _Row) -> bool:
            content = r.item.get("content", "")
            texts = [content] if isinstance(content, str) else [p.get("text", "") for p in content if isinstance(p, dict)] if isinstance(content, list) else []
            return any(isinstance(t, str) and pattern.search(t) for t in texts)

        words = re.findall(r"\w+", search_term)
        if sid is None or not words or not all(w.isascii() and len(w) >= 2 for w in words):
            return [self._turn_dict(r, None) for r in rows if holds(r)]
        query = f"session:{sid} role:user " + " ".join(w.lower() + "*" for w in words)
        seqs: Set[int] = set()
        cursor: Optional[str] = None
        while True:
            res = self._store.search(query, SearchOptions(limit=1000, cursor=cursor))
            seqs.update(h.seq for h in res.hits if h.session_id == sid)
            cursor = res.next_cursor
            if cursor is None:
                break
        return [self._turn_dict(r, None) for r in rows if r.seq in seqs and holds(r)]

    async def find_turns_by_content(self, search_term: str, branch_id: Optional[str] = None) -> List[Dict[str, Any]]:
        """The user turns of ``branch_id`` (default: the current branch) whose
        text holds ``search_term`` (ASCII case-insensitive), in turn order,
        shaped as :meth:`get_conversation_turns` (``content`` uncut). Found
        through the store's search index (see the module doc)."""
        return await self._run(self._find, search_term, branch_id)

    async def get_conversation_by_turns(self, branch_id: Optional[str] = None) -> Dict[int, List[Dict[str, Optional[str]]]]:
        """``{turn: [{"type", "tool_name"}, ...]}`` of ``branch_id`` (default:
        the current branch), items in order."""
        def read() -> Dict[int, List[Dict[str, Optional[str]]]]:
            turns: Dict[int, List[Dict[str, Optional[str]]]] = {}
            for r in self._turn_rows(self._at(branch_id)):
                turns.setdefault(r.turn, []).append({"type": r.type, "tool_name": r.tool_name})
            return turns

        return await self._run(read)

    # -- branches ---------------------------------------------------------

    def _create_branch(self, turn_number: int, branch_name: Optional[str]) -> str:
        branches = self._branches()
        source = self._current(branches)
        sid = self._sid(source, branches)
        rows = self._turn_rows(sid)
        at = next((i for i, r in enumerate(rows) if r.type == "user" and r.turn == turn_number), None)
        if sid is None or at is None:
            raise ValueError(f"Turn {turn_number} does not contain a user message in branch '{source}'")
        if branch_name is not None:
            if branch_name in branches.used:
                raise ValueError(f"Branch ID '{branch_name}' has already been used. Choose a new branch ID.")
            name = branch_name
        else:
            base = f"branch_from_turn_{turn_number}_{int(time.time())}"
            name, suffix = base, 1
            while name in branches.used:
                suffix += 1
                name = f"{base}_{suffix}"
        at_seq = rows[at - 1].seq if at > 0 else 0
        fork = self._store.fork_session(sid, at_seq)
        self._store.rename_session(fork.id, f"{self.session_id} branch {name}")
        rec = {"branch_id": name, "session_id": fork.id, "parent": source, "turn": turn_number, "at_seq": at_seq}
        self._store.append_context_extension(self.session_id, BRANCH_KIND, json.dumps(rec))
        self._branch = name
        return name

    async def create_branch_from_turn(self, turn_number: int, branch_name: Optional[str] = None) -> str:
        """Make a branch holding the current branch's items before user turn
        ``turn_number`` (a fork of its session), switch to it and return its
        name (default ``branch_from_turn_<n>_<unix seconds>``, ``_2``... when
        used). ValueError: a blank or already used name, or no user message
        at that turn."""
        if branch_name is not None and not branch_name.strip():
            raise ValueError("Branch name cannot be empty")
        return await self._run(self._create_branch, turn_number, branch_name)

    async def create_branch_from_content(self, search_term: str, branch_name: Optional[str] = None) -> str:
        """:meth:`create_branch_from_turn` at the first user turn holding
        ``search_term``. ValueError when none does."""
        matching = await self.find_turns_by_content(search_term)
        if not matching:
            raise ValueError(f"No user turns found containing '{search_term}'")
        return await self.create_branch_from_turn(matching[0]["turn"], branch_name)

    def _check_exists(self, branch_id: str) -> None:
        if self._count(self._sid(branch_id)) == 0:
            raise ValueError(f"Branch '{branch_id}' does not exist")

    async def switch_to_branch(self, branch_id: str) -> None:
        """Make ``branch_id`` current. ValueError when it has no items (as the SDK's)."""
        await self._run(self._check_exists, branch_id)
        self._branch = branch_id

    def _delete(self, branch_id: str) -> None:
        self._check_exists(branch_id)
        sid = self._sid(branch_id)
        assert sid is not None, "checked above"
        self._store.delete_session(sid)
        self._store.append_context_extension(self.session_id, BRANCH_DELETED_KIND, json.dumps({"branch_id": branch_id}))

    async def delete_branch(self, branch_id: str, force: bool = False) -> None:
        """Delete a branch's session (its journal stays) and usage; its name
        stays used. ValueError: empty, ``main``, unknown, or current without
        ``force`` (with it, ``main`` becomes current first)."""
        if not branch_id or not branch_id.strip():
            raise ValueError("Branch ID cannot be empty")
        if branch_id == "main":
            raise ValueError("Cannot delete the 'main' branch")
        if branch_id == self._branch:
            if not force:
                raise ValueError(f"Cannot delete current branch '{branch_id}'. Use force=True or switch branches first")
            if not any(b["branch_id"] == branch_id for b in await self.list_branches()):
                raise ValueError(f"Branch '{branch_id}' does not exist")
            await self.switch_to_branch("main")
        await self._run(self._delete, branch_id)

    def _list(self) -> List[Dict[str, Any]]:
        branches = self._branches()
        self._current(branches)
        out: List[Dict[str, Any]] = []
        for name in ["main"] + list(branches.live):
            sid = self._sid(name, branches)
            rows = self._turn_rows(sid)
            if not rows or sid is None:
                continue
            out.append({
                "branch_id": name,
                "message_count": len(rows),
                "user_turns": sum(1 for r in rows if r.type == "user"),
                "is_current": name == self._branch,
                "created_at": _timestamp(self._store.get_session(sid).created_at_ms),
            })
        return out

    async def list_branches(self) -> List[Dict[str, Any]]:
        """The branches with items, in creation order: ``branch_id``,
        ``message_count``, ``user_turns``, ``is_current``, ``created_at``."""
        return await self._run(self._list)

    def branch_session_id(self, branch_id: str) -> Optional[str]:
        """The sessiondb session id of a branch (None: no such branch)."""
        return self._sid(branch_id)


__all__ = ["AdvancedSessionDBSession", "message_type", "tool_name"]
