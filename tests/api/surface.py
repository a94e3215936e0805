#!/usr/bin/env python3
"""The host surface list (tests/api/surface.json) and its checkers.

The list is bridge/api.rs (every method, function and record the bridge
generator writes for all hosts: its parameters, `defaults(...)` and fields)
with surface.json over it: surface.json declares the hand-written methods,
functions and records, and the generated ones where a host departs, in
snake_case with Python's defaults (the canonical signature); each host names them in its convention (Python snake_case,
Node/Kotlin/Swift camelCase) and an entry states a host's deliberate
difference (`"node": {"params": [...]}`, `"uniffi": {"name": ...}`, or
`"node": null` = not in that host, with `"why"`). The checkers read each
host's real declarations and report every method, parameter, default or
record field that differs from the list:

  python: the built module, by `inspect` (python/tests/test_surface.py)
  node:   the installed package's generated native.d.ts and its prototype
          (node/__test__/surface.test.mjs, which uses the JSON directly)
  kotlin: the generated Kotlin source (`surface.py kotlin FILE`, test-kotlin.sh)
  swift:  the generated Swift source (`surface.py swift FILE`, test-swift.sh)
  readme: the API table of docs/api.md (`surface.py readme docs/api.md`, and
          core/tests/api_surface.rs in cargo test)
  errors: the error classes written by hand (python/python/sessiondb/errors.py
          and types.py, node/errors.js and errors.d.ts) against the error
          declaration in bridge/api.rs (`surface.py errors`; run by
          python/tests/test_surface.py and node/__test__/surface.test.mjs):
          every kind's class, code, order and attributes

Usage: surface.py kotlin|swift FILE | node D.TS... | readme README [--write] | errors | json
(json: the whole list, surface.json over bridge/api.rs, as the checkers see it)
Exit status 1 with one line per difference.
"""

import functools
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SURFACE = HERE / "surface.json"


API = HERE.parent.parent / "bridge" / "api.rs"
# The declaration's files, read as one text in this order
# (`sessiondb_bridge::API_FILES`).
API_FILES = [API, API.parent / "api" / "store.rs", API.parent / "api" / "functions.rs"]


def api_text():
    """bridge/api.rs and the rest of the declaration (API_FILES) as one text."""
    return "".join(p.read_text(encoding="utf-8") for p in API_FILES)
# The schema with every record's fields filled in from the core's types, as
# the generator reads it (bridge/api.rs lists only where a host departs).
SCHEMA = HERE.parent.parent / "bridge" / "generated" / "api.rs"


def _defaults(attr):
    """`defaults(a = None, b = 1000, c = false)` of a `#[bridge(...)]` as {name: JSON text}."""
    m = re.search(r"defaults\(([^)]*)\)", attr)
    out = {}
    for part in split_top(m.group(1)) if m else []:
        k, v = (x.strip() for x in part.split("=", 1))
        out[k] = "null" if v == "None" else v
    return out


@functools.lru_cache(maxsize=None)
def _bridge_entries_json():
    """bridge_entries(), parsed once per process (load() runs per check)."""
    return json.dumps(_parse_bridge())


def bridge_entries():
    """A fresh copy of what `bridge/api.rs` declares (see _parse_bridge)."""
    return json.loads(_bridge_entries_json())


