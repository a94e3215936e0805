// XCTest suite of the SessionDB Swift package: the conformance cases of
// tests/conformance (SESSIONDB_CONFORMANCE_DIR), store round trips, the error
// kinds, a Swift KeyProvider and threads appending while the store closes.
// Run by scripts/test-swift.sh (`swift test` in a Debian trixie root); the
// import cases read SESSIONDB_SAMPLES_DIR and are skipped when it is absent.

import Foundation
import SessionDB
import XCTest

struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// The suite: one XCTest method per promised behaviour (in extensions below,
/// grouped by MARK). A thrown `Failure` or `SessionDbError` fails the test.
final class SessionDBTests: XCTestCase {}

func expect(_ cond: Bool, _ msg: @autoclosure () -> String = "", line: Int = #line) throws {
    if !cond { throw Failure(description: "line \(line): \(msg())") }
}

func expectEqual<T: Equatable>(_ a: T, _ b: T, _ msg: String = "", line: Int = #line) throws {
    if a != b { throw Failure(description: "line \(line): \(msg) expected \(b), got \(a)") }
}

/// Run `body`, which must throw a SessionDbError whose kind is `kind`; returns it.
@discardableResult
func expectError<T>(_ kind: String, line: Int = #line, _ body: () throws -> T) throws -> SessionDbError {
    do {
        let v = try body()
        throw Failure(description: "line \(line): expected \(kind), got \(v)")
    } catch let e as SessionDbError {
        if kindName(e) != kind { throw Failure(description: "line \(line): expected \(kind), got \(e)") }
        return e
    }
}

/// The conformance name of an error kind. No `default`: this stops compiling
/// if SessionDbError gains or loses a case, so the 13 core kinds map one to one.
func kindName(_ e: SessionDbError) -> String {
    switch e {
    case .recoveryLocked: return "RecoveryLocked"
    case .keyMismatch: return "KeyMismatch"
    case .keyStoreUnavailable: return "KeyStoreUnavailable"
    case .notFound: return "NotFound"
    case .conflict: return "Conflict"
    case .authenticationFailed: return "AuthenticationFailed"
    case .corrupt: return "Corrupt"
    case .busy: return "Busy"
    case .invalidInput: return "InvalidInput"
    case .io: return "Io"
    case .database: return "Database"
    case .contextOverflow: return "ContextOverflow"
    case .closed: return "Closed"
    }
}

/// A key provider kept in memory, as an app would keep it in the Keychain.
final class MemoryKeyProvider: KeyProvider, @unchecked Sendable {
    var stored: Data?
    var gets = 0
    var sets = 0
    init(_ stored: Data? = nil) { self.stored = stored }
    func getKey() throws -> Data? { gets += 1; return stored }
    func setKey(key: Data) throws { sets += 1; stored = key }
    func backendName() -> String { "swift memory provider" }
}

/// A provider whose Keychain is locked.
final class LockedKeyProvider: KeyProvider, @unchecked Sendable {
    func getKey() throws -> Data? {
        throw SessionDbError.keyStoreUnavailable(backend: "swift locked provider", reason: "the keychain is locked", remedy: "unlock", detail: "locked")
    }
    func setKey(key: Data) throws {}
    func backendName() -> String { "swift locked provider" }
}

/// A provider that throws an error of its own.
struct ProviderBug: Error {}
final class BrokenKeyProvider: KeyProvider, @unchecked Sendable {
    func getKey() throws -> Data? { throw ProviderBug() }
    func setKey(key: Data) throws { throw ProviderBug() }
    func backendName() -> String { "swift broken provider" }
}

/// Counters shared by the stress threads, behind a lock.
final class Tally: @unchecked Sendable {
    struct Counts { var ok = 0; var closedErrors = 0; var unexpected: [String] = [] }
    private var counts = Counts()
    private let lock = NSLock()
    func add(_ f: (inout Counts) -> Void) { lock.lock(); f(&counts); lock.unlock() }
    func read<T>(_ f: (Counts) -> T) -> T { lock.lock(); defer { lock.unlock() }; return f(counts) }
}

/// Records importPaths progress.
final class Progress: ImportProgressListener, @unchecked Sendable {
    var seen: [(UInt64, UInt64)] = []
    func onProgress(filesDone: UInt64, filesTotal: UInt64, bytesDone: UInt64, bytesTotal: UInt64) {
        seen.append((filesDone, filesTotal))
    }
}

func tempDb() -> String {
    let dir = NSTemporaryDirectory() + "sdb-swift-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir + "/sessions.db"
}

let key9 = Data(repeating: 9, count: 32)

// MARK: store

extension SessionDBTests {
    /// new database asks the provider to store a 32-byte key, reopen reads it back
    func testNewDatabaseAsksTheProviderToStoreA32ByteKeyReopenReadsItBack() throws {
        let path = tempDb()
        let kp = MemoryKeyProvider()
        let store = try SessionStore.open(path: path, keyProvider: kp)
        try expectEqual(kp.sets, 1)
        try expectEqual(kp.stored?.count, 32)
        try expectEqual(store.keyBackend(), "swift memory provider")
        let s = try store.createSession(name: "Refactor parser", workspacePath: "/proj")
        _ = try store.appendTranscript(sessionId: s.id, role: .user, content: "héllo wörld 👋")
        store.close()
        let again = try SessionStore.open(path: path, keyProvider: kp)
        try expectEqual(kp.sets, 1, "no second key")
        try expectEqual(try again.getSession(id: s.id).name, "Refactor parser")
        try expectEqual(try again.getTranscript(sessionId: s.id, fromSeq: 1, limit: 10).map { $0.content }, ["héllo wörld 👋"])
        again.close()
    }
}

