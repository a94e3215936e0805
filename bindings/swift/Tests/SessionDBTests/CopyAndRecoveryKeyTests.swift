// Copy between stores and recovery keys (issue 13 items 7-8).

import Foundation
import SessionDB
import XCTest

let recoveryTestKey = Data((0..<32).map { UInt8($0) })
// base32(key + sha256("sessiondb recovery key v1\0" + key)[:3]), in groups of 4.
let recoveryTestText = "AAAQ-EAYE-AUDA-OCAJ-BIFQ-YDIO-B4IB-CEQT-CQKR-MFYY-DENB-WHA5-DYPU-PUO5"

func copyCounts(_ r: CopyReport) -> [UInt64] {
    [r.sessionsSeen, r.sessionsCreated, r.sessionsUpdated, r.sessionsDeleted, r.entries, r.retractions,
     r.tokens, r.extensions, r.events, r.openOperations, r.importRecords]
}

extension SessionDBTests {
    /// copyTo copies, then nothing, then only new rows; a diverged session is a Conflict
    func testCopyToCopiesThenNothingThenOnlyNewRowsADivergedSessionIsAConflict() throws {
        let a = try SessionStore.openWithKey(path: tempDb(), key: recoveryTestKey)
        let b = try SessionStore.openWithKey(path: tempDb(), key: recoveryTestKey)
        defer { a.close(); b.close() }
        let s = try a.createSession(name: "laptop", workspacePath: nil)
        _ = try a.appendTranscript(sessionId: s.id, role: .user, content: "one")
        _ = try a.appendTranscript(sessionId: s.id, role: .assistant, content: "two")
        let r = try a.copyTo(dest: b)
        try expectEqual(copyCounts(r), [1, 1, 0, 0, 2, 0, 0, 0, 3, 0, 0])
        try expectEqual(r.conflicts.count, 0)
        try expectEqual(try b.getTranscript(sessionId: s.id, fromSeq: 1, limit: 10).map { $0.content }, ["one", "two"])
        try expectEqual(copyCounts(try a.copyTo(dest: b)), [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        _ = try a.appendTranscript(sessionId: s.id, role: .user, content: "three")
        try expectEqual(Array(copyCounts(try a.copyTo(dest: b))[4..<9]), [1, 0, 0, 0, 1])
        _ = try b.appendTranscript(sessionId: s.id, role: .user, content: "in B")
        _ = try a.appendTranscript(sessionId: s.id, role: .user, content: "in A")
        try expectEqual(try a.copyTo(dest: b).conflicts,
                        [CopyConflict(sessionId: s.id, kind: "Conflict", reason: "journal event at seq 5 differs between source and destination")])
    }
}

extension SessionDBTests {
    /// copyTo into a store with another key is KeyMismatch and writes nothing
    func testCopyToIntoAStoreWithAnotherKeyIsKeyMismatchAndWritesNothing() throws {
        let a = try SessionStore.openWithKey(path: tempDb(), key: recoveryTestKey)
        let b = try SessionStore.openWithKey(path: tempDb(), key: Data(repeating: 7, count: 32))
        defer { a.close(); b.close() }
        _ = try a.createSession(name: "secret", workspacePath: nil)
        try expectError("KeyMismatch") { try a.copyTo(dest: b) }
        try expectEqual(try b.stats().journalEvents, 0)
    }
}

extension SessionDBTests {
    /// a known key has its exact recovery text; a typo is the checksum error
    func testAKnownKeyHasItsExactRecoveryTextATypoIsTheChecksumError() throws {
        try expectEqual(try recoveryKeyText(key: recoveryTestKey), recoveryTestText)
        let a = try SessionStore.openWithKey(path: tempDb(), key: recoveryTestKey)
        try expectEqual(a.recoveryKey(), recoveryTestText)
        a.close()
        for t in [recoveryTestText, recoveryTestText.lowercased(), recoveryTestText.replacingOccurrences(of: "-", with: " ")] {
            try expectEqual(try parseRecoveryKey(text: t), recoveryTestKey)
        }
        let e = try expectError("InvalidInput") { try parseRecoveryKey(text: "AAAR" + recoveryTestText.dropFirst(4)) }
        guard case let .invalidInput(_, detail) = e else { throw Failure(description: "not invalidInput") }
        try expectEqual(detail, "invalid input: recovery key checksum mismatch: a character was mistyped or left out; compare it group by group with the exported text")
    }
}

extension SessionDBTests {
    /// importRecoveryKey checks the database, then stores the key in the provider
    func testImportRecoveryKeyChecksTheDatabaseThenStoresTheKeyInTheProvider() throws {
        let db = tempDb()
        let laptop = try SessionStore.openWithKey(path: db, key: recoveryTestKey)
        let sid = try laptop.createSession(name: "from the laptop", workspacePath: nil).id
        laptop.close()
        let device = MemoryKeyProvider()
        try expectError("KeyMismatch") { try importRecoveryKey(recoveryKey: try recoveryKeyText(key: Data(repeating: 9, count: 32)), path: db, keyProvider: device) }
        try expectEqual(device.stored, nil)
        let s = try importRecoveryKey(recoveryKey: recoveryTestText.lowercased(), path: db, keyProvider: device)
        try expectEqual(try s.getSession(id: sid).name, "from the laptop")
        s.close()
        try expectEqual(device.stored, recoveryTestKey)
        try expectError("Conflict") { try importRecoveryKey(recoveryKey: recoveryTestText, path: db, keyProvider: MemoryKeyProvider(Data(repeating: 3, count: 32))) }
    }
}
