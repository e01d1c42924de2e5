/**
 * Drops V8's heap out-of-memory report from an isolate worker's stderr (SPEC S9.1, S9.7): when a
 * script's isolate grows past its memory limit, V8 prints "<--- Last few GCs --->", a few GC trace
 * lines and "<--- JS stacktrace --->" before isolated-vm reports the failure, and the run already
 * answers `memory` with a message saying so. Forwarded, it reached the host's and `ptc run`'s
 * stderr as if the host had crashed (a package trial). Everything else passes through, line by
 * line, in order; the worker's exit report keeps its whole stderr tail.
 */

import type { StderrFilter } from '../worker-channel.ts'

const REPORT_START = '<--- Last few GCs --->'
const REPORT_END = '<--- JS stacktrace --->'
/** A GC trace line: `[pid:0xisolate]   1656 ms: Mark-Compact …`. */
const GC_LINE = /^\[\d+:0x[0-9a-f]+\]\s+[\d.]+ ms: /

/** A filter of one worker's stderr that drops V8's out-of-memory reports (see the file comment). */
export function dropV8OomReports(): StderrFilter {
  let partial = ''
  /** Blank lines held back: dropped if a report starts next, else forwarded. */
  let blanks = 0
  /** Inside a report: 'gcs' after its start, 'stack' after its JS stacktrace marker. */
  let inReport: 'gcs' | 'stack' | undefined
  const line = (text: string): string => {
    if (text.trim() === '') {
      if (inReport === undefined) blanks++
      return ''
    }
    if (text === REPORT_START) {
      blanks = 0
      inReport = 'gcs'
      return ''
    }
    if (inReport !== undefined && (GC_LINE.test(text) || text === REPORT_END)) {
      if (text === REPORT_END) inReport = 'stack'
      return ''
    }
    inReport = undefined
    const held = '\n'.repeat(blanks)
    blanks = 0
    return `${held}${text}\n`
  }
  return {
    push(text) {
      const lines = (partial + text).split('\n')
      partial = lines.pop()!
      return lines.map(line).join('')
    },
    end() {
      const rest = partial === '' ? '' : line(partial).replace(/\n$/, '')
      partial = ''
      return rest + (inReport === undefined ? '\n'.repeat(blanks) : '')
    },
  }
}