extension SessionDBTests {
    /// sessions, transcript, tokens, extensions and journal round trip
    func testSessionsTranscriptTokensExtensionsAndJournalRoundTrip() throws {
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        defer { store.close() }
        let s = try store.createSessionWith(new: NewSession(id: "sess-1", name: "First", model: "gpt-4o", provider: "openai"))
        let entries = try store.appendEntries(sessionId: s.id, entries: [
            NewEntry(role: .user, content: "question", format: .text, tokens: 5),
            NewEntry(role: .assistant, content: "[{\"type\":\"text\",\"text\":\"answer\"}]", format: .blocks),
        ])
        try expectEqual(entries.map { $0.seq }, [1, 2])
        try expectEqual(try store.getTranscript(sessionId: s.id, fromSeq: 2, limit: 1).first?.format, .blocks)
        try store.recordTokens(sessionId: s.id, usage: TokenUsage(input: 100, output: 20, cached: 5))
        try expectEqual(try store.tokenTotals(sessionId: s.id), TokenTotals(input: 100, output: 20, cached: 5))
        try expectEqual(try store.appendContextExtension(sessionId: s.id, kind: "plan", bodyJson: "{}"), 1)
        let renamed = try store.renameSession(id: s.id, name: "Renamed")
        try expectEqual(renamed.name, "Renamed")
        // A healthy session has no unreadable fields (damaged rows: Rust, Python, Node, Kotlin tests).
        try expectEqual(renamed.unreadable.count, 0)
        try expectEqual(try store.findSession(idPrefixOrTitle: "Renamed").id, "sess-1")
        try expectEqual(try store.listSessionsForWorkspace(filter: .unbound).count, 1)
        let ev = NewEvent(eventId: "ev-1", sessionId: s.id, kind: "Note", payloadJson: "{\"n\":1}")
        try expect(!(try store.journalAppend(event: ev)).duplicate)
        try expect(try store.journalAppend(event: ev).duplicate)
        _ = try store.dispatchOperation(sessionId: s.id, operationId: "op-1", payloadJson: "{}")
        try expectEqual(try store.openOperations().map { $0.operationId }, ["op-1"])
        _ = try store.completeOperation(sessionId: s.id, operationId: "op-1", outcome: .succeeded, payloadJson: "{}")
        try expect(try store.openOperations().isEmpty)
        try expectEqual(try store.stats().sessions, 1)
        try store.deleteSession(id: s.id)
        try expect(try store.listSessions().isEmpty)
    }
}

extension SessionDBTests {
    /// governance and restore: fresh authority
    func testGovernanceAndRestoreFreshAuthority() throws {
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        defer { store.close() }
        let s = try store.createSession(name: "ctx")
        _ = try store.appendEntries(sessionId: s.id, entries: (1...4).map {
            NewEntry(role: $0 % 2 == 1 ? .user : .assistant, content: "turn \($0)", format: .text)
        })
        _ = try store.recordTurnDecision(sessionId: s.id, kind: "pin", seqs: [1])
        _ = try store.recordTurnDecision(sessionId: s.id, kind: "exclude", seqs: [2])
        let gov = try store.recoverContextGovernance(sessionId: s.id)
        try expectEqual(gov.pinned, [1])
        try expectEqual(gov.excluded, [2])
        try expectEqual(governanceTurns(governance: gov, entryCount: 4).map { $0.state }, [.verbatim, .excluded, .verbatim, .verbatim])
        let status = try store.contextStatus(sessionId: s.id, rawWindow: 128_000)
        try expectEqual(status.capacity, 115_200)
        try expectEqual(status.turns.map { $0.pinned }, [true, false, false, false])
        try expect(try store.compactSession(sessionId: s.id, rawWindow: 128_000, dryRun: true).transformations.isEmpty)
        let opened = try store.openSavedSession(sessionId: s.id)
        try expectEqual(opened.knowledge.transcript.count, 4)
        try expectEqual(opened.authority.permissionProfile, .manual)
        try expect(!opened.authority.fullAccess && !opened.authority.sensitiveTransfer && opened.authority.temporaryApprovals.isEmpty)
    }
}

extension SessionDBTests {
    /// envelopes round trip, error kinds listed, workspaces canonical
    func testEnvelopesRoundTripErrorKindsListedWorkspacesCanonical() throws {
        let k = Data(repeating: 3, count: 32)
        let env = try encryptField(key: k, recordId: "session:s1:name", plaintext: Data("títle".utf8))
        try expectEqual(String(decoding: try decryptField(key: k, recordId: "session:s1:name", envelopeJson: env), as: UTF8.self), "títle")
        try expectEqual(envelopeAad(recordId: "session:s1:name"), "session:s1:name:v1:aes-256-gcm")
        try expectEqual(errorKinds().map { $0.name }.count, 13)
        try expectEqual(errorKinds().first?.code, "ERR_RECOVERY_LOCKED")
        try expectEqual(try canonicalWorkspace(path: "/a/./b/"), "/a/b")
    }
}

