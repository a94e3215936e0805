package dev.sessiondb

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.util.UUID

/**
 * The default OS-keyring path through the bindings, against the real Secret
 * Service that scripts/test-kotlin.sh starts (scripts/with-secret-service.sh
 * sets SESSIONDB_SECRET_SERVICE to unlocked or locked). Skipped elsewhere.
 */
class OsKeyringTest {
    private val mode: String? = System.getenv("SESSIONDB_SECRET_SERVICE")
    private fun app() = "sessiondb-kotlin-" + UUID.randomUUID().toString().take(8)

    @Test
    fun unlockedKeyringCreatesTheKeyThenReadsItBack() {
        assumeTrue(mode == "unlocked", "needs an unlocked private Secret Service")
        val path = tempDb()
        val app = app()
        val id = SessionStore.openWithOsKeyring(path, app).use { store ->
            assertEquals("Secret Service (D-Bus)", store.keyBackend())
            store.createSession("in the keyring", null).id
        }
        SessionStore.openWithOsKeyring(path, app).use { store ->
            assertEquals("in the keyring", store.getSession(id).name)
        }
        // Another service name has no key for this database: recovery-locked, no new key.
        val e = assertThrows<SessionDbException.RecoveryLocked> { SessionStore.openWithOsKeyring(path, app()) }
        assertEquals("Secret Service (D-Bus)", e.backend)
    }

    @Test
    fun lockedKeyringIsKeyStoreUnavailableNeverNoKey() {
        assumeTrue(mode == "locked", "needs a locked private Secret Service")
        val e = assertThrows<SessionDbException.KeyStoreUnavailable> { SessionStore.openWithOsKeyring(tempDb(), app()) }
        assertEquals("Secret Service (D-Bus)", e.backend)
    }
}
