/**
 * The interactive terminal responder for `approval/request` (SPEC S8, S8.1, S8.2): prints the
 * call and the reason, reads one line, and answers `allowed-once` for "y"/"yes" and `denied` for
 * anything else (end of input and cancellation included). Prompts are answered one at a time, and
 * a line typed while no prompt is showing is discarded, so type-ahead never approves a call the
 * person has not seen.
 * Install it only when a person is at the terminal (`process.stdin.isTTY`); headless, nothing is
 * installed, so the approval waterfall closes as `unavailable` and the call is denied (S8.2).
 */
import { terminalSafe } from '../terminal-safe.ts'
import { createInterface, type Interface } from 'node:readline'
import type { Context } from 'cordis'
import type { ApprovalResponder } from './approval.ts'
import type { ApprovalOutcome, ApprovalRequest } from '../tools/types.ts'

/** Plugin name. */
export const name = 'tty-approval'
/** Answers through `ctx.approval.respond` (S8.1). */
export const inject = ['approval']

/** Streams of the prompt; default `process.stdin` and `process.stderr` (stdout stays for results). */
export interface TtyApprovalConfig {
  input?: NodeJS.ReadableStream
  output?: NodeJS.WritableStream
}

/** Longest arguments text shown in a prompt, in characters. */
export const MAX_PROMPT_ARGS_CHARS = 500

/** The prompt text for one request (pure). */
export function formatApprovalPrompt(request: ApprovalRequest): string {
  const { execution } = request
  let args = JSON.stringify(execution.arguments) ?? ''
  if (args.length > MAX_PROMPT_ARGS_CHARS) args = `${args.slice(0, MAX_PROMPT_ARGS_CHARS)}…`
  const why = request.displayReason ?? request.reason ?? `Allow ${execution.name}?`
  // The reason names paths a script chose: its control characters must not drive the terminal
  // (a security review redrew the prompt with ESC and CR in a path). JSON leaves C1 ones as they are.
  return `\n[approval] ${terminalSafe(why)}\n  ${execution.name} ${terminalSafe(args)}\n  Allow once? [y/N] `
}

/** Does `answer` (one line) approve? Only "y" or "yes", case-insensitive. */
export function isYes(answer: string): boolean {
  return /^\s*(y|yes)\s*$/i.test(answer)
}

/**
 * A responder that asks on `output` and reads answers from `input` (S8.1: each answer covers one
 * call). Returns the responder and `close()`, which ends the line reader; pending and later
 * prompts then answer `denied`.
 */
export function createTtyResponder(config: Required<TtyApprovalConfig>): { responder: ApprovalResponder; close(): void } {
  let lines: Interface | undefined = createInterface({ input: config.input, terminal: false })
  const waiting: ((line: string | undefined) => void)[] = []
  lines.on('line', (line) => waiting.shift()?.(line))
  lines.on('close', () => {
    lines = undefined
    for (const resolve of waiting.splice(0)) resolve(undefined)
  })
  let queue: Promise<unknown> = Promise.resolve()

  const ask = (request: ApprovalRequest): Promise<ApprovalOutcome> => {
    const signal = request.execution.callerSignal
    if (!lines || signal.aborted) return Promise.resolve('denied')
    config.output.write(formatApprovalPrompt(request))
    return new Promise<ApprovalOutcome>((resolve) => {
      const onLine = (line: string | undefined) => {
        signal.removeEventListener('abort', onAbort)
        resolve(line !== undefined && isYes(line) ? 'allowed-once' : 'denied')
      }
      const onAbort = () => {
        const index = waiting.indexOf(onLine)
        if (index >= 0) waiting.splice(index, 1)
        config.output.write('(cancelled)\n')
        resolve('denied')
      }
      waiting.push(onLine)
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  const responder: ApprovalResponder = (request) => {
    // One prompt at a time: concurrent calls wait their turn.
    const answer = queue.then(() => ask(request))
    queue = answer.catch(() => undefined)
    return answer
  }
  return { responder, close: () => lines?.close() }
}

/** Install the responder on `config.input`/`config.output`; disposing the plugin closes the line reader. */
export function apply(ctx: Context, config: TtyApprovalConfig = {}) {
  const { responder, close } = createTtyResponder({ input: config.input ?? process.stdin, output: config.output ?? process.stderr })
  ctx.approval.respond(responder)
  ctx.effect(() => close, 'tty-approval reader')
}
