package dev.sessiondb

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit

/**
 * The `suspend` variants (uniffi async exports, bindings/src/async_store.rs):
 * same results and errors as the blocking calls, run on the library's blocking
 * pool, usable from two coroutines at once; a cancelled call lands whole.
 */
class SuspendTest {
    private val key = ByteArray(32) { 7 }

    @Test
    fun suspendVariantsFromRunBlockingReturnTheBlockingResults() = runBlocking {
        val path = tempDb()
        AsyncSessionStore.openWithKey(path = path, key = key).use { s ->
            val created = s.createSession(name = "suspend", workspacePath = null)
            val e1 = s.appendTranscript(created.id, Role.USER, "hello")
            val e2 = s.appendTranscript(created.id, Role.ASSISTANT, "hi")
            assertEquals(listOf(1uL, 2uL), listOf(e1.seq, e2.seq))
            assertEquals(listOf("hello", "hi"), s.getTranscript(created.id).map { it.content })
            assertEquals(s.store().getTranscript(created.id, 1uL, 1000u), s.getTranscript(created.id))
            assertEquals("suspend", s.getSession(created.id).name)
            assertEquals(2uL, s.getSession(created.id).entryCount)
            assertEquals(listOf(created.id), s.listSessions().map { it.id })
            assertEquals(path, s.path())
            s.closeStore()
            assertTrue(s.isClosed())
        }
    }

    @Test
    fun suspendVariantsRaiseTheSameErrorKinds() = runBlocking {
        AsyncSessionStore.openWithKey(path = tempDb(), key = key).use { s ->
            val e = assertThrows<SessionDbException.NotFound> { runBlocking { s.getSession("no-such-session") } }
            assertEquals("NotFound", kindName(e))
            s.closeStore()
            assertThrows<SessionDbException.Closed> { runBlocking { s.createSession() } }
        }
        val path = tempDb()
        AsyncSessionStore.openWithKey(path = path, key = key).use { it.closeStore() }
        assertThrows<SessionDbException.KeyMismatch> {
            runBlocking { AsyncSessionStore.openWithKey(path = path, key = ByteArray(32) { 8 }) }
        }
        Unit
    }

    @Test
    fun blockingWorkRunsOnTheLibrarysPoolNotTheCallersThread() = runBlocking {
        val caller = Thread.currentThread()
        var providerThread: Thread? = null
        val kp = object : KeyProvider {
            var stored: ByteArray? = null
            override fun getKey(): ByteArray? { providerThread = Thread.currentThread(); return stored }
            override fun setKey(key: ByteArray) { stored = key }
            override fun backendName(): String = "recording provider"
        }
        AsyncSessionStore.open(path = tempDb(), keyProvider = kp).use { it.closeStore() }
        assertNotEquals(caller, providerThread)
        // A thread of the library's Rust pool that JNA attached to the JVM, not a coroutine dispatcher's.
        val name = providerThread!!.name
        assertFalse(name.startsWith("DefaultDispatcher-worker"), name)
    }

    /**
     * Cancelling a coroutine returns at once; the call already running on the
     * pool finishes whole (a cancelled call lands whole or not at all, never
     * half). The progress listener holds the import after its first file
     * until the coroutine is cancelled; the second file is still imported.
     */
    @Test
    fun aCancelledCallThatHasStartedFinishesWhole() = runBlocking {
        val db = tempDb()
        val dir = java.io.File(db).parentFile
        for (id in listOf("aa", "bb")) {
            java.io.File(dir, "sess-00000000000000$id.jsonl").writeText(
                "{\"type\":\"header\",\"id\":\"sess-00000000000000$id\",\"created_at\":1700000000}\n" +
                    "{\"type\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi $id\"}],\"timestamp\":1}\n",
            )
        }
        val (reached, release, finished) = List(3) { CountDownLatch(1) }
        val listener = object : ImportProgressListener {
            override fun onProgress(filesDone: ULong, filesTotal: ULong, bytesDone: ULong, bytesTotal: ULong) {
                if (filesDone == 1uL) { reached.countDown(); check(release.await(20, TimeUnit.SECONDS)) }
                if (filesDone == 2uL) finished.countDown()
            }
        }
        AsyncSessionStore.openWithKey(path = db, key = key).use { s ->
            var returned = false
            val job = launch(Dispatchers.Default) { s.importPaths(listOf(dir.path), listener); returned = true }
            assertTrue(reached.await(20, TimeUnit.SECONDS))
            job.cancelAndJoin()
            assertTrue(job.isCancelled)
            assertEquals(false, returned)
            release.countDown()
            assertTrue(finished.await(20, TimeUnit.SECONDS))
            assertEquals(listOf("sess-00000000000000aa", "sess-00000000000000bb"), s.listSessions().map { it.id }.sorted())
            s.closeStore()
        }
    }

