// "sessiondb: Open viewer" and opening a found session (issue 32 item 4): the
// store's local, read-only viewer (docs/viewer.md), started once through the
// npm package's `store.serve()` and opened in the user's browser. Kept apart
// from the VS Code API so that test/viewer.test.ts runs it against the real
// package under plain Node.
//
// Why the browser and not a webview panel: the viewer refuses to be framed
// (`frame-ancestors 'none'`, `X-Frame-Options: DENY`) and signs a browser in
// with a `SameSite=Strict` cookie, which an iframe inside a webview (another
// site) never sends. Loosening either for VS Code would weaken the viewer for
// every user, so the extension opens it where it is safe.

import type { SessionStore, Viewer } from 'sessiondb'

/** One viewer for the extension's store, started on first use. */
export class ViewerLinks {
  private viewer: Promise<Viewer> | null = null
  private tokenSpent = false

  /** `store`: the store to serve (the meter's); `window`: the meter's raw window, tokens. */
  constructor(
    private readonly store: () => Promise<SessionStore> | null,
    private readonly window: () => number,
  ) {}

  /**
   * The address that opens the viewer at `sessionId` (and entry `seq`), or at
   * the session list when `sessionId` is null. The first address carries the
   * one-time sign-in token; later ones are plain addresses of the same
   * viewer (the browser is signed in by then). Rejects as `store.serve()`.
   */
  async link(sessionId: string | null, seq: number | null = null): Promise<string> {
    const v = await this.start()
    const fragment = sessionId === null ? '' : `#/s/${encodeURIComponent(sessionId)}${seq === null ? '' : `/${seq}`}`
    if (!this.tokenSpent) {
      this.tokenSpent = true
      return v.url + fragment
    }
    // The viewer's home address (its random base path), without the spent token.
    return v.url.split('?')[0] + fragment
  }

  private start(): Promise<Viewer> {
    if (this.viewer === null) {
      const pending = this.store()
      if (pending === null) return Promise.reject(new Error('the store is not open'))
      this.viewer = pending.then((s) => s.serve({ window: this.window() }))
      this.viewer.catch(() => {
        this.viewer = null
      })
    }
    return this.viewer
  }

  /** Stop the viewer (a store change or shutdown); the next link starts a new one, with a new token. */
  async stop(): Promise<void> {
    const pending = this.viewer
    this.viewer = null
    this.tokenSpent = false
    if (pending === null) return
    try {
      await (await pending).stop()
    } catch {
      // A viewer that failed to start has nothing to stop.
    }
  }
}
