/**
 * The script's `console`: `log`, `info`, `warn`, `error`, `debug`, each formatting its arguments
 * inside the isolate (strings as is, errors as `name: message`, BigInts as `10n`, other values as
 * JSON, BigInts in them as `"10n"`, with a `String()` fallback) and handing one line to the host.
 * A log budget is enforced here so a log flood never crosses the boundary; the host enforces the
 * same budget again (SPEC S9.7: logs go through the outer run_code caps).
 */
import type { HostLog, LogLevel } from './bridge-types.ts'
import { describeThrown, clip } from './json-codec.ts'
import { defineData, ENUMERABLE, JSONStringify, ObjectCreate, ObjectFreeze, OriginalError, StringCtor } from './intrinsics.ts'

const MAX_VALUE_LENGTH = 100_000

/** A BigInt as a script would write it: `10n`; any other value as it is. */
function bigIntAsText(value: unknown): unknown {
  return typeof value === 'bigint' ? `${StringCtor(value)}n` : value
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return value
  try {
    if (value instanceof OriginalError) {
      const { name, message } = describeThrown(value)
      return `${name}: ${message}`
    }
  } catch {
    // A hostile Symbol.hasInstance; fall through to the generic formats.
  }
  if (typeof value === 'bigint') return bigIntAsText(value) as string
  try {
    const json = JSONStringify(value)
    if (typeof json === 'string') return json
  } catch {
    // Cycles, BigInt, throwing getters: try again with BigInts as text, then String().
    try {
      // JSON has no form for a BigInt: inside a value it becomes the string `"10n"`.
      const json = JSONStringify(value, (_key: string, inner: unknown) => bigIntAsText(inner))
      if (typeof json === 'string') return json
    } catch {
      // Cycles, throwing getters.
    }
  }
  try {
    return StringCtor(value)
  } catch {
    return '[value that cannot be printed]'
  }
}

/**
 * The log budget a console enforces, read at every entry so the run can set it after the console
 * was created (the isolate is prepared before its run's limits are known).
 */
export interface LogBudget {
  /** Budget in UTF-16 code units. */
  maxLogUnits: number
  /** Fixed accounting cost of one entry. */
  entryOverhead: number
}

/** Creates the frozen console object; `hostLog` is the run's log callback (kept in this closure). */
export function createConsole(hostLog: HostLog, budget: LogBudget): Console {
  let used = 0
  let truncated = false

  function emit(level: LogLevel, args: IArguments): void {
    if (truncated) return
    try {
      const maxLogUnits = budget.maxLogUnits
      const entryOverhead = budget.entryOverhead
      let line = ''
      for (let index = 0; index < args.length; index++) {
        if (index > 0) line += ' '
        line += clip(formatValue(args[index]), MAX_VALUE_LENGTH)
        if (line.length > maxLogUnits) break
      }
      const remaining = maxLogUnits - used - entryOverhead
      if (line.length > remaining) {
        truncated = true
        const notice = `[logs truncated: the log budget of ${maxLogUnits} bytes (maxLogBytes) is used up]`
        if (remaining > 0) hostLog(level, clip(line, remaining))
        hostLog('warn', notice)
        return
      }
      used += line.length + entryOverhead
      hostLog(level, line)
    } catch {
      // Logging never throws into the script.
    }
  }

  const console = ObjectCreate(null) as Record<LogLevel, (...data: unknown[]) => void>
  const levels: LogLevel[] = ['log', 'info', 'warn', 'error', 'debug']
  for (let index = 0; index < levels.length; index++) {
    const level = levels[index]!
    const log = function (): void {
      emit(level, arguments)
    }
    defineData(console, level, log, ENUMERABLE)
  }
  return ObjectFreeze(console) as unknown as Console
}
