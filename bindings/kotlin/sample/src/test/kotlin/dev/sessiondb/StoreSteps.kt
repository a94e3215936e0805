package dev.sessiondb

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.fail

/**
 * Runner of the store conformance cases (tests/conformance/store/\*.json):
 * sequences of store calls with expected results and error kinds; the call
 * vocabulary is in the file's `description`. Results are compared as JSON
 * values with snake_case keys (the core's serde forms).
 */
object StoreSteps {
    private val key = ByteArray(32) { 7 }

    @Suppress("UNCHECKED_CAST")
    private fun obj(v: Any?) = v as Map<String, Any?>

    private fun session(r: SessionRecord): Map<String, Any?> = mapOf(
        "id" to r.id, "name" to r.name, "workspace_path" to r.workspacePath, "model" to r.model,
        "provider" to r.provider, "work_mode" to r.workMode, "created_at_ms" to r.createdAtMs,
        "updated_at_ms" to r.updatedAtMs, "entry_count" to r.entryCount.toLong(), "forked_from" to r.forkedFrom,
        "forked_at_seq" to r.forkedAtSeq?.toLong(),
        "unreadable" to r.unreadable.map { mapOf("field" to it.field, "record_id" to it.recordId, "kind" to it.kind, "reason" to it.reason) },
    )

    private fun entry(e: TranscriptEntry): Map<String, Any?> = mapOf(
        "session_id" to e.sessionId, "seq" to e.seq.toLong(), "role" to e.role.name.lowercase(),
        "format" to e.format.name.lowercase(), "content" to e.content, "created_at_ms" to e.createdAtMs,
        "tokens" to e.tokens?.toLong(), "source_line" to e.sourceLine?.toLong(),
    )

    private fun outcome(o: AppendOutcome): Map<String, Any?> =
        mapOf("seq" to o.seq.toLong(), "aggregate_version" to o.aggregateVersion.toLong(), "duplicate" to o.duplicate)

    private fun event(e: JournalEvent): Map<String, Any?> = mapOf(
        "event_id" to e.eventId, "session_id" to e.sessionId, "seq" to e.seq.toLong(),
        "aggregate_version" to e.aggregateVersion.toLong(), "operation_id" to e.operationId, "kind" to e.kind,
        "payload" to Json.parse(e.payloadJson), "created_at" to e.createdAt,
    )

    private fun role(a: Map<String, Any?>) = Role.valueOf((a["role"] as String).uppercase())
    private fun long(a: Map<String, Any?>, k: String) = (a[k] as Number?)?.toLong()

    private fun call(s: SessionStore, name: String, a: Map<String, Any?>): Any? = when (name) {
        "create_session" -> session(s.createSession(a["name"] as String?))
        "get_session" -> session(s.getSession(a["id"] as String))
        "rename_session" -> session(s.renameSession(a["id"] as String, a["name"] as String?))
        "append_transcript" -> entry(s.appendTranscript(a["session_id"] as String, role(a), a["content"] as String))
        "append_generated" -> {
            val entries = (1..long(a, "count")!!).map {
                NewEntry(role(a), (a["content"] as String).replace("{i}", it.toString()), ContentFormat.TEXT)
            }
            s.appendEntries(a["session_id"] as String, entries)
            null
        }
        "retract_entry" -> s.retractEntry(a["session_id"] as String, long(a, "seq")!!.toULong())?.let(::entry)
        "retract_last_entry" -> s.retractLastEntry(a["session_id"] as String)?.let(::entry)
        "get_transcript_tail" -> {
            val limit = long(a, "limit")?.toUInt()
            (if (limit == null) s.getTranscriptTail(a["session_id"] as String) else s.getTranscriptTail(a["session_id"] as String, limit)).map(::entry)
        }
        "get_transcript" -> {
            val sid = a["session_id"] as String
            val from = long(a, "from_seq")?.toULong()
            val limit = long(a, "limit")?.toUInt()
            when {
                from == null && limit == null -> s.getTranscript(sid)
                limit == null -> s.getTranscript(sid, fromSeq = from!!)
                from == null -> s.getTranscript(sid, limit = limit)
                else -> s.getTranscript(sid, from, limit)
            }.map(::entry)
        }
        "append_with_item" -> entry(
            s.appendEntriesWithMeta(a["session_id"] as String, listOf(NewEntryWithMeta(NewEntry(role(a), a["content"] as String, ContentFormat.TEXT), EntryMeta(item = a["item"] as String)))).single(),
        )
        "get_transcript_tail_with_meta" -> {
            val limit = long(a, "limit")?.toUInt()
            val sid = a["session_id"] as String
            (if (limit == null) s.getTranscriptTailWithMeta(sid) else s.getTranscriptTailWithMeta(sid, limit)).map {
                mapOf("entry" to entry(it.entry), "meta" to mapOf("model" to it.meta.model, "provider" to it.meta.provider, "item" to it.meta.item))
            }
        }
        "active_context" -> s.activeContext(a["session_id"] as String, long(a, "raw_window")!!.toULong()).let { v ->
            mapOf(
                "model" to v.model, "capacity" to v.capacity.toLong(), "tokens" to v.tokens.toLong(),
                "items" to v.items.map {
                    mapOf(
                        "seq" to it.seq.toLong(), "last_seq" to it.lastSeq?.toLong(), "role" to it.role,
                        "state" to it.state.name.lowercase(), "tokens" to it.tokens.toLong(), "text" to it.text,
                    )
                },
            )
        }
        "fork_session" -> session(s.forkSession(a["session_id"] as String, atSeq = long(a, "at_seq")?.toULong()))
        "record_tokens" -> {
            s.recordTokens(
                a["session_id"] as String,
                TokenUsage(long(a, "input")!!.toULong(), long(a, "output")!!.toULong(), long(a, "cached")!!.toULong()),
            )
            null
        }
        "recovery_key_text" -> recoveryKeyText((a["key_hex"] as String).chunked(2).map { it.toInt(16).toByte() }.toByteArray())
        "parse_recovery_key" -> parseRecoveryKey(a["text"] as String).joinToString("") { "%02x".format(it) }
        "token_totals" -> s.tokenTotals(a["session_id"] as String).let {
            mapOf("input" to it.input.toLong(), "output" to it.output.toLong(), "cached" to it.cached.toLong())
        }
        "journal_append" -> outcome(s.journalAppend(NewEvent(a["event_id"] as String, a["session_id"] as String, a["kind"] as String, null, Json.write(a["payload"]))))
        "journal_events" -> s.journalEvents(a["session_id"] as String).map(::event)
        "dispatch_operation" -> outcome(s.dispatchOperation(a["session_id"] as String, a["operation_id"] as String, "{}"))
        "complete_operation" -> {
            val o = when (a["outcome"]) {
                "succeeded" -> OperationOutcome.SUCCEEDED
                "failed" -> OperationOutcome.FAILED
                "blocked" -> OperationOutcome.BLOCKED
                "cancelled" -> OperationOutcome.CANCELLED
                else -> OperationOutcome.UNKNOWN_OUTCOME
            }
            outcome(s.completeOperation(a["session_id"] as String, a["operation_id"] as String, o, "{}"))
        }
        "delete_session" -> { s.deleteSession(a["id"] as String); null }
        // tests/conformance/search/: hits sorted by (session id, seq), each with the
        // snippet's highlighted substrings as Kotlin slices its own strings (UTF-16).
        "search" -> {
            val r = s.search(
                a["query"] as String,
                SearchOptions(limit = long(a, "limit")?.toUInt(), cursor = null, sessions = (a["sessions"] as Boolean?) ?: false, workspacePath = null, snippetChars = null),
            )
            val hits = r.hits.map { h ->
                mapOf(
                    "session_id" to h.sessionId, "seq" to h.seq.toLong(), "role" to h.role, "field" to h.field, "snippet" to h.snippet,
                    "marked" to h.highlights.map { h.snippet.substring(it.start.toInt(), it.end.toInt()) },
                )
            }.sortedWith(compareBy({ it["session_id"] as String }, { it["seq"] as Long }))
            mapOf("total" to r.total.toLong(), "hits" to hits)
        }
        "open_operations" -> s.openOperations().map { mapOf("session_id" to it.sessionId, "operation_id" to it.operationId) }
        "open_recovery_report" -> s.openRecoveryReport().let { r ->
            mapOf(
                "marked_unknown" to r.markedUnknown.map { listOf(it.sessionId, it.operationId) },
                "skipped_live" to r.skippedLive.toLong(),
                "failed" to r.failed.map { mapOf("session_id" to it.sessionId, "operation_id" to it.operationId, "kind" to it.kind) },
            )
        }
        else -> fail("unknown store call $name")
    }

