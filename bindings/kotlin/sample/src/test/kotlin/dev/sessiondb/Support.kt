package dev.sessiondb

import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.atomic.AtomicInteger

/** A key provider kept in memory, as an app would keep it in the Android Keystore. */
class MemoryKeyProvider(@Volatile var stored: ByteArray? = null) : KeyProvider {
    val gets = AtomicInteger()
    val sets = AtomicInteger()
    override fun getKey(): ByteArray? {
        gets.incrementAndGet()
        return stored
    }
    override fun setKey(key: ByteArray) {
        sets.incrementAndGet()
        stored = key
    }
    override fun backendName(): String = "kotlin memory provider"
}

/** A provider whose store is locked: it throws, as the Keystore does when the device is locked. */
class LockedKeyProvider : KeyProvider {
    override fun getKey(): ByteArray? = throw SessionDbException.KeyStoreUnavailable(
        "kotlin locked provider", "the keystore is locked", "unlock the device", "key store unavailable: locked",
    )
    override fun setKey(key: ByteArray) = error("never called")
    override fun backendName(): String = "kotlin locked provider"
}

/** A provider with a bug: it throws an exception that is not a SessionDbException. */
class BrokenKeyProvider : KeyProvider {
    override fun getKey(): ByteArray? = throw IllegalStateException("provider bug")
    override fun setKey(key: ByteArray) = throw IllegalStateException("provider bug")
    override fun backendName(): String = "kotlin broken provider"
}

fun tempDb(): String {
    val dir: Path = Files.createTempDirectory("sdb-kotlin")
    dir.toFile().deleteOnExit()
    return dir.resolve("sessions.db").toString()
}

/**
 * The conformance name of an error kind. The `when` has no `else`: it stops
 * compiling if the generated SessionDbException gains or loses a variant,
 * so the 13 core kinds are checked to map one to one.
 */
fun kindName(e: SessionDbException): String = when (e) {
    is SessionDbException.RecoveryLocked -> "RecoveryLocked"
    is SessionDbException.KeyMismatch -> "KeyMismatch"
    is SessionDbException.KeyStoreUnavailable -> "KeyStoreUnavailable"
    is SessionDbException.NotFound -> "NotFound"
    is SessionDbException.Conflict -> "Conflict"
    is SessionDbException.AuthenticationFailed -> "AuthenticationFailed"
    is SessionDbException.Corrupt -> "Corrupt"
    is SessionDbException.Busy -> "Busy"
    is SessionDbException.InvalidInput -> "InvalidInput"
    is SessionDbException.Io -> "Io"
    is SessionDbException.Database -> "Database"
    is SessionDbException.ContextOverflow -> "ContextOverflow"
    is SessionDbException.Closed -> "Closed"
}
