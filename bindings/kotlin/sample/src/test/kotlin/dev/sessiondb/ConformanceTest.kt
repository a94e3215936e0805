package dev.sessiondb

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Assertions.fail
import org.junit.jupiter.api.Test
import java.io.File

/**
 * Runs the language-neutral cases of tests/conformance (the same files the
 * Rust core runs) through the Kotlin bindings. Schema: see
 * core/tests/context_conformance.rs and core/tests/conformance_crypto.rs.
 */
class ConformanceTest {
    private val dir = File(System.getProperty("sessiondb.conformance.dir") ?: "../../../tests/conformance")
    private val samples = File(System.getProperty("sessiondb.samples.dir") ?: "../../../../shared/samples")

    /** Functions whose cases this binding does not run, and why (none today). */
    private val notBound = mapOf<String, String>()

    private fun texts(turns: List<PortableTurn>): List<String> = turns.flatMap { t ->
        list(Json.parse(t.blocksJson)).map { obj(it) }.filter { it["type"] == "text" }.map { it["text"] as String }
    }

    @Suppress("UNCHECKED_CAST")
    private fun obj(v: Any?) = v as Map<String, Any?>

    @Suppress("UNCHECKED_CAST")
    private fun list(v: Any?) = v as List<Any?>

    private fun optU(v: Any?): ULong? = (v as Long?)?.toULong()

    private fun errorValue(e: SessionDbException): Map<String, Any?> = when (e) {
        is SessionDbException.ContextOverflow -> mapOf(
            "error" to "ContextOverflow",
            "breakdown" to mapOf(
                "capacity" to e.capacity.toLong(), "system" to e.system.toLong(), "pinned" to e.pinned.toLong(),
                "recent" to e.recent.toLong(), "tool_results" to e.toolResults.toLong(), "other" to e.other.toLong(),
                "protected_total" to e.protectedTotal.toLong(), "remedies" to e.remedies,
            ),
        )
        else -> mapOf("error" to kindName(e))
    }

    private fun planValue(p: CompactionPlan): Map<String, Any?> = mapOf(
        "capacity" to p.capacity.toLong(),
        "target_percent" to p.targetPercent.toLong(),
        "target_tokens" to p.targetTokens.toLong(),
        "tokens_before" to p.tokensBefore.toLong(),
        "tokens_after" to p.tokensAfter.toLong(),
        "reached_target" to p.reachedTarget,
        "transformations" to p.transformations.map {
            mapOf(
                "seq" to it.seq.toLong(),
                "last_seq" to it.lastSeq?.toLong(),
                "action" to when (it.action) {
                    CompactionAction.SUMMARIZED -> "summarized"
                    CompactionAction.TOOL_RESULT_PREVIEW -> "tool_result_preview"
                },
                "tokens_before" to it.tokensBefore.toLong(),
                "tokens_after" to it.tokensAfter.toLong(),
                "summary" to it.summary,
            )
        },
        // A run covers seq..last_seq.
        "compacted_seqs" to p.transformations.flatMap { (it.seq.toLong()..(it.lastSeq ?: it.seq).toLong()).toList() },
    )

    private fun item(v: Any?): ContextItem {
        val m = obj(v)
        return ContextItem(
            seq = (m["seq"] as Long).toULong(),
            role = m["role"] as String,
            kind = when (m["kind"]) {
                "message" -> ItemKind.MESSAGE
                "tool_call" -> ItemKind.TOOL_CALL
                "tool_result" -> ItemKind.TOOL_RESULT
                "system" -> ItemKind.SYSTEM
                else -> error("unknown kind ${m["kind"]}")
            },
            tokens = (m["tokens"] as Long).toULong(),
            pinned = m["pinned"] as Boolean? ?: false,
            text = m["text"] as String? ?: "",
            callIds = (m["call_ids"] as List<*>?)?.map { it as String } ?: emptyList(),
            compacted = m["compacted"] as Boolean? ?: false,
        )
    }

    private inline fun guarded(f: () -> Map<String, Any?>): Map<String, Any?> =
        try { f() } catch (e: SessionDbException) { errorValue(e) }