    fun subst(v: Any?, saved: Map<String, String>): Any? = when (v) {
        is String -> if (v.startsWith("$")) saved[v.substring(1)] ?: fail("unknown $v") else v
        is List<*> -> v.map { subst(it, saved) }
        is Map<*, *> -> v.entries.associate { (k, x) -> k to subst(x, saved) }
        else -> v
    }

    fun mismatch(e: Any?, a: Any?, at: String = "result"): String? = when {
        e is Map<*, *> && a is Map<*, *> -> e.entries.firstNotNullOfOrNull { (k, ev) ->
            if (!a.containsKey(k)) "$at.$k: missing in $a" else mismatch(ev, a[k], "$at.$k")
        }
        e is List<*> && a is List<*> && e.size == a.size -> e.indices.firstNotNullOfOrNull { mismatch(e[it], a[it], "$at[$it]") }
        e == a -> null
        else -> "$at: expected $e, got $a"
    }

    /** Run one case on a fresh store; fails naming the step. */
    fun run(case: Map<String, Any?>) {
        val path = tempDb()
        var store = SessionStore.openWithKey(path, key)
        val saved = mutableMapOf<String, String>()
        try {
            for ((i, st) in (case["steps"] as List<*>).withIndex()) {
                val step = obj(st)
                val what = "case ${case["name"]} step $i (${step["call"]})"
                if (step["call"] == "reopen") {
                    store.closeStore(); store.close()
                    store = SessionStore.openWithKey(path, key)
                    continue
                }
                val got = try {
                    call(store, step["call"] as String, obj(subst(step["args"] ?: emptyMap<String, Any?>(), saved)))
                } catch (e: SessionDbException) {
                    assertEquals(step["error"], kindName(e), "$what: failed with ${kindName(e)}: ${e.message}")
                    continue
                }
                if (step["error"] != null) fail<Unit>("$what: expected ${step["error"]}, got $got")
                (step["as"] as String?)?.let { saved[it] = obj(got)["id"] as String }
                step["expect"]?.let { mismatch(subst(it, saved), got)?.let { m -> fail<Unit>("$what: $m") } }
                step["expect_len"]?.let { assertEquals((it as Number).toInt(), (got as List<*>).size, what) }
                step["expect_first"]?.let { mismatch(subst(it, saved), (got as List<*>).first(), "first")?.let { m -> fail<Unit>("$what: $m") } }
                step["expect_last"]?.let { mismatch(subst(it, saved), (got as List<*>).last(), "last")?.let { m -> fail<Unit>("$what: $m") } }
            }
        } finally {
            store.closeStore(); store.close()
        }
    }
}
