package dev.sessiondb

import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/**
 * `copyTo` (SQLite to SQLite: the uniffi build has no PostgreSQL backend) and
 * recovery keys (issue 13 items 7 and 8): exact counts, idempotence,
 * KeyMismatch before any write, the exact recovery text of a known key, the
 * checksum error and the import into a key provider.
 */
class CopyKeyTest {
    private val key = ByteArray(32) { it.toByte() }
    // base32(key + sha256("sessiondb recovery key v1\u0000" + key)[:3]), in groups of 4.
    private val keyText = "AAAQ-EAYE-AUDA-OCAJ-BIFQ-YDIO-B4IB-CEQT-CQKR-MFYY-DENB-WHA5-DYPU-PUO5"

    private fun counts(r: CopyReport) = listOf(
        r.sessionsSeen, r.sessionsCreated, r.sessionsUpdated, r.sessionsDeleted, r.entries, r.retractions,
        r.tokens, r.extensions, r.events, r.openOperations, r.importRecords,
    ).map { it.toLong() }

    @Test
    fun copyToCopiesThenNothingThenOnlyNewRows() {
        SessionStore.openWithKey(tempDb(), key).use { a ->
            SessionStore.openWithKey(tempDb(), key).use { b ->
                val s = a.createSession("laptop", null)
                a.appendTranscript(s.id, Role.USER, "one")
                a.appendTranscript(s.id, Role.ASSISTANT, "two")
                val r = a.copyTo(b)
                assertEquals(listOf(1L, 1, 0, 0, 2, 0, 0, 0, 3, 0, 0), counts(r))
                assertEquals(emptyList<CopyConflict>(), r.conflicts)
                assertEquals(listOf("one", "two"), b.getTranscript(s.id).map { it.content })
                assertEquals(listOf(1L, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), counts(a.copyTo(b)))
                a.appendTranscript(s.id, Role.USER, "three")
                assertEquals(listOf(1L, 0, 0, 0, 1), counts(a.copyTo(b)).subList(4, 9))
                b.appendTranscript(s.id, Role.USER, "in B")
                a.appendTranscript(s.id, Role.USER, "in A")
                val c = a.copyTo(b).conflicts
                assertEquals(listOf(CopyConflict(s.id, "Conflict", "journal event at seq 5 differs between source and destination")), c)
            }
        }
    }

    @Test
    fun copyIntoAStoreWithAnotherKeyIsKeyMismatchAndWritesNothing() {
        SessionStore.openWithKey(tempDb(), key).use { a ->
            a.createSession("secret", null)
            SessionStore.openWithKey(tempDb(), ByteArray(32) { 7 }).use { b ->
                assertThrows<SessionDbException.KeyMismatch> { a.copyTo(b) }
                assertEquals(0UL, b.stats().journalEvents)
            }
        }
    }

    @Test
    fun aKnownKeyHasItsExactRecoveryTextAndTyposAreTheChecksumError() {
        assertEquals(keyText, recoveryKeyText(key))
        SessionStore.openWithKey(tempDb(), key).use { assertEquals(keyText, it.recoveryKey()) }
        for (t in listOf(keyText, keyText.lowercase(), keyText.replace("-", ""), keyText.replace("-", " "), "\n" + keyText.replace("-", "\n"))) {
            assertArrayEquals(key, parseRecoveryKey(t))
        }
        val e = assertThrows<SessionDbException.InvalidInput> { parseRecoveryKey("AAAR" + keyText.drop(4)) }
        assertEquals(
            "invalid input: recovery key checksum mismatch: a character was mistyped or left out; compare it group by group with the exported text",
            e.detail,
        )
    }

    @Test
    fun importRecoveryKeyChecksTheDatabaseThenStoresTheKey() {
        val db = tempDb()
        val sid = SessionStore.openWithKey(db, key).use { it.createSession("from the laptop", null).id }
        val device = MemoryKeyProvider()
        assertThrows<SessionDbException.KeyMismatch> { importRecoveryKey(recoveryKeyText(ByteArray(32) { 9 }), db, device) }
        assertNull(device.stored)
        importRecoveryKey(keyText.lowercase(), db, device).use { assertEquals("from the laptop", it.getSession(sid).name) }
        assertArrayEquals(key, device.stored)
        assertThrows<SessionDbException.Conflict> { importRecoveryKey(keyText, db, MemoryKeyProvider(ByteArray(32) { 3 })) }
    }

    /** The key as the base64 text of a key file (issue 27): `openWithKeyText`, or its bytes to `openWithKey`. */
    @Test
    fun theKeyAsTheBase64TextOfAKeyFileOpensTheStore() {
        val path = tempDb()
        val text = java.util.Base64.getEncoder().encodeToString(key) + "\n"
        val id = SessionStore.openWithKey(path, key).use { it.createSession("k", null).id }
        SessionStore.openWithKeyText(path, text).use { assertEquals("k", it.getSession(id).name) }
        SessionStore.openWithKey(path, text.toByteArray()).use { assertEquals("k", it.getSession(id).name) }
        val e = assertThrows<SessionDbException.InvalidInput> { SessionStore.openWithKeyText(path, "not a key!") }
        assertEquals(
            "invalid input: key: not the base64 text of a data key (10 characters; a key file holds 44 characters of base64 and a newline) and not 32 bytes",
            e.detail,
        )
    }
}
