package dev.sessiondb

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.util.Collections
import java.util.concurrent.CountDownLatch
import java.util.concurrent.atomic.AtomicInteger
import kotlin.concurrent.thread

class StressTest {
    /**
     * 8 threads append to one store while another thread closes it: every
     * call either succeeds or throws SessionDbException.Closed; nothing else,
     * and no crash of the JVM.
     */
    @Test
    fun eightThreadsAppendingWhileAnotherClosesGetCleanClosedErrors() {
        val store = SessionStore.openWithKey(tempDb(), ByteArray(32) { 5 })
        val sid = store.createSession("stress", null).id
        val start = CountDownLatch(1)
        val ok = AtomicInteger()
        val closedErrors = AtomicInteger()
        val unexpected = Collections.synchronizedList(mutableListOf<Throwable>())
        val seqs = Collections.synchronizedSet(HashSet<ULong>())
        val workers = (0 until 8).map { t ->
            thread(name = "append-$t") {
                start.await()
                try {
                    for (n in 0 until 100_000) {
                        val e = store.appendTranscript(sid, Role.USER, "thread $t message $n")
                        check(seqs.add(e.seq)) { "seq ${e.seq} handed out twice" }
                        ok.incrementAndGet()
                    }
                } catch (e: SessionDbException.Closed) {
                    closedErrors.incrementAndGet()
                } catch (e: Throwable) {
                    unexpected += e
                }
            }
        }
        val closer = thread(name = "closer") {
            start.await()
            while (ok.get() < 200) Thread.sleep(1)
            store.closeStore()
        }
        start.countDown()
        closer.join(60_000)
        workers.forEach { it.join(60_000) }
        assertTrue(unexpected.isEmpty(), "unexpected: $unexpected")
        assertEquals(8, closedErrors.get(), "every thread stopped on Closed")
        assertTrue(ok.get() >= 200)
        assertEquals(ok.get(), seqs.size)
        assertEquals((1uL..ok.get().toULong()).toSet(), seqs, "seqs are gapless")
        store.close()
        println("[kotlin] stress: ${ok.get()} appends from 8 threads, then 8 clean Closed errors")
    }

    /**
     * Freeing the native handle (Kotlin close()) while calls run: uniffi
     * frees it only once no call is in flight, so calls may go on succeeding
     * for a while, then throw IllegalStateException ("already destroyed");
     * nothing else, and no crash.
     */
    @Test
    fun freeingTheHandleWhileThreadsCallIsSafe() {
        val store = SessionStore.openWithKey(tempDb(), ByteArray(32) { 6 })
        val sid = store.createSession(null, null).id
        val ok = AtomicInteger()
        val unexpected = Collections.synchronizedList(mutableListOf<Throwable>())
        val go = CountDownLatch(1)
        val workers = (0 until 8).map {
            thread {
                go.await()
                try {
                    repeat(400) {
                        store.appendTranscript(sid, Role.ASSISTANT, "x")
                        ok.incrementAndGet()
                    }
                } catch (e: IllegalStateException) {
                    // "SessionStore object has already been destroyed"
                } catch (e: SessionDbException.Closed) {
                    // the last reference dropped: the core store closed itself
                } catch (e: Throwable) {
                    unexpected += e
                }
            }
        }
        go.countDown()
        while (ok.get() < 100) Thread.sleep(1)
        store.close()
        workers.forEach { it.join(120_000) }
        assertTrue(workers.none { it.isAlive }, "every thread finished")
        assertTrue(unexpected.isEmpty(), "unexpected: $unexpected")
        assertThrows<IllegalStateException> { store.appendTranscript(sid, Role.USER, "after free") }
    }
}