def _parse_bridge():
    """The methods, functions and records `bridge/api.rs` declares (the
    bridge generator's input, issue 11 item 4), as surface entries: each
    method's parameters after `&self` with its `defaults(...)`, each
    struct's fields (from bridge/generated/api.rs, the schema completed from
    the core's types and functions). Every host generates these from that one
    declaration, so tests/api/surface.json lists them only where a host departs."""
    schema = re.sub(r"(?m)^\s*//.*$", "", SCHEMA.read_text(encoding="utf-8"))
    # prettyplease wraps a long attribute over lines: one line each again.
    schema = re.sub(r"(?s)#\[bridge\(\n(.*?)\n\s*\)\]", lambda m: "#[bridge(" + " ".join(l.strip() for l in m.group(1).split("\n")) + ")]", schema)
    out = {"methods": {}, "functions": {}, "records": {}}
    for trait, kind in (("SessionStore", "methods"), ("Functions", "functions")):
        body = re.search(r"(?ms)^trait " + trait + r" \{$(.*?)^\}$", schema).group(1)
        for attr, name, params in re.findall(r"(?ms)(?:#\[bridge\(([^\n]*?)\)\]\s*)?fn (\w+)\((.*?)\)(?:\s*->[^;]*)?;", body):
            if name.startswith("_"):  # a private helper (`_bench_core`): not API
                continue
            d = _defaults(attr)
            # A getter is the property of its name in Python and Node.
            name = (re.findall(r'\bgetter = "(\w+)"', attr) or [name])[0]
            names = [p.split(":", 1)[0].strip() for p in split_top(params) if p.strip() not in ("&self", "self")]
            out[kind][name] = {"params": [f"{n}={d[n]}" if n in d else n for n in names]}
    for attr, name, fields in re.findall(r"(?ms)^(?:#\[bridge\(([^\n]*)\)\]\n)?pub struct (\w+) \{$(.*?)^\}$", schema):
        if "skip(" not in attr:  # a host declaring it by hand lists it in surface.json
            out["records"][name] = {"fields": re.findall(r"(?m)^\s*pub (\w+):", fields)}
    return out


def load():
    """The surface: tests/api/surface.json over what bridge/api.rs declares
    (an entry in surface.json replaces the derived one: hand-written
    methods, and generated ones where a host departs)."""
    s = json.loads(SURFACE.read_text(encoding="utf-8"))
    for kind, entries in bridge_entries().items():
        s[kind] = {**entries, **s[kind]}
    return s


def camel(s):
    head, *rest = s.lstrip("_").split("_")
    return ("_" if s.startswith("_") else "") + head + "".join(w[:1].upper() + w[1:] for w in rest)


def parse_param(p):
    """'name' -> (name, False, None); 'name=1000' -> (name, True, 1000); '*' kept."""
    if "=" not in p:
        return (p, False, None)
    name, d = p.split("=", 1)
    return (name, True, json.loads(d))


def host_entry(entry, host):
    """The entry as `host` declares it: None if absent there, else a dict
    with name/params/fields (canonical names, host overrides applied)."""
    over = entry.get(host, {})
    if over is None:
        return None
    merged = {k: v for k, v in entry.items() if k not in ("python", "node", "uniffi", "why")}
    merged.update(over)
    return merged


def expected(host):
    """{kind: {host name: (canonical name, [(param, has_default, default)] | [fields])}}"""
    s = load()
    conv = (lambda n: n) if host == "python" else camel
    out = {"methods": {}, "functions": {}, "records": {}}
    for kind in ("methods", "functions"):
        for name, entry in s[kind].items():
            e = host_entry(entry, host)
            if e is None:
                continue
            params = [parse_param(p) for p in e.get("params", []) if p != "*"]
            out[kind][e.get("name", conv(name))] = (name, [(conv(p), h, d) for p, h, d in params])
    for name, entry in s["records"].items():
        e = host_entry(entry, host)
        if e is None:
            continue
        out["records"][e.get("name", name)] = (name, [conv(f) for f in e["fields"]])
    return out


