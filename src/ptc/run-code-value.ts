/**
 * The canonical value of `run_code` (SPEC S9, S9.6) and its model-facing rendering with output
 * caps (S9.7). The value is a programmatic API: status, the script's own return value, the error,
 * logs, counts; the rendering is for the model.
 */
import { z } from 'zod'
import type { ContentBlock } from '../tools/types.ts'
import { describeFrame } from './script-positions.ts'
import { capText } from '../cap-text.ts'

/**
 * The script's return value: any JSON value. Checked as lossless JSON by the PTC service and the
 * pipeline (`materializeJson`, S6.1), not rebuilt here: `z.json()` parses objects as records,
 * which drops a `__proto__` key a script returned as plain data (`materializeJson` keeps it).
 */
const jsonValue: z.ZodType<unknown> = z.unknown().meta({ description: 'The script\'s return value: any JSON value.' })
const scriptFrame = z.object({ line: z.number().int().positive(), column: z.number().int().positive(), function: z.string().optional() })

/** Zod schema of the `run_code` canonical value. */
export const runCodeValueSchema = z.object({
  status: z.enum(['ok', 'error', 'timeout', 'memory', 'type-error', 'cancelled']),
  value: jsonValue.optional(),
  /**
   * Why the run did not end `ok`. For an error the script threw: `line` and `column` in the
   * script where it was thrown, and `stack` (the script's own frames, top first) when more
   * than one function was involved; `toolName` for an uncaught `ToolCallError`.
   */
  error: z.object({ name: z.string(), message: z.string(), toolName: z.string().optional(), line: z.number().int().positive().optional(), column: z.number().int().positive().optional(), stack: z.array(scriptFrame).optional() }).optional(),
  /**
   * What the script left behind (issue 11), absent when nothing: `unawaited-calls` (tool calls
   * it never awaited, still running when it ended; the run waited for them and says how each
   * ended), `abandoned-calls` (calls it had passed to `Promise.all`, `race`, `any` or `.then`,
   * still running when it ended, e.g. after a `Promise.all` it caught rejected; waited for the
   * same way), `kept-running` (code the script started kept running after it returned until a
   * limit stopped it; the result stands) and `unhandled-rejection` (a promise nothing awaited or
   * caught, with the line where its error was created when known).
   */
  warnings: z
    .array(z.object({ kind: z.enum(['unawaited-calls', 'abandoned-calls', 'kept-running', 'unhandled-rejection']), message: z.string(), line: z.number().int().positive().optional(), column: z.number().int().positive().optional() }))
    .optional(),
  logs: z.array(z.object({ level: z.enum(['log', 'info', 'warn', 'error', 'debug']), text: z.string() })),
  toolCalls: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative(),
  diagnostics: z
    .array(z.object({ line: z.number(), column: z.number(), message: z.string(), code: z.number().optional(), category: z.enum(['error', 'warning']) }))
    .optional(),
})

/** The canonical value of one `run_code` call. */
export type RunCodeValue = z.infer<typeof runCodeValueSchema>

/**
 * The JSON Schema clients and declarations see for {@link runCodeValueSchema} (the tool's
 * `jsonSchemas.output`): the same object, with `value` described as any JSON value (`z.json()`'s
 * schema: strings, numbers, booleans, null, arrays and objects of JSON), which the parsing schema
 * leaves to `materializeJson`.
 */
export const runCodeValueJsonSchema: Record<string, unknown> = z.toJSONSchema(runCodeValueSchema.extend({ value: z.json().optional() }), { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>

/** Output caps for the model-facing rendering, in characters. */
export interface OutputCaps {
  maxResultChars: number
  maxLogChars: number
}

/** Default caps: 20,000 characters of result, 10,000 of logs. */
export const DEFAULT_CAPS: OutputCaps = { maxResultChars: 20_000, maxLogChars: 10_000 }

/** The texts of frozen values already made: the pipeline's render, projectContent and the journal ask for the same ones. */
const TEXTS = new WeakMap<RunCodeValue, { result: string; logs: string }>()

/**
 * The full (uncapped) texts of the two capped parts. Pure; made once for a frozen value (the
 * pipeline's results are): pretty-printing an 8 MiB value three times held the host's thread
 * for seconds (a review).
 */
export function runCodeTexts(value: RunCodeValue): { result: string; logs: string } {
  const made = TEXTS.get(value)
  if (made !== undefined) return made
  const result = value.value === undefined ? '' : JSON.stringify(value.value, null, 2)
  const logs = value.logs.map((entry) => (entry.level === 'log' ? entry.text : `[${entry.level}] ${entry.text}`)).join('\n')
  const texts = Object.freeze({ result, logs })
  if (Object.isFrozen(value)) TEXTS.set(value, texts)
  return texts
}

/**
 * A run's error as text lines: `TypeError: message at line 12:17`, then one indented `at …` line
 * per script frame when there is a stack. Pure.
 */
export function describeRunError(error: NonNullable<RunCodeValue['error']>): string[] {
  const { name, message, toolName, line, column, stack } = error
  return [`${name}${toolName === undefined ? '' : ` (tools.${toolName})`}: ${message}${line === undefined ? '' : ` at line ${line}:${column}`}`, ...(stack ?? []).map((frame) => `  ${describeFrame(frame)}`)]
}

/** A warning as one line of text: its message, then `(at line 3:7)` when it has a position. Pure. */
export function describeWarning(warning: NonNullable<RunCodeValue['warnings']>[number]): string {
  return `${warning.message}${warning.line === undefined ? '' : ` (at line ${warning.line}:${warning.column})`}`
}

/**
 * Render a `run_code` value for the model, applying the caps. `spilled` names the files holding
 * the full texts, when the caller wrote them (projectContent); without them the cut is only noted.
 * `spilled.outside`: those files are outside the workspace (a host's `stateDir`), so the note
 * says the tools cannot read them. Pure (S1.2).
 */
export function renderRunCode(value: RunCodeValue, caps: OutputCaps = DEFAULT_CAPS, spilled: { result?: string; logs?: string; outside?: boolean } = {}): ContentBlock[] {
  const { result, logs } = runCodeTexts(value)
  const lines: string[] = [`status: ${value.status} (${value.toolCalls} tool call${value.toolCalls === 1 ? '' : 's'}, ${Math.round(value.durationMs)} ms)`]
  if (value.error) lines.push(...describeRunError(value.error).map((line, index) => (index === 0 ? `error: ${line}` : line)))
  if (value.warnings?.length) {
    lines.push('warnings:')
    for (const warning of value.warnings) lines.push(`  - ${describeWarning(warning)}`)
  }
  if (value.diagnostics?.length) {
    lines.push('diagnostics:')
    for (const d of value.diagnostics) lines.push(`  ${d.line}:${d.column} ${d.category}${d.code ? ` TS${d.code}` : ''}: ${d.message}`)
  }
  const part = (label: string, text: string, max: number, path: string | undefined) => {
    if (text === '') return
    const { text: shown, cut } = capText(text, max)
    lines.push(`${label}:`, shown)
    if (cut > 0) {
      const plural = label === 'logs'
      const where = spilled.outside ? `${plural ? 'were' : 'was'} saved outside the workspace, to ${path}, where the tools cannot read it` : `${plural ? 'are' : 'is'} in ${path}`
      lines.push(path ? `[${cut} more characters; the full ${label} ${where}]` : `[${cut} more characters omitted]`)
    }
  }
  part('result', result, caps.maxResultChars, spilled.result)
  part('logs', logs, caps.maxLogChars, spilled.logs)
  return [{ type: 'text', text: lines.join('\n') }]
}
