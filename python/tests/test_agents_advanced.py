"""The Agents SDK's own `AdvancedSQLiteSession` test cases (openai-agents
`tests/extensions/memory/test_advanced_sqlite_session.py`), ported case for
case and run against the SDK's `AdvancedSQLiteSession` and sessiondb's
`AdvancedSessionDBSession` with the same assertions (the `make` fixture is
parametrized over both), then the sessiondb-only promises: branches are forked
sessions another instance sees, usage lands in the token ledger, TTL
(side by side with the SDK's `EncryptedSession`).

Ported with the SDK's names; where a case asserts on SQLite rows (the
messages or structure tables), the same promise is asserted on each backend's
own records (`backend_check`).

Not ported, because they test SQLite table internals, connection and
transaction handling or cross-process locking of the SDK's implementation,
which have no counterpart here:
test_create_branch_logging_respects_model_data_policy (the SDK's logger),
test_advanced_session_respects_custom_table_names,
test_add_items_rolls_back_messages_when_structure_metadata_fails,
test_add_items_can_retry_after_structure_metadata_failure,
test_add_items_failure_preserves_existing_history,
test_advanced_sqlite_session_closed_rejects_empty_add_items,
test_add_items_rolls_back_partial_structure_metadata_write,
test_add_items_rollback_failure_invalidates_connection,
test_structure_initialization_failure_invalidates_connection,
test_post_commit_cancellation_propagates_after_known_mutation_outcome,
test_auxiliary_mutation_cancellation_waits_for_commit,
test_failed_branch_reservation_rolls_back_and_allows_retry,
test_branch_reservations_migrate_existing_populated_branches,
test_legacy_branch_ids_are_backfilled_before_destructive_operations,
test_legacy_destructive_noops_leave_database_unlocked,
test_branch_allocation_is_serialized_across_processes,
test_orphan_cleanup_uses_set_based_delete_for_many_messages,
test_failed_usage_write_rolls_back_cached_connection,
test_usage_tracking_failure_identity_follows_model_data_policy (the SDK's log records),
test_get_items_limit_skips_corrupt_newest_rows (inserts a corrupt SQLite row),
test_session_settings_resolve (SessionSettings alone, no session),
test_pop_item_uses_branch_snapshot_when_branch_switches_concurrently,
test_pop_item_claim_is_unique_across_processes,
test_stale_switch_after_clear_does_not_repoint_to_deleted_branch,
test_stale_create_branch_after_clear_does_not_repoint,
test_clear_before_branch_transaction_prevents_stale_reservation,
test_default_read_does_not_initialize_clear_generation_table,
test_switch_validation_cancellation_waits_for_generation_commit,
test_post_clear_switch_synchronizes_generation_before_next_write,
test_pop_item_rolls_back_on_failure_after_earlier_delete,
test_clear_session_rolls_back_on_failure_after_earlier_delete,
test_structure_tables_reject_a_second_base_table_pair,
test_structure_tables_reject_changed_sessions_with_shared_messages,
test_structure_tables_reject_changed_messages_with_shared_sessions,
test_structure_tables_accept_equivalent_identifier_casing,
test_structure_tables_accept_quoted_custom_session_table,
test_identifier_resolution_leaves_connection_authorized,
test_structure_tables_reject_distinct_non_ascii_identifiers,
test_no_create_session_rejects_a_database_without_an_owner,
test_no_create_session_rejects_owner_metadata_without_base_tables,
test_structure_tables_reject_an_ownerless_layout,
test_structure_tables_reject_malformed_owner_layouts,
test_structure_tables_accept_equivalent_child_column_casing (SQLite table ownership),
test_concurrent_structure_table_claims_leave_one_coherent_owner.
The three stale-usage cases that park the SDK's worker with its
`_gate_worker` patch are ported without the gate (the calls issued in the
same order, without awaiting in between).
"""

import asyncio
import functools
import json
import time
from typing import Any, Dict, List

import pytest

import sessiondb
from sessiondb.agents import AdvancedSessionDBSession, SessionDBSession

agents = pytest.importorskip("agents", reason="openai-agents is not installed (scripts/test-python.sh installs it)")
from agents import Agent, RunConfig, Runner, function_tool  # noqa: E402
from agents.extensions.memory import AdvancedSQLiteSession  # noqa: E402
from agents.memory import SessionSettings  # noqa: E402
from agents.result import RunResult  # noqa: E402
from agents.run_context import RunContextWrapper  # noqa: E402
from agents.testing import ScriptedModel  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import ResponseOutputMessage, ResponseOutputText  # noqa: E402
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails  # noqa: E402

KEY = bytes(range(32))


def aio(fn):
    """Run an async test case to completion (no pytest-asyncio needed)."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        return asyncio.run(fn(*args, **kwargs))

    return run


def get_text_message(content: str) -> ResponseOutputMessage:
    """The SDK tests' `tests.test_responses.get_text_message`."""
    return ResponseOutputMessage(
        id="1",
        type="message",
        role="assistant",
        content=[ResponseOutputText(text=content, type="output_text", annotations=[], logprobs=[])],
        status="completed",
    )


@function_tool
async def test_tool(query: str) -> str:
    """A test tool for testing tool call tracking."""
    return f"Tool result for: {query}"


test_tool.__test__ = False  # type: ignore[attr-defined]  # a tool, not a test


@pytest.fixture
def agent() -> Agent:
    return Agent(name="test", model=ScriptedModel(), tools=[test_tool])


@pytest.fixture
def usage_data() -> Usage:
    return Usage(
        requests=1,
        input_tokens=50,
        output_tokens=30,
        total_tokens=80,
        input_tokens_details=InputTokensDetails.model_validate({"cache_write_tokens": 0, "cached_tokens": 10}),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=5),
    )


def create_mock_run_result(usage: Any = None, agent: Any = None) -> RunResult:
    if agent is None:
        agent = Agent(name="test", model=ScriptedModel())
    if usage is None:
        usage = Usage(
            requests=1,
            input_tokens=50,
            output_tokens=30,
            total_tokens=80,
            input_tokens_details=InputTokensDetails.model_validate({"cache_write_tokens": 0, "cached_tokens": 10}),
            output_tokens_details=OutputTokensDetails(reasoning_tokens=5),
        )
    return RunResult(
        input="test input",
        new_items=[],
        raw_responses=[],
        final_output="test output",
        input_guardrail_results=[],
        output_guardrail_results=[],
        tool_input_guardrail_results=[],
        tool_output_guardrail_results=[],
        context_wrapper=RunContextWrapper(context=None, usage=usage),
        _last_agent=agent,
        interruptions=[],
    )


class Maker:
    """Makes sessions of one backend: `sdk` (AdvancedSQLiteSession, in memory
    unless `db` names a file) or `sessiondb` (AdvancedSessionDBSession on one
    shared store, or its own handle on the file `db`)."""

    def __init__(self, kind: str, tmp_path) -> None:
        self.kind = kind
        self.tmp = tmp_path
        self.sessions: List[Any] = []
        self.shared = None

    def __call__(self, session_id: str, db: Any = None, **kw: Any) -> Any:
        if self.kind == "sdk":
            path = str(self.tmp / db) if db else ":memory:"
            s = AdvancedSQLiteSession(session_id=session_id, db_path=path, create_tables=True, **kw)
        elif db:
            s = AdvancedSessionDBSession(session_id, path=str(self.tmp / db), key=KEY, **kw)
        else:
            if self.shared is None:
                self.shared = sessiondb.SessionStore(str(self.tmp / "shared.db"), key=KEY)
            s = AdvancedSessionDBSession(session_id, store=self.shared, **kw)
        self.sessions.append(s)
        return s

    def close(self) -> None:
        for s in self.sessions:
            s.close()
        if self.shared is not None:
            self.shared.close()


@pytest.fixture(params=["sdk", "sessiondb"])
def make(request, tmp_path):
    m = Maker(request.param, tmp_path)
    yield m
    m.close()