def compare(host, actual, defaults_checked=True, only_listed_records=True):
    """Differences between expected(host) and `actual` (same shape, params
    as (name, has_default, default))."""
    want = expected(host)
    problems = []
    for kind in ("methods", "functions"):
        for hname, (cname, params) in want[kind].items():
            if hname not in actual[kind]:
                problems.append(f"{host}: {kind[:-1]} {hname} ({cname}) is missing")
                continue
            got = actual[kind][hname]
            if [p[0] for p in got] != [p[0] for p in params]:
                problems.append(f"{host}: {hname} parameters {[p[0] for p in got]} != listed {[p[0] for p in params]}")
                continue
            for (gp, gh, gd), (_, wh, wd) in zip(got, params):
                if gh != wh:
                    problems.append(f"{host}: {hname}({gp}) {'has' if gh else 'has no'} default, listed {'with' if wh else 'without'}")
                elif defaults_checked and wh and gd != wd:
                    problems.append(f"{host}: {hname}({gp}) default {gd!r} != listed {wd!r}")
        for hname in sorted(n for n in set(actual[kind]) - set(want[kind]) if not n.startswith("_")):
            problems.append(f"{host}: {kind[:-1]} {hname} is not in tests/api/surface.json")
    for hname, (cname, fields) in want["records"].items():
        if hname not in actual["records"]:
            problems.append(f"{host}: record {hname} ({cname}) is missing")
            continue
        got = actual["records"][hname]
        for f in fields:
            if f not in got:
                problems.append(f"{host}: record {hname} lacks field {f}")
        for f in got:
            if f not in fields:
                problems.append(f"{host}: record {hname} field {f} is not in tests/api/surface.json")
    if not only_listed_records:
        for hname in sorted(set(actual["records"]) - set(want["records"])):
            problems.append(f"{host}: record {hname} is not in tests/api/surface.json")
    return problems


def split_top(s):
    """Split on commas outside (), <>, [], {} and quotes."""
    out, depth, cur, q = [], 0, "", None
    for ch in s:
        if q:
            cur += ch
            if ch == q:
                q = None
            continue
        if ch in "\"'":
            q = ch
        elif ch in "([<{":
            depth += 1
        elif ch in ")]>}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur)
    return [p.strip() for p in out if p.strip()]


def literal(d):
    """A Kotlin/Swift default expression as a JSON value."""
    d = d.strip()
    if d in ("null", "nil"):
        return None
    if d in ("true", "false"):
        return d == "true"
    m = re.fullmatch(r"(?:U?Int(?:8|16|32|64)?\()?(-?\d+)(?:uL|UL|u|L)?\)?", d)
    if m:
        return int(m.group(1))
    if d.startswith('"'):
        return json.loads(d)
    return d


def params_of(text):
    out = []
    for p in split_top(text):
        m = re.match(r"`?(\w+)`?\s*:\s*([^=]+?)(?:\s*=\s*(.+))?$", p)
        if not m:
            continue
        out.append((m.group(1), m.group(3) is not None, literal(m.group(3)) if m.group(3) is not None else None))
    return out


def kotlin_surface(text):
    lines = text.splitlines()
    act = {"methods": {}, "functions": {}, "records": {}}
    sig = re.compile(r"^\s*(?:\*/\s*)?(?:@Throws\([^)]*\)\s*)?fun `(\w+)`\((.*)\)\s*(?::|\{|$)")
    # methods: the public interface (it carries the defaults); constructors: the companion.
    i = lines.index("public interface SessionStoreInterface {")
    j = i + 1
    while lines[j] != "}":
        m = sig.match(lines[j])
        if m:
            act["methods"][m.group(1)] = params_of(m.group(2))
        j += 1
    for l in lines:
        m = re.match(r"^    (?:\*/\s*)?@Throws\([^)]*\) fun `(open\w*)`\((.*)\)\s*:", l)
        if m:
            act["methods"][m.group(1)] = params_of(m.group(2))
    # top-level functions: the last block of the file, after the last FfiConverter object.
    last_type = max(n for n, l in enumerate(lines) if re.match(r"^(public )?object FfiConverter", l))
    for l in lines[last_type:]:
        m = re.match(r"^\s+(?:\*/\s*)?(?:@Throws\([^)]*\)\s*)?fun `(\w+)`\((.*)\)\s*:", l)
        if m and "_status" not in l:
            act["functions"][m.group(1)] = params_of(m.group(2))
    name = None
    for l in lines:
        m = re.match(r"^data class (\w+) \($", l)
        if m:
            name = m.group(1)
            act["records"][name] = []
            continue
        if name:
            if l.startswith(")"):
                name = None
                continue
            m = re.match(r"^\s+va[lr] `(\w+)`", l)
            if m:
                act["records"][name].append(m.group(1))
    return act