extension SessionDBTests {
    /// meter of a 128k window
    func testMeterOfA128kWindow() throws {
        try expectEqual(try effectiveContextCapacity(raw: 128_000), 115_200)
        let m = try meter(activeTokens: 100_000, capacity: 115_200)
        try expectEqual(m.label, "Ctx 86%")
        try expectEqual(m.band, .orange)
    }
}

// The README's Swift example, as written there, around a stand-in keychain.
final class FakeKeychain: @unchecked Sendable {
    var items: [String: Data] = [:]
    func load(_ name: String) throws -> Data? { items[name] }
    func save(_ name: String, _ key: Data) throws { items[name] = key }
}
let keychain = FakeKeychain()
final class KeychainKeys: KeyProvider {             // the app keeps the data key itself
    func getKey() throws -> Data? { try keychain.load("sessiondb") }   // nil: no key yet
    func setKey(key: Data) throws { try keychain.save("sessiondb", key) }
    func backendName() -> String { "Apple Keychain" }
}

extension SessionDBTests {
    /// README example
    func testREADMEExample() throws {
        let dbPath = tempDb()
        let projectDir = (dbPath as NSString).deletingLastPathComponent
        let exportDir = projectDir
        let store = try SessionStore.open(path: dbPath, keyProvider: KeychainKeys())
        let s = try store.createSession(name: "Fix the parser", workspacePath: projectDir)
        _ = try store.appendTranscript(sessionId: s.id, role: .user, content: "Why does the lexer drop the last token?")
        print(try store.contextStatus(sessionId: s.id, rawWindow: 128_000).meter.label)  // Ctx 0%
        try expectEqual(try store.contextStatus(sessionId: s.id, rawWindow: 128_000).meter.label, "Ctx 0%")
        _ = try store.exportThclawsToFile(sessionId: s.id, path: "\(exportDir)/\(s.id).jsonl")
        try expect(try String(contentsOfFile: "\(exportDir)/\(s.id).jsonl", encoding: .utf8).contains("Why does the lexer"))
        store.close()
    }
}

extension SessionDBTests {
    /// portable: import, export, fork and resolve round trip
    func testPortableImportExportForkAndResolveRoundTrip() throws {
        let db = tempDb()
        let dir = (db as NSString).deletingLastPathComponent
        let src = dir + "/sess-00000000000000aa.jsonl"
        let text = """
        {"type":"header","id":"sess-00000000000000aa","model":"zai/glm-5.1","cwd":"/w","created_at":1700000000}
        {"type":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}
        {"type":"assistant","content":[{"type":"text","text":"hello"},{"type":"tool_use","id":"c1","name":"Ls","input":{}}],"timestamp":2,"provider":"zai","model":"zai/glm-5.1"}

        """
        try text.write(toFile: src, atomically: true, encoding: .utf8)
        try expectEqual(try detectFormat(path: src), .thclaws)
        let store = try SessionStore.openWithKey(path: db, key: Data(repeating: 12, count: 32))
        defer { store.close() }
        let rep = try store.importFile(path: src)
        try expectEqual(rep.status, .imported)
        try expectEqual(rep.sessions.map { $0.entries }, [2])
        try expectEqual(try store.importFile(path: src).status, .upToDate)
        let jsonl = try store.exportThclaws(sessionId: "sess-00000000000000aa")
        try expect(jsonl.hasPrefix("{\"type\":\"header\",\"id\":\"sess-00000000000000aa\""))
        try expectEqual(try store.exportThclawsToFile(sessionId: "sess-00000000000000aa", path: dir + "/export.jsonl").turns, 2)
        try expectEqual(try String(contentsOfFile: dir + "/export.jsonl", encoding: .utf8), jsonl)
        let fork = try store.forkSession(sessionId: "sess-00000000000000aa", atSeq: 1)
        try expectEqual(fork.forkedFrom, "sess-00000000000000aa")
        try expectEqual(fork.entryCount, 1)
        try expectEqual(try store.resolveSession(reference: "sess-0000").id, "sess-00000000000000aa")
        let listener = Progress()
        try expectEqual(try store.importPaths(paths: [dir], progress: listener).count, 2)
        try expectEqual(listener.seen.map { [$0.0, $0.1] }, [[1, 2], [2, 2]])
    }
}

// MARK: error kinds

extension SessionDBTests {
    /// missing session is notFound
    func testMissingSessionIsNotFound() throws {
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        defer { store.close() }
        let e = try expectError("NotFound") { try store.getSession(id: "missing") }
        guard case let .notFound(what, id, _) = e else { throw Failure(description: "\(e)") }
        try expectEqual(what, "session")
        try expectEqual(id, "missing")
    }
}

extension SessionDBTests {
    /// existing session id is conflict
    func testExistingSessionIdIsConflict() throws {
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        defer { store.close() }
        _ = try store.createSessionWith(new: NewSession(id: "dup"))
        try expectError("Conflict") { try store.createSessionWith(new: NewSession(id: "dup")) }
    }
}

