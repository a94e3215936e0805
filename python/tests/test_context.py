"""Context governance and restore through the binding (thin wrappers: exact
values for each entry point; the conformance cases cover the math). Every
result is a typed frozen record: attributes, repr, ==, to_dict()."""

import pytest

import sessiondb
from sessiondb import (
    Authority,
    CapacityBreakdown,
    CompactionPlan,
    ContextGovernance,
    ContextItem,
    ContextMeter,
    ContextStatus,
    CompactedRun,
    ModelLimits,
    OpenedSession,
    TokenCount,
    Transformation,
    TurnGovernance,
)


def test_capacity_and_meter():
    assert sessiondb.effective_context_capacity(128_000) == 115_200
    b = sessiondb.capacity_breakdown(128_000)
    assert isinstance(b, CapacityBreakdown)
    assert (b.raw, b.output_reserve, b.safety_margin, b.capacity) == (128_000, 10_240, 2_560, 115_200)
    assert b.to_dict() == {"raw": 128_000, "output_reserve": 10_240, "safety_margin": 2_560, "capacity": 115_200}
    assert repr(b) == "CapacityBreakdown(raw=128000, output_reserve=10240, safety_margin=2560, capacity=115200)"
    assert b == sessiondb.capacity_breakdown(128_000)
    assert b != sessiondb.capacity_breakdown(128_001)
    with pytest.raises(sessiondb.InvalidInputError):
        sessiondb.effective_context_capacity(0)
    m = sessiondb.meter(80_640, 115_200)
    assert isinstance(m, ContextMeter)
    assert (m.active_tokens, m.capacity, m.percent, m.label, m.band, m.overflow) == (
        80_640,
        115_200,
        70,
        "Ctx 70%",
        "amber",
        False,
    )
    assert m.to_dict() == {
        "active_tokens": 80_640,
        "capacity": 115_200,
        "percent": 70,
        "label": "Ctx 70%",
        "band": "amber",
        "overflow": False,
    }
    assert repr(m) == (
        "ContextMeter(active_tokens=80640, capacity=115200, percent=70, label='Ctx 70%', band='amber', overflow=False)"
    )
    assert m == sessiondb.meter(80_640, 115_200)
    assert m != sessiondb.meter(80_639, 115_200)
    assert sessiondb.meter(80_639, 115_200).band == "green"
    with pytest.raises(AttributeError):
        m.percent = 1  # frozen
    assert sessiondb.should_compact(115_201, 115_200) is True
    assert sessiondb.should_compact(115_200, 115_200) is False


def test_known_model_limits():
    lim = sessiondb.known_model_limits("gpt-4o-2024-08-06")
    assert isinstance(lim, ModelLimits)
    assert (lim.context_window, lim.max_output) == (128_000, 16_384)
    assert repr(lim) == "ModelLimits(context_window=128000, max_output=16384)"
    assert lim == sessiondb.known_model_limits("gpt-4o")
    assert lim != sessiondb.known_model_limits("gpt-5")
    assert sessiondb.known_model_limits("my-local-llm") is None


def test_token_counts():
    host = sessiondb.count_tokens("gpt-4o", "hello world", 7)
    assert isinstance(host, TokenCount)
    assert (host.tokens, host.method, host.encoding) == (7, "host", None)
    exact = sessiondb.count_tokens("gpt-4o", "hello world")
    assert (exact.tokens, exact.method, exact.encoding) == (2, "exact", "o200k_base")
    assert repr(exact) == "TokenCount(tokens=2, method='exact', encoding='o200k_base')"
    assert exact == sessiondb.count_tokens("gpt-4o-mini", "hello world")
    assert exact != sessiondb.count_tokens("gpt-4", "hello world")  # cl100k_base
    est = sessiondb.count_tokens("claude-sonnet-4", "abcd")
    assert (est.tokens, est.method, est.encoding) == (2, "estimate", None)
    assert sessiondb.estimate_tokens("abcdef") == 2


ITEMS = [
    {"seq": 1, "role": "user", "kind": "message", "tokens": 300, "text": "Please refactor the parser"},
    {"seq": 2, "role": "assistant", "kind": "message", "tokens": 400, "text": "Done."},
    {"seq": 3, "role": "user", "kind": "message", "tokens": 100, "text": "thanks"},
]