def swift_surface(text):
    """The generated Swift (uniffi writes it unindented): SessionStore's
    `open func`/`public static func`, top-level `public func`, and the
    stored properties of each `public struct`."""
    lines = text.splitlines()
    act = {"methods": {}, "functions": {}, "records": {}}
    in_store, struct = False, None
    sig = r"\((.*)\)\s*(?:async\s*)?(?:throws|->|\{|$)"
    for l in lines:
        if re.match(r"^(open class|public struct|public protocol|public enum|extension|fileprivate|public class)\b", l):
            in_store = l.startswith("open class SessionStore:")
            m = re.match(r"^public struct (\w+)\b.*\{", l)
            struct = m.group(1) if m else None
            if struct:
                act["records"][struct] = []
            continue
        if struct:
            m = re.match(r"^\s*public (?:var|let) (\w+):", l)
            if m:
                act["records"][struct].append(m.group(1))
            elif "public init(" in l:
                struct = None
            continue
        m = re.match(r"^(?:open|public static) func `?(\w+)`?" + sig, l)
        if in_store and m:
            act["methods"][m.group(1)] = params_of(m.group(2))
            continue
        m = re.match(r"^public func `?(\w+)`?" + sig, l)
        if m and not in_store:
            act["functions"][m.group(1)] = params_of(m.group(2))
    return act


def python_surface(module):
    """The built Python module's surface, by `inspect`."""
    import inspect

    act = {"methods": {}, "functions": {}, "records": {}}

    def params(f, drop_first):
        ps = list(inspect.signature(f).parameters.values())[1 if drop_first else 0 :]
        return [(p.name, p.default is not p.empty, None if p.default is p.empty else p.default) for p in ps]

    store = module.SessionStore
    for name, v in vars(store).items():
        if name.startswith("_"):
            continue
        if inspect.isdatadescriptor(v):
            act["methods"][name] = []
        else:
            act["methods"][name] = params(getattr(store, name), not isinstance(v, classmethod) and inspect.ismethoddescriptor(v))
    act["methods"]["open"] = params(store, False)
    for name in module.__all__:
        v = getattr(module, name)
        if name.startswith("_"):
            continue
        if inspect.isclass(v):
            if name in ("SessionStore", "TranscriptIterator", "Viewer") or issubclass(v, BaseException):
                continue
            act["records"][name] = [n for n, d in vars(v).items() if inspect.isdatadescriptor(d) and not n.startswith("_")]
        elif callable(v):
            act["functions"][name] = params(v, False)
    return act


def check_python(module):
    return compare("python", python_surface(module))


def node_surface(text):
    """native.d.ts (napi-generated) plus index.d.ts's additions (methods
    declared in `interface SessionStore` / `namespace SessionStore`)."""
    act = {"methods": {}, "functions": {}, "records": {}}
    block, name = None, None

    def params(text):
        return [(p.split(":")[0].rstrip("?").strip(), "?" in p.split(":")[0], None) for p in split_top(text)]

    for l in text.splitlines():
        m = re.match(r"^(?:export )?(?:declare )?(class|interface|namespace) (\w+)", l.strip()) if not block else None
        if m:
            block, name = m.groups()
            if block == "interface" and name != "SessionStore":
                act["records"][name] = []
            if not l.rstrip().endswith("{"):
                block = None
            continue
        if block and l.strip() == "}" and (l.startswith("}") or l.startswith("  }")):
            block = None
            continue
        if block and name == "SessionStore":
            m = re.match(r"^\s+(?:static |function )?(get )?(\w+)\((.*)\)\s*:", l)
            if m:
                act["methods"][m.group(2)] = params(m.group(3))
            continue
        if block == "interface":
            m = re.match(r"^  (\w+)\??:", l)
            if m:
                act["records"][name].append(m.group(1))
            continue
        m = re.match(r"^export declare function (\w+)\((.*)\)\s*:", l)
        if m:
            act["functions"][m.group(1)] = params(m.group(2))
    return act


