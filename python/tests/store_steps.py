"""Runner of the store conformance cases (tests/conformance/store/*.json):
sequences of store calls with expected results and error kinds. The call
vocabulary is in the file's `description`; results are compared as the
records' `to_dict()` forms (snake_case keys, like the core's serde forms)."""

import json

import sessiondb

KEY = bytes([7] * 32)


def _plain(v):
    """A result as JSON values (records by to_dict(), tuples as lists)."""
    if hasattr(v, "to_dict"):
        v = v.to_dict()
    return json.loads(json.dumps(v))


def subst(v, saved):
    if isinstance(v, str) and v.startswith("$"):
        return saved[v[1:]]
    if isinstance(v, list):
        return [subst(x, saved) for x in v]
    if isinstance(v, dict):
        return {k: subst(x, saved) for k, x in v.items()}
    return v


def mismatch(expected, actual, at="result"):
    if isinstance(expected, dict) and isinstance(actual, dict):
        for k, ev in expected.items():
            if k not in actual:
                return f"{at}.{k}: missing in {actual!r}"
            m = mismatch(ev, actual[k], f"{at}.{k}")
            if m:
                return m
        return None
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for i, (ev, av) in enumerate(zip(expected, actual)):
            m = mismatch(ev, av, f"{at}[{i}]")
            if m:
                return m
        return None
    return None if expected == actual else f"{at}: expected {expected!r}, got {actual!r}"


def _page(a):
    kw = {k: a[k] for k in ("from_seq", "limit") if k in a}
    return kw


def _search(s, a):
    """The search call of tests/conformance/search/: hits sorted by (session
    id, seq), each with the snippet's highlighted substrings as Python slices
    its own str with its code-point offsets."""
    r = s.search(a["query"], sessiondb.SearchOptions(limit=a.get("limit"), sessions=a.get("sessions", False)))
    hits = [
        {
            "session_id": h.session_id,
            "seq": h.seq,
            "role": h.role,
            "field": h.field,
            "snippet": h.snippet,
            "marked": [h.snippet[x.start : x.end] for x in h.highlights],
        }
        for h in r.hits
    ]
    return {"total": r.total, "hits": sorted(hits, key=lambda h: (h["session_id"], h["seq"]))}


CALLS = {
    "search": _search,
    "delete_session": lambda s, a: s.delete_session(a["id"]),
    "create_session": lambda s, a: s.create_session(a.get("name")),
    "get_session": lambda s, a: s.get_session(a["id"]),
    "rename_session": lambda s, a: s.rename_session(a["id"], a["name"]),
    "append_transcript": lambda s, a: s.append_transcript(a["session_id"], a["role"], a["content"]),
    "append_generated": lambda s, a: s.append_entries(
        a["session_id"],
        [sessiondb.NewEntry(a["role"], a["content"].replace("{i}", str(i))) for i in range(1, a["count"] + 1)],
    )
    and None,
    "get_transcript": lambda s, a: [e.to_dict() for e in s.get_transcript(a["session_id"], **_page(a))],
    "retract_entry": lambda s, a: (lambda e: e and e.to_dict())(s.retract_entry(a["session_id"], a["seq"])),
    "retract_last_entry": lambda s, a: (lambda e: e and e.to_dict())(s.retract_last_entry(a["session_id"])),
    "get_transcript_tail": lambda s, a: [e.to_dict() for e in s.get_transcript_tail(a["session_id"], **({"limit": a["limit"]} if "limit" in a else {}))],
    "append_with_item": lambda s, a: s.append_entries_with_meta(
        a["session_id"], [(sessiondb.NewEntry(a["role"], a["content"]), sessiondb.EntryMeta(item=a["item"]))]
    )[0].to_dict(),
    "get_transcript_tail_with_meta": lambda s, a: [
        {"entry": e.to_dict(), "meta": {"model": m.model, "provider": m.provider, "item": m.item}}
        for e, m in s.get_transcript_tail_with_meta(a["session_id"], **({"limit": a["limit"]} if "limit" in a else {}))
    ],
    "active_context": lambda s, a: s.active_context(a["session_id"], a["raw_window"]).to_dict(),
    "fork_session": lambda s, a: s.fork_session(a["session_id"], at_seq=a.get("at_seq")),
    "record_tokens": lambda s, a: s.record_tokens(a["session_id"], input=a["input"], output=a["output"], cached=a["cached"]),
    "token_totals": lambda s, a: s.token_totals(a["session_id"]),
    "recovery_key_text": lambda s, a: sessiondb.recovery_key_text(bytes.fromhex(a["key_hex"])),
    "parse_recovery_key": lambda s, a: sessiondb.parse_recovery_key(a["text"]).hex(),
    "journal_append": lambda s, a: s.journal_append(a["event_id"], a["session_id"], a["kind"], a["payload"]),
    "journal_events": lambda s, a: [e.to_dict() for e in s.journal_events(a["session_id"])],
    "dispatch_operation": lambda s, a: s.dispatch_operation(a["session_id"], a["operation_id"]),
    "complete_operation": lambda s, a: s.complete_operation(a["session_id"], a["operation_id"], a["outcome"]),
    "open_operations": lambda s, a: [
        {"session_id": o.session_id, "operation_id": o.operation_id} for o in s.open_operations()
    ],
    "open_recovery_report": lambda s, a: s.open_recovery_report(),
}


def run_case(case, db_path):
    """Run one case on a fresh store at `db_path`; raises AssertionError naming the step."""
    store = sessiondb.SessionStore(db_path, key=KEY)
    saved = {}
    try:
        for i, step in enumerate(case["steps"]):
            what = f"case {case['name']} step {i} ({step['call']})"
            if step["call"] == "reopen":
                store.close()
                store = sessiondb.SessionStore(db_path, key=KEY)
                continue
            args = subst(step.get("args", {}), saved)
            try:
                got = _plain(CALLS[step["call"]](store, args))
            except sessiondb.SessionDBError as e:
                assert step.get("error") == e.kind, f"{what}: failed with {e.kind}: {e}"
                continue
            assert "error" not in step, f"{what}: expected {step['error']}, got {got!r}"
            if "as" in step:
                saved[step["as"]] = got["id"]
            if "expect" in step:
                m = mismatch(subst(step["expect"], saved), got)
                assert m is None, f"{what}: {m}"
            if "expect_len" in step:
                assert len(got) == step["expect_len"], f"{what}: {len(got)} items"
            for key, idx in (("expect_first", 0), ("expect_last", -1)):
                if key in step:
                    m = mismatch(subst(step[key], saved), got[idx], key)
                    assert m is None, f"{what}: {m}"
    finally:
        store.close()
