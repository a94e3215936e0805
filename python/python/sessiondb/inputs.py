"""Shapes of the dict inputs (``TypedDict``), for type checkers.

``compact_context`` / ``apply_compaction`` take items as
:class:`sessiondb.ContextItem` objects or as :class:`ContextItemDict`
dicts, and options as a :class:`CompactionOptionsDict`;
``write_thclaws_json`` takes a :class:`PortableSessionDict`. At run time
these are plain dicts.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, TypedDict

from .types import Role

# Python 3.9 has no NotRequired: required keys live in a base class, the
# optional ones in a `total=False` subclass.


class _ContextItemRequired(TypedDict):
    seq: int
    role: Role
    kind: str
    tokens: int


class ContextItemDict(_ContextItemRequired, total=False):
    """One item of the active context: ``kind`` message|tool_call|tool_result|system."""

    pinned: bool
    text: str
    call_ids: List[str]
    compacted: bool


class CompactionOptionsDict(TypedDict, total=False):
    """Planner options: user turns kept verbatim (default 2), model whose tokenizer counts summaries."""

    recent_user_turns: int
    model: Optional[str]


class _PortableTurnRequired(TypedDict):
    role: Role
    blocks: List[Dict[str, Any]]


class PortableTurnDict(_PortableTurnRequired, total=False):
    """One turn to write: ``role`` user|assistant|system|tool, ``blocks`` thClaws block objects."""

    timestamp_ms: Optional[int]
    model: Optional[str]
    provider: Optional[str]


class _PortableSessionRequired(TypedDict):
    id: str
    turns: List[PortableTurnDict]


class PortableSessionDict(_PortableSessionRequired, total=False):
    """A session to write as thClaws JSONL (``write_thclaws_json``)."""

    title: Optional[str]
    model: Optional[str]
    provider: Optional[str]
    cwd: Optional[str]
    created_at_ms: Optional[int]


__all__ = [
    "CompactionOptionsDict",
    "ContextItemDict",
    "PortableSessionDict",
    "PortableTurnDict",
]
