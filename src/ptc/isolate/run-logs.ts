/**
 * The console output of one run (SPEC S9.7: bounded so a chatty script cannot exhaust the host):
 * each entry costs its UTF-8 bytes plus {@link LOG_ENTRY_OVERHEAD}; past `maxLogBytes` one
 * `[logs truncated …]` warning is added and later lines are dropped.
 */
import type { LogLevel } from '../../../runtime/bridge-types.ts'
import type { IsolateLogEntry } from './isolate-contract.ts'

/** Bytes charged per entry on top of its text (the runtime charges the same). */
export const LOG_ENTRY_OVERHEAD = 32

const LOG_LEVELS: ReadonlySet<string> = new Set<LogLevel>(['log', 'info', 'warn', 'error', 'debug'])

/** The captured lines of one run, in order. */
export class RunLogs {
  readonly entries: IsolateLogEntry[] = []
  #bytes = 0
  #truncated = false
  readonly #maxLogBytes: number

  constructor(maxLogBytes: number) {
    this.#maxLogBytes = maxLogBytes
  }

  /** Adds one line; ignores anything that is not a known level and a string (it came from the isolate). */
  add(level: unknown, text: unknown): void {
    if (this.#truncated || typeof text !== 'string' || typeof level !== 'string' || !LOG_LEVELS.has(level)) return
    const cost = Buffer.byteLength(text) + LOG_ENTRY_OVERHEAD
    if (this.#bytes + cost > this.#maxLogBytes + 2 * LOG_ENTRY_OVERHEAD + 256) {
      // The runtime enforces the budget in UTF-16 units; this is the exact backstop in bytes.
      this.#truncated = true
      this.entries.push({ level: 'warn', text: `[logs truncated: the log budget of ${this.#maxLogBytes} bytes (maxLogBytes) is used up]` })
      return
    }
    this.#bytes += cost
    this.entries.push({ level: level as LogLevel, text })
  }
}
