// Runner of the store conformance cases (tests/conformance/store/*.json):
// sequences of store calls with expected results and error kinds; the call
// vocabulary is in the file's `description`. Results are compared as JSON
// values with snake_case keys (the core's serde forms).

import Foundation
import SessionDB

private func js(_ s: String?) -> J { s.map { .string($0) } ?? .null }
private func ju(_ v: UInt64?) -> J { v.map { .int(Int64($0)) } ?? .null }

private func sessionJ(_ r: SessionRecord) -> J {
    .object([
        "id": .string(r.id), "name": js(r.name), "workspace_path": js(r.workspacePath), "model": js(r.model),
        "provider": js(r.provider), "work_mode": js(r.workMode), "created_at_ms": .int(r.createdAtMs),
        "updated_at_ms": .int(r.updatedAtMs), "entry_count": ju(r.entryCount), "forked_from": js(r.forkedFrom),
        "forked_at_seq": ju(r.forkedAtSeq),
        "unreadable": .array(r.unreadable.map {
            .object(["field": .string($0.field), "record_id": .string($0.recordId), "kind": .string($0.kind), "reason": .string($0.reason)])
        }),
    ])
}

private func entryJ(_ e: TranscriptEntry) -> J {
    .object([
        "session_id": .string(e.sessionId), "seq": ju(e.seq), "role": .string(String(describing: e.role)),
        "format": .string(String(describing: e.format)), "content": .string(e.content), "created_at_ms": .int(e.createdAtMs),
        "tokens": ju(e.tokens), "source_line": ju(e.sourceLine),
    ])
}

private func outcomeJ(_ o: AppendOutcome) -> J {
    .object(["seq": ju(o.seq), "aggregate_version": ju(o.aggregateVersion), "duplicate": .bool(o.duplicate)])
}

private func eventJ(_ e: JournalEvent) throws -> J {
    .object([
        "event_id": .string(e.eventId), "session_id": .string(e.sessionId), "seq": ju(e.seq),
        "aggregate_version": ju(e.aggregateVersion), "operation_id": js(e.operationId), "kind": .string(e.kind),
        "payload": try J.parse(e.payloadJson), "created_at": .string(e.createdAt),
    ])
}

private func roleOf(_ a: J) throws -> Role {
    switch a["role"].str {
    case "user": return .user
    case "assistant": return .assistant
    case "tool": return .tool
    case "system": return .system
    default: throw Failure(description: "unknown role \(a["role"])")
    }
}

