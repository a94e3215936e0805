// Example VS Code extension: the seed's `Ctx N%` status-bar indicator for the
// workspace's most recently active sessiondb session, through the sessiondb
// npm package. Every store call is a Promise (run on the libuv pool), so the
// extension host's event loop never blocks; refreshes are serialized (one in
// flight, at most one queued) and triggered by an interval, by changes to the
// database files and by the refresh command. The "sessiondb: Find session"
// command searches every session as the user types (src/find.ts) and opens the
// chosen one in the store's read-only viewer; "sessiondb: Open viewer" opens
// its session list (src/viewer.ts: started once through `store.serve()`,
// shown in a webview panel whose API calls the extension forwards to it).

import * as path from 'node:path'
import * as vscode from 'vscode'
import { SessionStore } from 'sessiondb'
import { BAND_STYLES, errorView, workspaceMeter, type MeterSettings, type MeterView } from './status'
import { findSessionItems, type FindItem } from './find'
import { ViewerWebview, routeOf } from './viewer'

/** Reads the `sessiondb.*` settings. */
function settings(): MeterSettings & { databasePath: string | null; app: string; refreshIntervalSeconds: number } {
  const c = vscode.workspace.getConfiguration('sessiondb')
  const databasePath = c.get<string>('databasePath', '')
  return {
    databasePath: databasePath === '' ? null : databasePath,
    app: c.get<string>('app', 'sessiondb'),
    rawContextWindow: c.get<number>('rawContextWindow', 128000),
    outputReserve: c.get<number | null>('outputReserve', null),
    refreshIntervalSeconds: Math.max(1, c.get<number>('refreshIntervalSeconds', 5)),
  }
}

/** The status-bar item, the store it reads and the triggers that refresh it. */
class ContextMeterItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem
  private store: Promise<SessionStore> | null = null
  private running: Promise<void> | null = null
  private queued = false
  private timer: NodeJS.Timeout | null = null
  private watcher: vscode.FileSystemWatcher | null = null
  private disposed = false

  constructor() {
    this.item = vscode.window.createStatusBarItem('sessiondb.contextMeter', vscode.StatusBarAlignment.Right, 100)
    this.item.name = 'sessiondb context meter'
    this.item.command = 'sessiondb.refreshContextMeter'
    this.item.text = 'Ctx …'
    this.item.show()
    this.restart()
  }

  /** The viewer of this item's store (stopped when the store is reopened or closed). */
  readonly viewer = new ViewerWebview(() => this.store, () => settings().rawContextWindow)

  /** (Re)open the store and (re)arm the interval and the file watcher, e.g. after a settings change. */
  restart(): void {
    void this.viewer.stop()
    void this.closeStore()
    const s = settings()
    this.store = SessionStore.open(s.databasePath === null ? { app: s.app } : { path: s.databasePath, app: s.app })
    this.store.then((store) => this.watch(store.path), () => undefined)
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = setInterval(() => this.refresh(), s.refreshIntervalSeconds * 1000)
    this.refresh()
  }

  /** Watch the database and its WAL (`sessions.db`, `sessions.db-wal`): an append elsewhere refreshes the item. */
  private watch(dbPath: string): void {
    this.watcher?.dispose()
    const pattern = new vscode.RelativePattern(vscode.Uri.file(path.dirname(dbPath)), `${path.basename(dbPath)}*`)
    this.watcher = vscode.workspace.createFileSystemWatcher(pattern)
    this.watcher.onDidChange(() => this.refresh())
    this.watcher.onDidCreate(() => this.refresh())
  }

  /** Schedule a refresh: at most one runs, and at most one more is queued behind it. */
  refresh(): void {
    if (this.disposed) return
    if (this.running !== null) {
      this.queued = true
      return
    }
    this.running = this.update().finally(() => {
      this.running = null
      if (this.queued) {
        this.queued = false
        this.refresh()
      }
    })
  }

  private async update(): Promise<void> {
    let view: MeterView
    try {
      if (this.store === null) throw new Error('the store is not open')
      const store = await this.store
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? null
      view = await workspaceMeter(store, folder, settings())
    } catch (err) {
      view = errorView(err)
    }
    if (this.disposed) return
    this.item.text = view.text
    this.item.tooltip = view.tooltip
    const style = view.band === null ? null : BAND_STYLES[view.band]
    this.item.color = style === null ? undefined : new vscode.ThemeColor(style.color)
    this.item.backgroundColor = style?.background == null ? undefined : new vscode.ThemeColor(style.background)
  }

  private async closeStore(): Promise<void> {
    const pending = this.store
    this.store = null
    if (pending === null) return
    try {
      await (await pending).close()
    } catch {
      // An open that failed has nothing to close.
    }
  }

  /** The open store (for the find command), or null when it is not open. */
  openStore(): Promise<SessionStore> | null {
    return this.store
  }

  /** Stop the triggers, hide the item, close the store (a Promise the host awaits on deactivate). */
  async shutdown(): Promise<void> {
    this.dispose()
    await this.running
    await this.viewer.stop()
    await this.closeStore()
  }

  dispose(): void {
    this.disposed = true
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    this.watcher?.dispose()
    this.item.dispose()
  }
}