extension SessionDBTests {
    /// another key is keyMismatch
    func testAnotherKeyIsKeyMismatch() throws {
        let path = tempDb()
        try SessionStore.openWithKey(path: path, key: key9).close()
        try expectError("KeyMismatch") { try SessionStore.openWithKey(path: path, key: Data(repeating: 8, count: 32)) }
    }
}

extension SessionDBTests {
    /// missing key with existing db is recoveryLocked, no key written
    func testMissingKeyWithExistingDbIsRecoveryLockedNoKeyWritten() throws {
        let path = tempDb()
        let first = try SessionStore.open(path: path, keyProvider: MemoryKeyProvider())
        _ = try first.createSession(name: "x")
        first.close()
        let empty = MemoryKeyProvider(nil)
        let e = try expectError("RecoveryLocked") { try SessionStore.open(path: path, app: "myapp", keyProvider: empty) }
        guard case let .recoveryLocked(backend, service, _) = e else { throw Failure(description: "\(e)") }
        try expectEqual(backend, "swift memory provider")
        try expectEqual(service, "myapp")
        try expectEqual(empty.sets, 0)
        try expect(empty.stored == nil)
    }
}

extension SessionDBTests {
    /// locked provider is keyStoreUnavailable, never no key
    func testLockedProviderIsKeyStoreUnavailableNeverNoKey() throws {
        let e = try expectError("KeyStoreUnavailable") { try SessionStore.open(path: tempDb(), keyProvider: LockedKeyProvider()) }
        guard case let .keyStoreUnavailable(backend, reason, _, _) = e else { throw Failure(description: "\(e)") }
        try expectEqual(backend, "swift locked provider")
        try expectEqual(reason, "the keychain is locked")
    }
}

extension SessionDBTests {
    /// provider throwing its own error is keyStoreUnavailable
    func testProviderThrowingItsOwnErrorIsKeyStoreUnavailable() throws {
        try expectError("KeyStoreUnavailable") { try SessionStore.open(path: tempDb(), keyProvider: BrokenKeyProvider()) }
    }
}

extension SessionDBTests {
    /// bad arguments are invalidInput
    func testBadArgumentsAreInvalidInput() throws {
        try expectError("InvalidInput") { try SessionStore.openWithKey(path: tempDb(), key: Data(count: 3)) }
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        defer { store.close() }
        let s = try store.createSession()
        try expectError("InvalidInput") { try store.dispatchOperation(sessionId: s.id, operationId: "op", payloadJson: "not json") }
        try expectError("InvalidInput") { try meter(activeTokens: 1, capacity: 0) }
    }
}

extension SessionDBTests {
    /// closed store is closed
    func testClosedStoreIsClosed() throws {
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        let s = try store.createSession()
        store.close()
        store.close()
        try expect(store.isClosed())
        try expectError("Closed") { try store.getSession(id: s.id) }
    }
}

extension SessionDBTests {
    /// not a database is corrupt
    func testNotADatabaseIsCorrupt() throws {
        let path = tempDb()
        try "this is not an SQLite database, just text long enough to be read as a header....".write(toFile: path, atomically: true, encoding: .utf8)
        try expectError("Corrupt") { try SessionStore.openWithKey(path: path, key: key9) }
    }
}

extension SessionDBTests {
    /// directory that cannot be created is io
    func testDirectoryThatCannotBeCreatedIsIo() throws {
        let file = tempDb()
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        try expectError("Io") { try SessionStore.openWithKey(path: file + "/sub/sessions.db", key: key9) }
    }
}

extension SessionDBTests {
    /// altered envelope is authenticationFailed
    func testAlteredEnvelopeIsAuthenticationFailed() throws {
        let env = "{\"n\":\"AAAAAAAAAAAAAAAA\",\"c\":\"fNnTv9ZY7M8lydxBcA==\",\"t\":\"MadcLF4dp/xQGMlwRanYAQ==\",\"v\":1,\"alg\":\"aes-256-gcm\"}"
        let k = Data((0..<32).map { UInt8($0) })
        try expectEqual(String(decoding: try decryptField(key: k, recordId: "session:abc123:name", envelopeJson: env), as: UTF8.self), "refactor-auth")
        try expectError("AuthenticationFailed") { try decryptField(key: k, recordId: "session:abc124:name", envelopeJson: env) }
    }
}

extension SessionDBTests {
    /// protected content over capacity is contextOverflow with the breakdown
    func testProtectedContentOverCapacityIsContextOverflowWithTheBreakdown() throws {
        let items = [
            ContextItem(seq: 1, role: "system", kind: .system, tokens: 900, text: "system prompt"),
            ContextItem(seq: 2, role: "user", kind: .message, tokens: 300, pinned: true, text: "pinned"),
        ]
        let e = try expectError("ContextOverflow") { try compactContext(items: items, capacity: 1000) }
        guard case let .contextOverflow(capacity, system, pinned, _, _, _, protectedTotal, remedies, _) = e else { throw Failure(description: "\(e)") }
        try expectEqual([capacity, system, pinned, protectedTotal], [1000, 900, 300, 1200])
        try expect(!remedies.isEmpty)
    }
}

