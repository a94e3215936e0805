// What the status-bar item shows, computed from the sessiondb npm package
// alone (no `vscode` import), so test/status.test.ts runs it under plain Node.
//
// Seed 000, "Context Utilization Meter": the compact indicator is `Ctx N%`,
// N = floor(100 x active tokens / Effective Context Capacity); bands 0-69
// green, 70-84 amber, 85-94 orange, >= 95 red. The core computes N, the label
// and the band (`SessionStore.contextStatus`); this file only chooses how to
// show them and never re-derives them.

import type { Band, ContextMeter, Session, SessionStore } from 'sessiondb'

/** The settings the indicator reads (see package.json `contributes.configuration`). */
export interface MeterSettings {
  /** The model's raw context window, in tokens. */
  rawContextWindow: number
  /** Configured output reserve in tokens; null: the seed's 8% of the raw window. */
  outputReserve: number | null
}

/** The styling of one band: a theme colour for the text, and a background for the two alarming ones. */
export interface BandStyle {
  /** A VS Code theme colour id for the item's text. */
  color: string
  /** A VS Code theme colour id for the item's background, or null for none. */
  background: string | null
}

/**
 * The styling of each band. A `Record<Band, ...>`: if the package's `Band`
 * gains or loses a value, `tsc --strict` fails here.
 */
export const BAND_STYLES: Readonly<Record<Band, BandStyle>> = {
  green: { color: 'charts.green', background: null },
  amber: { color: 'charts.yellow', background: null },
  orange: { color: 'charts.orange', background: 'statusBarItem.warningBackground' },
  red: { color: 'charts.red', background: 'statusBarItem.errorBackground' },
}

/** What the status-bar item shows. */
export interface MeterView {
  /** The item's text: the core's `Ctx N%` label, or `Ctx -` when there is no session. */
  text: string
  /** Hover text (plain). */
  tooltip: string
  /** The meter's band, or null when there is no session or an error. */
  band: Band | null
  /** The session measured, or null. */
  sessionId: string | null
}

/** The view of one measured session. */
export function viewOf(session: Session, meter: ContextMeter): MeterView {
  const lines = [
    `${session.name ?? session.id}: ${meter.activeTokens.toLocaleString('en-US')} of ${meter.capacity.toLocaleString('en-US')} tokens of Effective Context Capacity (${meter.band})`,
  ]
  if (meter.overflow) lines.push('Over capacity: the next provider call compacts the oldest unpinned turns first.')
  return { text: meter.label, tooltip: lines.join('\n'), band: meter.band, sessionId: session.id }
}

/** The view when the workspace has no session yet. */
export function noSessionView(workspace: string | null): MeterView {
  const where = workspace === null ? 'no folder is open' : `no session is bound to ${workspace}`
  return { text: 'Ctx -', tooltip: `sessiondb: ${where}`, band: null, sessionId: null }
}

/** The view when the store cannot be read (locked keyring, wrong key, ...): the error's class and message. */
export function errorView(err: unknown): MeterView {
  const e = err instanceof Error ? err : new Error(String(err))
  return { text: 'Ctx ?', tooltip: `sessiondb: ${e.name}: ${e.message}`, band: null, sessionId: null }
}

/**
 * The meter of the workspace's most recently active session: one
 * `listSessionsForWorkspace('current', workspace, 1)` and one
 * `contextStatus` call, both Promises run on the libuv pool (the extension
 * host's event loop never waits on SQLite or AES-GCM). Rejects with the
 * package's error classes (e.g. `InvalidInputError` for a bad window).
 */
export async function workspaceMeter(store: SessionStore, workspace: string | null, settings: MeterSettings): Promise<MeterView> {
  if (workspace === null) return noSessionView(null)
  const [latest] = await store.listSessionsForWorkspace('current', workspace, 1)
  if (latest === undefined) return noSessionView(workspace)
  const status = await store.contextStatus(latest.id, settings.rawContextWindow, settings.outputReserve, latest.model ?? null)
  return viewOf(latest, status.meter)
}