def test_compact_context_plan_and_apply_are_typed():
    plan = sessiondb.compact_context(ITEMS, 1000, 50, {"recent_user_turns": 1})
    assert isinstance(plan, CompactionPlan)
    assert (
        plan.capacity,
        plan.target_percent,
        plan.target_tokens,
        plan.tokens_before,
        plan.tokens_after,
        plan.reached_target,
        plan.compacted_seqs,
    ) == (1000, 50, 500, 800, 123, True, [1, 2])
    # Turns 1 and 2 are one run: one summary for both (DESIGN.md "Context governance").
    t = plan.transformations[0]
    assert isinstance(t, Transformation)
    assert (t.seq, t.last_seq, t.action, t.tokens_before, t.tokens_after, t.summary) == (
        1,
        2,
        "summarized",
        700,
        23,
        "[compacted seq 1–2: 2 items, 700 tokens] Please refactor the parser",
    )
    assert len(plan.transformations) == 1
    assert t == sessiondb.compact_context(ITEMS, 1000, 50, {"recent_user_turns": 1}).transformations[0]
    assert repr(t) == (
        "Transformation(seq=1, last_seq=2, action='summarized', tokens_before=700, tokens_after=23, "
        "summary='[compacted seq 1–2: 2 items, 700 tokens] Please refactor the parser')"
    )
    assert t.to_dict() == {
        "seq": 1,
        "last_seq": 2,
        "action": "summarized",
        "tokens_before": 700,
        "tokens_after": 23,
        "summary": "[compacted seq 1–2: 2 items, 700 tokens] Please refactor the parser",
    }
    assert repr(plan).startswith("CompactionPlan(capacity=1000, target_percent=50, ")
    assert plan == sessiondb.compact_context(ITEMS, 1000, 50, {"recent_user_turns": 1})
    assert plan != sessiondb.compact_context(ITEMS, 1000, 70, {"recent_user_turns": 1})
    d = plan.to_dict()
    assert d["compacted_seqs"] == [1, 2] and d["transformations"][0]["last_seq"] == 2

    # The run becomes one item; the turn after it is unchanged.
    applied = sessiondb.apply_compaction(plan, ITEMS)
    assert [type(x) for x in applied] == [ContextItem] * 2
    assert applied[0] == ContextItem(1, "user", "message", 23, text=t.summary, compacted=True)
    assert applied[1] == ContextItem(3, "user", "message", 100, text="thanks")
    assert applied[1].to_dict() == {
        "seq": 3,
        "role": "user",
        "kind": "message",
        "tokens": 100,
        "pinned": False,
        "text": "thanks",
        "call_ids": [],
        "compacted": False,
    }
    # The text may be user content: repr shows its length only.
    assert repr(applied[1]) == (
        "ContextItem(seq=3, role='user', kind='message', tokens=100, pinned=False, text=<6 chars>, "
        "call_ids=[], compacted=False)"
    )
    # Typed items and the dict form of a plan are accepted too; running again changes nothing.
    again = sessiondb.compact_context(applied, 1000, 50, {"recent_user_turns": 1})
    assert (again.transformations, again.tokens_after) == ([], 123)
    assert sessiondb.apply_compaction(plan.to_dict(), [x.to_dict() for x in applied]) == applied
    with pytest.raises(sessiondb.InvalidInputError):
        sessiondb.compact_context([ContextItem(1, "user", "speech", 10)], 1000)


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
    with pytest.raises(sessiondb.ContextOverflowError):
        sessiondb.compact_context([ContextItem(1, "system", "system", 2000, text="sys")], 1000)
    with pytest.raises(sessiondb.InvalidInputError):
        sessiondb.compact_context([{"seq": 1}], 1000)


