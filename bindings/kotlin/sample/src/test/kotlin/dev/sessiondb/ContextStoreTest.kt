package dev.sessiondb

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

class ContextStoreTest {
    @Test
    fun capacityAndMeterOfA128kWindow() {
        assertEquals(115_200uL, effectiveContextCapacity(128_000uL, null, null))
        val m = meter(100_000uL, 115_200uL)
        assertEquals("Ctx 86%", m.label)
        assertEquals(Band.ORANGE, m.band)
        assertFalse(m.overflow)
        assertTrue(shouldCompact(115_201uL, 115_200uL))
        assertEquals(Encoding.O200K_BASE, encodingForModel("gpt-4o"))
        assertNull(knownModelLimits("no-such-model"))
    }

    @Test
    fun governanceIsRecordedReplayedAndRestoredWithFreshAuthority() {
        SessionStore.openWithKey(tempDb(), ByteArray(32) { 11 }).use { store ->
            val s = store.createSessionWith(NewSession(name = "ctx", model = "gpt-4o", workspacePath = "/proj", workMode = "build"))
            val long = "word ".repeat(400)
            store.appendEntries(s.id, (1..6).map { NewEntry(if (it % 2 == 1) Role.USER else Role.ASSISTANT, "$it $long", ContentFormat.TEXT) })
            store.recordTurnDecision(s.id, "pin", listOf(1uL))
            store.recordTurnDecision(s.id, "exclude", listOf(2uL))
            store.appendContextExtension(s.id, "artifact", "{\"file\":\"a.rs\"}")

            val gov = store.recoverContextGovernance(s.id)
            assertEquals(listOf(1uL), gov.pinned)
            assertEquals(listOf(2uL), gov.excluded)

            val items = activeContextItems(store.getTranscript(s.id, 1uL, 100u), gov, "gpt-4o")
            assertEquals(listOf(1uL, 3uL, 4uL, 5uL, 6uL), items.map { it.seq })
            assertTrue(items[0].pinned)
            val total = items.sumOf { it.tokens }
            val plan = compactContext(items, total, 70u, CompactionOptions(recentUserTurns = 1u, model = "gpt-4o"))
            assertTrue(plan.transformations.isNotEmpty())
            assertTrue(plan.transformations.all { it.summary.codePointCount(0, it.summary.length) <= 240 })
            val n = store.recordCompaction(s.id, plan)
            assertTrue(n != null)

            val turns = governanceTurns(store.recoverContextGovernance(s.id), 6uL)
            assertEquals(TurnState.EXCLUDED, turns[1].state)
            assertEquals(TurnState.COMPACTED, turns.first { it.seq == plan.transformations[0].seq }.state)

            val status = store.contextStatus(s.id, 128_000uL)
            assertEquals("gpt-4o", status.model)
            assertEquals(115_200uL, status.capacity)
            assertEquals(6, status.turns.size)
            assertTrue(status.meter.label.startsWith("Ctx "))
            val dry = store.compactSession(s.id, 128_000uL, dryRun = true)
            assertTrue(dry.transformations.isEmpty(), "a small context is below the target")

            val opened = store.openSavedSession(s.id)
            assertEquals(6, opened.knowledge.transcript.size)
            assertEquals("gpt-4o", opened.knowledge.session.model)
            assertEquals("build", opened.knowledge.session.workMode)
            assertEquals(PermissionProfile.MANUAL, opened.authority.permissionProfile)
            assertFalse(opened.authority.fullAccess)
            assertFalse(opened.authority.sensitiveTransfer)
            assertTrue(opened.authority.temporaryApprovals.isEmpty())
            assertEquals(listOf("artifact"), opened.knowledge.otherExtensions.map { it.kind })
            assertEquals(1, opened.knowledge.governance.history.size)
        }
    }
}
