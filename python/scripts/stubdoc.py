#!/usr/bin/env python3
"""Signatures and docstrings of ``sessiondb/_native.pyi``, taken from the built module.

The signatures of the methods and functions the bridge generates
(bridge/api.rs) come from the module's ``_bridge_stubs`` (written by
sessiondb-bridge's ``generate_pyi``): each replaces the stub's signature of
that name, or is added when the stub lacks it, with an enum's
``Literal[...]`` written as its alias from ``sessiondb.types`` when there
is one. A generated method therefore needs no hand edit here.

The native module's docstrings are the Rust doc comments (pyo3 keeps
them); this writes each class's, method's and function's docstring into
the stub so IDE hovers show it, and ``--check`` (python/tests/test_stub_docs.py)
fails when the stub and the built module differ, so they cannot drift.
Stub entries whose runtime object has no docstring are left without one.

Usage: python python/scripts/stubdoc.py [--check] [PYI]   (with sessiondb installed)
"""

import ast
import inspect
import sys
from pathlib import Path

PYI = Path(__file__).resolve().parents[1] / "python" / "sessiondb" / "_native.pyi"


def runtime_doc(obj):
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return None
    return inspect.cleandoc(doc)


def quoted(doc, indent):
    body = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = body.split("\n")
    if len(lines) == 1:
        return [f'{indent}"""{body}"""']
    return [f'{indent}"""{lines[0]}'] + [f"{indent}{l}" if l else "" for l in lines[1:]] + [f'{indent}"""']


def with_aliases(sig):
    """`sig` with each `Literal[...]` that has an alias in sessiondb.types written as the alias."""
    import typing

    import sessiondb.types as types

    for name in types.__all__:
        args = typing.get_args(getattr(types, name))
        sig = sig.replace("Literal[" + ", ".join(f'"{a}"' for a in args) + "]", name)
    return sig


def signatures(module, text):
    """The stub text with the generated methods' and functions' signatures
    (`module._bridge_stubs`) in place of the stub's, added where missing."""
    gen = getattr(module, "_bridge_stubs", None)
    if not gen:
        return text
    want = {}  # (owner, name) -> "def ...: ..."
    for node in ast.parse(gen).body:
        if isinstance(node, ast.ClassDef):
            for f in node.body:
                want[(node.name, f.name)] = with_aliases(ast.get_source_segment(gen, f))
        elif isinstance(node, ast.FunctionDef):
            want[(None, node.name)] = with_aliases(ast.get_source_segment(gen, node))
    lines = text.split("\n")
    tree = ast.parse(text)
    edits, seen, class_end = [], set(), {}

    def header(node, owner, indent):
        sig = want.get((owner, node.name))
        if sig is None:
            return
        seen.add((owner, node.name))
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant) and first.lineno > node.lineno:
            edits.append((node.lineno - 1, first.lineno - 1, [indent + sig.removesuffix(" ...")]))
        else:
            edits.append((node.lineno - 1, node.end_lineno, [indent + sig]))

    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            header(node, None, "")
        elif isinstance(node, ast.ClassDef):
            class_end[node.name] = node.end_lineno
            for f in node.body:
                if isinstance(f, ast.FunctionDef):
                    header(f, node.name, "    ")
    for (owner, name), sig in want.items():
        if (owner, name) not in seen:
            at = class_end[owner] if owner else len(lines)
            edits.append((at, at, [("    " if owner else "") + sig]))
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        lines[start:end] = new
    return "\n".join(lines)


def render(module, text):
    """The stub text with the generated signatures and every docstring set from `module`."""
    text = signatures(module, text)
    lines = text.split("\n")
    tree = ast.parse(text)
    edits = []  # (start, end, new lines) on 0-based line ranges [start, end)

    def visit(node, owner, indent):
        name = node.name
        if owner is None:
            obj = getattr(module, name, None)
        else:
            raw = inspect.getattr_static(owner, name, None) if name != "__new__" else None
            obj = raw if raw is not None else getattr(owner, name, None)
            if name == "__new__":
                return  # the class docstring documents the constructor
        doc = runtime_doc(obj) if obj is not None else None
        if isinstance(node, ast.FunctionDef) and isinstance(obj, property):
            doc = runtime_doc(obj.fget)
        if isinstance(obj, type) and isinstance(node, ast.FunctionDef):
            doc = None
        body = node.body
        has_doc = body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str)
        inner = indent + "    "
        if has_doc:
            start, end = body[0].lineno - 1, body[0].end_lineno
            new = quoted(doc, inner) if doc else []
            if not doc and len(body) == 1:
                new = [f"{inner}..."]
            edits.append((start, end, new))
        elif doc and isinstance(node, ast.ClassDef):
            edits.append((node.lineno, node.lineno, quoted(doc, inner)))
        elif doc:
            at = body[0].lineno - 1
            if lines[at].rstrip().endswith("..."):
                # `def f(...) -> T: ...`: the docstring replaces the `...`
                cut = lines[at].rstrip()[:-3].rstrip()
                edits.append((at, at + 1, [cut] + quoted(doc, inner)))
            else:
                edits.append((at, at, quoted(doc, inner)))
        if isinstance(node, ast.ClassDef) and obj is not None:
            for child in node.body:
                if isinstance(child, ast.FunctionDef):
                    visit(child, obj, inner)

    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            visit(node, None, "")
    for start, end, new in sorted(edits, reverse=True):
        lines[start:end] = new
    return "\n".join(lines)


def main(argv):
    import sessiondb._native as native

    check = "--check" in argv
    paths = [a for a in argv if not a.startswith("--")]
    pyi = Path(paths[0]) if paths else PYI
    text = pyi.read_text(encoding="utf-8")
    out = render(native, text)
    if check:
        if out != text:
            print(f"{pyi}: signatures or docstrings differ from the built module (run python/scripts/stubdoc.py)")
            return 1
        return 0
    pyi.write_text(out, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
