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


def _run(requests, input_tokens, output_tokens, cached, reasoning):
    """A run result as `store_run_usage` reads it: `context_wrapper.usage`."""
    import types

    from agents.usage import Usage
    from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

    usage = Usage(
        requests=requests,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
        input_tokens_details=InputTokensDetails.model_validate({"cache_write_tokens": 0, "cached_tokens": cached}),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=reasoning),
    )
    return types.SimpleNamespace(context_wrapper=types.SimpleNamespace(usage=usage))


TURN_1 = [{"role": "user", "content": "What is in src/?"}, ITEMS[2], ITEMS[3], ITEMS[4], ITEMS[6]]
TURN_2 = [{"role": "user", "content": "And in tests/?"}, {"role": "assistant", "content": "Nothing."}]
RETRY_2 = [{"role": "user", "content": "Look in tests/ again"}, ITEMS[9], {"role": "assistant", "content": "Still nothing.", "type": "message"}]
RETRY_3 = [{"role": "user", "content": "Then docs/?"}, {"role": "assistant", "content": "README.md"}]
ZETA_3 = [{"role": "user", "content": "Then examples/?"}, ITEMS[10], {"type": "function_call_output", "call_id": "c3", "output": "none"}]


async def _views(session):
    """What an app reads of an advanced session: items, usage and branches,
    of every branch, and the tools used."""
    branches = await session.list_branches()
    out = {
        "items": await session.get_items(),
        "session_usage": await session.get_session_usage(),
        "turn_usage": await session.get_turn_usage(),
        "turn_usage_2": await session.get_turn_usage(2),
        "branches": branches,
    }
    for b in branches:
        name = b["branch_id"]
        out[name] = {
            "items": await session.get_items(branch_id=name),
            "usage": await session.get_session_usage(name),
            "turn_usage": await session.get_turn_usage(branch_id=name),
            "tools": await session.get_tool_usage(branch_id=name),
            "by_turns": await session.get_conversation_by_turns(branch_id=name),
            "turns": await session.get_conversation_turns(branch_id=name),
        }
    return out


def test_advanced_sdk_database_imports_with_branches_and_usage(tmp_path):
    """A database written by the SDK's own `AdvancedSQLiteSession` (two
    turns with usage, a branch from turn 2 with its own items and usage, a
    branch of that branch from its turn 3):
    after `import_file`, `AdvancedSessionDBSession` reads the same items,
    usage and branches as the SDK's session over the original database."""
    from agents.extensions.memory import AdvancedSQLiteSession

    from sessiondb.agents import AdvancedSessionDBSession

    src = tmp_path / "advanced.db"

    async def write():
        s = AdvancedSQLiteSession(session_id="chat", db_path=str(src), create_tables=True)
        await s.add_items(TURN_1)
        await s.store_run_usage(_run(1, 120, 30, 100, 5))
        await s.add_items(TURN_2)
        await s.store_run_usage(_run(2, 200, 12, 0, 0))
        assert await s.create_branch_from_turn(2, "retry") == "retry"
        await s.add_items(RETRY_2)
        await s.store_run_usage(_run(1, 90, 20, 64, 3))
        await s.add_items(RETRY_3)
        await s.store_run_usage(_run(1, 50, 5, 0, 0))
        # A branch of the branch, from its turn 3.
        assert await s.create_branch_from_turn(3, "zeta") == "zeta"
        await s.add_items(ZETA_3)
        await s.store_run_usage(_run(3, 70, 9, 10, 0))
        s.close()

    async def sdk_views():
        s = AdvancedSQLiteSession(session_id="chat", db_path=str(src))
        try:
            return await _views(s)
        finally:
            s.close()

    asyncio.run(write())
    sdk = asyncio.run(sdk_views())
    # The SDK's own view, as scripted: main and the branch, three turns of usage.
    assert [b["branch_id"] for b in sdk["branches"]] == ["main", "retry", "zeta"]
    assert sdk["items"] == TURN_1 + TURN_2
    assert sdk["retry"]["items"] == TURN_1 + RETRY_2 + RETRY_3
    assert sdk["zeta"]["items"] == TURN_1 + RETRY_2 + ZETA_3
    assert sdk["session_usage"] == {"requests": 8, "input_tokens": 530, "output_tokens": 76, "total_tokens": 606, "total_turns": 5}
    before = src.read_bytes()

    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as store:
        rep = store.import_file(str(src))
        assert (rep.status, rep.format) == ("imported", "agents-sdk")
        assert src.read_bytes() == before
        fork, zeta = rep.sessions[1].session_id, rep.sessions[2].session_id
        assert [(s.session_id, s.created, s.entries, s.usage_records, s.input_tokens, s.output_tokens, s.cached_tokens, s.context_extensions) for s in rep.sessions] == [
            ("chat", True, 7, 2, 320, 42, 100, 7),
            (fork, True, 10, 2, 140, 25, 64, 0),
            (zeta, True, 11, 1, 70, 9, 10, 0),
        ]
        assert rep.read.not_imported == {}

        async def ours():
            return await _views(AdvancedSessionDBSession("chat", store=store))

        assert asyncio.run(ours()) == sdk
        # The branch is a fork the CLI and export see, titled as the adapter titles it.
        rec = store.get_session(fork)
        assert (rec.name, rec.forked_from, rec.forked_at_seq) == ("chat branch retry", "chat", 5)
        rec = store.get_session(zeta)
        assert (rec.name, rec.forked_from, rec.forked_at_seq) == ("chat branch zeta", fork, 8)
        adapter = AdvancedSessionDBSession("chat", store=store)
        assert (adapter.branch_session_id("retry"), adapter.branch_session_id("zeta")) == (fork, zeta)
        # The token ledger of each branch's session sums its turns.
        assert (store.token_totals("chat").input, store.token_totals("chat").output, store.token_totals("chat").cached) == (320, 42, 100)
        assert (store.token_totals(fork).input, store.token_totals(fork).output, store.token_totals(fork).cached) == (140, 25, 64)
        assert (store.token_totals(zeta).input, store.token_totals(zeta).output, store.token_totals(zeta).cached) == (70, 9, 10)

        # Importing again adds nothing.
        kept = [(x.kind, x.body) for x in store.list_context_extensions("chat")]
        again = store.import_file(str(src))
        assert again.status == "up_to_date"
        assert [(s.session_id, s.created, s.entries, s.skipped_already_stored, s.usage_records, s.context_extensions) for s in again.sessions] == [
            ("chat", False, 0, 7, 0, 0),
            (fork, False, 0, 10, 0, 0),
            (zeta, False, 0, 11, 0, 0),
        ]
        assert [(x.kind, x.body) for x in store.list_context_extensions("chat")] == kept
        assert len(store.list_sessions()) == 3
        assert asyncio.run(ours()) == sdk

        # A damaged usage row is left out under its reason; nothing stored changes.
        with sqlite3.connect(src) as c:
            c.execute(
                "INSERT INTO turn_usage (session_id, branch_id, user_turn_number, requests, input_tokens, output_tokens, total_tokens) "
                "VALUES ('chat', 'retry', 1, 1, 'lots', 2, 3)"
            )
        c.close()
        damaged = store.import_file(str(src))
        assert damaged.status == "up_to_date"
        assert damaged.read.not_imported == {"already stored: turn": 28, "already stored: turn_usage": 5, "turn_usage: bad count": 1}
        assert [(x.kind, x.body) for x in store.list_context_extensions("chat")] == kept
        assert asyncio.run(ours()) == sdk