    /**
     * One thread runs both coroutines (runBlocking's event loop): the first
     * suspends in open() while its key provider waits for the second, which
     * can only run if open() did not block that thread.
     */
    @Test
    fun aSuspendedOpenLeavesTheCallersThreadFree() = runBlocking {
        val released = CountDownLatch(1)
        val kp = object : KeyProvider {
            var stored: ByteArray? = null
            override fun getKey(): ByteArray? {
                check(released.await(20, TimeUnit.SECONDS)) { "the caller's thread was blocked: the other coroutine never ran" }
                return stored
            }
            override fun setKey(key: ByteArray) { stored = key }
            override fun backendName(): String = "latch provider"
        }
        val order = mutableListOf<String>()
        val opener = async { AsyncSessionStore.open(path = tempDb(), keyProvider = kp).also { order.add("opened") } }
        launch { order.add("other coroutine ran"); released.countDown() }
        opener.await().use { it.closeStore() }
        assertEquals(listOf("other coroutine ran", "opened"), order)
    }

    @Test
    fun twoCoroutinesAppendingAtOnceGetGaplessSeqsAndKeepTheirOrder() = runBlocking {
        AsyncSessionStore.openWithKey(path = tempDb(), key = key).use { s ->
            val sid = s.createSession(name = "two writers").id
            val started = CountDownLatch(2)
            val writers = listOf("a", "b").map { w ->
                async(Dispatchers.Default) {
                    started.countDown()
                    started.await()
                    (0 until 50).map { n -> s.appendTranscript(sid, Role.USER, "$w $n").seq }
                }
            }
            val seqs = writers.awaitAll()
            assertEquals((1uL..100uL).toList(), (seqs[0] + seqs[1]).sorted())
            assertEquals(seqs[0], seqs[0].sorted())
            assertEquals(seqs[1], seqs[1].sorted())
            val rows = s.getTranscript(sid)
            assertEquals((1uL..100uL).toList(), rows.map { it.seq })
            for (w in listOf("a", "b")) {
                assertEquals((0 until 50).map { "$w $it" }, rows.map { it.content }.filter { it.startsWith("$w ") })
            }
            assertEquals(100uL, s.getSession(sid).entryCount)
            s.closeStore()
        }
    }

    @Test
    fun moduleFunctionsHaveSuspendVariants() = runBlocking {
        val env = SessionDbSuspending().encryptField(key, "session:s1:name", "secret".toByteArray())
        assertArrayEquals("secret".toByteArray(), SessionDbSuspending().decryptField(key, "session:s1:name", env))
        assertThrows<SessionDbException.AuthenticationFailed> {
            runBlocking { SessionDbSuspending().decryptField(key, "session:s2:name", env) }
        }
        assertEquals(workspaceIndex(key, "/projA"), SessionDbSuspending().workspaceIndex(key, "/projA"))
        assertEquals("/no/such/dir", SessionDbSuspending().canonicalWorkspace("/no/such/dir/"))
    }

    /** The README's suspend example, as written there. */
    @Test
    fun readmeSuspendExampleRuns() {
        val dbPath = tempDb()
        val key = ByteArray(32) { 1 }
        runBlocking {
            AsyncSessionStore.openWithKey(path = dbPath, key = key).use { s ->
                val id = s.createSession(name = "suspend").id
                s.appendTranscript(id, Role.USER, "hello")                  // on the library's pool
                println(s.contextStatus(id, rawWindow = 128_000uL).meter.label)   // Ctx 0%
                assertEquals("Ctx 0%", s.contextStatus(id, rawWindow = 128_000uL).meter.label)
                assertEquals(listOf("hello"), s.getTranscript(id).map { it.content })
                s.closeStore()
            }
        }
    }

    /** Every method of the blocking interface exists on the wrapper (the generator cannot drop one). */
    @Test
    fun theWrapperCoversEverySessionStoreMethod() {
        // JVM names of methods taking unsigned values carry a mangling suffix (`getTranscript-7pzH9BY`).
        fun names(c: Class<*>) = c.methods.map { it.name.substringBefore('-').removeSuffix("\$default") }.toSortedSet()
        val blocking = names(SessionStoreInterface::class.java)
        val wrapped = names(AsyncSessionStore::class.java)
        // Not a fixed count (each new method would have to edit it): the
        // interface is non-trivial and every one of its methods is wrapped.
        assertTrue(blocking.size > 40, "blocking interface: $blocking")
        assertTrue("copyTo" in blocking && "getTranscriptTailWithMeta" in blocking, "blocking interface: $blocking")
        assertEquals(emptySet<String>(), blocking - wrapped)
        val ctors = listOf("open", "openWithKey", "openWithOsKeyring")
        val companion = names(AsyncSessionStore.Companion::class.java)
        assertEquals(ctors, ctors.filter { it in companion })
    }
}
