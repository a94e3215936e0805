#!/usr/bin/env python3
"""Docstrings of a stub (``sessiondb/_native.pyi``), taken from the built module.

The native module's docstrings are the Rust doc comments (pyo3 keeps
them). sessiondb-bridge writes ``_native.pyi`` whole with the generated
records', methods' and functions' docstrings (bridge/src/pyi.rs) from
the hand-written part ``python/_native.hand.pyi``; this writes each
class's, method's and function's docstring from the module into a stub
(run it on the hand-written part after changing a doc comment in
python/src), and ``--check`` (python/tests/test_stub_docs.py: on the
generated stub) fails when a stub and the built module differ, so they
cannot drift. Stub entries whose runtime object has no docstring are
left without one.

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


def render(module, text):
    """The stub text with every docstring set from `module`."""
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
            print(f"{pyi}: docstrings differ from the built module (run python/scripts/stubdoc.py on python/_native.hand.pyi, then regenerate the stub)")
            return 1
        return 0
    pyi.write_text(out, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
