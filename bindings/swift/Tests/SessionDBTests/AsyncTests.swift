// The generated `async` variants (scripts/gen-async.py from
// tests/api/surface.json `async_variants`): the blocking calls' results and
// errors, run on a global Dispatch queue, callable from two tasks at once.

import Dispatch
import Foundation
import SessionDB
import XCTest

/// Marks `sessiondbBlockingQueue`, so code can tell whether it runs there.
let blockingQueueMark = DispatchSpecificKey<String>()

/// "blocking queue" when the calling code runs on `sessiondbBlockingQueue`.
func currentQueueLabel() -> String {
    DispatchQueue.getSpecific(key: blockingQueueMark) ?? "another queue"
}

/// A provider that records which queue `getKey` ran on.
final class RecordingKeyProvider: KeyProvider, @unchecked Sendable {
    var stored: Data?
    var getKeyQueue: String?
    func getKey() throws -> Data? { getKeyQueue = currentQueueLabel(); return stored }
    func setKey(key: Data) throws { stored = key }
    func backendName() -> String { "swift recording provider" }
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
        try expectEqual(rows, try s.store.getTranscript(sessionId: created.id, fromSeq: 1, limit: 1000))
        try expectEqual(try await s.getSession(id: created.id).entryCount, 2)
        try expectEqual(try await s.listSessions().map { $0.id }, [created.id])
        try expectEqual(s.path(), path)
        await s.close()
        try expect(s.isClosed())
        // The `store.async` accessor wraps the same handle.
        try expect(s.store.async.isClosed())
    }

    func testAsyncVariantsThrowTheSameErrorKinds() async throws {
        let path = tempDb()
        let s = try await AsyncSessionStore.openWithKey(path: path, key: key9)
        try await expectAsyncError("NotFound") { try await s.getSession(id: "no-such-session") }
        await s.close()
        try await expectAsyncError("Closed") { try await s.createSession() }
        try await expectAsyncError("KeyMismatch") { try await AsyncSessionStore.openWithKey(path: path, key: Data(repeating: 8, count: 32)) }
    }

    func testBlockingWorkRunsOnTheBlockingQueue() async throws {
        sessiondbBlockingQueue.setSpecific(key: blockingQueueMark, value: "blocking queue")
        try expectEqual(currentQueueLabel(), "another queue")
        let kp = RecordingKeyProvider()
        let s = try await AsyncSessionStore.open(path: tempDb(), keyProvider: kp)
        await s.close()
        try expectEqual(kp.getKeyQueue, "blocking queue")
        // The blocking call on the same provider runs where it is called.
        let direct = try SessionStore.open(path: tempDb(), keyProvider: kp)
        direct.close()
        try expectEqual(kp.getKeyQueue, "another queue")
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
        let env = try await SessionDBAsync.encryptField(key: key9, recordId: "session:s1:name", plaintext: Data("secret".utf8))
        try expectEqual(try await SessionDBAsync.decryptField(key: key9, recordId: "session:s1:name", envelopeJson: env), Data("secret".utf8))
        try await expectAsyncError("AuthenticationFailed") {
            try await SessionDBAsync.decryptField(key: key9, recordId: "session:s2:name", envelopeJson: env)
        }
        try expectEqual(try await SessionDBAsync.workspaceIndex(key: key9, canonicalPath: "/projA"), try workspaceIndex(key: key9, canonicalPath: "/projA"))
        try expectEqual(try await SessionDBAsync.canonicalWorkspace(path: "/a/./b/"), "/a/b")
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
