package dev.sessiondb

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/** Structured items (EntryMeta.item), the transcript tail with metadata and activeContext (issue 16), exact values. */
class ItemsAndActiveContextTest {
    // Key order, whitespace, JSON escapes and non-ASCII exactly as written.
    private val item = "{\"z\": 1,  \"role\":\"user\",\n \"content\": \"h\\u00e9llo ☃ café \\ud83d\\ude00 😀\", \"a\": [ ]}\t"

    @Test
    fun aStructuredItemRoundTripsByteExactAndOnlyItsTextIsCounted() {
        SessionStore.openWithKey(tempDb(), ByteArray(32) { 5 }).use { store ->
            val s = store.createSessionWith(NewSession(id = "items"))
            val plain = store.createSessionWith(NewSession(id = "plain"))
            val text = "héllo ☃ café 😀"
            store.appendEntriesWithMeta(s.id, listOf(
                NewEntryWithMeta(NewEntry(Role.USER, text, ContentFormat.TEXT), EntryMeta(item = item)),
                NewEntryWithMeta(NewEntry(Role.USER, "b", ContentFormat.TEXT), EntryMeta(extraJson = "{\"k\":1}", item = "[1]")),
            ))
            store.appendEntries(plain.id, listOf(NewEntry(Role.USER, text, ContentFormat.TEXT), NewEntry(Role.USER, "b", ContentFormat.TEXT)))
            val got = store.getTranscriptWithMeta(s.id, 1uL, 10u)
            assertEquals(listOf(EntryMeta(null, null, "{}", item), EntryMeta(null, null, "{\"k\":1}", "[1]")), got.map { it.meta })
            assertTrue(got[0].meta.item!!.toByteArray(Charsets.UTF_8).contentEquals(item.toByteArray(Charsets.UTF_8)))
            val want = listOf(countTokens("gpt-4o", text, null).tokens, countTokens("gpt-4o", "b", null).tokens)
            assertEquals(want, store.activeContext(s.id, 128_000uL, model = "gpt-4o").items.map { it.tokens })
            assertEquals(want, store.activeContext(plain.id, 128_000uL, model = "gpt-4o").items.map { it.tokens })
            assertEquals(want.sum(), store.contextStatus(s.id, 128_000uL, model = "gpt-4o").meter.activeTokens)
            val bad = listOf(NewEntryWithMeta(NewEntry(Role.USER, "x", ContentFormat.TEXT), EntryMeta(item = "{not json")))
            val e = assertThrows<SessionDbException.InvalidInput> { store.appendEntriesWithMeta(s.id, bad) }
            assertTrue(e.message!!.contains("EntryMeta.item must be the JSON text of one value"), e.message)
            assertEquals(2uL, store.getSession(s.id).entryCount)
        }
    }

    @Test
    fun theTailWithMetadataIsTheLastEntriesInOneRead() {
        SessionStore.openWithKey(tempDb(), ByteArray(32) { 5 }).use { store ->
            val s = store.createSessionWith(NewSession(id = "tail"))
            store.appendEntriesWithMeta(s.id, (1..5).map { NewEntryWithMeta(NewEntry(Role.USER, "t$it", ContentFormat.TEXT), EntryMeta(model = "m$it", item = "{\"n\": $it}")) })
            store.retractEntry(s.id, 5uL)
            val tail = store.getTranscriptTailWithMeta(s.id, 2u)
            assertEquals(listOf(Triple(3uL, "t3", EntryMeta("m3", null, "{}", "{\"n\": 3}")), Triple(4uL, "t4", EntryMeta("m4", null, "{}", "{\"n\": 4}"))),
                tail.map { Triple(it.entry.seq, it.entry.content, it.meta) })
            assertEquals(4, store.getTranscriptTailWithMeta(s.id).size)
            assertThrows<SessionDbException.InvalidInput> { store.getTranscriptTailWithMeta(s.id, 0u) }
            assertThrows<SessionDbException.NotFound> { store.getTranscriptTailWithMeta("nope", 2u) }
        }
    }

    @Test
    fun activeContextListsVerbatimCompactedAndExcludedItemsInOrder() {
        SessionStore.openWithKey(tempDb(), ByteArray(32) { 5 }).use { store ->
            val s = store.createSessionWith(NewSession(id = "ctx"))
            // About 1,000 tokens each (estimate: 3 bytes a token); capacity of a 10,000 window: 7,152.
            val turns = (1..12).map { NewEntry(if (it % 2 == 1) Role.USER else Role.ASSISTANT, "turn ${"%02d".format(it)} " + "word ".repeat(599), ContentFormat.TEXT) }
            store.appendEntries(s.id, turns)
            val before = store.activeContext(s.id, 10_000uL)
            assertEquals(7_152uL, before.capacity)
            assertEquals((1..12).map { Triple(it.toULong(), TurnState.VERBATIM, turns[it - 1].content) }, before.items.map { Triple(it.seq, it.state, it.text) })
            assertEquals(before.items.sumOf { it.tokens }, before.tokens)
            val plan = store.compactSession(s.id, 10_000uL)
            store.recordTurnDecision(s.id, "exclude", listOf(12uL))
            val after = store.activeContext(s.id, 10_000uL)
            val run = plan.transformations[0]
            assertEquals(ActiveItem(1uL, run.lastSeq, "user", TurnState.COMPACTED, run.tokensAfter, run.summary), after.items.first())
            val last = run.lastSeq!!.toInt()
            assertEquals((last + 1..11).map { Pair(it.toULong(), turns[it - 1].content) }, after.items.drop(1).dropLast(1).map { Pair(it.seq, it.text) })
            assertEquals(ActiveItem(12uL, null, "assistant", TurnState.EXCLUDED, 0uL, null), after.items.last())
            assertEquals(after.items.sumOf { it.tokens }, after.tokens)
            assertThrows<SessionDbException.InvalidInput> { store.activeContext(s.id, 0uL) }
            assertThrows<SessionDbException.NotFound> { store.activeContext("nope", 10_000uL) }
            // The runs in force: the run once, and each turn names it (compactedBy: its firstSeq).
            val status = store.contextStatus(s.id, 10_000uL)
            assertEquals(listOf(CompactedRun(1uL, run.lastSeq!!, run)), status.compacted)
            assertEquals((1..12).map { if (it <= last) 1uL else null }, status.turns.map { it.compactedBy })
            // A pin inside the run leaves two runs with the same transformation.
            assertTrue(last >= 3, "a run of 3 or more turns")
            store.recordTurnDecision(s.id, "pin", listOf(2uL))
            val gov = store.recoverContextGovernance(s.id)
            assertEquals(listOf(CompactedRun(1uL, 1uL, run), CompactedRun(3uL, run.lastSeq!!, run)), gov.compacted)
            assertEquals(listOf(1uL, null, 3uL, 3uL), governanceTurns(gov, 4uL).map { it.compactedBy })
        }
    }
}
