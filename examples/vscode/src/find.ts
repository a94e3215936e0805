// The "find session" quick pick's logic (issue 26 item 8): what the user types
// is searched through the store's encrypted index in sessions mode (the best
// hit per session, what a resume picker shows); every call is a Promise, so
// the extension host never blocks. Kept apart from the VS Code API so that
// test/find.test.ts runs it against the real package under plain Node.

import { InvalidInputError, type SessionStore } from 'sessiondb'

/** One row of the quick pick (the shape of `vscode.QuickPickItem` plus the session it opens). */
export interface FindItem {
  /** The session's title (its name, else the first 8 characters of its id). */
  label: string
  /** `<role> · #<seq>` of the best hit (`title` for a hit in the name). */
  description: string
  /** The snippet with its matches in «guillemets» (the quick pick shows plain text). */
  detail: string
  /** The session to open; null for a message row (a malformed query). */
  sessionId: string | null
  /** The hit's entry (the viewer opens the session there); null for a hit in the title or a message row. */
  seq: number | null
}

/** The snippet with each highlight range (UTF-16 offsets, JavaScript's own string indexing) wrapped in « ». */
export function marked(snippet: string, highlights: ReadonlyArray<{ start: number; end: number }>): string {
  let out = ''
  let at = 0
  for (const h of highlights) {
    out += snippet.slice(at, h.start) + '«' + snippet.slice(h.start, h.end) + '»'
    at = h.end
  }
  return out + snippet.slice(at)
}

/**
 * The quick pick's rows for `query`: at most `limit` sessions, best first.
 * An empty query gives no rows; a malformed one (an unclosed quote while the
 * user is still typing) one message row naming the position, never a thrown
 * error. Other errors (a closed store, I/O) are thrown.
 */
export async function findSessionItems(store: SessionStore, query: string, limit = 20): Promise<FindItem[]> {
  if (query.trim() === '') return []
  let page
  try {
    page = await store.search(query, { sessions: true, limit })
  } catch (err) {
    if (err instanceof InvalidInputError) return [{ label: 'sessiondb: not a query yet', description: '', detail: err.message, sessionId: null, seq: null }]
    throw err
  }
  return Promise.all(
    page.hits.map(async (hit) => {
      const session = await store.getSession(hit.sessionId)
      return {
        label: session.name ?? hit.sessionId.slice(0, 8),
        description: hit.seq === 0 ? 'title' : `${hit.role ?? '?'} · #${hit.seq}`,
        detail: marked(hit.snippet, hit.highlights),
        sessionId: hit.sessionId,
        seq: hit.seq === 0 ? null : hit.seq,
      }
    }),
  )
}