private func storeCall(_ s: SessionStore, _ name: String, _ a: J) throws -> J {
    let sid = a["session_id"].str ?? ""
    switch name {
    case "create_session": return sessionJ(try s.createSession(name: a["name"].str))
    case "get_session": return sessionJ(try s.getSession(id: a["id"].str!))
    case "rename_session": return sessionJ(try s.renameSession(id: a["id"].str!, name: a["name"].str))
    case "append_transcript":
        return entryJ(try s.appendTranscript(sessionId: sid, role: try roleOf(a), content: a["content"].str!))
    case "append_generated":
        let role = try roleOf(a)
        let n = a["count"].int!
        let entries = (1...n).map {
            NewEntry(role: role, content: a["content"].str!.replacingOccurrences(of: "{i}", with: String($0)), format: .text)
        }
        _ = try s.appendEntries(sessionId: sid, entries: entries)
        return .null
    case "retract_entry":
        return try s.retractEntry(sessionId: sid, seq: a["seq"].u64!).map(entryJ) ?? .null
    case "retract_last_entry":
        return try s.retractLastEntry(sessionId: sid).map(entryJ) ?? .null
    case "get_transcript_tail":
        let page: [TranscriptEntry]
        if let l = a["limit"].int { page = try s.getTranscriptTail(sessionId: sid, limit: UInt32(l)) } else { page = try s.getTranscriptTail(sessionId: sid) }
        return .array(page.map(entryJ))
    case "get_transcript":
        let from = a["from_seq"].u64, limit = a["limit"].int.map { UInt32($0) }
        let page: [TranscriptEntry]
        switch (from, limit) {
        case (nil, nil): page = try s.getTranscript(sessionId: sid)
        case (let f?, nil): page = try s.getTranscript(sessionId: sid, fromSeq: f)
        case (nil, let l?): page = try s.getTranscript(sessionId: sid, limit: l)
        case (let f?, let l?): page = try s.getTranscript(sessionId: sid, fromSeq: f, limit: l)
        }
        return .array(page.map(entryJ))
    case "append_with_item":
        let row = NewEntryWithMeta(entry: NewEntry(role: try roleOf(a), content: a["content"].str!, format: .text), meta: EntryMeta(item: a["item"].str!))
        return entryJ(try s.appendEntriesWithMeta(sessionId: sid, entries: [row])[0])
    case "get_transcript_tail_with_meta":
        let rows: [TranscriptEntryWithMeta]
        if let l = a["limit"].int { rows = try s.getTranscriptTailWithMeta(sessionId: sid, limit: UInt32(l)) } else { rows = try s.getTranscriptTailWithMeta(sessionId: sid) }
        return .array(rows.map { .object(["entry": entryJ($0.entry), "meta": .object(["model": js($0.meta.model), "provider": js($0.meta.provider), "item": js($0.meta.item)])]) })
    case "active_context":
        let v = try s.activeContext(sessionId: sid, rawWindow: a["raw_window"].u64!)
        return .object([
            "model": js(v.model), "capacity": ju(v.capacity), "tokens": ju(v.tokens),
            "items": .array(v.items.map {
                .object(["seq": ju($0.seq), "last_seq": ju($0.lastSeq), "role": .string($0.role), "state": .string(String(describing: $0.state)),
                         "tokens": ju($0.tokens), "text": js($0.text)])
            }),
        ])
    case "fork_session":
        return sessionJ(try s.forkSession(sessionId: sid, atSeq: a["at_seq"].u64))
    case "record_tokens":
        try s.recordTokens(sessionId: sid, usage: TokenUsage(input: a["input"].u64!, output: a["output"].u64!, cached: a["cached"].u64!))
        return .null
    case "recovery_key_text":
        let hex = Array(a["key_hex"].str!)
        let bytes = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(hex[$0..<$0 + 2]), radix: 16)! }
        return .string(try recoveryKeyText(key: Data(bytes)))
    case "parse_recovery_key":
        return .string(try parseRecoveryKey(text: a["text"].str!).map { String(format: "%02x", $0) }.joined())
    case "token_totals":
        let t = try s.tokenTotals(sessionId: sid)
        return .object(["input": ju(t.input), "output": ju(t.output), "cached": ju(t.cached)])
    case "journal_append":
        let ev = NewEvent(eventId: a["event_id"].str!, sessionId: sid, kind: a["kind"].str!, payloadJson: a["payload"].description)
        return outcomeJ(try s.journalAppend(event: ev))
    case "journal_events": return .array(try s.journalEvents(sessionId: sid).map(eventJ))
    case "dispatch_operation":
        return outcomeJ(try s.dispatchOperation(sessionId: sid, operationId: a["operation_id"].str!, payloadJson: "{}"))
    case "complete_operation":
        let o: OperationOutcome
        switch a["outcome"].str {
        case "succeeded": o = .succeeded
        case "failed": o = .failed
        case "blocked": o = .blocked
        case "cancelled": o = .cancelled
        default: o = .unknownOutcome
        }
        return outcomeJ(try s.completeOperation(sessionId: sid, operationId: a["operation_id"].str!, outcome: o, payloadJson: "{}"))
    case "delete_session":
        try s.deleteSession(id: a["id"].str!)
        return .null
    case "search":
        // tests/conformance/search/: hits sorted by (session id, seq), each with the
        // snippet's highlighted substrings as Swift slices snippet.utf16.
        let r = try s.search(query: a["query"].str!, options: SearchOptions(
            limit: a["limit"].int.map { UInt32($0) }, cursor: nil, sessions: a["sessions"].bool ?? false, workspacePath: nil, snippetChars: nil))
        let hits = r.hits.sorted { ($0.sessionId, $0.seq) < ($1.sessionId, $1.seq) }.map { h -> J in
            let units = Array(h.snippet.utf16)
            return .object([
                "session_id": .string(h.sessionId), "seq": ju(h.seq), "role": js(h.role), "field": .string(h.field),
                "snippet": .string(h.snippet),
                "marked": .array(h.highlights.map { .string(String(decoding: units[Int($0.start)..<Int($0.end)], as: UTF16.self)) }),
            ])
        }
        return .object(["total": ju(r.total), "hits": .array(hits)])
    case "open_operations":
        return .array(try s.openOperations().map { .object(["session_id": .string($0.sessionId), "operation_id": .string($0.operationId)]) })
    case "open_recovery_report":
        let r = s.openRecoveryReport()
        return .object([
            "marked_unknown": .array(r.markedUnknown.map { .array([.string($0.sessionId), .string($0.operationId)]) }),
            "skipped_live": ju(r.skippedLive),
            "failed": .array(r.failed.map { .object(["session_id": .string($0.sessionId), "operation_id": .string($0.operationId), "kind": .string($0.kind)]) }),
        ])
    default: throw Failure(description: "unknown store call \(name)")
    }
}

