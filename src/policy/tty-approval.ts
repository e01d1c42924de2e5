/**
 * The interactive terminal responder for `approval/request` (SPEC S8, S8.1, S8.2): prints the
 * call and the reason, reads one line, and answers `allowed-once` for "y"/"yes" and `denied` for
 * any other line. End of input and a stopped call are no answer, so no refusal: they throw
 * `ApprovalNotObtainedError` (journaled `unavailable`). Prompts are answered one at a time, and
 * a line typed while no prompt is showing is discarded, so type-ahead never approves a call the
 * person has not seen.
 * Install it only when a person is at the terminal (`process.stdin.isTTY`). Headless, `ptc run`
 * installs `noTerminalResponder` (`src/cli/no-terminal-approval.ts`) instead, which says no prompt
 * could be shown; a library host with no responder closes the waterfall as `unavailable`. Either
 * way the call is denied (S8.2).
 */
import { ApprovalNotObtainedError } from '../errors/ptc-error.ts'
import { NEVER_ABORTED, stopSignalOf } from '../pipeline/execution.ts'
import { terminalSafe } from '../terminal-safe.ts'
import { createInterface, type Interface } from 'node:readline'
import type { Context } from 'cordis'
import { stoppedUnanswered, type ApprovalResponder } from './approval.ts'
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
 * Why a prompt got no answer because its input ended (Ctrl-D, a closed stdin), and what to do;
 * the pipeline tells the model the call was not made and nobody refused it (S8.2).
 */
function inputEnded(): ApprovalNotObtainedError {
  return new ApprovalNotObtainedError(
    "the terminal's input ended (Ctrl-D, or stdin was closed) before anyone answered the approval prompt",
    'No prompt can be answered on this input any more: ask the user to answer the prompt at a terminal (y allows this one call) or to choose a --preset that allows such calls; until then, do the work without this call.',
  )
}

/**
 * A responder that asks on `output` and reads answers from `input` (S8.1: each answer covers one
 * call). A typed answer other than "y"/"yes" is `denied` (refused). No answer is not a refusal
 * (S8.2): end of input (also an input that had ended before: readline never says so, and its
 * prompt could never be answered), or `close()` (which ends the line reader), makes pending and
 * later prompts throw an {@link ApprovalNotObtainedError} saying input ended and what to do, with
 * no prompt shown; a call stopped while its prompt waits (the pipeline's stop, S6.3: the caller's
 * or the host's, {@link stopSignalOf}) one saying it was stopped unanswered.
 */
export function createTtyResponder(config: Required<TtyApprovalConfig>): { responder: ApprovalResponder; close(): void } {
  const input = config.input as NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean }
  const ended = () => input.readableEnded === true || input.destroyed === true
  let lines: Interface | undefined = createInterface({ input: config.input, terminal: false })
  const waiting: ((line: string | undefined) => void)[] = []
  lines.on('line', (line) => waiting.shift()?.(line))
  lines.on('close', () => {
    lines = undefined
    for (const resolve of waiting.splice(0)) resolve(undefined)
  })
  let queue: Promise<unknown> = Promise.resolve()

  const ask = (request: ApprovalRequest): Promise<ApprovalOutcome> => {
    const signal = stopSignalOf(request.execution) ?? NEVER_ABORTED
    if (signal.aborted) return Promise.reject(stoppedUnanswered())
    if (!lines || ended()) return Promise.reject(inputEnded())
    config.output.write(formatApprovalPrompt(request))
    return new Promise<ApprovalOutcome>((resolve, reject) => {
      const onLine = (line: string | undefined) => {
        signal.removeEventListener('abort', onAbort)
        if (line !== undefined) return resolve(isYes(line) ? 'allowed-once' : 'denied')
        config.output.write('(no answer: the input ended)\n')
        reject(inputEnded())
      }
      const onAbort = () => {
        const index = waiting.indexOf(onLine)
        if (index >= 0) waiting.splice(index, 1)
        config.output.write('(not answered: the call was stopped)\n')
        reject(stoppedUnanswered())
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
