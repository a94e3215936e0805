"""`import_file` of a database written by the Agents SDK's own `SQLiteSession`
(issue 29 item 3): each SDK session comes back through `SessionDBSession`
with the same `get_items()`, and each entry's role and content are what the
adapter's `item_role` / `item_text` give (the Rust port agrees with them)."""

import asyncio
import sqlite3

import pytest

import sessiondb
from sessiondb.agents import SessionDBSession, item_role, item_text

KEY = bytes(range(32))

agents = pytest.importorskip("agents", reason="openai-agents is not installed (scripts/test-python.sh installs it)")
from agents import SQLiteSession  # noqa: E402

ITEMS = [
    {"role": "developer", "content": "Be brief."},
    {"role": "user", "content": "What is in src/? ✓ 日本"},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "List it."}, {"type": "summary_text", "text": "Then answer."}]},
    {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{\"path\": \"src\"}", "id": "fc_1", "status": "completed"},
    {"type": "function_call_output", "call_id": "c1", "output": "lib.rs\nmain.rs"},
    {"type": "computer_call_output", "call_id": "c2", "output": {"type": "computer_screenshot", "image_url": "data:,", "n": 1.5, "e": 1e-7}},
    {"role": "assistant", "content": [{"type": "output_text", "text": "Two files.", "annotations": []}, {"type": "output_text", "text": "Done.", "annotations": []}], "id": "m_1", "type": "message", "status": "completed"},
    {"role": "assistant", "content": [{"type": "refusal", "refusal": "No."}], "type": "message"},
    {"role": "user", "content": [{"type": "input_image", "image_url": "data:,"}]},
    {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "q\t\"x\"", "big": 12345678901234567890123, "f": 1e16}},
    {"type": "function_call", "call_id": "c3", "name": "noargs", "arguments": "", "id": "fc_3"},
]


def test_sdk_database_imports_with_the_same_items(tmp_path):
    src = tmp_path / "conversations.db"

    async def write():
        a = SQLiteSession("user_123", str(src))
        b = SQLiteSession("second", str(src))
        await a.add_items(ITEMS[:6])
        await b.add_items([{"role": "user", "content": "hi"}])
        await a.add_items(ITEMS[6:])
        items = (await a.get_items(), await b.get_items())
        a.close()
        b.close()
        return items

    sdk_a, sdk_b = asyncio.run(write())
    assert len(sdk_a) == len(ITEMS)
    with sqlite3.connect(src) as c:
        raw = {sid: [d for (d,) in c.execute("SELECT message_data FROM agent_messages WHERE session_id = ? ORDER BY id", (sid,))] for sid in ("user_123", "second")}
    before = src.read_bytes()

    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as store:
        rep = store.import_file(str(src))
        assert rep.status == "imported"
        assert rep.format == "agents-sdk"
        assert [(s.session_id, s.created, s.entries, s.tool_calls, s.tool_results, s.skipped_already_stored) for s in rep.sessions] == [
            ("second", True, 1, 0, 0, 0),
            ("user_123", True, len(ITEMS), 3, 2, 0),
        ]
        assert (rep.read.lines, rep.read.skipped) == (len(ITEMS) + 1, [])
        assert src.read_bytes() == before

        async def read(sid):
            return await SessionDBSession(sid, store=store).get_items()

        assert asyncio.run(read("user_123")) == sdk_a
        assert asyncio.run(read("second")) == sdk_b

        # Each entry: the item byte-exact, and the adapter's role and text.
        rows = store.get_transcript_with_meta("user_123")
        assert [m.item for _, m in rows] == raw["user_123"]
        assert [(e.role, e.content) for e, _ in rows] == [(item_role(i), item_text(i)) for i in sdk_a]

        again = store.import_file(str(src))
        assert again.status == "up_to_date"
        assert [(s.session_id, s.created, s.entries, s.skipped_already_stored) for s in again.sessions] == [
            ("second", False, 0, 1),
            ("user_123", False, 0, len(ITEMS)),
        ]
        assert asyncio.run(read("user_123")) == sdk_a


def test_corrupt_message_data_is_skipped_with_its_reason(tmp_path):
    src = tmp_path / "conversations.db"

    async def write():
        s = SQLiteSession("s1", str(src))
        await s.add_items([{"role": "user", "content": "one"}])
        s.close()

    asyncio.run(write())
    with sqlite3.connect(src) as c:
        c.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s1', '{torn')")
        c.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s1', '{\"role\": \"assistant\", \"content\": \"two\"}')")

    async def sdk_items():
        s = SQLiteSession("s1", str(src))
        items = await s.get_items()
        s.close()
        return items

    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as store:
        rep = store.import_file(str(src))
        assert [(s.session_id, s.entries) for s in rep.sessions] == [("s1", 2)]
        assert [(k.line, k.reason) for k in rep.read.skipped] == [(2, "invalid_json")]
        got = asyncio.run(SessionDBSession("s1", store=store).get_items())
        assert got == asyncio.run(sdk_items()) == [{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"}]


def test_sqlite_file_without_sdk_tables_is_unrecognized(tmp_path):
    src = tmp_path / "notes.db"
    with sqlite3.connect(src) as c:
        c.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY)")
    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as store:
        un = store.import_file(str(src))
        assert (un.format, un.status, un.sessions, un.read) == (None, "unrecognized", [], None)