    /** The actual output of one context case, or null when this binding has no runner for `function`. */
    private fun runContext(function: String, name: String, i: Map<String, Any?>, case: Map<String, Any?>): Map<String, Any?>? = when (function) {
        "effective_context_capacity" -> guarded {
            val b = capacityBreakdown((i["raw"] as Long).toULong(), optU(i["output_reserve"]), optU(i["model_max_output"]))
            mapOf("raw" to b.raw.toLong(), "output_reserve" to b.outputReserve.toLong(), "safety_margin" to b.safetyMargin.toLong(), "capacity" to b.capacity.toLong())
        }
        "meter" -> guarded {
            val active = (i["active_tokens"] as Long).toULong()
            val cap = (i["capacity"] as Long).toULong()
            val m = meter(active, cap)
            mapOf(
                "active_tokens" to m.activeTokens.toLong(), "capacity" to m.capacity.toLong(), "percent" to m.percent.toLong(),
                "label" to m.label, "band" to m.band.name.lowercase(), "overflow" to m.overflow,
                "should_compact" to shouldCompact(active, cap),
            )
        }
        "count_tokens" -> {
            val c = countTokens(i["model"] as String, i["text"] as String, optU(i["host_count"]))
            when (val m = c.method) {
                is CountMethod.Exact -> mapOf("tokens" to c.tokens.toLong(), "method" to "exact", "encoding" to when (m.encoding) {
                    Encoding.O200K_BASE -> "o200k_base"
                    Encoding.CL100K_BASE -> "cl100k_base"
                })
                CountMethod.Estimate -> mapOf("tokens" to c.tokens.toLong(), "method" to "estimate")
                CountMethod.Host -> mapOf("tokens" to c.tokens.toLong(), "method" to "host")
            }
        }
        "compact_context" -> guarded {
            val items = list(i["items"]).map { item(it) }
            val cap = (i["capacity"] as Long).toULong()
            val target = (i["target_percent"] as Long?)?.toUByte()
            val options = (i["options"] as Map<*, *>?)?.let {
                CompactionOptions(recentUserTurns = (it["recent_user_turns"] as Long? ?: 2L).toUInt(), model = it["model"] as String?)
            }
            val plan = compactContext(items, cap, target, options)
            // Idempotence is part of every successful case.
            val again = compactContext(applyCompaction(plan, items), cap, target, options)
            assertTrue(again.transformations.isEmpty(), "$name: second run compacted ${again.transformations.map { it.seq }}")
            assertEquals(plan.tokensAfter, again.tokensAfter, "$name: second run tokens")
            val v = planValue(plan).toMutableMap()
            val second = planValue(again)
            val want = obj(case["expect"] ?: emptyMap<String, Any?>())["second_run"]
            if (want != null) {
                for ((k, w) in obj(want)) assertEquals(w, second[k], "$name: second_run.$k")
                v["second_run"] = want
            } else {
                v["second_run"] = second
            }
            v
        }
        "read_thclaws" -> {
            val bytes = (i["text"] as String?)?.toByteArray(Charsets.UTF_8)
                ?: java.util.Base64.getDecoder().decode(i["base64"] as String)
            val r = readThclaws(bytes, "fallback")
            val s = r.session
            mapOf(
                "id" to s.id, "title" to s.title, "model" to s.model, "provider" to s.provider, "cwd" to s.cwd,
                "created_at_ms" to s.createdAtMs,
                "roles" to s.turns.map { it.role },
                "texts" to texts(s.turns),
                "active_texts" to texts(s.activeTurns),
                "tool_calls" to s.toolCalls.toLong(), "tool_results" to s.toolResults.toLong(),
                "plan_steps" to s.planSteps.toLong(), "compactions" to s.compactions.toLong(),
                "lines" to r.report.lines.toLong(), "bytes" to r.report.bytes.toLong(),
                "skipped" to r.report.skipped.map {
                    mapOf("line" to it.line.toLong(), "reason" to when (it.reason) {
                        SkipReason.TornTail -> "torn_tail"
                        SkipReason.InvalidUtf8 -> "invalid_utf8"
                        is SkipReason.InvalidJson -> "invalid_json"
                        SkipReason.NotAnObject -> "not_an_object"
                        SkipReason.TooLong -> "too_long"
                    })
                },
                "surrogates_replaced" to r.report.surrogatesReplaced.map { it.toLong() },
                "missing_final_newline" to r.report.missingFinalNewline,
                "kept_raw" to r.report.keptRaw.mapValues { it.value.toLong() },
                "other_lines" to s.otherLines.toLong(),
            )
        }
        "write_thclaws" -> {
            val m = obj(i["session"])
            val text = writeThclaws(
                NewPortableSession(
                    id = m["id"] as String, title = m["title"] as String?, model = m["model"] as String?,
                    provider = m["provider"] as String?, cwd = m["cwd"] as String?, createdAtMs = m["created_at_ms"] as Long?,
                    turns = list(m["turns"]).map { obj(it) }.map {
                        PortableTurn(
                            role = it["role"] as String, blocksJson = Json.write(it["blocks"]), timestampMs = it["timestamp_ms"] as Long?,
                            model = it["model"] as String?, provider = it["provider"] as String?,
                        )
                    },
                ),
            )
            assertTrue(text.endsWith("\n"), "$name: ends with a newline")
            mapOf("lines" to text.split("\n").filter { it.isNotEmpty() })
        }
        "import_file" -> {
            if (!samples.isDirectory) {
                null
            } else {
                val sample = File(samples, i["sample"] as String).path
                SessionStore.openWithKey(tempDb(), ByteArray(32) { 8 }).use { store ->
                    val rep = store.importFile(sample, null)
                    val again = store.importFile(sample, null)
                    assertEquals(ImportStatus.UpToDate, again.status, "$name: re-import")
                    assertTrue(again.sessions.isEmpty(), "$name: re-import wrote sessions")
                    mapOf(
                        "format" to when (rep.format) {
                            SourceFormat.THCLAWS -> "thclaws"
                            SourceFormat.CODEX -> "codex"
                            SourceFormat.CLAUDE_CODE -> "claude-code"
                            SourceFormat.GEMINI_CLI -> "gemini-cli"
                            SourceFormat.OPENCODE -> "opencode"
                            SourceFormat.AGENTS_SDK -> "agents-sdk"
                            null -> null
                        },
                        "status" to when (val st = rep.status) {
                            ImportStatus.Imported -> "imported"
                            ImportStatus.UpToDate -> "up_to_date"
                            ImportStatus.SourceChanged -> "source_changed"
                            ImportStatus.Unrecognized -> "unrecognized"
                            is ImportStatus.Failed -> mapOf("failed" to st.v1)
                        },
                        "sessions" to rep.sessions.map {
                            mapOf(
                                "session_id" to it.sessionId, "entries" to it.entries.toLong(),
                                "tool_calls" to it.toolCalls.toLong(), "tool_results" to it.toolResults.toLong(),
                                "input_tokens" to it.inputTokens.toLong(), "output_tokens" to it.outputTokens.toLong(),
                                "cached_tokens" to it.cachedTokens.toLong(),
                            )
                        },
                    )
                }
            }
        }
        else -> null
    }