def check_node(paths):
    act = {"methods": {}, "functions": {}, "records": {}}
    for p in paths:
        a = node_surface(Path(p).read_text(encoding="utf-8"))
        for k in act:
            act[k].update(a[k])
    # napi declares the native `_open`; index.d.ts declares the public `open`.
    act["methods"].pop("_open", None)
    return compare("node", act, defaults_checked=False)


def check_uniffi(lang, path):
    text = Path(path).read_text(encoding="utf-8")
    act = kotlin_surface(text) if lang == "kotlin" else swift_surface(text)
    # Kotlin's store close() is uniffi's AutoCloseable; the store's own close is closeStore.
    if lang == "kotlin":
        act["methods"].pop("close", None)
        if "closeStore" in act["methods"]:
            act["methods"]["close"] = act["methods"].pop("closeStore")
    want = expected("uniffi")
    if lang == "swift":  # the Swift file also holds converter functions (lift, lower...): listed names only
        act["functions"] = {k: v for k, v in act["functions"].items() if k in want["functions"]}
    # uniffi records of the API only (the file also holds internal helper types).
    act["records"] = {k: v for k, v in act["records"].items() if k in want["records"] or k in load().get("uniffi_records", [])}
    return compare("uniffi", act)


README_START = "<!-- api-table: generated from tests/api/surface.json by tests/api/surface.py readme docs/api.md --write -->"
README_END = "<!-- /api-table -->"


def readme_table():
    s = load()
    rows = ["| Python | Node, Kotlin, Swift | absent from |", "|---|---|---|"]
    for kind, prefix in (("methods", "store."), ("functions", "")):
        for name, entry in sorted(s[kind].items()):
            label = {"python": "Python", "node": "Node", "uniffi": "Kotlin, Swift"}
            absent = [label[h] for h in ("python", "node", "uniffi") if entry.get(h, {}) is None]
            hosts = []
            for h in ("node", "uniffi"):
                e = host_entry(entry, h)
                if e is not None:
                    hosts.append(e.get("name", camel(name)))
            cam = " / ".join(dict.fromkeys(f"`{prefix}{h}`" for h in hosts)) or "–"
            # An entry's "readme" names it as a caller writes it (a constructor).
            shown = entry.get("readme", {})
            py = f"`{shown['python']}`" if "python" in shown else f"`{prefix}{name}`"
            cam = f"`{shown['others']}`" if "others" in shown else cam
            rows.append(f"| {py} | {cam} | {', '.join(absent) or '–'} |")
    return "\n".join(rows)


def check_readme(path, write=False):
    text = Path(path).read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        return [f"{path}: no generated API table ({README_START})"]
    head, rest = text.split(README_START, 1)
    body, tail = rest.split(README_END, 1)
    want = "\n" + readme_table() + "\n"
    if body == want:
        return []
    if write:
        Path(path).write_text(head + README_START + want + README_END + tail, encoding="utf-8")
        return []
    return [f"{path}: the API table differs from tests/api/surface.json (run tests/api/surface.py readme {path} --write)"]


ROOT = HERE.parent.parent
ERROR_FILES = {
    "errors.py": ROOT / "python" / "python" / "sessiondb" / "errors.py",
    "types.py": ROOT / "python" / "python" / "sessiondb" / "types.py",
    "errors.js": ROOT / "node" / "errors.js",
    "errors.d.ts": ROOT / "node" / "errors.d.ts",
}