def test_store_context_status_compact_and_restore(store):
    s = store.create_session("ctx", model="gpt-4o")
    for i in range(1, 11):
        store.append_entries(s.id, [sessiondb.NewEntry("user" if i % 2 else "assistant", f"turn {i}", tokens=1000)])
    st = store.context_status(s.id, 16_000)
    assert isinstance(st, ContextStatus)
    assert (st.model, st.capacity) == ("gpt-4o", 12_672)
    assert st.meter == sessiondb.meter(10_000, 12_672)
    assert (st.meter.percent, st.meter.label, st.meter.band, st.meter.overflow) == (78, "Ctx 78%", "amber", False)
    assert isinstance(st.turns[0], TurnGovernance)
    assert (st.turns[0].seq, st.turns[0].state, st.turns[0].pinned, st.turns[0].compacted_by) == (1, "verbatim", False, None)
    assert st.turns[0].to_dict() == {"seq": 1, "state": "verbatim", "pinned": False, "compacted_by": None}
    assert repr(st.turns[0]) == "TurnGovernance(seq=1, state='verbatim', pinned=False, compacted_by=None)"
    assert len(st.turns) == 10
    assert st.compacted == []
    assert repr(st).startswith("ContextStatus(model='gpt-4o', capacity=12672, meter=ContextMeter(")
    assert st == store.context_status(s.id, 16_000)
    assert st != store.context_status(s.id, 32_000)

    dry = store.compact_session(s.id, 16_000, dry_run=True)
    assert store.list_context_extensions(s.id) == []  # a dry run writes nothing
    plan = store.compact_session(s.id, 16_000)
    assert isinstance(plan, CompactionPlan)
    assert plan == dry
    assert (plan.tokens_before, plan.tokens_after, plan.target_tokens, plan.compacted_seqs) == (
        10_000,
        8_021,
        8_870,
        [1, 2],
    )
    # Turns 1 and 2 are one run with one summary.
    t1 = plan.transformations[0]
    assert (t1.seq, t1.last_seq, t1.action, t1.summary, t1.tokens_before, t1.tokens_after) == (
        1,
        2,
        "summarized",
        "[compacted seq 1–2: 2 items, 2000 tokens] turn 1",
        2000,
        21,
    )
    assert len(plan.transformations) == 1
    after = store.context_status(s.id, 16_000)
    # Each turn names its run; the run holds the transformation once.
    assert (after.turns[0].state, after.turns[0].compacted_by) == ("compacted", 1)
    assert (after.turns[1].state, after.turns[1].compacted_by) == ("compacted", 1)
    assert after.turns[2].compacted_by is None
    assert [(r.first_seq, r.last_seq, r.transformation) for r in after.compacted] == [(1, 2, t1)]
    assert after.meter.label == "Ctx 63%"
    assert after != st

    gov = store.recover_context_governance(s.id)
    assert isinstance(gov, ContextGovernance)
    assert (gov.pinned, gov.excluded) == ([], [])
    assert isinstance(gov.compacted[0], CompactedRun)
    assert [(r.first_seq, r.last_seq) for r in gov.compacted] == [(1, 2)]
    assert gov.compacted[0].transformation == t1
    assert [h.n for h in gov.history] == [1]
    assert gov.history[0].plan == plan
    assert repr(gov).startswith("ContextGovernance(pinned=[], excluded=[], compacted=[CompactedRun(first_seq=1, last_seq=2, transformation=Transformation(seq=1, ")
    assert gov == store.recover_context_governance(s.id)
    assert store.record_turn_decision(s.id, "pin", [10]) == 2
    gov2 = store.recover_context_governance(s.id)
    assert gov2.pinned == [10]
    assert gov2 != gov
    assert gov2.to_dict()["compacted"] == [{"first_seq": 1, "last_seq": 2, "transformation": t1.to_dict()}]
    assert gov2.to_dict()["compacted"][0]["transformation"]["summary"] == plan.transformations[0].summary
    # The saved transcript is never modified by compaction.
    assert [e.content for e in store.iter_transcript(s.id)] == [f"turn {i}" for i in range(1, 11)]

    opened = store.open_saved_session(s.id)
    assert isinstance(opened, OpenedSession)
    a = opened.authority
    assert isinstance(a, Authority)
    assert (a.permission_profile, a.full_access, a.sensitive_transfer, a.temporary_approvals) == ("manual", False, False, [])
    assert repr(a) == "Authority(permission_profile='manual', full_access=False, sensitive_transfer=False, temporary_approvals=[])"
    assert a.to_dict() == {
        "permission_profile": "manual",
        "full_access": False,
        "sensitive_transfer": False,
        "temporary_approvals": [],
    }
    k = opened.knowledge
    assert isinstance(k, sessiondb.SavedSessionState)
    assert k.session == store.get_session(s.id)
    assert (k.session.id, k.session.model) == (s.id, "gpt-4o")
    assert k.transcript == store.get_transcript(s.id)
    assert [e.seq for e in k.transcript] == list(range(1, 11))
    assert k.token_totals == store.token_totals(s.id)
    assert k.governance == gov2
    assert k.other_extensions == []
    assert repr(opened).startswith("OpenedSession(knowledge=SavedSessionState(session=Session(id=")
    assert opened == store.open_saved_session(s.id)
    store.append_transcript(s.id, "user", "turn 11")
    assert store.open_saved_session(s.id) != opened
    d = opened.to_dict()
    assert d["authority"]["permission_profile"] == "manual"
    assert d["knowledge"]["session"]["id"] == s.id
    assert [e["seq"] for e in d["knowledge"]["transcript"]] == list(range(1, 11))
    with pytest.raises(sessiondb.NotFoundError):
        store.open_saved_session("missing")


