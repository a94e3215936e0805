package dev.sessiondb

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.File

/** The README's Kotlin example, as written there, around a stand-in keystore. */
class ReadmeExampleTest {
    object keystore {
        private val m = HashMap<String, ByteArray>()
        fun load(name: String): ByteArray? = m[name]
        fun save(name: String, key: ByteArray) { m[name] = key }
    }

    class KeystoreKeys : KeyProvider {                  // the app keeps the data key itself
        override fun getKey(): ByteArray? = keystore.load("sessiondb")   // null: no key yet
        override fun setKey(key: ByteArray) = keystore.save("sessiondb", key)
        override fun backendName() = "Android Keystore"
    }

    @Test
    fun readmeExampleRuns() {
        val dbPath = tempDb()
        val projectDir = File(dbPath).parent
        val exportDir = projectDir
        SessionStore.open(path = dbPath, keyProvider = KeystoreKeys()).use { store ->
            val s = store.createSession(name = "Fix the parser", workspacePath = projectDir)
            store.appendTranscript(s.id, Role.USER, "Why does the lexer drop the last token?")
            println(store.contextStatus(s.id, rawWindow = 128_000uL).meter.label)   // Ctx 0%
            store.exportThclawsToFile(s.id, "$exportDir/${s.id}.jsonl")             // thClaws JSONL
            assertTrue(File("$exportDir/${s.id}.jsonl").readText().contains("Why does the lexer"))
            assertEquals("Ctx 0%", store.contextStatus(s.id, rawWindow = 128_000uL).meter.label)
        }
    }
}