let meter: ContextMeterItem | null = null

/**
 * "sessiondb: Find session": a quick pick searched as the user types. Each
 * keystroke starts one search (a Promise on the libuv pool); an answer that
 * arrives after a newer keystroke is dropped, so the list always matches
 * what is typed. The chosen session opens in the viewer at the hit's entry,
 * and its id is copied to the clipboard (an agent extension would resume it).
 */
function findSession(m: ContextMeterItem): void {
  const pick = vscode.window.createQuickPick<FindItem & vscode.QuickPickItem>()
  pick.placeholder = 'Search every session: words, "phrases", prefix*, -not, OR, role:user, after:7d'
  pick.matchOnDescription = false
  pick.matchOnDetail = false
  let generation = 0
  pick.onDidChangeValue(async (query) => {
    const mine = ++generation
    const pending = m.openStore()
    if (pending === null) return
    pick.busy = true
    try {
      const items = await findSessionItems(await pending, query)
      if (mine === generation) pick.items = items.map((i) => ({ ...i, alwaysShow: true }))
    } catch (err) {
      if (mine === generation) pick.items = [{ label: 'sessiondb: search failed', description: '', detail: String(err), sessionId: null, seq: null, alwaysShow: true }]
    } finally {
      if (mine === generation) pick.busy = false
    }
  })
  pick.onDidAccept(async () => {
    const chosen = pick.selectedItems[0]
    pick.hide()
    if (chosen?.sessionId != null) {
      await vscode.env.clipboard.writeText(chosen.sessionId)
      await openInViewer(m, chosen.sessionId, chosen.seq)
    }
  })
  pick.onDidHide(() => pick.dispose())
  pick.show()
}

/** The viewer's panel, one at a time; reopening moves it to the new route. */
let viewerPanel: vscode.WebviewPanel | null = null

/**
 * Show the viewer in a webview panel, at `sessionId` (entry `seq`) or at the
 * session list. The page's API calls arrive as messages and are answered by
 * `ViewerWebview.answer` (src/viewer.ts); the panel loads nothing itself
 * (`localResourceRoots: []`, and its CSP).
 */
async function openInViewer(m: ContextMeterItem, sessionId: string | null, seq: number | null): Promise<void> {
  const route = routeOf(sessionId, seq)
  try {
    if (viewerPanel !== null) {
      viewerPanel.reveal()
      await viewerPanel.webview.postMessage({ type: 'route', hash: route })
      return
    }
    const html = await m.viewer.html(route)
    const panel = vscode.window.createWebviewPanel('sessiondb.viewer', 'sessiondb', vscode.ViewColumn.Active, {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [],
    })
    viewerPanel = panel
    panel.onDidDispose(() => {
      if (viewerPanel === panel) viewerPanel = null
    })
    panel.webview.onDidReceiveMessage(async (message: unknown) => {
      const answer = await m.viewer.answer(message)
      if (answer !== null) await panel.webview.postMessage(answer)
    })
    panel.webview.html = html
  } catch (err) {
    void vscode.window.showErrorMessage(`sessiondb: the viewer did not start: ${String(err)}`)
  }
}

/** Called by VS Code on startup (`onStartupFinished`). */
export function activate(context: vscode.ExtensionContext): void {
  const m = new ContextMeterItem()
  meter = m
  context.subscriptions.push(
    m,
    vscode.commands.registerCommand('sessiondb.refreshContextMeter', () => m.refresh()),
    vscode.commands.registerCommand('sessiondb.findSession', () => findSession(m)),
    vscode.commands.registerCommand('sessiondb.openViewer', () => openInViewer(m, null, null)),
    vscode.workspace.onDidChangeWorkspaceFolders(() => m.refresh()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('sessiondb')) m.restart()
    }),
  )
}

/** Called by VS Code on shutdown; the returned Promise closes the store. */
export async function deactivate(): Promise<void> {
  const m = meter
  meter = null
  await m?.shutdown()
}