def test_stateless_pipeline_from_entries_and_governance(store):
    """active_context_items / governance_turns / summarize_item: the pure
    pipeline Kotlin and Swift had alone (issue 11 drift), from a stored
    transcript and its replayed governance."""
    s = store.create_session(name="ctx", model="gpt-4o")
    long = "word " * 400
    for i in range(1, 7):
        store.append_transcript(s.id, "user" if i % 2 else "assistant", f"{i} {long}")
    store.record_turn_decision(s.id, "pin", [1])
    store.record_turn_decision(s.id, "exclude", [2])
    gov = store.recover_context_governance(s.id)
    entries = store.get_transcript(s.id)
    items = sessiondb.active_context_items(entries, gov, "gpt-4o")
    assert [i.seq for i in items] == [1, 3, 4, 5, 6]
    assert [i.pinned for i in items] == [True, False, False, False, False]
    assert [i.tokens for i in items] == [sessiondb.count_tokens("gpt-4o", e.content).tokens for e in entries if e.seq != 2]
    assert [(t.seq, t.state, t.pinned) for t in sessiondb.governance_turns(gov, 4)] == [
        (1, "verbatim", True),
        (2, "excluded", False),
        (3, "verbatim", False),
        (4, "verbatim", False),
    ]
    plan = sessiondb.compact_context(items, sum(i.tokens for i in items), 70, {"recent_user_turns": 1, "model": "gpt-4o"})
    store.record_compaction(s.id, plan)
    turns = sessiondb.governance_turns(store.recover_context_governance(s.id), 6)
    first = plan.transformations[0]
    assert turns[first.seq - 1].state == "compacted"
    assert turns[first.seq - 1].compacted_by == first.seq
    tool = {"seq": 3, "role": "tool", "kind": "tool_result", "tokens": 900, "text": "line one\n\n  line two", "call_ids": ["A"]}
    assert sessiondb.summarize_item(tool) == "[tool result: 20 bytes, truncated to preview] line one line two"
    assert sessiondb.summarize_item(items[0]) == sessiondb.summarize_item(items[0].to_dict())
    with pytest.raises(sessiondb.InvalidInputError):
        sessiondb.summarize_item({"seq": 1})
    # A host-supplied count never allocates without bound.
    assert len(sessiondb.governance_turns(gov, 1_000_000)) == 1_000_000
    with pytest.raises(sessiondb.InvalidInputError, match="entry_count 1000001 is above 1000000 turns"):
        sessiondb.governance_turns(gov, 1_000_001)
    with pytest.raises(OverflowError):
        sessiondb.governance_turns(gov, 2**64)