extension SessionDBTests {
    /// 8 threads appending while another closes get clean closed errors
    func test8ThreadsAppendingWhileAnotherClosesGetCleanClosedErrors() throws {
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        let sid = try store.createSession().id
        let tally = Tally()
        let group = DispatchGroup()
        for t in 0..<8 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    for n in 0..<100_000 {
                        _ = try store.appendTranscript(sessionId: sid, role: .user, content: "thread \(t) message \(n)")
                        tally.add { $0.ok += 1 }
                    }
                } catch SessionDbError.closed {
                    tally.add { $0.closedErrors += 1 }
                } catch {
                    tally.add { $0.unexpected.append("\(error)") }
                }
            }
        }
        while tally.read({ $0.ok }) < 200 { usleep(1000) }
        store.close()
        try expect(group.wait(timeout: .now() + 120) == .success, "threads finished")
        let (ok, closedErrors, unexpected) = tally.read { ($0.ok, $0.closedErrors, $0.unexpected) }
        try expect(unexpected.isEmpty, "unexpected: \(unexpected)")
        try expectEqual(closedErrors, 8)
        print("      \(ok) appends from 8 threads, then 8 clean closed errors")
    }
}

// MARK: conformance

func u(_ v: UInt64) -> J { .int(Int64(v)) }

func errorValue(_ e: SessionDbError) -> J {
    if case let .contextOverflow(capacity, system, pinned, recent, toolResults, other, protectedTotal, remedies, _) = e {
        return .object(["error": .string("ContextOverflow"), "breakdown": .object([
            "capacity": u(capacity), "system": u(system), "pinned": u(pinned), "recent": u(recent),
            "tool_results": u(toolResults), "other": u(other), "protected_total": u(protectedTotal),
            "remedies": .array(remedies.map { .string($0) }),
        ])])
    }
    return .object(["error": .string(kindName(e))])
}

func guarded(_ body: () throws -> J) throws -> J {
    do { return try body() } catch let e as SessionDbError { return errorValue(e) }
}

func planValue(_ p: CompactionPlan) -> [String: J] {
    [
        "capacity": u(p.capacity), "target_percent": .int(Int64(p.targetPercent)), "target_tokens": u(p.targetTokens),
        "tokens_before": u(p.tokensBefore), "tokens_after": u(p.tokensAfter), "reached_target": .bool(p.reachedTarget),
        "transformations": .array(p.transformations.map { t in
            .object([
                "seq": u(t.seq),
                "last_seq": t.lastSeq.map(u) ?? .null,
                "action": .string(t.action == .summarized ? "summarized" : "tool_result_preview"),
                "tokens_before": u(t.tokensBefore), "tokens_after": u(t.tokensAfter), "summary": .string(t.summary),
            ])
        }),
        // A run covers seq...last_seq.
        "compacted_seqs": .array(p.transformations.flatMap { t in (t.seq...(t.lastSeq ?? t.seq)).map(u) }),
    ]
}

func item(_ m: J) throws -> ContextItem {
    let kinds: [String: ItemKind] = ["message": .message, "tool_call": .toolCall, "tool_result": .toolResult, "system": .system]
    guard let kind = kinds[m["kind"].str ?? ""] else { throw Failure(description: "unknown kind \(m["kind"])") }
    return ContextItem(
        seq: m["seq"].u64!, role: m["role"].str!, kind: kind, tokens: m["tokens"].u64!,
        pinned: m["pinned"].bool ?? false, text: m["text"].str ?? "",
        callIds: m["call_ids"].arr.compactMap { $0.str }, compacted: m["compacted"].bool ?? false
    )
}

