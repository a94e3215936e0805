// Structured items, the tail with metadata, the active context (issue 16).

import Foundation
import SessionDB
import XCTest

extension SessionDBTests {
    /// a structured item round-trips byte-exact and only its text is counted
    func testAStructuredItemRoundTripsByteExactAndOnlyItsTextIsCounted() throws {
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        defer { store.close() }
        // Key order, whitespace, JSON escapes and non-ASCII exactly as written.
        let item = "{\"z\": 1,  \"role\":\"user\",\n \"content\": \"h\\u00e9llo ☃ café \\ud83d\\ude00 😀\", \"a\": [ ]}\t"
        let text = "héllo ☃ café 😀"
        let s = try store.createSessionWith(new: NewSession(id: "items"))
        let plain = try store.createSessionWith(new: NewSession(id: "plain"))
        _ = try store.appendEntriesWithMeta(sessionId: s.id, entries: [
            NewEntryWithMeta(entry: NewEntry(role: .user, content: text, format: .text), meta: EntryMeta(item: item)),
            NewEntryWithMeta(entry: NewEntry(role: .user, content: "b", format: .text), meta: EntryMeta(extraJson: #"{"k":1}"#, item: "[1]")),
        ])
        _ = try store.appendEntries(sessionId: plain.id, entries: [NewEntry(role: .user, content: text, format: .text), NewEntry(role: .user, content: "b", format: .text)])
        let got = try store.getTranscriptWithMeta(sessionId: s.id)
        try expectEqual(got.map { $0.meta }, [EntryMeta(item: item), EntryMeta(extraJson: #"{"k":1}"#, item: "[1]")])
        try expectEqual(Array(got[0].meta.item!.utf8), Array(item.utf8))
        let want = [countTokens(model: "gpt-4o", text: text, hostCount: nil).tokens, countTokens(model: "gpt-4o", text: "b", hostCount: nil).tokens]
        try expectEqual(try store.activeContext(sessionId: s.id, rawWindow: 128_000, model: "gpt-4o").items.map { $0.tokens }, want)
        try expectEqual(try store.activeContext(sessionId: plain.id, rawWindow: 128_000, model: "gpt-4o").items.map { $0.tokens }, want)
        try expectEqual(try store.contextStatus(sessionId: s.id, rawWindow: 128_000, model: "gpt-4o").meter.activeTokens, want[0] + want[1])
        _ = try expectError("InvalidInput") {
            try store.appendEntriesWithMeta(sessionId: s.id, entries: [NewEntryWithMeta(entry: NewEntry(role: .user, content: "x", format: .text), meta: EntryMeta(item: "{not json"))])
        }
        try expectEqual(try store.getSession(id: s.id).entryCount, 2)
    }
}

extension SessionDBTests {
    /// getTranscriptTailWithMeta reads the last entries with their metadata
    func testGetTranscriptTailWithMetaReadsTheLastEntriesWithTheirMetadata() throws {
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        defer { store.close() }
        let s = try store.createSessionWith(new: NewSession(id: "tail"))
        _ = try store.appendEntriesWithMeta(sessionId: s.id, entries: (1...5).map {
            NewEntryWithMeta(entry: NewEntry(role: .user, content: "t\($0)", format: .text), meta: EntryMeta(model: "m\($0)", item: "{\"n\": \($0)}"))
        })
        _ = try store.retractEntry(sessionId: s.id, seq: 5)
        let tail = try store.getTranscriptTailWithMeta(sessionId: s.id, limit: 2)
        try expectEqual(tail.map { $0.entry.seq }, [3, 4])
        try expectEqual(tail.map { $0.entry.content }, ["t3", "t4"])
        try expectEqual(tail.map { $0.meta }, [EntryMeta(model: "m3", item: #"{"n": 3}"#), EntryMeta(model: "m4", item: #"{"n": 4}"#)])
        try expectEqual(try store.getTranscriptTailWithMeta(sessionId: s.id).count, 4)
        _ = try expectError("InvalidInput") { try store.getTranscriptTailWithMeta(sessionId: s.id, limit: 0) }
        _ = try expectError("NotFound") { try store.getTranscriptTailWithMeta(sessionId: "nope", limit: 2) }
    }
}

extension SessionDBTests {
    /// activeContext lists verbatim, compacted and excluded items in order, with their tokens
    func testActiveContextListsVerbatimCompactedAndExcludedItemsInOrder() throws {
        let store = try SessionStore.openWithKey(path: tempDb(), key: key9)
        defer { store.close() }
        let s = try store.createSessionWith(new: NewSession(id: "ctx"))
        // About 1,000 tokens each (estimate: 3 bytes a token); capacity of a 10,000 window: 7,152.
        let turns = (1...12).map { i in NewEntry(role: i % 2 == 1 ? .user : .assistant, content: "turn \(i < 10 ? "0" : "")\(i) " + String(repeating: "word ", count: 599), format: .text) }
        _ = try store.appendEntries(sessionId: s.id, entries: turns)
        let before = try store.activeContext(sessionId: s.id, rawWindow: 10_000)
        try expectEqual(before.capacity, 7_152)
        try expectEqual(before.items.map { $0.seq }, Array(1...12))
        try expect(before.items.allSatisfy { $0.state == .verbatim && $0.text == turns[Int($0.seq) - 1].content }, "verbatim")
        try expectEqual(before.tokens, before.items.reduce(0) { $0 + $1.tokens })
        let plan = try store.compactSession(sessionId: s.id, rawWindow: 10_000)
        _ = try store.recordTurnDecision(sessionId: s.id, kind: "exclude", seqs: [12])
        let after = try store.activeContext(sessionId: s.id, rawWindow: 10_000)
        let run = plan.transformations[0]
        try expectEqual(after.items.first!, ActiveItem(seq: 1, lastSeq: run.lastSeq, role: "user", state: .compacted, tokens: run.tokensAfter, text: run.summary))
        let last = Int(run.lastSeq!)
        try expectEqual(after.items.dropFirst().dropLast().map { $0.seq }, (last + 1...11).map { UInt64($0) })
        try expectEqual(after.items.dropFirst().dropLast().map { $0.text }, (last + 1...11).map { turns[$0 - 1].content })
        try expectEqual(after.items.last!, ActiveItem(seq: 12, lastSeq: nil, role: "assistant", state: .excluded, tokens: 0, text: nil))
        try expectEqual(after.tokens, after.items.reduce(0) { $0 + $1.tokens })
        _ = try expectError("InvalidInput") { try store.activeContext(sessionId: s.id, rawWindow: 0) }
        _ = try expectError("NotFound") { try store.activeContext(sessionId: "nope", rawWindow: 10_000) }
        // The runs in force: the run once, and each turn names it (compactedBy: its firstSeq).
        let status = try store.contextStatus(sessionId: s.id, rawWindow: 10_000)
        try expectEqual(status.compacted, [CompactedRun(firstSeq: 1, lastSeq: run.lastSeq!, transformation: run)])
        try expectEqual(status.turns.map { $0.compactedBy }, (1...12).map { $0 <= last ? UInt64(1) : nil })
        // A pin inside the run leaves two runs with the same transformation.
        try expect(last >= 3, "a run of 3 or more turns")
        _ = try store.recordTurnDecision(sessionId: s.id, kind: "pin", seqs: [2])
        let gov = try store.recoverContextGovernance(sessionId: s.id)
        try expectEqual(gov.compacted, [CompactedRun(firstSeq: 1, lastSeq: 1, transformation: run), CompactedRun(firstSeq: 3, lastSeq: run.lastSeq!, transformation: run)])
        try expectEqual(governanceTurns(governance: gov, entryCount: 4).map { $0.compactedBy }, [1, nil, 3, 3])
    }
}
