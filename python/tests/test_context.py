"""Context governance and restore through the binding (thin wrappers: exact
values for each entry point; the conformance cases cover the math)."""

import pytest

import sessiondb


def test_capacity_and_meter():
    assert sessiondb.effective_context_capacity(128_000) == 115_200
    assert sessiondb.capacity_breakdown(128_000) == {
        "raw": 128_000,
        "output_reserve": 10_240,
        "safety_margin": 2_560,
        "capacity": 115_200,
    }
    with pytest.raises(sessiondb.InvalidInputError):
        sessiondb.effective_context_capacity(0)
    assert sessiondb.meter(80_640, 115_200) == {
        "active_tokens": 80_640,
        "capacity": 115_200,
        "percent": 70,
        "label": "Ctx 70%",
        "band": "amber",
        "overflow": False,
    }
    assert sessiondb.should_compact(115_201, 115_200) is True
    assert sessiondb.should_compact(115_200, 115_200) is False


def test_token_counts():
    assert sessiondb.count_tokens("gpt-4o", "hello world", 7) == {"tokens": 7, "method": "host"}
    assert sessiondb.count_tokens("gpt-4o", "hello world") == {"tokens": 2, "method": "exact", "encoding": "o200k_base"}
    assert sessiondb.estimate_tokens("abcdef") == 2


def test_irreducible_overflow_has_breakdown_attributes():
    items = [{"seq": 1, "role": "system", "kind": "system", "tokens": 2000, "text": "sys"}]
    with pytest.raises(sessiondb.ContextOverflowError) as ei:
        sessiondb.compact_context(items, 1000)
    e = ei.value
    assert (e.code, e.kind, e.capacity, e.system, e.protected_total) == (
        "ERR_CONTEXT_OVERFLOW",
        "ContextOverflow",
        1000,
        2000,
        2000,
    )
    assert (e.pinned, e.recent, e.tool_results, e.other) == (0, 0, 0, 0)
    assert e.remedies[0] == "Shorten the system prompt (system: 2000 tokens)."
    with pytest.raises(sessiondb.InvalidInputError):
        sessiondb.compact_context([{"seq": 1}], 1000)


def test_store_context_status_compact_and_restore(store):
    s = store.create_session("ctx", model="gpt-4o")
    for i in range(1, 11):
        store.append_entries(s.id, [sessiondb.NewEntry("user" if i % 2 else "assistant", f"turn {i}", tokens=1000)])
    st = store.context_status(s.id, 16_000)
    assert (st["model"], st["capacity"]) == ("gpt-4o", 12_672)
    assert st["meter"] == {
        "active_tokens": 10_000,
        "capacity": 12_672,
        "percent": 78,
        "label": "Ctx 78%",
        "band": "amber",
        "overflow": False,
    }
    assert st["turns"][0] == {"seq": 1, "state": "verbatim", "pinned": False, "compaction": None}
    assert len(st["turns"]) == 10

    dry = store.compact_session(s.id, 16_000, dry_run=True)
    assert store.list_context_extensions(s.id) == []  # a dry run writes nothing
    plan = store.compact_session(s.id, 16_000)
    assert plan == dry
    assert (plan["tokens_before"], plan["tokens_after"], plan["target_tokens"], plan["compacted_seqs"]) == (
        10_000,
        8_011,
        8_870,
        [1, 2],
    )
    assert plan["transformations"][0] == {
        "seq": 1,
        "action": "summarized",
        "summary": "[user] turn 1",
        "tokens_before": 1000,
        "tokens_after": 5,
    }
    gov = store.recover_context_governance(s.id)
    assert sorted(gov["compacted"]) == ["1", "2"]  # JSON object keys
    assert [h["n"] for h in gov["history"]] == [1]
    assert store.record_turn_decision(s.id, "pin", [10]) == 2
    assert store.recover_context_governance(s.id)["pinned"] == [10]
    # The saved transcript is never modified by compaction.
    assert [e.content for e in store.iter_transcript(s.id)] == [f"turn {i}" for i in range(1, 11)]

    opened = store.open_saved_session(s.id)
    assert opened["authority"] == {
        "permission_profile": "manual",
        "full_access": False,
        "sensitive_transfer": False,
        "temporary_approvals": [],
    }
    k = opened["knowledge"]
    assert (k["session"]["id"], k["session"]["model"]) == (s.id, "gpt-4o")
    assert [e["seq"] for e in k["transcript"]] == list(range(1, 11))
    assert k["governance"]["pinned"] == [10]
    with pytest.raises(sessiondb.NotFoundError):
        store.open_saved_session("missing")