/// The actual output of one context case, or nil when there is no runner for `function`.
func runContext(_ function: String, _ name: String, _ i: J, _ c: J) throws -> J? {
    switch function {
    case "effective_context_capacity":
        return try guarded {
            let b = try capacityBreakdown(raw: i["raw"].u64!, outputReserve: i["output_reserve"].u64, modelMaxOutput: i["model_max_output"].u64)
            return .object(["raw": u(b.raw), "output_reserve": u(b.outputReserve), "safety_margin": u(b.safetyMargin), "capacity": u(b.capacity)])
        }
    case "meter":
        return try guarded {
            let (a, cap) = (i["active_tokens"].u64!, i["capacity"].u64!)
            let m = try meter(activeTokens: a, capacity: cap)
            return .object([
                "active_tokens": u(m.activeTokens), "capacity": u(m.capacity), "percent": u(m.percent),
                "label": .string(m.label), "band": .string("\(m.band)"), "overflow": .bool(m.overflow),
                "should_compact": .bool(shouldCompact(projectedTokens: a, capacity: cap)),
            ])
        }
    case "count_tokens":
        let t = countTokens(model: i["model"].str!, text: i["text"].str!, hostCount: i["host_count"].u64)
        switch t.method {
        case .exact(let enc):
            return .object(["tokens": u(t.tokens), "method": .string("exact"), "encoding": .string(enc == .o200kBase ? "o200k_base" : "cl100k_base")])
        case .estimate: return .object(["tokens": u(t.tokens), "method": .string("estimate")])
        case .host: return .object(["tokens": u(t.tokens), "method": .string("host")])
        }
    case "compact_context":
        return try guarded {
            let items = try i["items"].arr.map(item)
            let cap = i["capacity"].u64!
            let target = i["target_percent"].int.map { UInt8($0) }
            let options = i["options"].obj.map { o in
                CompactionOptions(recentUserTurns: UInt32(o["recent_user_turns"]?.int ?? 2), model: o["model"]?.str)
            }
            let plan = try compactContext(items: items, capacity: cap, targetPercent: target, options: options)
            // Idempotence is part of every successful case.
            let again = try compactContext(items: applyCompaction(plan: plan, items: items), capacity: cap, targetPercent: target, options: options)
            try expect(again.transformations.isEmpty, "\(name): second run compacted \(again.transformations.map { $0.seq })")
            try expectEqual(again.tokensAfter, plan.tokensAfter, "\(name): second run tokens")
            var v = planValue(plan)
            let second = planValue(again)
            if let want = c["expect"]["second_run"].obj {
                for (k, w) in want { try expectEqual(second[k] ?? .null, w, "\(name): second_run.\(k)") }
                v["second_run"] = .object(want)
            } else {
                v["second_run"] = .object(second)
            }
            return .object(v)
        }
    case "read_thclaws":
        let bytes: Data
        if let t = i["text"].str { bytes = Data(t.utf8) } else { bytes = Data(base64Encoded: i["base64"].str!)! }
        let r = try readThclaws(data: bytes, fallbackId: "fallback")
        let s = r.session
        let reasons: (SkipReason) -> String = {
            switch $0 {
            case .tornTail: return "torn_tail"
            case .invalidUtf8: return "invalid_utf8"
            case .invalidJson: return "invalid_json"
            case .notAnObject: return "not_an_object"
            case .tooLong: return "too_long"
            }
        }
        return .object([
            "id": .string(s.id), "title": optS(s.title), "model": optS(s.model), "provider": optS(s.provider), "cwd": optS(s.cwd),
            "created_at_ms": s.createdAtMs.map { .int($0) } ?? .null,
            "roles": .array(s.turns.map { .string($0.role) }),
            "texts": try texts(s.turns), "active_texts": try texts(s.activeTurns),
            "tool_calls": u(s.toolCalls), "tool_results": u(s.toolResults), "plan_steps": u(s.planSteps),
            "compactions": u(s.compactions), "lines": u(r.report.lines), "bytes": u(r.report.bytes),
            "skipped": .array(r.report.skipped.map { .object(["line": u($0.line), "reason": .string(reasons($0.reason))]) }),
            "surrogates_replaced": .array(r.report.surrogatesReplaced.map(u)),
            "missing_final_newline": .bool(r.report.missingFinalNewline),
            "kept_raw": .object(r.report.keptRaw.mapValues(u)),
            "other_lines": u(s.otherLines),
        ])
    case "write_thclaws":
        let m = i["session"]
        let text = try writeThclaws(session: NewPortableSession(
            id: m["id"].str!, title: m["title"].str, model: m["model"].str, provider: m["provider"].str, cwd: m["cwd"].str,
            createdAtMs: m["created_at_ms"].int,
            turns: m["turns"].arr.map {
                PortableTurn(role: $0["role"].str!, blocksJson: $0["blocks"].description, timestampMs: $0["timestamp_ms"].int,
                             model: $0["model"].str, provider: $0["provider"].str)
            }
        ))
        try expect(text.hasSuffix("\n"), "\(name): ends with a newline")
        return .object(["lines": .array(text.split(separator: "\n", omittingEmptySubsequences: true).map { .string(String($0)) })])
    case "import_file":
        guard let samples = samplesDir else { return nil }
        let store = try SessionStore.openWithKey(path: tempDb(), key: Data(repeating: 8, count: 32))
        defer { store.close() }
        let sample = samples + "/" + i["sample"].str!
        let rep = try store.importFile(path: sample)
        let again = try store.importFile(path: sample)
        try expectEqual(again.status, .upToDate, "\(name): re-import")
        try expect(again.sessions.isEmpty, "\(name): re-import wrote sessions")
        let format: J
        switch rep.format {
        case .thclaws: format = .string("thclaws")
        case .codex: format = .string("codex")
        case .claudeCode: format = .string("claude-code")
        case .geminiCli: format = .string("gemini-cli")
        case .opencode: format = .string("opencode")
        case .agentsSdk: format = .string("agents-sdk")
        case nil: format = .null
        }
        let status: J
        switch rep.status {
        case .imported: status = .string("imported")
        case .upToDate: status = .string("up_to_date")
        case .sourceChanged: status = .string("source_changed")
        case .unrecognized: status = .string("unrecognized")
        case .failed(let why): status = .object(["failed": .string(why)])
        }
        return .object(["format": format, "status": status, "sessions": .array(rep.sessions.map { x in
            .object([
                "session_id": .string(x.sessionId), "entries": u(x.entries), "tool_calls": u(x.toolCalls),
                "tool_results": u(x.toolResults), "input_tokens": u(x.inputTokens), "output_tokens": u(x.outputTokens),
                "cached_tokens": u(x.cachedTokens),
            ])
        })])
    default:
        return nil
    }
}

