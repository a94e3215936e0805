#!/usr/bin/env python3
"""Generate the Kotlin `suspend` and Swift `async` variants of the uniffi API.

One list decides which calls get a variant: `tests/api/surface.json`, key
`async_variants`. Every SessionStore method and constructor present in the
uniffi hosts gets one unless it is in `methods_not_blocking` (accessors that
return a field without touching disk or crypto); a module function gets one
when it is in `functions` (the ones that read files or run a cipher or HMAC).
The signatures (types, defaults, return types) are read from the Kotlin and
Swift that uniffi generated, so a new method in surface.json needs no edit
here; a listed name missing from the generated source is an error.

  Kotlin (package dev.sessiondb, file SessionDbSuspend.kt):
    `SuspendingSessionStore(store, context = Dispatchers.IO)`: every blocking
    method as `suspend fun`, run with `withContext(context)`; the constructors
    as `SuspendingSessionStore.open*(…)`; `store.suspending()`; module
    functions as `SessionDbSuspending.encryptField(…)` and so on.
  Swift (module SessionDB, file SessionDBAsync.swift):
    `AsyncSessionStore(store)` / `store.async`: every blocking method as
    `async throws`, run on a the `sessiondbBlockingQueue` (never on the cooperative
    pool, which must not block); constructors as `AsyncSessionStore.open*(…)`;
    module functions as `SessionDBAsync.encryptField(…)`.

Usage: gen-async.py kotlin GENERATED.kt OUT.kt | swift GENERATED.swift OUT.swift
Exit status 1 with a message when the list and the generated source disagree.
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "api"))
import surface  # noqa: E402  (tests/api/surface.py: the list and its helpers)


def fail(msg):
    print(f"gen-async: {msg}", file=sys.stderr)
    sys.exit(1)


def plan():
    """(methods and constructors with a variant, methods passed through, functions),
    as uniffi camelCase names, from surface.json."""
    s = surface.load()
    av = s.get("async_variants")
    if av is None:
        fail("tests/api/surface.json has no `async_variants`")
    not_blocking = set(av["methods_not_blocking"])
    for n in not_blocking | set(av["functions"]):
        if n not in s["methods"] and n not in s["functions"]:
            fail(f"async_variants names `{n}`, which is not in surface.json")
    blocking, passthrough = [], []
    for name, entry in s["methods"].items():
        e = surface.host_entry(entry, "uniffi")
        if e is None:
            continue
        hname = e.get("name", surface.camel(name))
        if name == "close":
            hname = "closeStore"  # uniffi.toml: Kotlin objects own close(); see below per host
        if name in not_blocking:
            passthrough.append(hname)
        else:
            blocking.append(hname)
    funcs = []
    for name in av["functions"]:
        e = surface.host_entry(s["functions"][name], "uniffi")
        if e is not None:
            funcs.append(e.get("name", surface.camel(name)))
    return blocking, passthrough, funcs


def split_ctors(blocking, ctor_table):
    """The constructors (in the generated companion/static block) apart from the methods."""
    return [n for n in blocking if n not in ctor_table], [n for n in blocking if n in ctor_table]


def kparams(text):
    """[(name, type, default-or-None)] of a Kotlin parameter list."""
    out = []
    for p in surface.split_top(text):
        m = re.match(r"`(\w+)`\s*:\s*(.+?)(?:\s*=\s*(.+))?$", p)
        if not m:
            fail(f"cannot read Kotlin parameter {p!r}")
        out.append((m.group(1), m.group(2).strip(), m.group(3)))
    return out


def kotlin_sigs(text):
    lines = text.splitlines()
    sig = re.compile(r"^\s*(?:\*/\s*)?(?:@Throws\([^)]*\)\s*)?fun `(\w+)`\((.*)\)\s*(?::\s*(.+?))?\s*\{?\s*$")
    methods, ctors, funcs = {}, {}, {}
    i = lines.index("public interface SessionStoreInterface {")
    j = i + 1
    while lines[j] != "}":
        m = sig.match(lines[j])
        if m:
            methods[m.group(1)] = (kparams(m.group(2)), m.group(3))
        j += 1
    for l in lines:
        m = re.match(r"^    (?:\*/\s*)?@Throws\([^)]*\) fun `(open\w*)`\((.*)\)\s*:\s*SessionStore\s*\{", l)
        if m:
            ctors[m.group(1)] = (kparams(m.group(2)), "SessionStore")
    last_type = max(n for n, l in enumerate(lines) if re.match(r"^(public )?object FfiConverter", l))
    for l in lines[last_type:]:
        m = sig.match(l)
        if m and "_status" not in l:
            funcs[m.group(1)] = (kparams(m.group(2)), m.group(3))
    return methods, ctors, funcs


def gen_kotlin(src, out):
    blocking, passthrough, funcs = plan()
    methods, kctors, kfuncs = kotlin_sigs(src.read_text(encoding="utf-8"))
    blocking, ctors = split_ctors(blocking, kctors)

    def decl(params, extra=""):
        ps = [f"`{n}`: {t}" + (f" = {d}" if d is not None else "") for n, t, d in params]
        return ", ".join(ps + ([extra] if extra else []))

    def call(params):
        return ", ".join(f"`{n}` = `{n}`" for n, _, _ in params)

    def ret(r):
        return r if r else "kotlin.Unit"

    def get(table, name, what):
        if name not in table:
            fail(f"{what} `{name}` is listed in surface.json but not in the generated Kotlin")
        return table[name]

    o = [
        "// Generated by scripts/gen-async.py from tests/api/surface.json (async_variants)",
        "// and the uniffi Kotlin beside this file. Do not edit.",
        "@file:Suppress(\"RemoveRedundantBackticks\", \"unused\")",
        "",
        "package dev.sessiondb",
        "",
        "import kotlin.coroutines.CoroutineContext",
        "import kotlinx.coroutines.Dispatchers",
        "import kotlinx.coroutines.withContext",
        "",
        "/**",
        " * `suspend` variants of every [SessionStore] call that touches disk or crypto.",
        " *",
        " * Each method has the blocking method's name, parameters, defaults, result and",
        " * errors ([SessionDbException]); it runs the blocking call with",
        " * `withContext(context)` (default [Dispatchers.IO]), so a coroutine on the main",
        " * thread never waits on SQLite, the keyring or AES-GCM. The store itself is",
        " * thread-safe: several coroutines may call one wrapper at once. Accessors that",
        " * only read a field ([path], [instanceId], [keyBackend], [isClosed],",
        " * [openRecoveryReport]) are plain functions. `close()` frees the native handle",
        " * as [SessionStore.close] does; [closeStore] closes the store (a disk write).",
        " *",
        " * @property store the blocking store this wraps (still usable directly).",
        " * @property context where the blocking calls run.",
        " */",
        "public class SuspendingSessionStore(",
        "    public val store: SessionStore,",
        "    public val context: CoroutineContext = Dispatchers.IO,",
        ") : AutoCloseable {",
        "    /** Frees the native handle ([SessionStore.close]); use [closeStore] first to close the store. */",
        "    override fun close(): kotlin.Unit = store.close()",
        "",
    ]
    for name in blocking:
        params, r = get(methods, name, "method")
        o.append(f"    /** [SessionStore.{name}] on [context]. */")
        o.append(f"    public suspend fun `{name}`({decl(params)}): {ret(r)} =")
        o.append(f"        withContext(context) {{ store.`{name}`({call(params)}) }}")
        o.append("")
    for name in passthrough:
        params, r = get(methods, name, "method")
        o.append(f"    /** [SessionStore.{name}] (reads a field: no disk, no crypto). */")
        o.append(f"    public fun `{name}`({decl(params)}): {ret(r)} = store.`{name}`({call(params)})")
        o.append("")
    o.append("    public companion object {")
    for name in ctors:
        params, _ = get(kctors, name, "constructor")
        o.append(f"        /** [SessionStore.{name}] on [context] (opening reads the key and runs the recovery pass). */")
        o.append(f"        public suspend fun `{name}`({decl(params, 'context: CoroutineContext = Dispatchers.IO')}): SuspendingSessionStore =")
        o.append(f"            withContext(context) {{ SuspendingSessionStore(SessionStore.`{name}`({call(params)}), context) }}")
        o.append("")
    o.append("    }")
    o.append("}")
    o.append("")
    o.append("/** This store's `suspend` variants, run on [context] (default [Dispatchers.IO]). */")
    o.append("public fun SessionStore.suspending(context: CoroutineContext = Dispatchers.IO): SuspendingSessionStore =")
    o.append("    SuspendingSessionStore(this, context)")
    o.append("")
    o.append("/**")
    o.append(" * `suspend` variants of the module functions that read files or run a cipher or")
    o.append(" * HMAC, on [Dispatchers.IO]; same parameters, results and errors as the")
    o.append(" * blocking functions of the same name.")
    o.append(" */")
    o.append("public object SessionDbSuspending {")
    for name in funcs:
        params, r = get(kfuncs, name, "function")
        o.append(f"    /** [dev.sessiondb.{name}] on [Dispatchers.IO]. */")
        o.append(f"    public suspend fun `{name}`({decl(params)}): {ret(r)} =")
        o.append(f"        withContext(Dispatchers.IO) {{ dev.sessiondb.`{name}`({call(params)}) }}")
        o.append("")
    o.append("}")
    out.write_text("\n".join(o) + "\n", encoding="utf-8")
    print(f"gen-async: {out}: {len(blocking)} suspend methods, {len(ctors)} constructors, "
          f"{len(funcs)} functions, {len(passthrough)} plain accessors", file=sys.stderr)


def sparams(text):
    """[(name, type, default-or-None)] of a Swift parameter list."""
    out = []
    for p in surface.split_top(text):
        m = re.match(r"`?(\w+)`?\s*:\s*(.+?)(?:\s*=\s*(.+))?$", p)
        if not m or m.group(1) == "_":
            fail(f"cannot read Swift parameter {p!r}")
        out.append((m.group(1), m.group(2).strip(), m.group(3)))
    return out


def swift_sigs(text):
    lines = text.splitlines()
    sig = r"\((.*?)\)\s*(throws)?\s*(?:->\s*([^{]+?))?\s*\{"
    methods, ctors, funcs = {}, {}, {}
    start = lines.index(next(l for l in lines if l.startswith("open class SessionStore:")))
    # uniffi writes the class body unindented: it ends where its FfiConverter starts.
    end = next(n for n in range(start + 1, len(lines)) if "FfiConverterTypeSessionStore" in lines[n] and lines[n].startswith("public struct"))
    for l in lines[start:end]:
        m = re.match(r"^open func `?(\w+)`?" + sig, l)
        if m:
            methods[m.group(1)] = (sparams(m.group(2)), bool(m.group(3)), m.group(4))
        m = re.match(r"^public static func `?(open\w*)`?" + sig, l)
        if m:
            ctors[m.group(1)] = (sparams(m.group(2)), bool(m.group(3)), m.group(4))
    for l in lines:
        m = re.match(r"^public func `?(\w+)`?" + sig, l)
        if m and not m.group(1).startswith("FfiConverter") and not m.group(1).startswith("uniffi"):
            funcs[m.group(1)] = (sparams(m.group(2)), bool(m.group(3)), m.group(4))
    return methods, ctors, funcs


SWIFT_KEYWORDS = {"open", "func", "in", "default", "protocol", "extension", "init"}


def sname(n):
    return f"`{n}`" if n in SWIFT_KEYWORDS else n


def gen_swift(src, out):
    blocking, passthrough, funcs = plan()
    methods, sctors, sfuncs = swift_sigs(src.read_text(encoding="utf-8"))
    blocking, ctors = split_ctors(blocking, sctors)
    # Swift keeps the store's own name: SessionStore.close() closes the store.
    blocking = ["close" if n == "closeStore" else n for n in blocking]

    def decl(params):
        return ", ".join(f"{sname(n)}: {t}" + (f" = {d}" if d is not None else "") for n, t, d in params)

    def call(params):
        return ", ".join(f"{n}: {sname(n)}" for n, _, _ in params)

    def get(table, name, what):
        if name not in table:
            fail(f"{what} `{name}` is listed in surface.json but not in the generated Swift")
        return table[name]

    def ret(r):
        return f" -> {r}" if r else ""

    o = [
        "// Generated by scripts/gen-async.py from tests/api/surface.json (async_variants)",
        "// and the uniffi Swift beside this file. Do not edit.",
        "",
        "import Foundation",
        "",
        "/// The concurrent Dispatch queue the `async` variants run their blocking call on",
        "/// (label `dev.sessiondb.blocking`, QoS user-initiated, targeting a global queue):",
        "/// Swift's cooperative pool must never block on SQLite, the keychain callback",
        "/// or AES-GCM.",
        "public let sessiondbBlockingQueue = DispatchQueue(label: \"dev.sessiondb.blocking\", qos: .userInitiated, attributes: .concurrent)",
        "",
        "/// Runs a blocking call on `sessiondbBlockingQueue` and resumes the caller with its result.",
        "@usableFromInline",
        "func sessiondbOffload<T>(_ body: @escaping () throws -> T) async throws -> T {",
        "    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in",
        "        sessiondbBlockingQueue.async {",
        "            continuation.resume(with: Result { try body() })",
        "        }",
        "    }",
        "}",
        "",
        "/// `sessiondbOffload` for a call that cannot fail.",
        "@usableFromInline",
        "func sessiondbOffloadNonThrowing<T>(_ body: @escaping () -> T) async -> T {",
        "    await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in",
        "        sessiondbBlockingQueue.async {",
        "            continuation.resume(returning: body())",
        "        }",
        "    }",
        "}",
        "",
        "/// `async` variants of every `SessionStore` call that touches disk or crypto.",
        "///",
        "/// Each method has the blocking method's name, labels, defaults, result and",
        "/// errors (`SessionDbError`) and runs the blocking call on",
        "/// `sessiondbBlockingQueue`. The store is thread-safe: several tasks may call one wrapper at once.",
        "/// Accessors that only read a field (`path()`, `instanceId()`, `keyBackend()`,",
        "/// `isClosed()`, `openRecoveryReport()`) stay synchronous.",
        "public final class AsyncSessionStore: @unchecked Sendable {",
        "    /// The blocking store this wraps (still usable directly).",
        "    public let store: SessionStore",
        "",
        "    /// Wraps `store`.",
        "    public init(_ store: SessionStore) { self.store = store }",
        "",
    ]
    for name in blocking:
        params, throws, r = get(methods, name, "method")
        t = "try " if throws else ""
        o.append(f"    /// `SessionStore.{name}` on a the `sessiondbBlockingQueue`.")
        o.append(f"    public func {sname(name)}({decl(params)}) async{' throws' if throws else ''}{ret(r)} {{")
        o.append(f"        let store = self.store")
        if throws:
            o.append(f"        return try await sessiondbOffload {{ try store.{sname(name)}({call(params)}) }}")
        else:
            o.append(f"        return await sessiondbOffloadNonThrowing {{ store.{sname(name)}({call(params)}) }}")
        o.append("    }")
        o.append("")
    for name in passthrough:
        params, throws, r = get(methods, name, "method")
        t = "try " if throws else ""
        o.append(f"    /// `SessionStore.{name}` (reads a field: no disk, no crypto).")
        o.append(f"    public func {sname(name)}({decl(params)}){' throws' if throws else ''}{ret(r)} {{ {t}store.{sname(name)}({call(params)}) }}")
        o.append("")
    for name in ctors:
        params, throws, _ = get(sctors, name, "constructor")
        o.append(f"    /// `SessionStore.{name}` on a the `sessiondbBlockingQueue` (opening reads the key and runs the recovery pass).")
        o.append(f"    public static func {sname(name)}({decl(params)}) async throws -> AsyncSessionStore {{")
        o.append(f"        try await sessiondbOffload {{ AsyncSessionStore(try SessionStore.{sname(name)}({call(params)})) }}")
        o.append("    }")
        o.append("")
    o.append("}")
    o.append("")
    o.append("extension SessionStore {")
    o.append("    /// This store's `async` variants.")
    o.append("    public var async: AsyncSessionStore { AsyncSessionStore(self) }")
    o.append("}")
    o.append("")
    o.append("/// `async` variants of the module functions that read files or run a cipher or")
    o.append("/// HMAC, on a the `sessiondbBlockingQueue`; same labels, results and errors as the")
    o.append("/// blocking functions of the same name.")
    o.append("public enum SessionDBAsync {")
    for name in funcs:
        params, throws, r = get(sfuncs, name, "function")
        t = "try " if throws else ""
        o.append(f"    /// `{name}` on a the `sessiondbBlockingQueue`.")
        o.append(f"    public static func {sname(name)}({decl(params)}) async throws{ret(r)} {{")
        o.append(f"        try await sessiondbOffload {{ {t}SessionDB.{sname(name)}({call(params)}) }}")
        o.append("    }")
        o.append("")
    o.append("}")
    out.write_text("\n".join(o) + "\n", encoding="utf-8")
    print(f"gen-async: {out}: {len(blocking)} async methods, {len(ctors)} constructors, "
          f"{len(funcs)} functions, {len(passthrough)} plain accessors", file=sys.stderr)


def main(argv):
    if len(argv) != 4 or argv[1] not in ("kotlin", "swift"):
        print(__doc__, file=sys.stderr)
        return 2
    (gen_kotlin if argv[1] == "kotlin" else gen_swift)(Path(argv[2]), Path(argv[3]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