def error_decl():
    """The error kinds `bridge/api.rs` declares (its `#[bridge(error, ...)]
    enum`), in order: dicts with `kind`, `code` (`ERR_` + the kind in upper
    snake case, as `ErrorKind::code()`), `class` (`class = "..."`, else kind +
    `Error`), `python_classes` (the subclasses `python_class` may pick), and
    the fields each host shows (`python` snake_case, `node` camelCase)."""
    src = re.sub(r"(?m)^\s*//.*$\n?", "", api_text())
    body = re.search(r"(?ms)^#\[bridge\(error\b[^\n]*\]\npub enum \w+ \{$(.*?)^\}$", src).group(1)
    attrs = r"((?:#\[bridge\(.*?\)\]\s*)*)"
    out = []
    for vattr, kind, fields in re.findall(r"(?ms)^    " + attrs + r"(\w+)(?: \{$(.*?)^    \})?,$", body):
        shown = {"python": [], "node": []}
        for fattr, name in re.findall(r"(?ms)^        " + attrs + r"(\w+): [^\n]+,$", fields or ""):
            skip = re.search(r"skip\(([^)]*)\)", fattr)
            skip = [h.strip() for h in skip.group(1).split(",")] if skip else []
            for host in shown:
                if host not in skip:
                    shown[host].append(name if host == "python" else camel(name))
        cls = re.search(r'\bclass = "(\w+)"', vattr)
        pc = re.search(r'python_class = r?#*"(.*?)"#*\)\]', vattr, re.S)
        out.append({
            "kind": kind,
            "code": "ERR_" + re.sub(r"(?<!^)(?=[A-Z])", "_", kind).upper(),
            "class": cls.group(1) if cls else kind + "Error",
            "python_classes": sorted(set(re.findall(r'"(\w+Error)"', pc.group(1)))) if pc else [],
            **shown,
        })
    return out


def _literal_list(text, name):
    m = re.search(r"(?ms)^" + name + r" = Literal\[(.*?)\]", text)
    return re.findall(r'"(\w+)"', m.group(1)) if m else None


def _ts_union(text, name):
    m = re.search(r"(?ms)^export type " + name + r" =(.*?)(?=^\S)", text)
    return re.findall(r"'(\w+)'", m.group(1)) if m else None


