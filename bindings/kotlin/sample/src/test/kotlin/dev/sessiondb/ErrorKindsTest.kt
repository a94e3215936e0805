package dev.sessiondb

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File

/**
 * Every error kind the host can provoke, as its own Kotlin class with the
 * core's fields: 12 of 13. Database (an SQLite failure that is none of the
 * others) cannot be provoked from a host.
 */
class ErrorKindsTest {
    private val key = ByteArray(32) { 9 }

    @Test
    fun errorKindsListsThe13CoreKindsInOrder() {
        val kinds = errorKinds()
        assertEquals(13, kinds.size)
        assertEquals("RecoveryLocked", kinds[0].name)
        assertEquals("ERR_RECOVERY_LOCKED", kinds[0].code)
        assertEquals("Closed", kinds[12].name)
    }

    @Test
    fun missingSessionIsNotFound() {
        SessionStore.openWithKey(tempDb(), key).use { store ->
            val e = assertThrows<SessionDbException.NotFound> { store.getSession("missing") }
            assertEquals("session", e.what)
            assertEquals("missing", e.id)
            assertTrue(e.message!!.contains("missing"))
        }
    }

    @Test
    fun existingSessionIdIsConflict() {
        SessionStore.openWithKey(tempDb(), key).use { store ->
            store.createSessionWith(NewSession(id = "dup"))
            assertThrows<SessionDbException.Conflict> { store.createSessionWith(NewSession(id = "dup")) }
        }
    }

    @Test
    fun sameEventIdWithAnotherPayloadIsConflict() {
        SessionStore.openWithKey(tempDb(), key).use { store ->
            val s = store.createSession(null, null)
            store.journalAppend(NewEvent("e1", s.id, "Note", null, "{\"a\":1}"))
            assertThrows<SessionDbException.Conflict> { store.journalAppend(NewEvent("e1", s.id, "Note", null, "{\"a\":2}")) }
        }
    }

    @Test
    fun anotherKeyIsKeyMismatch() {
        val path = tempDb()
        SessionStore.openWithKey(path, key).use { it.createSession("x", null) }
        val e = assertThrows<SessionDbException.KeyMismatch> { SessionStore.openWithKey(path, ByteArray(32) { 8 }) }
        assertEquals("host-provided key bytes", e.backend)
    }

    @Test
    fun missingKeyWithExistingDbIsRecoveryLocked() {
        val path = tempDb()
        SessionStore.open(path = path, keyProvider = MemoryKeyProvider()).use { it.createSession("x", null) }
        val empty = MemoryKeyProvider(null)
        val e = assertThrows<SessionDbException.RecoveryLocked> { SessionStore.open(path = path, app = "myapp", keyProvider = empty) }
        assertEquals("kotlin memory provider", e.backend)
        assertEquals("myapp", e.service)
        assertEquals(1, empty.gets.get())
        assertEquals(0, empty.sets.get(), "no new key is ever written for an existing database")
        assertEquals(null, empty.stored)
    }

    @Test
    fun lockedProviderIsKeyStoreUnavailableNeverNoKey() {
        val e = assertThrows<SessionDbException.KeyStoreUnavailable> { SessionStore.open(path = tempDb(), keyProvider = LockedKeyProvider()) }
        assertEquals("kotlin locked provider", e.backend)
        assertEquals("the keystore is locked", e.reason)
    }

    @Test
    fun providerThrowingAnyOtherExceptionIsKeyStoreUnavailable() {
        val path = tempDb()
        val e = assertThrows<SessionDbException.KeyStoreUnavailable> { SessionStore.open(path = path, keyProvider = BrokenKeyProvider()) }
        assertTrue(e.reason.contains("provider bug"), e.reason)
        assertTrue(!File(path).exists() || File(path).length() == 0L, "no database is created without a key")
    }

    @Test
    fun providerReturningAShortKeyIsKeyStoreUnavailable() {
        assertThrows<SessionDbException.KeyStoreUnavailable> {
            SessionStore.open(path = tempDb(), keyProvider = MemoryKeyProvider(ByteArray(16)))
        }
    }