def sdk_message_contents(session: Any) -> List[str]:
    """The SDK backend's stored message rows' contents, in id order."""
    with session._locked_connection() as conn:
        rows = conn.execute(f"SELECT message_data FROM {session.messages_table} WHERE session_id = ? ORDER BY id", (session.session_id,)).fetchall()
    return [json.loads(d)["content"] for (d,) in rows]


def sessions_of(session: AdvancedSessionDBSession) -> Dict[str, List[str]]:
    """sessiondb backend: every stored session's entry contents, by title
    (the root by its id), for the sessions of `session`."""
    st = session.store
    out = {}
    for s in st.list_sessions():
        if s.id == session.session_id or (s.name or "").startswith(session.session_id + " branch "):
            out[s.name or s.id] = [e.content for e in st.get_transcript(s.id)]
    return out


# ---------------------------------------------------------------------------
# The SDK's cases


@aio
async def test_advanced_session_basic_functionality(make):
    session = make("advanced_test")
    await session.add_items([{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi there!"}])
    retrieved = await session.get_items()
    assert len(retrieved) == 2
    assert retrieved[0].get("content") == "Hello"
    assert retrieved[1].get("content") == "Hi there!"


@aio
async def test_message_structure_tracking(make):
    session = make("structure_test")
    items = [
        {"role": "user", "content": "What's 2+2?"},
        {"type": "function_call", "name": "calculator", "arguments": '{"expression": "2+2"}'},
        {"type": "function_call_output", "output": "4"},
        {"role": "assistant", "content": "The answer is 4"},
        {"type": "reasoning", "summary": [{"text": "Simple math", "type": "summary_text"}]},
    ]
    await session.add_items(items)
    conversation_turns = await session.get_conversation_by_turns()
    assert len(conversation_turns) == 1
    turn_1_items = conversation_turns[1]
    assert len(turn_1_items) == 5
    # Exact, beyond the SDK's `in` checks: the same on both backends.
    assert turn_1_items == [
        {"type": "user", "tool_name": None},
        {"type": "function_call", "tool_name": "calculator"},
        {"type": "function_call_output", "tool_name": None},
        {"type": "assistant", "tool_name": None},
        {"type": "reasoning", "tool_name": None},
    ]


@aio
async def test_tool_usage_tracking(make):
    session = make("tools_test")
    await session.add_items([
        {"role": "user", "content": "Search for cats"},
        {"type": "function_call", "name": "web_search", "arguments": '{"query": "cats"}'},
        {"type": "function_call_output", "output": "Found cat information"},
        {"type": "function_call", "name": "calculator", "arguments": '{"expression": "1+1"}'},
        {"type": "function_call_output", "output": "2"},
        {"role": "assistant", "content": "I found information about cats and calculated 1+1=2"},
    ])
    tool_usage = await session.get_tool_usage()
    assert len(tool_usage) == 2
    assert {u[0] for u in tool_usage} == {"web_search", "calculator"}
    assert sorted(tool_usage) == [("calculator", 1, 1), ("web_search", 1, 1)]


TOOL_SEARCH_OUTPUT = {
    "type": "tool_search_output",
    "id": "tso_memory",
    "execution": "server",
    "status": "completed",
    "tools": [{
        "type": "function",
        "name": "lookup_account",
        "description": "Look up an account.",
        "parameters": {"type": "object", "properties": {"account_id": {"type": "string"}}, "required": ["account_id"]},
        "defer_loading": True,
    }],
}


@aio
async def test_tool_usage_tracking_preserves_namespaces_and_tool_search(make):
    session = make("tools_namespace_test")
    await session.add_items([
        {"role": "user", "content": "Look up the same account in multiple systems"},
        {"type": "function_call", "name": "lookup_account", "namespace": "crm", "arguments": '{"account_id": "acct_123"}', "call_id": "crm-call"},
        {"type": "function_call", "name": "lookup_account", "namespace": "billing", "arguments": '{"account_id": "acct_123"}', "call_id": "billing-call"},
        {"type": "tool_search_call", "id": "tsc_memory", "arguments": {"paths": ["crm"], "query": "lookup_account"}, "execution": "server", "status": "completed"},
        TOOL_SEARCH_OUTPUT,
    ])
    usage_by_tool = {name: count for name, count, _turn in await session.get_tool_usage()}
    assert usage_by_tool["crm.lookup_account"] == 1
    assert usage_by_tool["billing.lookup_account"] == 1
    assert usage_by_tool["tool_search"] == 1
    assert len(usage_by_tool) == 3


@aio
async def test_tool_usage_tracking_counts_tool_search_output_without_matching_call(make):
    session = make("tools_tool_search_output_only_test")
    await session.add_items([{"role": "user", "content": "Look up customer_42"}, dict(TOOL_SEARCH_OUTPUT, id="tso_memory_only")])
    usage_by_tool = {name: count for name, count, _turn in await session.get_tool_usage()}
    assert usage_by_tool == {"tool_search": 1}


@aio
async def test_tool_usage_tracking_uses_bare_name_for_deferred_top_level_calls(make):
    session = make("tools_deferred_top_level_test")
    await session.add_items([
        {"role": "user", "content": "What is the weather?"},
        {"type": "function_call", "name": "get_weather", "arguments": '{"city": "Tokyo"}', "call_id": "weather-call"},
        {"type": "function_call", "name": "get_weather", "namespace": "get_weather", "arguments": '{"city": "Osaka"}', "call_id": "weather-call-2"},
    ])
    usage_by_tool = {name: count for name, count, _turn in await session.get_tool_usage()}
    assert usage_by_tool["get_weather"] == 2
    assert "get_weather.get_weather" not in usage_by_tool


@aio
async def test_tool_usage_tracking_collapses_reserved_same_name_namespace_shape(make):
    session = make("tools_deferred_top_level_namespace_test")
    await session.add_items([
        {"role": "user", "content": "What is the weather?"},
        {"type": "function_call", "name": "lookup_account", "namespace": "lookup_account", "arguments": '{"account_id": "acct_123"}', "call_id": "lookup-call"},
    ])
    usage_by_tool = {name: count for name, count, _turn in await session.get_tool_usage()}
    assert usage_by_tool["lookup_account"] == 1
    assert "lookup_account.lookup_account" not in usage_by_tool


@aio
async def test_branching_functionality(make):
    session = make("branching_test")
    await session.add_items([{"role": "user", "content": "First question"}, {"role": "assistant", "content": "First answer"}])
    await session.add_items([{"role": "user", "content": "Second question"}, {"role": "assistant", "content": "Second answer"}])
    await session.add_items([{"role": "user", "content": "Third question"}, {"role": "assistant", "content": "Third answer"}])
    assert len(await session.get_items()) == 6

    assert await session.create_branch_from_turn(2, "test_branch") == "test_branch"
    assert session._current_branch_id == "test_branch"
    branch_items = await session.get_items()
    assert len(branch_items) == 2
    assert branch_items[0].get("content") == "First question"
    assert branch_items[1].get("content") == "First answer"

    await session.switch_to_branch("main")
    assert session._current_branch_id == "main"
    assert len(await session.get_items()) == 6

    branches = await session.list_branches()
    assert len(branches) == 2
    assert [(b["branch_id"], b["message_count"], b["user_turns"], b["is_current"]) for b in branches] == [
        ("main", 6, 3, True),
        ("test_branch", 2, 1, False),
    ]

    await session.delete_branch("test_branch")
    after = await session.list_branches()
    assert len(after) == 1
    assert after[0]["branch_id"] == "main"


def _branch_collision_items():
    return [
        {"role": "user", "content": "Turn one question"},
        {"role": "assistant", "content": "Turn one answer"},
        {"role": "user", "content": "Turn two question"},
        {"role": "assistant", "content": "Turn two answer"},
        {"role": "user", "content": "Turn three question"},
        {"role": "assistant", "content": "Turn three answer"},
    ]


@pytest.mark.parametrize("branch_id", ["main", "existing_branch"])
@aio
async def test_create_branch_rejects_populated_branch_id(make, branch_id):
    session = make(f"branch_collision_{branch_id}")
    items = _branch_collision_items()
    await session.add_items(items)
    if branch_id != "main":
        await session.create_branch_from_turn(3, branch_id)
        await session.switch_to_branch("main")
    before = await session.get_items(branch_id=branch_id)
    with pytest.raises(ValueError, match="already been used"):
        await session.create_branch_from_turn(2, branch_id)
    assert session._current_branch_id == "main"
    assert await session.get_items(branch_id=branch_id) == before
    assert await session.get_items(branch_id="main") == items


@aio
async def test_generated_branch_ids_do_not_merge_within_the_same_second(make, monkeypatch):
    monkeypatch.setattr(time, "time", lambda: 1_700_000_000.0)
    session = make("generated_branch_collision")
    items = _branch_collision_items()
    await session.add_items(items)
    first = await session.create_branch_from_turn(3)
    await session.switch_to_branch("main")
    second = await session.create_branch_from_turn(3)
    assert first == "branch_from_turn_3_1700000000"
    assert second == "branch_from_turn_3_1700000000_2"
    assert await session.get_items(branch_id=first) == items[:4]
    assert await session.get_items(branch_id=second) == items[:4]
    assert await session.get_items(branch_id="main") == items


@aio
async def test_branch_ids_remain_reserved_after_delete_and_clear(make):
    session = make("branch_reservation_tombstones")
    items = _branch_collision_items()
    await session.add_items(items)
    await session.create_branch_from_turn(3, "used_branch")
    await session.switch_to_branch("main")
    await session.delete_branch("used_branch")
    with pytest.raises(ValueError, match="already been used"):
        await session.create_branch_from_turn(2, "used_branch")
    await session.clear_session()
    await session.add_items(items)
    with pytest.raises(ValueError, match="already been used"):
        await session.create_branch_from_turn(1, "used_branch")


@aio
async def test_delete_branch_removes_branch_only_messages(make):
    session = make("branch_delete_cleanup_test")
    main_items = [
        {"role": "user", "content": "First question"},
        {"role": "assistant", "content": "First answer"},
        {"role": "user", "content": "Second question"},
        {"role": "assistant", "content": "Second answer"},
    ]
    await session.add_items(main_items)
    await session.create_branch_from_turn(2, "cleanup_branch")
    await session.add_items([{"role": "user", "content": "Branch-only question"}, {"role": "assistant", "content": "Branch-only answer"}])
    await session.delete_branch("cleanup_branch", force=True)
    if make.kind == "sdk":
        assert sdk_message_contents(session) == ["First question", "First answer", "Second question", "Second answer"]
    else:  # the branch's session is deleted; the root keeps its entries
        assert sessions_of(session) == {"branch_delete_cleanup_test": ["First question", "First answer", "Second question", "Second answer"]}
    assert await session.get_items(branch_id="main") == main_items


@aio
async def test_delete_branch_keeps_messages_still_referenced_by_another_branch(make):
    session = make("branch_delete_shared_descendant_test")
    main_items = [
        {"role": "user", "content": "Main first question"},
        {"role": "assistant", "content": "Main first answer"},
        {"role": "user", "content": "Main second question"},
        {"role": "assistant", "content": "Main second answer"},
    ]
    shared = [{"role": "user", "content": "Branch A shared question"}, {"role": "assistant", "content": "Branch A shared answer"}]
    only = [{"role": "user", "content": "Branch A only question"}, {"role": "assistant", "content": "Branch A only answer"}]
    await session.add_items(main_items)
    await session.create_branch_from_turn(2, "branch_a")
    await session.add_items(shared + only)
    await session.create_branch_from_turn(3, "branch_b")
    await session.delete_branch("branch_a")
    if make.kind == "sdk":
        contents = sdk_message_contents(session)
    else:
        contents = [c for entries in sessions_of(session).values() for c in entries]
    assert "Branch A shared question" in contents
    assert "Branch A shared answer" in contents
    assert "Branch A only question" not in contents
    assert "Branch A only answer" not in contents
    assert await session.get_items(branch_id="branch_b") == [*main_items[:2], *shared]


@aio
async def test_get_conversation_turns(make):
    session = make("conversation_turns_test")
    await session.add_items([{"role": "user", "content": "Hello there"}, {"role": "assistant", "content": "Hi!"}])
    await session.add_items([{"role": "user", "content": "How are you doing today?"}, {"role": "assistant", "content": "I'm doing well, thanks!"}])
    turns = await session.get_conversation_turns()
    assert len(turns) == 2
    assert turns[0]["turn"] == 1
    assert turns[0]["content"] == "Hello there"
    assert turns[0]["full_content"] == "Hello there"
    assert turns[0]["can_branch"] is True
    assert "timestamp" in turns[0]
    assert turns[1]["turn"] == 2
    assert turns[1]["content"] == "How are you doing today?"
    assert turns[1]["full_content"] == "How are you doing today?"
    assert turns[1]["can_branch"] is True
    # The SDK's timestamp form (SQLite CURRENT_TIMESTAMP, UTC).
    assert [len(t["timestamp"]) for t in turns] == [19, 19]
    assert turns[0]["timestamp"][4] + turns[0]["timestamp"][10] + turns[0]["timestamp"][13] == "- :"


@aio
async def test_find_turns_by_content(make):
    session = make("find_turns_test")
    await session.add_items([{"role": "user", "content": "Tell me about cats"}, {"role": "assistant", "content": "Cats are great pets"}])
    await session.add_items([{"role": "user", "content": "What about dogs?"}, {"role": "assistant", "content": "Dogs are also great pets"}])
    await session.add_items([{"role": "user", "content": "Tell me about cats again"}, {"role": "assistant", "content": "Cats are wonderful companions"}])
    cat_turns = await session.find_turns_by_content("cats")
    assert len(cat_turns) == 2
    assert cat_turns[0]["turn"] == 1
    assert cat_turns[1]["turn"] == 3
    dog_turns = await session.find_turns_by_content("dogs")
    assert len(dog_turns) == 1
    assert dog_turns[0]["turn"] == 2
    assert len(await session.find_turns_by_content("elephants")) == 0
    # The SDK's substring semantics beyond words: a word prefix, ASCII case,
    # several words, punctuation, one letter.
    assert [t["turn"] for t in await session.find_turns_by_content("CAT")] == [1, 3]
    assert [t["turn"] for t in await session.find_turns_by_content("about cats ag")] == [3]
    assert [t["turn"] for t in await session.find_turns_by_content("dogs?")] == [2]
    assert [t["turn"] for t in await session.find_turns_by_content("W")] == [2]
    assert [t["turn"] for t in await session.find_turns_by_content("great")] == []  # assistant text is not searched


@aio
async def test_get_conversation_turns_with_list_content(make):
    session = make("conversation_turns_list_content_test")
    await session.add_items([{"role": "user", "content": [{"type": "input_text", "text": "hello"}]}])
    await session.add_items([{"role": "user", "content": [{"type": "input_text", "text": str(i)} for i in range(101)]}])
    turns = await session.get_conversation_turns()
    assert len(turns) == 2
    assert isinstance(turns[0]["content"], str)
    assert isinstance(turns[0]["full_content"], list)
    assert isinstance(turns[1]["content"], str)
    assert turns[1]["content"].endswith("...")
    assert isinstance(turns[1]["full_content"], list)
    assert turns[0]["content"] == '[{"type": "input_text", "text": "hello"}]'
    assert len(turns[1]["content"]) == 103


@aio
async def test_find_turns_by_content_with_list_content(make):
    session = make("find_turns_list_content_test")
    await session.add_items([{"role": "user", "content": [{"type": "input_text", "text": "hello world"}]}])
    matches = await session.find_turns_by_content("hello")
    assert len(matches) == 1
    assert isinstance(matches[0]["content"], str)
    assert isinstance(matches[0]["full_content"], list)


@aio
async def test_create_branch_from_content(make):
    session = make("branch_from_content_test")
    await session.add_items([{"role": "user", "content": "First question about math"}, {"role": "assistant", "content": "Math answer"}])
    await session.add_items([{"role": "user", "content": "Second question about science"}, {"role": "assistant", "content": "Science answer"}])
    await session.add_items([{"role": "user", "content": "Another math question"}, {"role": "assistant", "content": "Another math answer"}])
    assert await session.create_branch_from_content("math", "math_branch") == "math_branch"
    assert session._current_branch_id == "math_branch"
    assert len(await session.get_items()) == 0
    with pytest.raises(ValueError, match="No user turns found containing 'nonexistent'"):
        await session.create_branch_from_content("nonexistent", "error_branch")


@aio
async def test_branch_specific_operations(make):
    session = make("branch_specific_test")
    await session.add_items([{"role": "user", "content": "Main branch question"}, {"role": "assistant", "content": "Main branch answer"}])
    await session.store_run_usage(create_mock_run_result(Usage(requests=1, input_tokens=50, output_tokens=30, total_tokens=80)))
    await session.create_branch_from_turn(1, "test_branch")
    await session.add_items([{"role": "user", "content": "Branch question"}, {"role": "assistant", "content": "Branch answer"}])
    await session.store_run_usage(create_mock_run_result(Usage(requests=1, input_tokens=40, output_tokens=20, total_tokens=60)))
    main_items = await session.get_items(branch_id="main")
    assert len(main_items) == 2
    assert main_items[0].get("content") == "Main branch question"
    assert len(await session.get_items()) == 2
    main_turns = await session.get_conversation_turns(branch_id="main")
    assert len(main_turns) == 1
    assert main_turns[0]["content"] == "Main branch question"
    assert len(await session.get_conversation_turns()) == 1
    main_usage = await session.get_session_usage(branch_id="main")
    assert main_usage is not None
    assert main_usage["total_turns"] == 1
    all_usage = await session.get_session_usage()
    assert all_usage == {"requests": 2, "input_tokens": 90, "output_tokens": 50, "total_tokens": 140, "total_turns": 2}


@aio
async def test_branch_error_handling(make):
    session = make("branch_error_test")
    with pytest.raises(ValueError, match="Turn 5 does not contain a user message"):
        await session.create_branch_from_turn(5, "error_branch")
    with pytest.raises(ValueError, match="Branch 'nonexistent' does not exist"):
        await session.switch_to_branch("nonexistent")
    with pytest.raises(ValueError, match="Branch 'nonexistent' does not exist"):
        await session.delete_branch("nonexistent")
    with pytest.raises(ValueError, match="Cannot delete the 'main' branch"):
        await session.delete_branch("main")
    with pytest.raises(ValueError, match="Branch ID cannot be empty"):
        await session.delete_branch("")
    with pytest.raises(ValueError, match="Branch ID cannot be empty"):
        await session.delete_branch("   ")
    with pytest.raises(ValueError, match="^Turn 5 does not contain a user message in branch 'main'$"):
        await session.create_branch_from_turn(5, "error_branch")
    with pytest.raises(ValueError, match="^Branch name cannot be empty$"):
        await session.create_branch_from_turn(1, " ")


@aio
async def test_branch_deletion_with_force(make):
    session = make("force_delete_test")
    await session.add_items([{"role": "user", "content": "Main question"}])
    await session.add_items([{"role": "user", "content": "Second question"}])
    await session.create_branch_from_turn(2, "temp_branch")
    assert session._current_branch_id == "temp_branch"
    await session.add_items([{"role": "user", "content": "Branch question"}])
    assert "temp_branch" in [b["branch_id"] for b in await session.list_branches()]
    with pytest.raises(ValueError, match="Cannot delete current branch"):
        await session.delete_branch("temp_branch")
    await session.delete_branch("temp_branch", force=True)
    assert session._current_branch_id == "main"
    after = await session.list_branches()
    assert len(after) == 1
    assert after[0]["branch_id"] == "main"


@aio
async def test_get_items_with_parameters(make):
    session = make("get_items_params_test")
    await session.add_items([
        {"role": "user", "content": "First question"},
        {"role": "assistant", "content": "First answer"},
        {"role": "user", "content": "Second question"},
        {"role": "assistant", "content": "Second answer"},
    ])
    limited = await session.get_items(limit=2)
    assert len(limited) == 2
    assert limited[0].get("content") == "Second question"
    assert limited[1].get("content") == "Second answer"
    assert len(await session.get_items(branch_id="main")) == 4
    assert len(await session.get_items()) == 4
    await session.create_branch_from_turn(2, "test_branch")
    await session.add_items([{"role": "user", "content": "Branch question"}, {"role": "assistant", "content": "Branch answer"}])
    assert len(await session.get_items(branch_id="test_branch")) == 4
    assert len(await session.get_items(branch_id="main")) == 4


@aio
async def test_usage_tracking_storage(make, usage_data):
    session = make("usage_test")
    await session.add_items([{"role": "user", "content": "First turn"}])
    await session.store_run_usage(create_mock_run_result(usage_data))
    usage_data_2 = Usage(
        requests=2,
        input_tokens=75,
        output_tokens=45,
        total_tokens=120,
        input_tokens_details=InputTokensDetails.model_validate({"cache_write_tokens": 0, "cached_tokens": 20}),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=15),
    )
    await session.add_items([{"role": "user", "content": "Second turn"}])
    await session.store_run_usage(create_mock_run_result(usage_data_2))
    session_usage = await session.get_session_usage()
    assert session_usage is not None
    assert session_usage["requests"] == 3
    assert session_usage["total_tokens"] == 200
    assert session_usage["input_tokens"] == 125
    assert session_usage["output_tokens"] == 75
    assert session_usage["total_turns"] == 2
    turn_1_usage = await session.get_turn_usage(1)
    assert isinstance(turn_1_usage, dict)
    assert turn_1_usage["requests"] == 1
    assert turn_1_usage["total_tokens"] == 80
    assert turn_1_usage["input_tokens_details"]["cached_tokens"] == 10
    assert turn_1_usage["output_tokens_details"]["reasoning_tokens"] == 5
    turn_2_usage = await session.get_turn_usage(2)
    assert isinstance(turn_2_usage, dict)
    assert turn_2_usage["requests"] == 2
    assert turn_2_usage["total_tokens"] == 120
    assert turn_2_usage["input_tokens_details"]["cached_tokens"] == 20
    assert turn_2_usage["output_tokens_details"]["reasoning_tokens"] == 15
    all_turn_usage = await session.get_turn_usage()
    assert isinstance(all_turn_usage, list)
    assert len(all_turn_usage) == 2
    assert all_turn_usage[0]["user_turn_number"] == 1
    assert all_turn_usage[1]["user_turn_number"] == 2
    assert all_turn_usage[1] == {
        "user_turn_number": 2, "requests": 2, "input_tokens": 75, "output_tokens": 45, "total_tokens": 120,
        "input_tokens_details": dict(usage_data_2.input_tokens_details.__dict__), "output_tokens_details": {"reasoning_tokens": 15},
    }


@aio
async def test_runner_integration_with_usage_tracking(make, agent):
    session = make("integration_test")
    agent.model.enqueue([get_text_message("San Francisco")])
    result1 = await Runner.run(agent, "What city is the Golden Gate Bridge in?", session=session)
    assert result1.final_output == "San Francisco"
    await session.store_run_usage(result1)
    agent.model.enqueue([get_text_message("California")])
    result2 = await Runner.run(agent, "What state is it in?", session=session)
    assert result2.final_output == "California"
    await session.store_run_usage(result2)
    assert len(await session.get_conversation_by_turns()) == 2
    session_usage = await session.get_session_usage()
    assert session_usage is not None
    assert session_usage["total_turns"] == 2
    assert "requests" in session_usage
    assert "total_tokens" in session_usage
    assert session_usage["requests"] == 2


@aio
async def test_sequence_ordering(make):
    session = make("sequence_test")
    await session.add_items([
        {"role": "user", "content": "Message 1"},
        {"role": "assistant", "content": "Response 1"},
        {"role": "user", "content": "Message 2"},
        {"role": "assistant", "content": "Response 2"},
    ])
    assert [i.get("content") for i in await session.get_items()] == ["Message 1", "Response 1", "Message 2", "Response 2"]


@aio
async def test_conversation_structure_with_multiple_turns(make):
    session = make("multi_turn_test")
    await session.add_items([{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi!"}])
    await session.add_items([
        {"role": "user", "content": "How are you?"},
        {"type": "function_call", "name": "mood_check", "arguments": "{}"},
        {"type": "function_call_output", "output": "I'm good"},
        {"role": "assistant", "content": "I'm doing well!"},
    ])
    await session.add_items([{"role": "user", "content": "Goodbye"}, {"role": "assistant", "content": "See you later!"}])
    turns = await session.get_conversation_by_turns()
    assert len(turns) == 3
    assert len(turns[1]) == 2
    assert turns[1][0]["type"] == "user"
    assert turns[1][1]["type"] == "assistant"
    assert len(turns[2]) == 4
    assert [i["type"] for i in turns[2]] == ["user", "function_call", "function_call_output", "assistant"]
    assert len(turns[3]) == 2


@aio
async def test_empty_session_operations(make):
    session = make("empty_test")
    assert len(await session.get_items()) == 0
    assert len(await session.get_conversation_by_turns()) == 0
    assert len(await session.get_tool_usage()) == 0
    assert await session.get_session_usage() is None
    assert len(await session.get_conversation_turns()) == 0
    assert await session.list_branches() == []
    assert await session.find_turns_by_content("x") == []


@aio
async def test_json_serialization_edge_cases(make, usage_data):
    session = make("json_test")
    await session.add_items([{"role": "user", "content": "First test"}])
    await session.store_run_usage(create_mock_run_result(usage_data))
    await session.store_run_usage(create_mock_run_result(None))
    await session.add_items([{"role": "user", "content": "Second test"}])
    await session.store_run_usage(create_mock_run_result(Usage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15)))
    turn_1_usage = await session.get_turn_usage(1)
    assert isinstance(turn_1_usage, dict)
    assert turn_1_usage["requests"] == 1
    assert turn_1_usage["input_tokens_details"]["cached_tokens"] == 10
    turn_2_usage = await session.get_turn_usage(2)
    assert isinstance(turn_2_usage, dict)
    assert turn_2_usage["requests"] == 1
    assert turn_2_usage["input_tokens_details"]["cached_tokens"] == 0
    assert turn_2_usage["output_tokens_details"]["reasoning_tokens"] == 0


@aio
async def test_session_isolation(make):
    session1 = make("session_1")
    session2 = make("session_2")
    await session1.add_items([{"role": "user", "content": "Session 1 message"}])
    await session2.add_items([{"role": "user", "content": "Session 2 message"}])
    s1, s2 = await session1.get_items(), await session2.get_items()
    assert len(s1) == 1 and len(s2) == 1
    assert s1[0].get("content") == "Session 1 message"
    assert s2[0].get("content") == "Session 2 message"
    assert len(await session1.get_conversation_by_turns()) == 1
    assert len(await session2.get_conversation_by_turns()) == 1


@aio
async def test_error_handling_in_usage_tracking(make, usage_data):
    session = make("error_test", db="error_test.db")
    run_result = create_mock_run_result(usage_data)
    await session.store_run_usage(run_result)
    session.close()
    await session.store_run_usage(run_result)  # logged, not raised


@aio
async def test_advanced_tool_name_extraction(make):
    session = make("advanced_tool_names_test")
    await session.add_items([
        {"role": "user", "content": "Use various tools"},
        {"type": "mcp_call", "server_label": "filesystem", "name": "read_file", "arguments": "{}"},
        {"type": "mcp_approval_request", "server_label": "database", "name": "execute_query", "arguments": "{}"},
        {"type": "computer_call", "arguments": "{}"},
        {"type": "file_search_call", "arguments": "{}"},
        {"type": "web_search_call", "arguments": "{}"},
        {"type": "code_interpreter_call", "arguments": "{}"},
        {"type": "function_call", "name": "calculator", "arguments": "{}"},
        {"type": "custom_tool_call", "name": "custom_tool", "arguments": "{}"},
    ])
    turn_items = (await session.get_conversation_by_turns())[1]
    tool_names = [i["tool_name"] for i in turn_items if i["tool_name"]]
    assert tool_names == [
        "filesystem.read_file", "database.execute_query", "computer_call", "file_search_call",
        "web_search_call", "code_interpreter_call", "calculator", "custom_tool",
    ]


@aio
async def test_branch_usage_tracking(make):
    session = make("branch_usage_test")
    await session.add_items([{"role": "user", "content": "Main question"}])
    await session.store_run_usage(create_mock_run_result(Usage(requests=1, input_tokens=50, output_tokens=30, total_tokens=80)))
    await session.create_branch_from_turn(1, "usage_branch")
    await session.add_items([{"role": "user", "content": "Branch question"}])
    await session.store_run_usage(create_mock_run_result(Usage(requests=2, input_tokens=100, output_tokens=60, total_tokens=160)))
    main_usage = await session.get_session_usage(branch_id="main")
    assert main_usage is not None
    assert (main_usage["requests"], main_usage["total_tokens"], main_usage["total_turns"]) == (1, 80, 1)
    branch_usage = await session.get_session_usage(branch_id="usage_branch")
    assert branch_usage is not None
    assert (branch_usage["requests"], branch_usage["total_tokens"], branch_usage["total_turns"]) == (2, 160, 1)
    total = await session.get_session_usage()
    assert total is not None
    assert (total["requests"], total["total_tokens"], total["total_turns"]) == (3, 240, 2)
    branch_turn_usage = await session.get_turn_usage(branch_id="usage_branch")
    assert isinstance(branch_turn_usage, list)
    assert len(branch_turn_usage) == 1
    assert branch_turn_usage[0]["requests"] == 2


@aio
async def test_tool_name_extraction(make):
    session = make("tool_names_test")
    await session.add_items([
        {"role": "user", "content": "Use tools please"},
        {"type": "function_call", "name": "search_web", "arguments": "{}"},
        {"type": "function_call_output", "tool_name": "search_web", "output": "result"},
        {"type": "function_call", "name": "calculator", "arguments": "{}"},
    ])
    turn_items = (await session.get_conversation_by_turns())[1]
    assert [i["tool_name"] for i in turn_items if i["tool_name"]] == ["search_web", "calculator"]


@aio
async def test_tool_execution_integration(make, agent):
    session = make("tool_integration_test")
    agent.model.enqueue([{"type": "function_call", "name": "test_tool", "arguments": '{"query": "test query"}', "call_id": "call_123"}])
    agent.model.enqueue([get_text_message("Tool executed successfully")])
    result = await Runner.run(agent, "Please use the test tool", session=session)
    assert "Tool result for: test query" in str(result.new_items)
    tool_usage = await session.get_tool_usage()
    assert len(tool_usage) > 0
    assert tool_usage == [("test_tool", 1, 1)]


@aio
async def test_session_settings_default(make):
    session = make("default_settings_test")
    assert isinstance(session.session_settings, SessionSettings)
    assert session.session_settings.limit is None


@pytest.mark.parametrize("use_dictionary", [False, True], ids=["class", "dictionary"])
@aio
async def test_session_settings_constructor(make, use_dictionary):
    session = make("constructor_settings_test", session_settings={"limit": 5} if use_dictionary else SessionSettings(limit=5))
    assert isinstance(session.session_settings, SessionSettings)
    assert session.session_settings.limit == 5


@aio
async def test_get_items_uses_session_settings_limit(make):
    session = make("uses_settings_limit_test", session_settings=SessionSettings(limit=3))
    await session.add_items([{"role": "user", "content": f"Message {i}"} for i in range(5)])
    assert [i.get("content") for i in await session.get_items()] == ["Message 2", "Message 3", "Message 4"]


@aio
async def test_get_items_explicit_limit_overrides_session_settings(make):
    session = make("explicit_override_test", session_settings=SessionSettings(limit=5))
    await session.add_items([{"role": "user", "content": f"Message {i}"} for i in range(10)])
    assert [i.get("content") for i in await session.get_items(limit=2)] == ["Message 8", "Message 9"]


@aio
async def test_get_items_limit_returns_fewer_when_history_exhausted(make):
    session = make("limit_exhausted_test")
    await session.add_items([{"role": "user", "content": "only valid"}])
    assert [i.get("content") for i in await session.get_items(limit=5)] == ["only valid"]


@aio
async def test_runner_with_session_settings_override(make, agent):
    session = make("runner_override_test", session_settings=SessionSettings(limit=100))
    await session.add_items([{"role": "user", "content": f"Turn {i}"} for i in range(10)])
    agent.model.enqueue([get_text_message("Got it")])
    await Runner.run(agent, "New question", session=session, run_config=RunConfig(session_settings=SessionSettings(limit=2)))
    last_input = agent.model.calls[-1].input
    history = [i for i in last_input if i.get("content") != "New question"]
    assert len(history) == 2
    assert [i.get("content") for i in history] == ["Turn 8", "Turn 9"]


@aio
async def test_concurrent_add_items_preserves_message_structure_for_file_db(make):
    session = make("advanced_concurrent", db="advanced_concurrent.db")

    async def add_batch(worker_id):
        contents = [f"worker-{worker_id}-message-{i}" for i in range(10)]
        await session.add_items([{"role": "user", "content": c} for c in contents])
        return contents

    batches = await asyncio.gather(*(add_batch(w) for w in range(8)))
    expected = {c for b in batches for c in b}
    got = await session.get_items()
    assert {i.get("content") for i in got} == expected
    assert len(got) == len(expected) == 80
    assert len(await session.get_conversation_turns()) == 80


@aio
async def test_output_tokens_details_persisted_when_input_details_missing(make):
    session = make("output_only_usage")
    usage = Usage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15, output_tokens_details=OutputTokensDetails(reasoning_tokens=42))
    object.__setattr__(usage, "input_tokens_details", None)
    await session.add_items([{"role": "user", "content": "hi"}])
    await session.store_run_usage(create_mock_run_result(usage))
    turn_usage = await session.get_turn_usage(1)
    assert isinstance(turn_usage, dict)
    assert turn_usage["output_tokens_details"] == {"reasoning_tokens": 42}
    assert turn_usage["input_tokens_details"] is None


@aio
async def test_clear_session_removes_structure_and_usage_metadata(make, usage_data):
    session = make("clear_metadata_test")
    await session.add_items([{"role": "user", "content": "First question"}, {"role": "assistant", "content": "First answer"}])
    await session.store_run_usage(create_mock_run_result(usage_data))
    assert await session.get_session_usage() is not None
    await session.clear_session()
    assert await session.get_items() == []
    assert await session.get_session_usage() is None
    assert await session.get_conversation_by_turns() == {}
    await session.add_items([{"role": "user", "content": "Fresh start"}])
    assert await session.get_conversation_by_turns() == {1: [{"type": "user", "tool_name": None}]}


@aio
async def test_pop_item_removes_its_structure_row(make):
    session = make("pop_structure_test")
    await session.add_items([{"role": "user", "content": "Question"}, {"role": "assistant", "content": "Answer"}])
    assert await session.pop_item() == {"role": "assistant", "content": "Answer"}
    assert await session.get_items() == [{"role": "user", "content": "Question"}]
    assert await session.get_conversation_by_turns() == {1: [{"type": "user", "tool_name": None}]}


@aio
async def test_pop_item_removes_turn_usage_only_when_turn_emptied(make, usage_data):
    session = make("pop_turn_usage_test")
    await session.add_items([{"role": "user", "content": "Question"}, {"role": "assistant", "content": "Answer"}])
    await session.store_run_usage(create_mock_run_result(usage_data))
    assert (await session.get_session_usage())["total_turns"] == 1
    await session.pop_item()
    assert (await session.get_session_usage())["total_turns"] == 1
    await session.pop_item()
    assert await session.get_session_usage() is None
    assert not await session.get_turn_usage(1)


@aio
async def test_pop_item_respects_current_branch_and_keeps_shared_messages(make):
    session = make("pop_branch_test")
    main_items = [
        {"role": "user", "content": "Main first question"},
        {"role": "assistant", "content": "Main first answer"},
        {"role": "user", "content": "Main second question"},
        {"role": "assistant", "content": "Main second answer"},
    ]
    await session.add_items(main_items)
    await session.create_branch_from_turn(2, "branch_a")
    await session.switch_to_branch("branch_a")
    await session.add_items([{"role": "user", "content": "Branch-only question"}])
    assert await session.pop_item() == {"role": "user", "content": "Branch-only question"}
    assert await session.get_items(branch_id="main") == main_items
    assert await session.get_items() == main_items[:2]


@aio
async def test_pop_item_deletes_shared_copied_message_only_when_unreferenced(make):
    session = make("pop_shared_copy_test")
    main_items = [
        {"role": "user", "content": "u1"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "u2"},
        {"role": "assistant", "content": "a2"},
    ]
    await session.add_items(main_items)
    await session.create_branch_from_turn(2, "branch_a")
    await session.switch_to_branch("branch_a")
    await session.add_items([{"role": "user", "content": "branch-only"}])
    assert await session.pop_item() == {"role": "user", "content": "branch-only"}
    assert await session.pop_item() == {"role": "assistant", "content": "a1"}
    assert await session.pop_item() == {"role": "user", "content": "u1"}
    assert await session.get_items(branch_id="main") == main_items
    assert await session.get_items(branch_id="branch_a") == []
    await session.switch_to_branch("main")
    for _ in range(len(main_items)):
        await session.pop_item()
    assert await session.get_items() == []
    assert await session.pop_item() is None


@aio
async def test_stale_store_run_usage_skipped_when_turn_removed_by_pop(make, usage_data):
    session = make("stale_usage_test")
    await session.add_items([{"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"}])
    task = asyncio.ensure_future(session.store_run_usage(create_mock_run_result(usage_data)))
    await session.pop_item()
    await session.pop_item()
    await task
    assert await session.get_session_usage() is None


@aio
async def test_stale_store_run_usage_not_recorded_against_reused_turn_number(make, usage_data):
    session = make("stale_usage_aba_test")
    await session.add_items([{"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"}])
    task = asyncio.ensure_future(session.store_run_usage(create_mock_run_result(usage_data)))
    await session.pop_item()
    await session.pop_item()
    await session.add_items([{"role": "user", "content": "fresh turn"}])
    await task
    assert await session.get_session_usage() is None
    assert not await session.get_turn_usage(1)


@aio
async def test_store_run_usage_survives_unrelated_branch_deletion(make, usage_data):
    session = make("usage_scope_test")
    await session.add_items([
        {"role": "user", "content": "u1"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "u2"},
        {"role": "assistant", "content": "a2"},
    ])
    await session.create_branch_from_turn(2, "side_branch")
    await session.switch_to_branch("main")
    task = asyncio.ensure_future(session.store_run_usage(create_mock_run_result(usage_data)))
    await session.delete_branch("side_branch")
    await task
    assert (await session.get_session_usage())["total_turns"] == 1
    turn_2_usage = await session.get_turn_usage(2)
    assert isinstance(turn_2_usage, dict)
    assert turn_2_usage["total_tokens"] == usage_data.total_tokens


@aio
async def test_clear_session_resets_current_branch_to_main(make):
    session = make("clear_branch_reset_test")
    await session.add_items([
        {"role": "user", "content": "u1"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "u2"},
        {"role": "assistant", "content": "a2"},
    ])
    await session.create_branch_from_turn(2, "branch_a")
    await session.switch_to_branch("branch_a")
    assert session._current_branch_id == "branch_a"
    await session.clear_session()
    assert session._current_branch_id == "main"
    assert await session.get_items() == []
    await session.add_items([{"role": "user", "content": "u1"}])
    with pytest.raises(ValueError, match="already been used"):
        await session.create_branch_from_turn(1, "branch_a")


@aio
async def test_external_clear_resets_stale_branch_before_next_write(make):
    stale = make("external_clear_generation", db="external.db")
    clearer = make("external_clear_generation", db="external.db")
    await stale.add_items([{"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}])
    await stale.create_branch_from_turn(2, "stale")
    assert stale._current_branch_id == "stale"
    await clearer.clear_session()
    await stale.add_items([{"role": "user", "content": "after clear"}])
    assert stale._current_branch_id == "main"
    assert [i.get("content") for i in await stale.get_items()] == ["after clear"]
    assert await stale.get_items(branch_id="stale") == []
    assert {b["branch_id"] for b in await stale.list_branches()} == {"main"}


@aio
async def test_external_clear_resets_stale_branch_before_pop(make):
    stale = make("external_clear_pop_generation", db="external.db")
    clearer = make("external_clear_pop_generation", db="external.db")
    await stale.add_items([{"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}])
    await stale.create_branch_from_turn(2, "stale")
    assert stale._current_branch_id == "stale"
    await clearer.clear_session()
    item = {"role": "user", "content": "after clear"}
    await clearer.add_items([item])
    assert await stale.pop_item() == item
    assert stale._current_branch_id == "main"
    assert await clearer.get_items() == []


@pytest.mark.parametrize("read_path", ["items", "turns", "search", "conversation", "tools", "usage", "branches"])
@aio
async def test_external_clear_resets_stale_branch_before_default_reads(make, usage_data, read_path):
    sid = f"external_clear_read_generation_{read_path}"
    stale = make(sid, db="external.db")
    clearer = make(sid, db="external.db")
    await stale.add_items([{"role": "user", "content": "old question"}, {"role": "assistant", "content": "old answer"}, {"role": "user", "content": "old follow-up"}])
    await stale.create_branch_from_turn(2, "stale")
    assert stale._current_branch_id == "stale"
    await clearer.clear_session()
    new_items = [
        {"role": "user", "content": "new main question"},
        {"type": "function_call", "name": "lookup", "arguments": '{"query": "new"}', "call_id": "lookup-new-main"},
        {"role": "assistant", "content": "new main answer"},
    ]
    await clearer.add_items(new_items)
    await clearer.store_run_usage(create_mock_run_result(usage_data))
    if read_path == "items":
        assert await stale.get_items() == new_items
    elif read_path == "turns":
        assert [t["full_content"] for t in await stale.get_conversation_turns()] == ["new main question"]
    elif read_path == "search":
        assert [t["full_content"] for t in await stale.find_turns_by_content("new")] == ["new main question"]
    elif read_path == "conversation":
        assert set(await stale.get_conversation_by_turns()) == {1}
    elif read_path == "tools":
        assert await stale.get_tool_usage() == [("lookup", 1, 1)]
    elif read_path == "usage":
        assert await stale.get_turn_usage(1) == {
            "requests": 1, "input_tokens": 50, "output_tokens": 30, "total_tokens": 80,
            # The SDK stores the details' `__dict__` (its fields depend on the openai version).
            "input_tokens_details": dict(usage_data.input_tokens_details.__dict__),
            "output_tokens_details": {"reasoning_tokens": 5},
        }
    else:
        assert [(b["branch_id"], b["is_current"]) for b in await stale.list_branches()] == [("main", True)]
    assert stale._current_branch_id == "main"


# ---------------------------------------------------------------------------
# sessiondb's own promises: a branch is a session, usage is in the ledger,
# content lookup goes through the search index, TTL.


@aio
async def test_a_branch_is_a_forked_session_that_a_new_instance_sees(tmp_path):
    path = str(tmp_path / "s.db")
    items = _branch_collision_items()
    first = AdvancedSessionDBSession("root", path=path, key=KEY)
    await first.add_items(items)
    assert await first.create_branch_from_turn(3, "alt") == "alt"
    await first.add_items([{"role": "user", "content": "alt question"}])
    alt = first.branch_session_id("alt")
    first.close()

    with sessiondb.SessionStore(path, key=KEY) as store:
        # The branch is a sessiondb session: forked from the root after turn 2's
        # last entry (seq 4), titled after the root, with its own entries.
        s = store.get_session(alt)
        assert (s.forked_from, s.forked_at_seq, s.name, s.entry_count) == ("root", 4, "root branch alt", 5)
        assert [e.content for e in store.get_transcript(alt)] == [i["content"] for i in items[:4]] + ["alt question"]
        assert store.get_session("root").entry_count == 6
        # Export sees it as any session.
        md = store.export_thclaws(alt, "markdown")
        assert md.startswith("# root branch alt\n")
        assert [line.split(" · ")[0] for line in md.splitlines() if line.startswith("## ")] == ["## User", "## Assistant"] * 2 + ["## User"]
        assert md.endswith("alt question\n")

        # Another instance (its own handle) sees the branch map.
        second = AdvancedSessionDBSession("root", store=store)
        assert second._current_branch_id == "main"
        assert [(b["branch_id"], b["message_count"], b["user_turns"], b["is_current"]) for b in await second.list_branches()] == [
            ("main", 6, 3, True),
            ("alt", 5, 3, False),
        ]
        await second.switch_to_branch("alt")
        assert await second.get_items() == items[:4] + [{"role": "user", "content": "alt question"}]
        with pytest.raises(ValueError, match="^Branch ID 'alt' has already been used. Choose a new branch ID.$"):
            await second.create_branch_from_turn(1, "alt")
        await second.delete_branch("alt", force=True)
        with pytest.raises(sessiondb.NotFoundError):
            store.get_session(alt)
        assert [e.kind for e in store.journal_events(alt)][-1] == "SessionDeleted"
        kinds = [x.kind for x in store.list_context_extensions("root")]
        assert kinds == ["agents.branch", "agents.branch_deleted"]
        second.close()


@aio
async def test_run_usage_is_in_the_token_ledger_and_the_totals_agree(tmp_path, usage_data):
    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as store:
        s = AdvancedSessionDBSession("u", store=store)
        await s.add_items([{"role": "user", "content": "one"}])
        await s.store_run_usage(create_mock_run_result(usage_data))  # 50 in (10 cached), 30 out
        await s.add_items([{"role": "user", "content": "two"}])
        await s.store_run_usage(create_mock_run_result(Usage(requests=2, input_tokens=75, output_tokens=45, total_tokens=120)))
        await s.create_branch_from_turn(2, "b")
        await s.add_items([{"role": "user", "content": "two, again"}])
        await s.store_run_usage(create_mock_run_result(Usage(requests=1, input_tokens=7, output_tokens=3, total_tokens=10)))

        main, branch = await s.get_session_usage("main"), await s.get_session_usage("b")
        assert main == {"requests": 3, "input_tokens": 125, "output_tokens": 75, "total_tokens": 200, "total_turns": 2}
        assert branch == {"requests": 1, "input_tokens": 7, "output_tokens": 3, "total_tokens": 10, "total_turns": 1}
        assert await s.get_session_usage() == {"requests": 4, "input_tokens": 132, "output_tokens": 78, "total_tokens": 210, "total_turns": 3}
        # The ledger of each branch's session holds the same tokens.
        root = store.token_totals("u")
        fork = store.token_totals(s.branch_session_id("b"))
        assert (root.input, root.output, root.cached) == (125, 75, 10)
        assert (fork.input, fork.output, fork.cached) == (7, 3, 0)
        assert (root.input + fork.input, root.output + fork.output) == (132, 78)
        # The branch's turn 2 is its own (its copy of turn 1 has no usage).
        assert await s.get_turn_usage(branch_id="b") == [{
            "user_turn_number": 2, "requests": 1, "input_tokens": 7, "output_tokens": 3, "total_tokens": 10,
            "input_tokens_details": dict(Usage().input_tokens_details.__dict__),
            "output_tokens_details": {"reasoning_tokens": 0},
        }]
        assert [e.kind for e in store.journal_events("u")].count("TokensRecorded") == 2
        s.close()


@aio
async def test_content_lookup_goes_through_search_and_differs_inside_a_word(make):
    session = make("lookup")
    await session.add_items([{"role": "user", "content": "Tell me about cats"}, {"role": "assistant", "content": "Cats purr"}])
    await session.add_items([{"role": "user", "content": "And bobcats? ✓"}])
    # Word and word-prefix matches agree with the SDK ...
    assert [t["turn"] for t in await session.find_turns_by_content("tell me ab")] == [1]
    assert [t["turn"] for t in await session.find_turns_by_content("BOBC")] == [2]
    # ... a match starting inside a word does not: the index matches words
    # and word prefixes, the SDK's LIKE any substring ("bobcats" holds "cats").
    sdk = make.kind == "sdk"
    assert [t["turn"] for t in await session.find_turns_by_content("cat")] == ([1, 2] if sdk else [1])
    assert [t["turn"] for t in await session.find_turns_by_content("ats")] == ([1, 2] if sdk else [])
    # A term without a two-letter ASCII word is matched by reading the turns (both).
    assert [t["turn"] for t in await session.find_turns_by_content("✓")] == [2]
    assert [t["turn"] for t in await session.find_turns_by_content("?")] == [2]


@aio
async def test_branch_from_turn_one_is_an_empty_forked_session(tmp_path):
    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as store:
        s = AdvancedSessionDBSession("r", store=store)
        await s.add_items([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}])
        await s.create_branch_from_turn(1, "fresh")
        sid = s.branch_session_id("fresh")
        got = store.get_session(sid)
        assert (got.forked_from, got.forked_at_seq, got.entry_count) == ("r", 0, 0)
        # As the SDK's: an empty branch is not listed and cannot be switched to.
        assert [b["branch_id"] for b in await s.list_branches()] == ["main"]
        await s.switch_to_branch("main")
        with pytest.raises(ValueError, match="^Branch 'fresh' does not exist$"):
            await s.switch_to_branch("fresh")
        s.close()


# ---------------------------------------------------------------------------
# TTL, side by side with the SDK's EncryptedSession (its Fernet tokens carry
# whole seconds; the clock below is whole seconds too).

T0 = 1_700_000_000


@pytest.fixture
def clock(monkeypatch):
    now = [float(T0)]
    monkeypatch.setattr(time, "time", lambda: now[0])
    return now


def ttl_pair(tmp_path, ttl):
    pytest.importorskip("cryptography", reason="EncryptedSession needs openai-agents[encrypt] (scripts/test-python.sh installs it)")
    from cryptography.fernet import Fernet

    from agents import SQLiteSession
    from agents.extensions.memory import EncryptedSession

    sdk = EncryptedSession(session_id="t", underlying_session=SQLiteSession("t", str(tmp_path / "sdk.db")), encryption_key=Fernet.generate_key().decode("ascii"), ttl=ttl)
    ours = SessionDBSession("t", path=str(tmp_path / "s.db"), key=KEY, ttl=ttl)
    return sdk, ours


A = {"role": "user", "content": "A"}
B = {"role": "assistant", "content": "B"}


@aio
async def test_ttl_leaves_expired_items_out_of_reads_like_encrypted_session(tmp_path, clock):
    sdk, ours = ttl_pair(tmp_path, 10)
    for s in (sdk, ours):
        clock[0] = T0
        await s.add_items([A])
        clock[0] = T0 + 5
        await s.add_items([B])
    for now, want in ((T0 + 10, [A, B]), (T0 + 11, [B]), (T0 + 15, [B]), (T0 + 16, [])):
        clock[0] = now
        assert await sdk.get_items() == await ours.get_items() == want, now
        assert await sdk.get_items(limit=1) == await ours.get_items(limit=1) == want[-1:], now
    # Still stored: a read with a longer ttl sees both.
    assert await SessionDBSession("t", store=ours.store, ttl=100).get_items() == [A, B]
    ours.close()


@aio
async def test_ttl_pop_item_skips_expired_items_like_encrypted_session(tmp_path, clock):
    sdk, ours = ttl_pair(tmp_path, 10)
    for s in (sdk, ours):
        clock[0] = T0
        await s.add_items([A, B])
        clock[0] = T0 + 8
        await s.add_items([{"role": "user", "content": "C"}])
    clock[0] = T0 + 12
    assert await sdk.pop_item() == await ours.pop_item() == {"role": "user", "content": "C"}
    assert await sdk.pop_item() is None
    assert await ours.pop_item() is None  # A and B were drained on the way
    events = ours.store.journal_events("t")
    # C popped, then B and A retracted on the way (expired), each one event.
    assert [e.payload for e in events if e.kind == "EntryRetracted"] == [{"seq": 3}, {"seq": 2}, {"seq": 1}]
    assert ours.store.get_session("t").entry_count == 0
    ours.close()


@aio
async def test_ttl_sweep_retracts_expired_entries_as_journal_events(tmp_path, clock):
    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as store:
        s = AdvancedSessionDBSession("t", store=store, ttl=60)
        clock[0] = T0
        await s.add_items([A, B])
        clock[0] = T0 + 30
        await s.add_items([{"role": "user", "content": "C"}])
        await s.create_branch_from_turn(2, "b")  # a fork of A, B (stamped T0)
        assert await s.sweep_expired() == []  # nothing expired yet
        clock[0] = T0 + 61
        assert await s.get_items(branch_id="main") == [{"role": "user", "content": "C"}]
        assert await s.get_conversation_turns(branch_id="main") == [{
            "turn": 1, "content": "C", "full_content": "C", "timestamp": "2023-11-14 22:13:50", "can_branch": True,
        }]
        before = len(store.journal_events("t"))
        fork = s.branch_session_id("b")
        assert await s.sweep_expired() == [("t", 1), ("t", 2), (fork, 1), (fork, 2)]
        retracted = [e for e in store.journal_events("t")[before:]]
        assert [(e.kind, e.payload) for e in retracted] == [("EntryRetracted", {"seq": 1}), ("EntryRetracted", {"seq": 2})]
        assert [e.payload for e in store.journal_events(fork) if e.kind == "EntryRetracted"] == [{"seq": 1}, {"seq": 2}]
        # Retracted, not deleted: left out of reads, counts and search.
        assert [e.content for e in store.get_transcript("t")] == ["C"]
        assert store.get_session("t").entry_count == 1
        assert await s.sweep_expired() == []
        s.close()


def test_ttl_is_seconds_and_not_combined_with_window(tmp_path):
    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as store:
        with pytest.raises(sessiondb.InvalidInputError, match="^ttl must be a number of seconds >= 0$"):
            SessionDBSession("t", store=store, ttl=-1)
        with pytest.raises(sessiondb.InvalidInputError, match="^ttl and window cannot be combined$"):
            SessionDBSession("t", store=store, ttl=5, window=8000)


@aio
async def test_ttl_with_an_injected_clock(tmp_path):
    now = [100.0]
    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as store:
        s = SessionDBSession("c", store=store, ttl=2.5, clock=lambda: now[0])
        await s.add_items([A])
        # Stamped with the clock: the entry's created_at_ms is the clock's.
        assert [e.created_at_ms for e in store.get_transcript("c")] == [100_000]
        now[0] = 102.5
        assert await s.get_items() == [A]
        now[0] = 102.501
        assert await s.get_items() == []
        assert await s.sweep_expired() == [("c", 1)]
        assert [e.kind for e in store.journal_events("c")][-1] == "EntryRetracted"
        s.close()


@aio
async def test_the_ledger_adds_every_run_where_the_sdk_replaces_a_turn(tmp_path):
    """Where the totals part: the SDK keeps a turn's last stored usage and drops
    a turn emptied by pop_item; the token ledger records every run's tokens."""
    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as store:
        s = AdvancedSessionDBSession("l", store=store)
        await s.add_items([{"role": "user", "content": "q"}])
        await s.store_run_usage(create_mock_run_result(Usage(requests=1, input_tokens=10, output_tokens=4, total_tokens=14)))
        await s.store_run_usage(create_mock_run_result(Usage(requests=1, input_tokens=6, output_tokens=2, total_tokens=8)))
        assert await s.get_session_usage() == {"requests": 1, "input_tokens": 6, "output_tokens": 2, "total_tokens": 8, "total_turns": 1}
        t = store.token_totals("l")
        assert (t.input, t.output) == (16, 6)
        await s.pop_item()
        assert await s.get_session_usage() is None
        t = store.token_totals("l")
        assert (t.input, t.output) == (16, 6)
        s.close()
