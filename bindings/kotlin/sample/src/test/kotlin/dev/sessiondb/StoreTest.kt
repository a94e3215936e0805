package dev.sessiondb

import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

class StoreTest {
    @Test
    fun newDatabaseAsksTheProviderToStoreA32ByteKey() {
        val kp = MemoryKeyProvider()
        SessionStore.open(path = tempDb(), keyProvider = kp).use { store ->
            assertEquals(1, kp.sets.get())
            assertEquals(32, kp.stored!!.size)
            assertEquals("kotlin memory provider", store.keyBackend())
        }
    }

    @Test
    fun reopeningWithTheSameProviderReadsTheSameSessions() {
        val path = tempDb()
        val kp = MemoryKeyProvider()
        val id = SessionStore.open(path = path, keyProvider = kp).use { store ->
            val s = store.createSession(name = "Refactor parser", workspacePath = null)
            store.appendTranscript(s.id, Role.USER, "héllo wörld 👋")
            store.closeStore()
            s.id
        }
        val keyBefore = kp.stored!!.copyOf()
        SessionStore.open(path = path, keyProvider = kp).use { store ->
            assertEquals(1, kp.sets.get(), "no second key is written")
            assertArrayEquals(keyBefore, kp.stored)
            val s = store.getSession(id)
            assertEquals("Refactor parser", s.name)
            assertEquals(1uL, s.entryCount)
            assertEquals("héllo wörld 👋", store.getTranscript(id, 1uL, 100u).single().content)
        }
    }

    @Test
    fun openWithKeyBytesRoundTrips() {
        val path = tempDb()
        val key = ByteArray(32) { it.toByte() }
        SessionStore.openWithKey(path, key).use { store ->
            assertEquals("host-provided key bytes", store.keyBackend())
            store.createSession("a", null)
        }
        SessionStore.openWithKey(path, key).use { store -> assertEquals(1, store.listSessions(null).size) }
    }

    @Test
    fun sessionsTranscriptTokensAndExtensionsRoundTrip() {
        SessionStore.openWithKey(tempDb(), ByteArray(32) { 7 }).use { store ->
            val s = store.createSessionWith(NewSession(id = "sess-1", name = "First", model = "gpt-4o", provider = "openai", createdAtMs = 1_700_000_000_000))
            assertEquals("sess-1", s.id)
            assertEquals(1_700_000_000_000, s.createdAtMs)
            val entries = store.appendEntries(
                "sess-1",
                listOf(
                    NewEntry(Role.USER, "question", ContentFormat.TEXT, tokens = 5uL),
                    NewEntry(Role.ASSISTANT, "[{\"type\":\"text\",\"text\":\"answer\"}]", ContentFormat.BLOCKS),
                    NewEntry(Role.TOOL, "output", ContentFormat.TEXT, sourceLine = 9uL),
                ),
            )
            assertEquals(listOf(1uL, 2uL, 3uL), entries.map { it.seq })
            val page = store.getTranscript("sess-1", 2uL, 1u)
            assertEquals(1, page.size)
            assertEquals(ContentFormat.BLOCKS, page[0].format)
            assertEquals(Role.ASSISTANT, page[0].role)
            assertEquals(5uL, store.getTranscript("sess-1", 1uL, 1u)[0].tokens)
            assertEquals(9uL, store.getTranscript("sess-1", 3uL, 1u)[0].sourceLine)

            store.recordTokens("sess-1", TokenUsage(100uL, 20uL, 5uL, "gpt-4o", "openai"))
            store.recordTokens("sess-1", TokenUsage(input = 50uL, output = 10uL))
            assertEquals(TokenTotals(150uL, 30uL, 5uL), store.tokenTotals("sess-1"))

            assertEquals(1uL, store.appendContextExtension("sess-1", "plan", "{\"steps\":[1,2]}"))
            val ext = store.listContextExtensions("sess-1").single()
            assertEquals("plan", ext.kind)
            assertEquals("{\"steps\":[1,2]}", ext.body)

            assertEquals("Renamed", store.renameSession("sess-1", "Renamed").name)
            assertEquals("claude-sonnet-4-5", store.setSessionModel("sess-1", "claude-sonnet-4-5", "anthropic").model)
            assertEquals("plan", store.setWorkMode("sess-1", "plan").workMode)
            assertEquals("sess-1", store.findSession("Renamed").id)
            assertEquals("sess-1", store.findSession("sess-").id)
            assertEquals(3uL, store.getSession("sess-1").entryCount)

            val stats = store.stats()
            assertEquals(1uL, stats.sessions)
            assertEquals(3uL, stats.transcriptEntries)

            store.deleteSession("sess-1")
            assertTrue(store.listSessions(null).isEmpty())
        }
    }

    @Test
    fun redactOnWriteStoresTheMarkerAndAnUnknownPolicyIsInvalidInput() {
        SessionStore.openWithKey(tempDb(), ByteArray(32) { 1 }, redact = "on-write").use { store ->
            val s = store.createSession("r", null)
            store.appendTranscript(s.id, Role.USER, "Deploy with key AKIALALEMEL33243OLIB now")
            val stored = store.getTranscript(s.id, 1uL, 1u)[0].content
            assertTrue(Regex("^Deploy with key \\[REDACTED:aws-access-token:[0-9a-f]{8}\\] now$").matches(stored), stored)
        }
        val e = assertThrows<SessionDbException.InvalidInput> { SessionStore.openWithKey(tempDb(), ByteArray(32) { 1 }, redact = "always") }
        assertTrue(e.message!!.contains("redaction policy `always` is not one of off, on-export, on-write"), e.message)
    }

