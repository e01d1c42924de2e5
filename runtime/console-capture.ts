/**
 * The script's `console`: `log`, `info`, `warn`, `error`, `debug`, each formatting its arguments
 * inside the isolate (strings as is, errors as `name: message`, other values as `log-format.ts`
 * writes them: JSON where JSON keeps the value, `NaN`, `Map(1) {…}`, `[Circular]`… where it
 * would not; `String()` when that throws) and handing one line to the host.
 * A log budget is enforced here so a log flood never crosses the boundary; the host enforces the
 * same budget again (SPEC S9.7: logs go through the outer run_code caps).
 */
import type { HostLog, LogLevel } from './bridge-types.ts'
import { describeThrown, clip } from './json-codec.ts'
import { defineData, ENUMERABLE, ObjectCreate, ObjectFreeze, StringCtor } from './intrinsics.ts'
import { isError } from './builtin-kind.ts'
import { formatLogValue } from './log-format.ts'

const MAX_VALUE_LENGTH = 100_000

function formatValue(value: unknown): string {
  if (typeof value === 'string') return value
  if (isError(value)) {
    const { name, message } = describeThrown(value)
    return `${name}: ${message}`
  }
  try {
    return formatLogValue(value, MAX_VALUE_LENGTH)
  } catch {
    // A throwing getter, proxy trap or toJSON: what String() makes of it, if anything.
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
      // A getter that logged while this line was formatted may have used up the budget.
      if (truncated) return
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