private func subst(_ v: J, _ saved: [String: String]) throws -> J {
    switch v {
    case .string(let s) where s.hasPrefix("$"):
        guard let id = saved[String(s.dropFirst())] else { throw Failure(description: "unknown \(s)") }
        return .string(id)
    case .array(let a): return .array(try a.map { try subst($0, saved) })
    case .object(let o): return .object(try o.mapValues { try subst($0, saved) })
    default: return v
    }
}

private func mismatch(_ e: J, _ a: J, _ at: String = "result") -> String? {
    switch (e, a) {
    case (.object(let eo), .object(let ao)):
        for (k, ev) in eo {
            guard let av = ao[k] else { return "\(at).\(k): missing in \(a)" }
            if let m = mismatch(ev, av, "\(at).\(k)") { return m }
        }
        return nil
    case (.array(let ea), .array(let aa)) where ea.count == aa.count:
        for (i, (ev, av)) in zip(ea, aa).enumerated() {
            if let m = mismatch(ev, av, "\(at)[\(i)]") { return m }
        }
        return nil
    default:
        return e == a ? nil : "\(at): expected \(e), got \(a)"
    }
}

/// Run one store case on a fresh store; throws naming the step.
func runStoreCase(_ c: J, key: Data) throws {
    let path = tempDb()
    var store = try SessionStore.openWithKey(path: path, key: key)
    defer { store.close() }
    var saved: [String: String] = [:]
    for (i, step) in c["steps"].arr.enumerated() {
        let call = step["call"].str ?? "?"
        let what = "case \(c["name"].str ?? "?") step \(i) (\(call))"
        if call == "reopen" {
            store.close()
            store = try SessionStore.openWithKey(path: path, key: key)
            continue
        }
        let got: J
        do {
            got = try storeCall(store, call, try subst(step["args"], saved))
        } catch let e as SessionDbError {
            if kindName(e) != step["error"].str { throw Failure(description: "\(what): failed with \(kindName(e)): \(e)") }
            continue
        }
        if let want = step["error"].str { throw Failure(description: "\(what): expected \(want), got \(got)") }
        if let n = step["as"].str { saved[n] = got["id"].str }
        if !step["expect"].isNull, let m = mismatch(try subst(step["expect"], saved), got) { throw Failure(description: "\(what): \(m)") }
        if let n = step["expect_len"].int, Int64(got.arr.count) != n { throw Failure(description: "\(what): \(got.arr.count) items") }
        if !step["expect_first"].isNull, let m = mismatch(try subst(step["expect_first"], saved), got.arr.first ?? .null, "first") {
            throw Failure(description: "\(what): \(m)")
        }
        if !step["expect_last"].isNull, let m = mismatch(try subst(step["expect_last"], saved), got.arr.last ?? .null, "last") {
            throw Failure(description: "\(what): \(m)")
        }
    }
}