def test_sparse_seqs_are_refused_not_expanded():
    """Items with seqs 1 and 2**63 aborted the interpreter: a run's seqs were
    expanded one by one when the plan reached Python (red-team finding)."""
    items = [
        {"seq": 1, "role": "user", "kind": "message", "tokens": 900, "text": "a"},
        {"seq": 2**63, "role": "user", "kind": "message", "tokens": 900, "text": "b"},
    ]
    with pytest.raises(sessiondb.InvalidInputError, match="context item seqs span 1 to 9223372036854775808, more than 10000000 seqs"):
        sessiondb.compact_context(items, 1000, 10, {"recent_user_turns": 0})


def _compacted_thclaws(path, turns, summary):
    """A thClaws file of `turns` turns ending in a compaction whose one
    message is `summary` (scripts/gen-compacted-thclaws.py, smaller)."""
    import json

    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"type": "header", "id": "runs", "model": "anthropic/claude-sonnet-4", "cwd": "/w", "created_at": 1}) + "\n")
        for i in range(turns):
            f.write(json.dumps({"type": "user" if i % 2 == 0 else "assistant", "content": [{"type": "text", "text": f"turn {i}"}], "timestamp": 1 + i}) + "\n")
        f.write(json.dumps({"type": "compaction", "messages": [{"role": "user", "content": [{"type": "text", "text": summary}]}], "replaces_count": turns, "timestamp": turns + 1}) + "\n")


def test_an_imported_compaction_is_one_run_not_one_copy_per_turn(store, tmp_path):
    """Red-team finding: a compaction run's summary was copied once per seq
    it covers (a 100,000-turn file ending in a 20 KB compaction: 3.97 GB for
    `sessiondb context`). The host now gets one run; each turn names it."""
    summary = "s" * 20_480
    f = tmp_path / "runs.jsonl"
    _compacted_thclaws(f, 2_000, summary)
    sid = store.import_file(str(f), "thclaws").sessions[0].session_id
    model = store.get_session(sid).model
    text = "user: " + summary
    gov = store.recover_context_governance(sid)
    assert [(r.first_seq, r.last_seq) for r in gov.compacted] == [(1, 2_000)]
    t = gov.compacted[0].transformation
    assert (t.seq, t.last_seq, t.action, t.summary, t.tokens_before, t.tokens_after) == (1, 2_000, "summarized", text, 0, sessiondb.count_tokens(model, text).tokens)
    st = store.context_status(sid, 128_000)
    assert [(r.first_seq, r.last_seq, r.transformation) for r in st.compacted] == [(1, 2_000, t)]
    assert {(x.state, x.pinned, x.compacted_by) for x in st.turns} == {("compacted", False, 1)}
    assert len(st.turns) == 2_000
    assert st.turns[0].to_dict() == {"seq": 1, "state": "compacted", "pinned": False, "compacted_by": 1}
    assert sessiondb.governance_turns(gov, 2_001)[2_000].compacted_by is None

    # A pin in the middle leaves two runs with the same transformation.
    store.record_turn_decision(sid, "pin", [1_000])
    gov = store.recover_context_governance(sid)
    assert [(r.first_seq, r.last_seq, r.transformation) for r in gov.compacted] == [(1, 999, t), (1_001, 2_000, t)]
    assert gov.to_dict()["compacted"][1] == {"first_seq": 1_001, "last_seq": 2_000, "transformation": t.to_dict()}
    st = store.context_status(sid, 128_000)
    assert [(x.seq, x.state, x.pinned, x.compacted_by) for x in st.turns[998:1_001]] == [
        (999, "compacted", False, 1),
        (1_000, "verbatim", True, None),
        (1_001, "compacted", False, 1_001),
    ]
    assert [(x.first_seq, x.last_seq) for x in st.compacted] == [(1, 999), (1_001, 2_000)]
    # The summary is sent once (at the run's first seq), then the pinned turn.
    view = store.active_context(sid, 128_000)
    assert [(i.seq, i.last_seq, i.state, i.text) for i in view.items] == [(1, 2_000, "compacted", text), (1_000, None, "verbatim", "turn 999")]
    assert store.open_saved_session(sid).knowledge.governance == gov
    # The host's state passed back in reads the same.
    assert [x.compacted_by for x in sessiondb.governance_turns(gov, 2_000)[998:1_001]] == [1, None, 1_001]
