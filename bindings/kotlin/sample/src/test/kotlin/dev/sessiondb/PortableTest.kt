package dev.sessiondb

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.File

class PortableTest {
    private val thclaws = """
        {"type":"header","id":"sess-00000000000000aa","model":"zai/glm-5.1","cwd":"/w","created_at":1700000000}
        {"type":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}
        {"type":"assistant","content":[{"type":"text","text":"hello"},{"type":"tool_use","id":"c1","name":"Ls","input":{}}],"timestamp":2,"provider":"zai","model":"zai/glm-5.1"}
    """.trimIndent() + "\n"

    @Test
    fun importExportForkAndResolveRoundTrip() {
        val db = tempDb()
        val src = File(File(db).parentFile, "sess-00000000000000aa.jsonl").apply { writeText(thclaws) }
        assertEquals(SourceFormat.THCLAWS, detectFormat(src.path))
        SessionStore.openWithKey(db, ByteArray(32) { 12 }).use { store ->
            val rep = store.importFile(src.path, null)
            assertEquals(ImportStatus.Imported, rep.status)
            assertEquals(SourceFormat.THCLAWS, rep.format)
            val imported = rep.sessions.single()
            assertEquals("sess-00000000000000aa", imported.sessionId)
            assertEquals(2uL, imported.entries)
            assertEquals(1uL, imported.toolCalls)
            assertEquals(3uL, rep.read!!.lines)
            assertEquals(ImportStatus.UpToDate, store.importFile(src.path, null).status)

            val jsonl = store.exportThclaws(imported.sessionId)
            assertTrue(jsonl.startsWith("{\"type\":\"header\",\"id\":\"sess-00000000000000aa\""))
            val out = File(File(db).parentFile, "export.jsonl")
            val report = store.exportThclawsToFile(imported.sessionId, out.path)
            assertEquals(jsonl, out.readText())
            assertEquals(report.lines.toInt(), jsonl.lines().filter { it.isNotEmpty() }.size)
            assertEquals(2uL, report.turns)

            val fork = store.forkSession(imported.sessionId, atSeq = 1uL)
            assertEquals(imported.sessionId, fork.forkedFrom)
            assertEquals(1uL, fork.entryCount)
            assertEquals(imported.sessionId, store.resolveSession("sess-0000", null).id)
            assertEquals(2, store.recentSessions().size)
            val seen = mutableListOf<Pair<ULong, ULong>>()
            val listener = object : ImportProgressListener {
                override fun onProgress(filesDone: ULong, filesTotal: ULong, bytesDone: ULong, bytesTotal: ULong) {
                    seen += filesDone to filesTotal
                }
            }
            assertEquals(2, store.importPaths(listOf(src.parentFile.path), listener).size, "both .jsonl files in the directory")
            assertEquals(listOf(1uL to 2uL, 2uL to 2uL), seen)
        }
    }
}
