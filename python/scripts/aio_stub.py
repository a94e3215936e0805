#!/usr/bin/env python3
"""Write ``sessiondb/aio.pyi`` (the typed asyncio front) from ``sessiondb/_native.pyi``.

Every method of the synchronous ``SessionStore`` stub becomes a method of
``AsyncSessionStore`` with the same parameters and return type (issue 27
item 4), so ``mypy --strict`` catches the same mistakes in async code as in
sync code:

* a method that does disk or crypto work: ``async def`` (``aio.py`` runs it
  in a worker thread);
* a property (``path``, ``instance_id``, ``key_backend``, ``closed``) and
  ``open_recovery_report`` (answered from memory): as in the sync stub;
* ``open`` takes ``SessionStore(...)``'s parameters; ``get_transcript``,
  ``get_transcript_with_meta``, ``iter_transcript``, ``close`` and the async
  context manager are written by hand below (``aio.py`` defines them itself).

The runtime (``aio.py``) installs the same set of methods from the native
class, so ``mypy.stubtest`` checks this stub against it like the sync one.

Usage: python python/scripts/aio_stub.py [--check]   (no install needed:
it reads the two stub files of the source tree). ``--check`` (run by
python/tests/test_typecheck.py) fails when aio.pyi is not what this writes.
"""

import ast
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "python" / "sessiondb"
NATIVE = PKG / "_native.pyi"
AIO = PKG / "aio.pyi"

#: Methods of the sync stub that aio.pyi writes by hand (or leaves out).
HAND_WRITTEN = {"__new__", "__enter__", "__exit__", "open_default", "close", "get_transcript", "get_transcript_with_meta", "iter_transcript"}
#: Methods answered from memory: plain (sync) methods in aio too. Keep in
#: step with ``_IMMEDIATE`` in aio.py.
IMMEDIATE = {"open_recovery_report"}

HEADER = '''"""Type stubs of :mod:`sessiondb.aio`, written by python/scripts/aio_stub.py
from ``_native.pyi`` (do not edit: run the script)."""

import os
from types import TracebackType
from typing import Any, AsyncIterator, Dict, List, Optional, Sequence, Tuple, Type, Union, Literal

from sessiondb.inputs import CompactionOptionsDict, ContextItemDict, PortableSessionDict
from sessiondb.types import Band, ContentFormat, ExportFormat, ImportStatus, Outcome, Role, SourceFormat

from ._native import {names}

class AsyncSessionStore:
    """An asyncio handle over one :class:`SessionStore` (shared, thread-safe).

    Every store method is a coroutine with the same arguments and result
    (``await store.get_transcript(sid)``); properties that need no I/O
    (``path``, ``instance_id``, ``key_backend``, ``closed``) are plain
    attributes.
    """

    def __init__(self, store: SessionStore) -> None: ...
    @classmethod
    async def open(cls, {open_params}) -> "AsyncSessionStore":
        """Open a store off the event loop (same arguments as :class:`SessionStore`)."""
    @property
    def sync(self) -> SessionStore:
        """The synchronous store underneath."""
    async def get_transcript(self, session_id: str, from_seq: int = 1, limit: int = 1000) -> List[TranscriptEntry]:
        """:meth:`SessionStore.get_transcript`, read in chunks so the loop keeps running."""
    async def get_transcript_with_meta(self, session_id: str, from_seq: int = 1, limit: int = 1000) -> List[Tuple[TranscriptEntry, EntryMeta]]:
        """:meth:`SessionStore.get_transcript_with_meta`, read in chunks."""
    def iter_transcript(self, session_id: str, from_seq: int = 1, page_size: int = 1000) -> AsyncIterator[TranscriptEntry]:
        """Every entry from ``from_seq``, one page (``page_size`` entries) per worker call."""
    async def close(self) -> None:
        """Close the handle (checkpoints the WAL) off the event loop."""
    async def __aenter__(self) -> "AsyncSessionStore": ...
    async def __aexit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]) -> None: ...
'''


def render() -> str:
    tree = ast.parse(NATIVE.read_text(encoding="utf-8"))
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    store = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SessionStore")
    used = {"SessionStore", "TranscriptEntry", "EntryMeta"}
    body = []
    open_params = None
    for node in store.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for n in ast.walk(node.args):
            if isinstance(n, ast.Name) and n.id in classes:
                used.add(n.id)
        if node.returns is not None:
            for n in ast.walk(node.returns):
                if isinstance(n, ast.Name) and n.id in classes:
                    used.add(n.id)
        params = ast.unparse(node.args)
        if node.name == "__new__":
            open_params = params.split(", ", 1)[1]
            continue
        if node.name in HAND_WRITTEN:
            continue
        ret = ast.unparse(node.returns) if node.returns is not None else "None"
        is_property = any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list)
        if is_property:
            body.append(f"    @property\n    def {node.name}({params}) -> {ret}: ...")
        elif node.name in IMMEDIATE:
            body.append(f"    def {node.name}({params}) -> {ret}: ...")
        else:
            body.append(f"    async def {node.name}({params}) -> {ret}: ...")
    assert open_params is not None, "SessionStore.__new__ not found in _native.pyi"
    head = HEADER.format(names=", ".join(sorted(used)), open_params=open_params)
    return head + "\n".join(body) + "\n\n__all__ = [\"AsyncSessionStore\"]\n"


def main(argv):
    text = render()
    if "--check" in argv:
        if AIO.read_text(encoding="utf-8") != text:
            print(f"{AIO} is not what python/scripts/aio_stub.py writes from {NATIVE.name}: run it", file=sys.stderr)
            return 1
        return 0
    AIO.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