/// The real sample files of the import cases (copied in by test-swift.sh when present).
let samplesDir: String? = {
    let d = ProcessInfo.processInfo.environment["SESSIONDB_SAMPLES_DIR"] ?? "samples"
    var isDir: ObjCBool = false
    return FileManager.default.fileExists(atPath: d, isDirectory: &isDir) && isDir.boolValue ? d : nil
}()

/// Functions whose cases this binding does not run, and why (none today).
let notBound: [String: String] = [:]

func texts(_ turns: [PortableTurn]) throws -> J {
    var out: [J] = []
    for t in turns {
        for b in try J.parse(t.blocksJson).arr where b["type"].str == "text" { out.append(b["text"]) }
    }
    return .array(out)
}

func optS(_ s: String?) -> J { s.map { .string($0) } ?? .null }

func hex(_ s: String) -> Data {
    let b = Array(s.utf8)
    return Data(stride(from: 0, to: b.count, by: 2).map { UInt8(String(decoding: b[$0..<$0 + 2], as: UTF8.self), radix: 16)! })
}

/// The actual output of one op-style case (crypto.json), or nil when the op is unknown here.
func runOp(_ c: J) throws -> J? {
    switch c["op"].str {
    case "decrypt_field":
        return try guarded {
            let pt = try decryptField(key: hex(c["key_hex"].str!), recordId: c["record_id"].str!, envelopeJson: c["envelope"].description)
            return .object(["plaintext": .string(String(decoding: pt, as: UTF8.self))])
        }
    case "workspace_index":
        return try guarded { .object(["index": .string(try workspaceIndex(key: hex(c["key_hex"].str!), canonicalPath: c["path"].str!))]) }
    case "aad":
        return .object(["aad": .string(envelopeAad(recordId: c["record_id"].str!))])
    default:
        return nil
    }
}

extension SessionDBTests {
    /// every conformance case passes
    func testEveryConformanceCasePasses() throws {
        let dir = ProcessInfo.processInfo.environment["SESSIONDB_CONFORMANCE_DIR"] ?? "conformance"
        guard let walker = FileManager.default.enumerator(atPath: dir) else { throw Failure(description: "no \(dir)") }
        let files = walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".json") }.sorted()
        try expect(!files.isEmpty, "no case files under \(dir)")
        var ran = 0
        var perFile: [String] = []
        var skipped: [String] = []
        for rel in files {
            let doc = try J.parse(try String(contentsOfFile: dir + "/" + rel, encoding: .utf8))
            let function = doc["function"].str
            var n = 0
            for c in doc["cases"].arr {
                let name = "\(rel) / \(c["name"].str ?? "?")"
                if !c["steps"].isNull {
                    try runStoreCase(c, key: key9)
                    n += 1
                    continue
                }
                let actual: J?
                if let f = function { actual = try runContext(f, name, c["input"], c) } else { actual = try runOp(c) }
                guard let got = actual else {
                    let why: String
                    if let f = function, let reason = notBound[f] { why = reason }
                    else if function == "import_file" { why = "the samples directory is absent" }
                    else { throw Failure(description: "\(name): no Swift runner for `\(function ?? c["op"].str ?? "?")`") }
                    skipped.append("\(rel) (\(why))")
                    continue
                }
                if !c["error"].isNull {
                    try expectEqual(got["error"], c["error"], "\(name): error")
                    if !c["breakdown"].isNull { try expectEqual(got["breakdown"], c["breakdown"], "\(name): breakdown") }
                } else if function == nil || function == "import_file" {
                    try expectEqual(got, c["expect"], name)
                } else {
                    try expect(got["error"].isNull, "\(name): unexpected error \(got)")
                    for (k, w) in c["expect"].obj ?? [:] { try expectEqual(got[k], w, "\(name): field `\(k)`") }
                }
                n += 1
            }
            ran += n
            perFile.append("\(rel)=\(n)")
        }
        print("[conformance] swift: \(ran) cases passed (\(perFile.joined(separator: ", ")))")
        if !skipped.isEmpty {
            let counts = Dictionary(grouping: skipped, by: { $0 }).map { "\($0.value.count) in \($0.key)" }.sorted()
            print("[conformance] swift: \(skipped.count) cases not run: \(counts.joined(separator: "; "))")
        }
    }
}

// MARK: per-entry metadata

