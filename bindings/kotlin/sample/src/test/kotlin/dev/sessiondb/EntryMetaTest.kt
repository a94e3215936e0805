package dev.sessiondb

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File

/** Per-entry metadata: appendEntriesWithMeta / getTranscriptWithMeta, exact values. */
class EntryMetaTest {
    private val samples = File(System.getProperty("sessiondb.samples.dir") ?: "../../../../shared/samples")

    private val extra = """{"phase":"final_answer","tool_use_result":{"stdout":"ok","exit":0,"nested":{"a":[1,2,null],"b":true}}}"""
    // As the core returns it: compact, keys in order.
    private val extraOut = """{"phase":"final_answer","tool_use_result":{"exit":0,"nested":{"a":[1,2,null],"b":true},"stdout":"ok"}}"""

    @Test
    fun appendAndReadBackWithMetadata() {
        SessionStore.openWithKey(tempDb(), ByteArray(32) { 3 }).use { store ->
            val s = store.createSessionWith(NewSession(id = "m1", name = "meta"))
            val out = store.appendEntriesWithMeta(
                s.id,
                listOf(
                    NewEntryWithMeta(
                        NewEntry(Role.ASSISTANT, "answer", ContentFormat.TEXT, createdAtMs = 1000, tokens = 4uL),
                        EntryMeta(model = "gpt-5", provider = "openai", extraJson = extra),
                    ),
                    NewEntryWithMeta(NewEntry(Role.USER, "thanks", ContentFormat.TEXT, createdAtMs = 2000), EntryMeta()),
                ),
            )
            assertEquals(
                listOf(
                    TranscriptEntry("m1", 1uL, Role.ASSISTANT, ContentFormat.TEXT, "answer", 1000, 4uL, null),
                    TranscriptEntry("m1", 2uL, Role.USER, ContentFormat.TEXT, "thanks", 2000, null, null),
                ),
                out,
            )
            assertEquals(EntryMeta(null, null, "{}"), EntryMeta())
            assertEquals(
                listOf(
                    TranscriptEntryWithMeta(out[0], EntryMeta("gpt-5", "openai", extraOut)),
                    TranscriptEntryWithMeta(out[1], EntryMeta(null, null, "{}")),
                ),
                store.getTranscriptWithMeta(s.id, 1uL, 100u),
            )
            assertEquals(Json.parse(extra), Json.parse(store.getTranscriptWithMeta(s.id, 1uL, 1u).single().meta.extraJson))
            assertEquals(listOf(TranscriptEntryWithMeta(out[1], EntryMeta())), store.getTranscriptWithMeta(s.id, 2uL, 1u))
            // Written without metadata: read back with an empty one.
            val plain = store.appendTranscript(s.id, Role.SYSTEM, "note")
            assertEquals(listOf(TranscriptEntryWithMeta(plain, EntryMeta())), store.getTranscriptWithMeta(s.id, 3uL, 10u))
            assertEquals(emptyList<TranscriptEntry>(), store.appendEntriesWithMeta(s.id, emptyList()))
        }
    }

    @Test
    fun badMetadataIsInvalidInput() {
        SessionStore.openWithKey(tempDb(), ByteArray(32) { 3 }).use { store ->
            val s = store.createSession("meta", null)
            fun one(meta: EntryMeta) = listOf(NewEntryWithMeta(NewEntry(Role.ASSISTANT, "x", ContentFormat.TEXT), meta))
            assertThrows<SessionDbException.InvalidInput> { store.appendEntriesWithMeta(s.id, one(EntryMeta(model = "m".repeat(257)))) }
            assertThrows<SessionDbException.InvalidInput> { store.appendEntriesWithMeta(s.id, one(EntryMeta(provider = "p".repeat(257)))) }
            assertThrows<SessionDbException.InvalidInput> { store.appendEntriesWithMeta(s.id, one(EntryMeta(extraJson = "[1]"))) }
            assertThrows<SessionDbException.InvalidInput> { store.appendEntriesWithMeta(s.id, one(EntryMeta(extraJson = "{nope"))) }
            // 256 bytes is the limit; the failed calls wrote nothing.
            assertEquals(1uL, store.appendEntriesWithMeta(s.id, one(EntryMeta(model = "m".repeat(256)))).single().seq)
            assertEquals(EntryMeta(model = "m".repeat(256)), store.getTranscriptWithMeta(s.id, 1uL, 10u).single().meta)
            assertThrows<SessionDbException.NotFound> { store.appendEntriesWithMeta("nope", one(EntryMeta())) }
            assertThrows<SessionDbException.NotFound> { store.getTranscriptWithMeta("nope", 1uL, 10u) }
            assertThrows<SessionDbException.InvalidInput> { store.getTranscriptWithMeta(s.id, 1uL, 0u) }
        }
    }

    @Test
    fun claudeSampleImportKeepsModelAndToolUseResult() {
        val file = File(samples, "claude-code/spotter_tool_heavy.jsonl")
        if (!file.isFile) println("[kotlin] EntryMetaTest: ${file.path} is absent, sample import skipped")
        assumeTrue(file.isFile, "${file.path} is absent")
        SessionStore.openWithKey(tempDb(), ByteArray(32) { 3 }).use { store ->
            val si = store.importFile(file.path, null).sessions.single()
            assertEquals("d6e0bada-1959-4eec-a9d2-0bfade768d8f", si.sessionId)
            val rows = store.getTranscriptWithMeta(si.sessionId, 1uL, 10000u)
            assertEquals(si.entries, rows.size.toULong())
            val models = rows.filter { it.meta.model != null }.map { it.meta.model to it.meta.provider }
            assertEquals(List(4) { "claude-opus-4-6" to "anthropic" }, models)
            @Suppress("UNCHECKED_CAST")
            val results = rows.mapNotNull { r ->
                val extra = Json.parse(r.meta.extraJson) as Map<String, Any?>
                if ("tool_use_result" in extra) r.entry to extra["tool_use_result"] else null
            }
            assertEquals(6, results.size)
            val (first, value) = results.first()
            assertEquals(Role.USER to 11uL, first.role to first.sourceLine)
            assertEquals(
                mapOf(
                    "stdout" to "", "stderr" to "", "interrupted" to false, "isImage" to false,
                    "noOutputExpected" to false, "backgroundTaskId" to "bae407b",
                ),
                value,
            )
        }
    }
}