    @Test
    fun workspaceFilterSelectsCurrentOtherUnboundAndAll() {
        SessionStore.openWithKey(tempDb(), ByteArray(32) { 1 }).use { store ->
            store.createSession("a", "/projA")
            store.createSession("ab", "/projAB")
            store.createSession("none", null)
            assertEquals(listOf("a"), store.listSessionsForWorkspace(WorkspaceFilter.Current("/projA"), null).map { it.name })
            assertEquals(listOf("ab"), store.listSessionsForWorkspace(WorkspaceFilter.Other("/projA"), null).map { it.name })
            assertEquals(listOf("none"), store.listSessionsForWorkspace(WorkspaceFilter.Unbound, null).map { it.name })
            assertEquals(3, store.listSessionsForWorkspace(WorkspaceFilter.All, null).size)
        }
    }

    @Test
    fun journalIsIdempotentAndOperationsEndOnce() {
        SessionStore.openWithKey(tempDb(), ByteArray(32) { 2 }).use { store ->
            val s = store.createSession(null, null)
            val ev = NewEvent("ev-1", s.id, "ToolNote", null, "{\"n\":1}")
            val first = store.journalAppend(ev)
            val again = store.journalAppend(ev)
            assertFalse(first.duplicate)
            assertTrue(again.duplicate)
            assertEquals(first.seq, again.seq)

            store.dispatchOperation(s.id, "op-1", "{\"tool\":\"bash\"}")
            assertEquals(listOf("op-1"), store.openOperations().map { it.operationId })
            assertEquals(store.instanceId(), store.openOperations().single().owner)
            store.completeOperation(s.id, "op-1", OperationOutcome.SUCCEEDED, "{}")
            assertTrue(store.openOperations().isEmpty())

            val events = store.journalEvents(s.id, 1uL, 100u)
            val mine = events.filter { it.eventId == "ev-1" || it.operationId == "op-1" }
            assertEquals(listOf("ToolNote", "EffectDispatchCommitted", "OperationSucceeded"), mine.map { it.kind })
            assertEquals("{\"n\":1}", mine[0].payloadJson)
            val rep = store.recover()
            assertEquals(0uL, rep.skippedLive)
            assertEquals(emptyList<FailedOperation>(), rep.failed)
            assertTrue(store.openRecoveryReport().markedUnknown.isEmpty())
        }
    }

    @Test
    fun recoveryMarksOperationsOfAClosedHandleUnknown() {
        val path = tempDb()
        val key = ByteArray(32) { 3 }
        val sid = SessionStore.openWithKey(path, key).use { store ->
            val s = store.createSession(null, null)
            store.dispatchOperation(s.id, "op-crash", "{}")
            store.closeStore()
            s.id
        }
        SessionStore.openWithKey(path, key).use { store ->
            assertEquals(listOf(MarkedOperation(sid, "op-crash")), store.openRecoveryReport().markedUnknown)
            assertEquals("OperationUnknownOutcome", store.journalEvents(sid, 1uL, 100u).last().kind)
        }
    }

    @Test
    fun closeIsIdempotentAndReported() {
        val store = SessionStore.openWithKey(tempDb(), ByteArray(32) { 4 })
        assertFalse(store.isClosed())
        store.closeStore()
        store.closeStore()
        assertTrue(store.isClosed())
        store.close() // AutoCloseable: frees the native handle
    }

    @Test
    fun defaultDbPathEndsWithAppAndFileName() {
        assertTrue(defaultDbPath("myapp").endsWith("/myapp/sessions.db"))
    }

    @Test
    fun envelopesRoundTripAndWorkspacesAreCanonical() {
        val key = ByteArray(32) { 3 }
        val env = encryptField(key, "session:s1:name", "títle".toByteArray())
        assertEquals("títle", String(decryptField(key, "session:s1:name", env)))
        assertEquals("session:s1:name:v1:aes-256-gcm", envelopeAad("session:s1:name"))
        assertEquals("/a/b", canonicalWorkspace("/a/./b/"))
        assertNull(null)
    }

    @Test
    fun aDamagedTitleIsListedWithItsUnreadableFieldAndHidesNoOtherSession() {
        val path = tempDb()
        SessionStore.openWithKey(path, ByteArray(32) { 5 }).use { store ->
            val ids = listOf("alpha", "beta", "gamma").map { store.createSession(it, null).id }
            val p = ProcessBuilder(
                "python3", "-c",
                "import sqlite3,sys\nc = sqlite3.connect(sys.argv[1], timeout=5)\nwith c: assert c.execute('UPDATE sessions SET name_enc = zeroblob(64) WHERE id = ?', (sys.argv[2],)).rowcount == 1",
                path, ids[1],
            ).inheritIO().start()
            assertEquals(0, p.waitFor())
            val listed = store.listSessions(null).associateBy { it.id }
            assertEquals(ids.toSet(), listed.keys)
            val damaged = listed.getValue(ids[1])
            assertNull(damaged.name)
            assertEquals(listOf(Triple("name", "session:${ids[1]}:name", "Corrupt")), damaged.unreadable.map { Triple(it.field, it.recordId, it.kind) })
            assertEquals(listOf("alpha", "gamma"), listOf(ids[0], ids[2]).map { listed.getValue(it).name })
            assertTrue(listed.getValue(ids[0]).unreadable.isEmpty())
        }
    }
}
