"""Language-neutral conformance cases (tests/conformance/**/*.json).

Every case of every file whose `op`/`function` this binding can execute is
run; the count is printed (and written to $SESSIONDB_CONFORMANCE_COUNT_FILE
if set). The repo root is found from $SESSIONDB_REPO (set by
scripts/test-python.sh) or from this file's location.
"""

import glob
import json
import os
from pathlib import Path

import pytest

import sessiondb
from store_steps import run_case as run_store_case

ROOT = Path(os.environ.get("SESSIONDB_REPO", Path(__file__).resolve().parents[2]))
CONF = ROOT / "tests" / "conformance"


def _err_kind(e: BaseException) -> str:
    assert isinstance(e, sessiondb.SessionDBError), repr(e)
    return e.kind


def run_decrypt_field(case):
    key = bytes.fromhex(case["key_hex"])
    env = case["envelope"] if isinstance(case["envelope"], str) else json.dumps(case["envelope"])
    try:
        pt = sessiondb.decrypt_field(key, case["record_id"], env)
    except sessiondb.SessionDBError as e:
        return {"error": _err_kind(e)}
    return {"plaintext": pt.decode("utf-8")}


def run_workspace_index(case):
    return {"index": sessiondb.workspace_index(bytes.fromhex(case["key_hex"]), case["path"])}


def run_aad(case):
    return {"aad": sessiondb.envelope_aad(case["record_id"])}


def _error(e):
    out = {"error": _err_kind(e)}
    if isinstance(e, sessiondb.ContextOverflowError):
        out["breakdown"] = {
            k: getattr(e, k)
            for k in ("capacity", "system", "pinned", "recent", "tool_results", "other", "protected_total", "remedies")
        }
    return out


def run_capacity(case):
    i = case["input"]
    try:
        return sessiondb.capacity_breakdown(i["raw"], i["output_reserve"], i["model_max_output"]).to_dict()
    except sessiondb.SessionDBError as e:
        return _error(e)


def run_meter(case):
    i = case["input"]
    try:
        m = sessiondb.meter(i["active_tokens"], i["capacity"]).to_dict()
    except sessiondb.SessionDBError as e:
        return _error(e)
    m["should_compact"] = sessiondb.should_compact(i["active_tokens"], i["capacity"])
    return m


def run_count_tokens(case):
    i = case["input"]
    return sessiondb.count_tokens(i["model"], i["text"], i.get("host_count")).to_dict()


def run_compact_context(case):
    i = case["input"]
    args = (i["items"], i["capacity"], i["target_percent"], i["options"])
    try:
        plan = sessiondb.compact_context(*args)
    except sessiondb.SessionDBError as e:
        return _error(e)
    # Idempotence is part of every successful case (as in the Rust runner).
    applied = sessiondb.apply_compaction(plan, i["items"])
    assert all(isinstance(x, sessiondb.ContextItem) for x in applied)
    again = sessiondb.compact_context(applied, *args[1:])
    assert again.transformations == [], again.compacted_seqs
    assert again.tokens_after == plan.tokens_after
    out = plan.to_dict()
    out["second_run"] = again.to_dict()
    want = case.get("expect", {}).get("second_run")
    if want is not None:
        for k, v in want.items():
            assert out["second_run"][k] == v, f"second_run.{k}"
        out["second_run"] = want
    return out


SAMPLES = ROOT.parent / "shared" / "samples"
KEYS = ("session_id", "entries", "tool_calls", "tool_results", "input_tokens", "output_tokens", "cached_tokens")


def run_import_file(case, tmp_path_factory=None):
    if not SAMPLES.exists():
        pytest.skip("../shared/samples is absent")
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        with sessiondb.SessionStore(os.path.join(d, "s.db"), key=bytes([8] * 32)) as st:
            path = str(SAMPLES / case["input"]["sample"])
            rep = st.import_file(path)
            again = st.import_file(path)
    assert (again.status, again.sessions) == ("up_to_date", [])
    return {
        "format": rep.format,
        "status": rep.status,
        "sessions": [{k: getattr(x, k) for k in KEYS} for x in rep.sessions],
    }


def run_read_thclaws(case):
    import base64

    inp = case["input"]
    data = inp["text"].encode("utf-8") if "text" in inp else base64.b64decode(inp["base64"])
    return sessiondb.read_thclaws_digest(data, "fallback").to_dict()


def run_write_thclaws(case):
    text = sessiondb.write_thclaws_json(case["input"]["session"])
    assert text.endswith("\n")
    return {"lines": [line for line in text.split("\n") if line]}


RUNNERS = {
    "read_thclaws": run_read_thclaws,
    "write_thclaws": run_write_thclaws,
    "import_file": run_import_file,
    "effective_context_capacity": run_capacity,
    "meter": run_meter,
    "count_tokens": run_count_tokens,
    "compact_context": run_compact_context,
    "decrypt_field": run_decrypt_field,
    "workspace_index": run_workspace_index,
    "aad": run_aad,
}


def load_cases():
    out = []
    for f in sorted(glob.glob(str(CONF / "**" / "*.json"), recursive=True)):
        doc = json.loads(Path(f).read_text(encoding="utf-8"))
        rel = os.path.relpath(f, CONF)
        for c in doc.get("cases", []):
            op = c.get("op") or c.get("function") or doc.get("function") or ("store_steps" if "steps" in c else None)
            out.append(pytest.param(rel, op, c, id=f"{rel}::{c.get('name')}"))
    return out


CASES = load_cases()
RAN = []


@pytest.mark.parametrize("file,op,case", CASES)
def test_conformance_case(file, op, case, tmp_path):
    if op == "store_steps":
        run_store_case(case, str(tmp_path / "state" / "sessions.db"))
        RAN.append(f"{file}::{case.get('name')}")
        return
    runner = RUNNERS.get(op)
    if runner is None:
        pytest.skip(f"{file}: op `{op}` not bound in Python yet")
    got = runner(case)
    if "error" in case:
        assert got.get("error") == case["error"], got
        if "breakdown" in case:
            assert got["breakdown"] == case["breakdown"]
    else:
        if "error" not in case["expect"]:
            assert "error" not in got, got
        # Every field present in `expect` must match exactly; absent ones are not checked.
        for key, want in case["expect"].items():
            assert got.get(key) == want, f"{file} {case.get('name')}: field {key}: {got.get(key)!r} != {want!r}"
    RAN.append(f"{file}::{case.get('name')}")


def test_zz_conformance_count():
    """Runs last (file order): prints and records how many cases ran."""
    n = len(RAN)
    print(f"\nconformance: {n} of {len(CASES)} cases run by Python")
    out = os.environ.get("SESSIONDB_CONFORMANCE_COUNT_FILE")
    if out:
        Path(out).write_text(f"{n} {len(CASES)}\n")
    assert len(CASES) == 0 or n > 0