extension SessionDBTests {
    /// appendEntriesWithMeta / getTranscriptWithMeta round trip, exact values
    func testAppendEntriesWithMetaGetTranscriptWithMetaRoundTripExactValues() throws {
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        defer { store.close() }
        let s = try store.createSessionWith(new: NewSession(id: "m1", name: "meta"))
        let extra = #"{"phase":"final_answer","tool_use_result":{"stdout":"ok","exit":0,"nested":{"a":[1,2,null],"b":true}}}"#
        // As the core returns it: compact, keys in order.
        let extraOut = #"{"phase":"final_answer","tool_use_result":{"exit":0,"nested":{"a":[1,2,null],"b":true},"stdout":"ok"}}"#
        let out = try store.appendEntriesWithMeta(sessionId: s.id, entries: [
            NewEntryWithMeta(entry: NewEntry(role: .assistant, content: "answer", format: .text, createdAtMs: 1000, tokens: 4),
                             meta: EntryMeta(model: "gpt-5", provider: "openai", extraJson: extra)),
            NewEntryWithMeta(entry: NewEntry(role: .user, content: "thanks", format: .text, createdAtMs: 2000), meta: EntryMeta()),
        ])
        try expectEqual(out, [
            TranscriptEntry(sessionId: "m1", seq: 1, role: .assistant, format: .text, content: "answer", createdAtMs: 1000, tokens: 4, sourceLine: nil),
            TranscriptEntry(sessionId: "m1", seq: 2, role: .user, format: .text, content: "thanks", createdAtMs: 2000, tokens: nil, sourceLine: nil),
        ])
        try expectEqual(EntryMeta(), EntryMeta(model: nil, provider: nil, extraJson: "{}"))
        try expectEqual(try store.getTranscriptWithMeta(sessionId: s.id), [
            TranscriptEntryWithMeta(entry: out[0], meta: EntryMeta(model: "gpt-5", provider: "openai", extraJson: extraOut)),
            TranscriptEntryWithMeta(entry: out[1], meta: EntryMeta()),
        ])
        try expectEqual(try J.parse(try store.getTranscriptWithMeta(sessionId: s.id, fromSeq: 1, limit: 1)[0].meta.extraJson), try J.parse(extra))
        let plain = try store.appendTranscript(sessionId: s.id, role: .system, content: "note")
        try expectEqual(try store.getTranscriptWithMeta(sessionId: s.id, fromSeq: 3), [TranscriptEntryWithMeta(entry: plain, meta: EntryMeta())])
    }
}

extension SessionDBTests {
    /// bad metadata is invalidInput; 256 bytes is the limit
    func testBadMetadataIsInvalidInput256BytesIsTheLimit() throws {
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        defer { store.close() }
        let s = try store.createSession(name: "meta")
        func one(_ m: EntryMeta) -> [NewEntryWithMeta] { [NewEntryWithMeta(entry: NewEntry(role: .assistant, content: "x", format: .text), meta: m)] }
        try expectError("InvalidInput") { try store.appendEntriesWithMeta(sessionId: s.id, entries: one(EntryMeta(model: String(repeating: "m", count: 257)))) }
        try expectError("InvalidInput") { try store.appendEntriesWithMeta(sessionId: s.id, entries: one(EntryMeta(extraJson: "[1]"))) }
        try expectEqual(try store.appendEntriesWithMeta(sessionId: s.id, entries: one(EntryMeta(model: String(repeating: "m", count: 256)))).map { $0.seq }, [1])
        try expectError("NotFound") { try store.getTranscriptWithMeta(sessionId: "nope") }
    }
}

extension SessionDBTests {
    /// Claude sample import keeps each turn's model and tool_use_result
    func testClaudeSampleImportKeepsEachTurnSModelAndToolUseResult() throws {
        guard let dir = samplesDir else { print("      skipped: the samples directory is absent"); return }
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        defer { store.close() }
        let rep = try store.importFile(path: dir + "/claude-code/spotter_tool_heavy.jsonl", format: nil)
        try expectEqual(rep.sessions.map { $0.sessionId }, ["d6e0bada-1959-4eec-a9d2-0bfade768d8f"])
        let rows = try store.getTranscriptWithMeta(sessionId: rep.sessions[0].sessionId)
        try expectEqual(UInt64(rows.count), rep.sessions[0].entries)
        let models = rows.compactMap { r in r.meta.model.map { "\($0)/\(r.meta.provider ?? "-")" } }
        try expectEqual(models, Array(repeating: "claude-opus-4-6/anthropic", count: 4))
        var results: [(TranscriptEntry, J)] = []
        for r in rows {
            if let v = try J.parse(r.meta.extraJson).obj?["tool_use_result"] { results.append((r.entry, v)) }
        }
        try expectEqual(results.count, 6)
        try expectEqual(results[0].0.role, .user)
        try expectEqual(results[0].0.sourceLine, 11)
        try expectEqual(results[0].1, try J.parse(#"{"stdout":"","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false,"backgroundTaskId":"bae407b"}"#))
    }
}

extension SessionDBTests {
    /// the key as the base64 text of a key file opens the store (issue 27)
    func testTheKeyAsTheBase64TextOfAKeyFileOpensTheStore() throws {
        let path = tempDb()
        let text = key9.base64EncodedString() + "\n"
        let id: String = try {
            let store = try SessionStore.openWithKey(path: path, key: key9)
            defer { store.close() }
            return try store.createSession(name: "k").id
        }()
        let byText = try SessionStore.openWithKeyText(path: path, key: text)
        try expectEqual(try byText.getSession(id: id).name, "k")
        byText.close()
        let byFileBytes = try SessionStore.openWithKey(path: path, key: Data(text.utf8))
        try expectEqual(try byFileBytes.getSession(id: id).name, "k")
        byFileBytes.close()
        try expectError("InvalidInput") { try SessionStore.openWithKeyText(path: path, key: "not a key!") }
    }
}