    @Test
    fun badArgumentsAreInvalidInput() {
        assertThrows<SessionDbException.InvalidInput> { SessionStore.openWithKey(tempDb(), ByteArray(3)) }
        SessionStore.openWithKey(tempDb(), key).use { store ->
            val s = store.createSession(null, null)
            val e = assertThrows<SessionDbException.InvalidInput> { store.dispatchOperation(s.id, "op", "not json") }
            assertTrue(e.reason.contains("payloadJson"))
            assertThrows<SessionDbException.InvalidInput> { store.createSessionWith(NewSession(id = "has space")) }
            assertThrows<SessionDbException.InvalidInput> { meter(1uL, 0uL) }
        }
    }

    /** Another process (Python's sqlite3) holds the write lock longer than the busy timeout. */
    @Test
    fun writerHoldingTheLockPastTheTimeoutIsBusy() {
        val python = listOf("python3", "-c", "import sqlite3").let {
            runCatching { ProcessBuilder(it).start().waitFor() == 0 }.getOrDefault(false)
        }
        assumeTrue(python, "python3 with sqlite3 is needed to hold the lock from another process")
        val path = tempDb()
        SessionStore.openWithKey(path, key, busyTimeoutMs = 100uL).use { store ->
            val s = store.createSession(null, null)
            val holder = ProcessBuilder(
                "python3", "-c",
                "import sqlite3, sys, time\n" +
                    "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n" +
                    "c.execute('BEGIN IMMEDIATE')\n" +
                    "print('locked', flush=True)\n" +
                    "sys.stdin.readline()\n",
                path,
            ).start()
            try {
                assertEquals("locked", holder.inputStream.bufferedReader().readLine())
                val e = assertThrows<SessionDbException.Busy> { store.appendTranscript(s.id, Role.USER, "x") }
                assertEquals(100uL, e.timeoutMs)
            } finally {
                holder.outputStream.close()
                holder.waitFor()
            }
            assertEquals(1uL, store.appendTranscript(s.id, Role.USER, "after the lock").seq)
        }
    }

    @Test
    fun closedStoreIsClosed() {
        val store = SessionStore.openWithKey(tempDb(), key)
        val s = store.createSession(null, null)
        store.closeStore()
        assertThrows<SessionDbException.Closed> { store.getSession(s.id) }
        assertThrows<SessionDbException.Closed> { store.appendTranscript(s.id, Role.USER, "late") }
        store.close()
    }

    @Test
    fun notADatabaseIsCorrupt() {
        val path = tempDb()
        File(path).writeText("this is not an SQLite database, just text long enough to be read as a header....")
        assertThrows<SessionDbException.Corrupt> { SessionStore.openWithKey(path, key) }
    }

    @Test
    fun directoryThatCannotBeCreatedIsIo() {
        val file = File(tempDb()).also { it.parentFile.mkdirs(); it.writeText("x") }
        val e = assertThrows<SessionDbException.Io> { SessionStore.openWithKey(File(file, "sub/sessions.db").path, key) }
        assertTrue(e.step.isNotEmpty())
    }

    @Test
    fun alteredEnvelopeIsAuthenticationFailed() {
        val env = "{\"n\":\"AAAAAAAAAAAAAAAA\",\"c\":\"fNnTv9ZY7M8lydxBcA==\",\"t\":\"MadcLF4dp/xQGMlwRanYAQ==\",\"v\":1,\"alg\":\"aes-256-gcm\"}"
        val k = ByteArray(32) { it.toByte() }
        assertEquals("refactor-auth", String(decryptField(k, "session:abc123:name", env)))
        val e = assertThrows<SessionDbException.AuthenticationFailed> { decryptField(k, "session:abc124:name", env) }
        assertEquals("session:abc124:name", e.record)
    }

    @Test
    fun protectedContentOverCapacityIsContextOverflowWithBreakdown() {
        val items = listOf(
            ContextItem(1uL, "system", ItemKind.SYSTEM, 900uL, false, "system prompt", emptyList(), false),
            ContextItem(2uL, "user", ItemKind.MESSAGE, 300uL, true, "pinned", emptyList(), false),
        )
        val e = assertThrows<SessionDbException.ContextOverflow> { compactContext(items, 1000uL, null, null) }
        assertEquals(1000uL, e.capacity)
        assertEquals(900uL, e.system)
        assertEquals(300uL, e.pinned)
        assertEquals(1200uL, e.protectedTotal)
        assertTrue(e.remedies.isNotEmpty())
        assertEquals("ContextOverflow", kindName(e))
    }
}
