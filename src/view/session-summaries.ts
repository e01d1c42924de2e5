/**
 * The sessions list of `ptc view` (SPEC S11.6): one summary per journal file (time, agent, MCP
 * session, runs, calls, failures, calls still running), newest first, in pages. Summaries are
 * kept per file and brought up to date incrementally: only the bytes appended since the last
 * look are read, so a live session costs its new records, not its whole journal, per refresh.
 */
import { JournalFolder, type JournalEntry } from './journal-folder.ts'
import { readRecords } from './read-records.ts'
import type { SessionPage, SessionSummary } from './client/session-summary.ts'

export type { SessionPage, SessionSummary }

/** Sessions per page by default. */
export const SESSIONS_PER_PAGE = 20

interface Tally {
  offset: number
  summary: SessionSummary
  open: Set<string>
}

const STAMP = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z/

/** The start time in a journal name (`2026-12-01T08-12-00-993Z-…`), or `undefined`. */
export function stampOf(name: string): number | undefined {
  const match = STAMP.exec(name)
  if (!match) return undefined
  const time = Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`)
  return Number.isNaN(time) ? undefined : time
}

/** Summaries of the journals of one folder, kept up to date incrementally. */
export class SessionSummaries {
  private readonly tallies = new Map<string, Tally>()
  private readonly folder: JournalFolder

  constructor(folder: JournalFolder) {
    this.folder = folder
  }

  /**
   * Page `page` (1-based; clamped to the last page) of the sessions, newest first (by start time,
   * then name). Only the page's journals are read.
   */
  page(page: number, perPage: number = SESSIONS_PER_PAGE): SessionPage {
    const entries = this.folder.list()
    const startOf = (entry: JournalEntry) => stampOf(entry.name) ?? entry.mtimeMs
    entries.sort((a, b) => startOf(b) - startOf(a) || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0))
    const names = new Set(entries.map((entry) => entry.name))
    for (const name of this.tallies.keys()) if (!names.has(name)) this.tallies.delete(name)
    const pages = Math.max(1, Math.ceil(entries.length / perPage))
    const current = Math.min(Math.max(1, Math.floor(page) || 1), pages)
    const sessions: SessionSummary[] = []
    for (const entry of entries.slice((current - 1) * perPage, current * perPage)) {
      const summary = this.summarize(entry, startOf(entry))
      if (summary) sessions.push(summary)
    }
    return { sessions, page: current, pages, total: entries.length }
  }

  private summarize(entry: JournalEntry, start: number): SessionSummary | undefined {
    let tally = this.tallies.get(entry.name)
    if (!tally || entry.size < tally.offset) {
      tally = { offset: 0, open: new Set(), summary: { id: entry.name, time: new Date(start).toISOString(), updated: '', runs: 0, calls: 0, failures: 0, running: 0, bytes: 0 } }
      this.tallies.set(entry.name, tally)
    }
    if (entry.size > tally.offset) {
      let journal
      try {
        journal = this.folder.open(entry.name)
      } catch {
        return undefined
      }
      try {
        for (;;) {
          const { records, next } = readRecords(journal.fd, tally.offset)
          for (const record of records) count(tally, record)
          if (next === tally.offset) break
          tally.offset = next
        }
      } finally {
        journal.close()
      }
    }
    tally.summary.running = tally.open.size
    tally.summary.bytes = entry.size
    tally.summary.updated = new Date(entry.mtimeMs).toISOString()
    return { ...tally.summary }
  }
}

function count(tally: Tally, value: unknown): void {
  if (typeof value !== 'object' || value === null) return
  const record = value as Record<string, unknown>
  const summary = tally.summary
  if (summary.agent === undefined && typeof record.agent === 'string') summary.agent = record.agent
  if (summary.mcpSession === undefined && typeof record.session === 'string') summary.mcpSession = record.session
  const callId = typeof record.callId === 'string' ? record.callId : undefined
  if (record.type === 'tool/call') {
    summary.calls++
    if (record.name === 'run_code') summary.runs++
    if (callId !== undefined) tally.open.add(callId)
  } else if (record.type === 'tool/result') {
    if (callId !== undefined) tally.open.delete(callId)
    const status = (record.value as { status?: unknown } | undefined)?.status
    if (record.isError === true || (record.name === 'run_code' && typeof status === 'string' && status !== 'ok')) summary.failures++
  }
}