def check_errors(texts=None):
    """Differences between the error declaration of bridge/api.rs and the
    hand-written classes (`texts`: file name -> text, default the files of
    ERROR_FILES): a kind without its class, code or attribute, another order,
    or a class the declaration does not have."""
    texts = texts or {k: p.read_text(encoding="utf-8") for k, p in ERROR_FILES.items()}
    decl = error_decl()
    kinds = [d["kind"] for d in decl]
    codes = [d["code"] for d in decl]
    problems = []
    # Python: errors.py classes (bases, kind, code, annotated attributes), __all__, types.py literals.
    py = texts["errors.py"]
    classes = {}
    for name, bases, body in re.findall(r"(?ms)^class (\w+)\(([^)]*)\):\n(.*?)(?=^\S|\Z)", py):
        classes[name] = {
            "bases": [b.strip() for b in bases.split(",")],
            "kind": (re.search(r'(?m)^    kind = "(\w+)"', body) or [None, None])[1],
            "code": (re.search(r'(?m)^    code = "(\w+)"', body) or [None, None])[1],
            "attrs": re.findall(r"(?m)^    (\w+): ", body),
        }

    def ancestors(name):
        seen = []
        while name in classes and name not in seen:
            seen.append(name)
            name = next((b for b in classes[name]["bases"] if b in classes), None)
        return seen

    def has_attr(name, attr):
        # An OSError subclass has `errno` of its own.
        return any(attr in classes[c]["attrs"] for c in ancestors(name)) or (
            attr == "errno" and any("OSError" in classes[c]["bases"] for c in ancestors(name)))

    all_names = re.findall(r'"(\w+)"', (re.search(r"(?ms)^__all__ = \[(.*?)\]", py) or [None, ""])[1])
    wanted_py = {"SessionDBError"}
    for d in decl:
        c = d["class"]
        wanted_py.update([c, *d["python_classes"]])
        if c not in classes:
            problems.append(f"errors.py: kind {d['kind']}: class {c} is missing")
            continue
        if (classes[c]["kind"], classes[c]["code"]) != (d["kind"], d["code"]):
            problems.append(f"errors.py: {c} has kind/code {classes[c]['kind']}/{classes[c]['code']}, declared {d['kind']}/{d['code']}")
        for f in d["python"]:
            if not has_attr(c, f):
                problems.append(f"errors.py: {c} lacks attribute {f}")
        for sub in d["python_classes"]:
            if sub != c and (sub not in classes or c not in ancestors(sub)):
                problems.append(f"errors.py: {sub} (python_class of {d['kind']}) is missing or not a subclass of {c}")
    for c in sorted(n for n in classes if "SessionDBError" in ancestors(n) and n not in wanted_py):
        problems.append(f"errors.py: class {c} is not in the error declaration of bridge/api.rs")
    for c in sorted(wanted_py - set(all_names)):
        problems.append(f"errors.py: {c} is not in __all__")
    for lit, want in (("ErrorKind", kinds), ("ErrorCode", codes)):
        got = _literal_list(texts["types.py"], lit)
        if got != want:
            problems.append(f"types.py: {lit} {got} != declared {want}")
    # Node: errors.js's KINDS table, errors.d.ts's classes and unions.
    rows = re.findall(r"\[\s*'(\w+)',\s*'(\w+)',\s*'(\w+)'\s*\]", (re.search(r"(?ms)^const KINDS = \[$(.*?)^\]$", texts["errors.js"]) or [None, ""])[1])
    want_rows = [(d["kind"], d["code"], d["class"]) for d in decl]
    if rows != want_rows:
        problems.append(f"errors.js: KINDS {rows} != declared {want_rows}")
    dts = texts["errors.d.ts"]
    declared_ts = {n: body for n, body in re.findall(r"(?ms)^export declare class (\w+) extends SessionDBError \{$(.*?)^\}$", dts)}
    for d in decl:
        body = declared_ts.get(d["class"])
        if body is None:
            problems.append(f"errors.d.ts: kind {d['kind']}: class {d['class']} is missing")
            continue
        if f"readonly code: '{d['code']}'" not in body:
            problems.append(f"errors.d.ts: {d['class']} lacks readonly code: '{d['code']}'")
        got = re.findall(r"(?m)^\s+readonly (\w+)\??:", body)
        for f in d["node"]:
            if f not in got:
                problems.append(f"errors.d.ts: {d['class']} lacks field {f}")
    for c in sorted(set(declared_ts) - {d["class"] for d in decl}):
        problems.append(f"errors.d.ts: class {c} is not in the error declaration of bridge/api.rs")
    for union, want in (("ErrorKind", kinds), ("ErrorCode", codes)):
        got = _ts_union(dts, union)
        if got != want:
            problems.append(f"errors.d.ts: {union} {got} != declared {want}")
    return problems


def main(argv):
    if len(argv) >= 2 and argv[0] in ("kotlin", "swift"):
        problems = check_uniffi(argv[0], argv[1])
    elif len(argv) >= 2 and argv[0] == "node":
        problems = check_node(argv[1:])
    elif len(argv) >= 2 and argv[0] == "readme":
        problems = check_readme(argv[1], write="--write" in argv)
    elif argv[:1] == ["errors"]:
        problems = check_errors()
        for p in problems:
            print(p)
        print(f"surface errors: {len(problems)} difference(s) from the error declaration in bridge/api.rs ({len(error_decl())} kinds)")
        return 1 if problems else 0
    elif argv[:1] == ["json"]:
        print(json.dumps(load(), indent=1))
        return 0
    else:
        print(__doc__)
        return 2
    for p in problems:
        print(p)
    n = len(load()["methods"]) + len(load()["functions"])
    print(f"surface {argv[0]}: {len(problems)} difference(s) from tests/api/surface.json ({n} methods and functions)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
