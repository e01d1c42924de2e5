/**
 * Drops V8's heap out-of-memory report of a script's isolate from an isolate worker's stderr
 * (SPEC S9.1, S9.7): when an isolate grows past its memory limit, V8 prints "<--- Last few GCs
 * --->", a few GC trace lines and "<--- JS stacktrace --->" before isolated-vm reports the
 * failure, and the run already answers `memory` with a message saying so. Forwarded, it reached
 * the host's and `ptc run`'s stderr as if the host had crashed (a package trial). A report
 * followed by V8's `FATAL ERROR` line (the worker process itself out of memory) is forwarded
 * whole. Everything else passes through as written, in order; the worker's exit report keeps its
 * whole stderr tail.
 */
import type { StderrFilter } from '../worker-channel.ts'

const REPORT_START = '<--- Last few GCs --->'
const REPORT_END = '<--- JS stacktrace --->'
/** A GC trace line: `[pid:0xisolate]   1656 ms: Mark-Compact …`. */
const GC_LINE = /^\[\d+:0x[0-9a-f]+\]\s+[\d.]+ ms: /
/** How V8 ends a report of its own process's death: then the report is the operator's. */
const FATAL = /^(FATAL ERROR|# Fatal)/

/** A filter of one worker's stderr that drops V8's out-of-memory reports (see the file comment). */
export function dropV8OomReports(): StderrFilter {
  let partial = ''
  /** Lines held back, as written: blank ones (dropped if a report starts next), or a report's. */
  let held: string[] = []
  let inReport = false
  const line = (text: string): string => {
    if (text.trim() === '' || text === REPORT_START || (inReport && (GC_LINE.test(text) || text === REPORT_END))) {
      if (text === REPORT_START) inReport = true
      held.push(text)
      return ''
    }
    // A report ends at its first line of something else: dropped with the blank lines around it,
    // unless the process is dying; blank lines held outside a report go out as written.
    const before = !inReport || FATAL.test(text) ? held : []
    inReport = false
    held = []
    return before.map((kept) => `${kept}\n`).join('') + `${text}\n`
  }
  return {
    push(text) {
      const lines = (partial + text).split('\n')
      partial = lines.pop()!
      return lines.map(line).join('')
    },
    end() {
      const last = partial
      partial = ''
      if (last !== '') return line(last).slice(0, -1)
      // The stream ended in held lines: blank lines are forwarded, a report is not.
      const rest = inReport ? '' : held.map((kept) => `${kept}\n`).join('')
      held = []
      return rest
    },
  }
}