    private fun hex(s: String) = ByteArray(s.length / 2) { s.substring(2 * it, 2 * it + 2).toInt(16).toByte() }

    /** The actual output of one op-style case (crypto.json), or null when the op is unknown here. */
    private fun runOp(case: Map<String, Any?>): Map<String, Any?>? = when (case["op"]) {
        "decrypt_field" -> guarded {
            val pt = decryptField(hex(case["key_hex"] as String), case["record_id"] as String, Json.write(case["envelope"]))
            mapOf("plaintext" to String(pt, Charsets.UTF_8))
        }
        "workspace_index" -> guarded { mapOf("index" to workspaceIndex(hex(case["key_hex"] as String), case["path"] as String)) }
        "aad" -> mapOf("aad" to envelopeAad(case["record_id"] as String))
        else -> null
    }

    @Test
    fun everyConformanceCasePasses() {
        val files = dir.walkTopDown().filter { it.isFile && it.name.endsWith(".json") }.sortedBy { it.path }.toList()
        assertTrue(files.isNotEmpty(), "no case files under $dir")
        var ran = 0
        val skipped = mutableListOf<String>()
        val perFile = mutableListOf<String>()
        for (file in files) {
            val rel = file.relativeTo(dir).path
            val doc = obj(Json.parse(file.readText()))
            val function = doc["function"] as String?
            var n = 0
            for (c in list(doc["cases"])) {
                val case = obj(c)
                val name = "$rel / ${case["name"]}"
                if (case.containsKey("steps")) {
                    StoreSteps.run(case)
                    n++
                    continue
                }
                val actual = if (function != null) runContext(function, name, obj(case["input"]), case) else runOp(case)
                if (actual == null) {
                    val why = when {
                        function in notBound -> notBound[function]
                        function == "import_file" -> "${samples.path} is absent"
                        else -> fail("$name: no Kotlin runner for `${function ?: case["op"]}`")
                    }
                    skipped += "$rel ($why)"
                    continue
                }
                val wantError = case["error"]
                if (wantError != null) {
                    assertEquals(wantError, actual["error"], "$name: expected error, got $actual")
                    case["breakdown"]?.let { assertEquals(it, actual["breakdown"], "$name: breakdown") }
                } else if (function == null || function == "import_file") {
                    assertEquals(case["expect"], actual, name)
                } else {
                    if (actual.containsKey("error")) fail<Unit>("$name: unexpected error $actual")
                    for ((k, w) in obj(case["expect"])) assertEquals(w, actual[k], "$name: field `$k`")
                }
                n++
            }
            ran += n
            perFile += "$rel=$n"
        }
        println("[conformance] kotlin: $ran cases passed (${perFile.joinToString(", ")})")
        if (skipped.isNotEmpty()) {
            println("[conformance] kotlin: ${skipped.size} cases not run: " +
                skipped.groupingBy { it }.eachCount().entries.joinToString("; ") { "${it.value} in ${it.key}" })
        }
    }
}
