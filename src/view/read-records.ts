/**
 * Reading a journal from a byte offset (SPEC S11.6 `page`): only complete lines (a line is
 * complete once its `\n` is written, so a record being appended is never read half), each parsed
 * as JSON. The viewer passes the raw `tool/call` and `tool/result` records on unchanged; a line
 * that is not a JSON object becomes a `view/note` record saying so.
 */
import { fstatSync, readSync } from 'node:fs'

/** Most bytes read for one page (a journal record is at most 1 MiB, S11.3). */
export const MAX_PAGE_BYTES = 2 * 1024 * 1024

/** A record the viewer adds: a line of the journal it could not read. */
export interface ViewNote {
  type: 'view/note'
  /** Byte offset of the line in the journal. */
  offset: number
  text: string
}

/** Records from `offset` on, and the offset after the last complete line read. */
export interface RecordPage {
  records: unknown[]
  /** Where the next page starts (equal to `offset` when no complete line was there). */
  next: number
}

/**
 * Read the complete lines of `fd` from byte `offset`, at most `maxBytes` of them. A line longer
 * than `maxBytes` (not a journal record) is skipped with a note. Never throws for bad content;
 * the file system's errors propagate.
 */
export function readRecords(fd: number, offset: number, maxBytes: number = MAX_PAGE_BYTES): RecordPage {
  const want = Math.min(maxBytes, Math.max(0, fstatSync(fd).size - offset))
  if (want === 0) return { records: [], next: offset }
  const buffer = Buffer.allocUnsafe(want)
  let filled = 0
  while (filled < want) {
    const read = readSync(fd, buffer, filled, want - filled, offset + filled)
    if (read === 0) break
    filled += read
  }
  const end = buffer.lastIndexOf(0x0a, filled - 1)
  if (end < 0) {
    if (filled < maxBytes) return { records: [], next: offset }
    return { records: [note(offset, `a line over ${maxBytes} bytes is not a journal record; skipped`)], next: offset + filled }
  }
  const records: unknown[] = []
  let start = 0
  while (start <= end) {
    const stop = buffer.indexOf(0x0a, start)
    const line = buffer.toString('utf8', start, stop).trim()
    if (line !== '') records.push(parseLine(line, offset + start))
    start = stop + 1
  }
  return { records, next: offset + end + 1 }
}

function parseLine(line: string, offset: number): unknown {
  try {
    const value: unknown = JSON.parse(line)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value
    return note(offset, 'a line that is not a JSON object; skipped')
  } catch {
    return note(offset, 'a line that is not JSON; skipped')
  }
}

function note(offset: number, text: string): ViewNote {
  return { type: 'view/note', offset, text }
}
