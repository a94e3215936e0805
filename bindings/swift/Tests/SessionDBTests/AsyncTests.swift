// The `async` variants (uniffi async exports, bindings/src/async_store.rs):
// the blocking calls' results and errors, run on the library's blocking pool,
// callable from two tasks at once; a cancelled call still completes whole.

import Dispatch
import Foundation
import SessionDB
import XCTest

/// The name of the calling thread as the OS knows it (`blocking-N` on the
/// library's pool). Linux: /proc (Glibc's module lacks `pthread_getname_np`).
func currentThreadName() -> String {
    #if os(Linux)
    let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
    return (comm ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    #else
    var buf = [CChar](repeating: 0, count: 64)
    pthread_getname_np(pthread_self(), &buf, buf.count)
    return String(cString: buf)
    #endif
}

/// A provider that records which thread `getKey` ran on.
final class RecordingKeyProvider: KeyProvider, @unchecked Sendable {
    var stored: Data?
    var getKeyThread: String?
    func getKey() throws -> Data? { getKeyThread = currentThreadName(); return stored }
    func setKey(key: Data) throws { stored = key }
    func backendName() -> String { "swift recording provider" }
}

/// Holds `importPaths` after its first file until released; counts the files.
final class GateProgress: ImportProgressListener, @unchecked Sendable {
    let reached = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    func onProgress(filesDone: UInt64, filesTotal: UInt64, bytesDone: UInt64, bytesTotal: UInt64) {
        if filesDone == 1 { reached.signal(); _ = release.wait(timeout: .now() + 20) }
    }
}

/// Run `body`, which must throw a SessionDbError of `kind`.
func expectAsyncError<T>(_ kind: String, line: Int = #line, _ body: () async throws -> T) async throws {
    do {
        let v = try await body()
        throw Failure(description: "line \(line): expected \(kind), got \(v)")
    } catch let e as SessionDbError {
        if kindName(e) != kind { throw Failure(description: "line \(line): expected \(kind), got \(e)") }
    }
}

final class AsyncTests: XCTestCase {
    func testAsyncVariantsReturnTheBlockingResults() async throws {
        let path = tempDb()
        let s = try await AsyncSessionStore.openWithKey(path: path, key: key9)
        let created = try await s.createSession(name: "async", workspacePath: nil)
        let e1 = try await s.appendTranscript(sessionId: created.id, role: .user, content: "hello")
        let e2 = try await s.appendTranscript(sessionId: created.id, role: .assistant, content: "hi")
        try expectEqual([e1.seq, e2.seq], [1, 2])
        let rows = try await s.getTranscript(sessionId: created.id)
        try expectEqual(rows.map { $0.content }, ["hello", "hi"])
        try expectEqual(rows, try s.store().getTranscript(sessionId: created.id, fromSeq: 1, limit: 1000))
        try expectEqual(try await s.getSession(id: created.id).entryCount, 2)
        try expectEqual(try await s.listSessions().map { $0.id }, [created.id])
        try expectEqual(s.path(), path)
        await s.close()
        try expect(s.isClosed())
        // Another wrapper of the same handle.
        try expect(AsyncSessionStore(store: s.store()).isClosed())
    }

    func testAsyncVariantsThrowTheSameErrorKinds() async throws {
        let path = tempDb()
        let s = try await AsyncSessionStore.openWithKey(path: path, key: key9)
        try await expectAsyncError("NotFound") { try await s.getSession(id: "no-such-session") }
        await s.close()
        try await expectAsyncError("Closed") { try await s.createSession() }
        try await expectAsyncError("KeyMismatch") { try await AsyncSessionStore.openWithKey(path: path, key: Data(repeating: 8, count: 32)) }
    }

    func testBlockingWorkRunsOnTheLibrarysPool() async throws {
        let kp = RecordingKeyProvider()
        let s = try await AsyncSessionStore.open(path: tempDb(), keyProvider: kp)
        await s.close()
        try expect(kp.getKeyThread?.hasPrefix("blocking-") == true, "\(kp.getKeyThread ?? "nil")")
        // The blocking call on the same provider runs where it is called.
        let direct = try SessionStore.open(path: tempDb(), keyProvider: kp)
        direct.close()
        try expectEqual(kp.getKeyThread, currentThreadName())
    }

    /// Swift: uniffi's continuation ignores task cancellation, so a cancelled
    /// call completes whole and returns its result (here: both files imported).
    func testACancelledTaskStillCompletesItsCallWhole() async throws {
        let db = tempDb()
        let dir = (db as NSString).deletingLastPathComponent
        for id in ["aa", "bb"] {
            let text = "{\"type\":\"header\",\"id\":\"sess-00000000000000\(id)\",\"created_at\":1700000000}\n"
                + "{\"type\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi \(id)\"}],\"timestamp\":1}\n"
            try text.write(toFile: "\(dir)/sess-00000000000000\(id).jsonl", atomically: true, encoding: .utf8)
        }
        let s = try await AsyncSessionStore.openWithKey(path: db, key: key9)
        let gate = GateProgress()
        let task = Task { try await s.importPaths(paths: [dir], progress: gate) }
        let reached = await withCheckedContinuation { (c: CheckedContinuation<DispatchTimeoutResult, Never>) in
            DispatchQueue.global().async { c.resume(returning: gate.reached.wait(timeout: .now() + 20)) }
        }
        try expectEqual(reached, .success)
        task.cancel()
        gate.release.signal()
        let reports = try await task.value
        try expectEqual(reports.map { $0.status }, [.imported, .imported])
        try expectEqual(try await s.listSessions().map { $0.id }.sorted(), ["sess-00000000000000aa", "sess-00000000000000bb"])
        await s.close()
    }

    func testTwoTasksAppendingAtOnceGetGaplessSeqsAndKeepTheirOrder() async throws {
        let s = try await AsyncSessionStore.openWithKey(path: tempDb(), key: key9)
        let sid = try await s.createSession(name: "two writers").id
        @Sendable func writer(_ w: String) async throws -> [UInt64] {
            var seqs: [UInt64] = []
            for n in 0..<50 { seqs.append(try await s.appendTranscript(sessionId: sid, role: .user, content: "\(w) \(n)").seq) }
            return seqs
        }
        async let a = writer("a")
        async let b = writer("b")
        let (sa, sb) = try await (a, b)
        try expectEqual((sa + sb).sorted(), Array(1...100))
        try expectEqual(sa, sa.sorted())
        try expectEqual(sb, sb.sorted())
        let rows = try await s.getTranscript(sessionId: sid)
        try expectEqual(rows.map { $0.seq }, Array(1...100))
        for w in ["a", "b"] {
            try expectEqual(rows.map { $0.content }.filter { $0.hasPrefix("\(w) ") }, (0..<50).map { "\(w) \($0)" })
        }
        await s.close()
    }

    func testModuleFunctionsHaveAsyncVariants() async throws {
        let env = try await SessionDbAsync().encryptField(key: key9, recordId: "session:s1:name", plaintext: Data("secret".utf8))
        try expectEqual(try await SessionDbAsync().decryptField(key: key9, recordId: "session:s1:name", envelopeJson: env), Data("secret".utf8))
        try await expectAsyncError("AuthenticationFailed") {
            try await SessionDbAsync().decryptField(key: key9, recordId: "session:s2:name", envelopeJson: env)
        }
        try expectEqual(try await SessionDbAsync().workspaceIndex(key: key9, canonicalPath: "/projA"), try workspaceIndex(key: key9, canonicalPath: "/projA"))
        try expectEqual(try await SessionDbAsync().canonicalWorkspace(path: "/a/./b/"), "/a/b")
    }

    /// The README's async example, as written there.
    func testREADMEAsyncExample() async throws {
        let dbPath = tempDb()
        let key = key9
        let s = try await AsyncSessionStore.openWithKey(path: dbPath, key: key)
        let id = try await s.createSession(name: "async").id
        _ = try await s.appendTranscript(sessionId: id, role: .user, content: "hello")
        print(try await s.contextStatus(sessionId: id, rawWindow: 128_000).meter.label)  // Ctx 0%
        try expectEqual(try await s.contextStatus(sessionId: id, rawWindow: 128_000).meter.label, "Ctx 0%")
        try expectEqual(try await s.getTranscript(sessionId: id).map { $0.content }, ["hello"])
        await s.close()
    }
}
