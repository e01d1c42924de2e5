/**
 * The heavy half of `ptc run`, loaded only when a script runs: start the host, print cards while
 * the script runs, print the result.
 */
import { createHost, type HostOptions } from '../host/create-host.ts'
import * as ttyApproval from '../policy/tty-approval.ts'
import { callCardText, resultCardText } from '../present/replay.ts'
import { terminalSafe } from '../terminal-safe.ts'
import { formatDiagnostics } from '../ptc/compile-diagnostics.ts'
import { describeRunError, describeWarning, type RunCodeValue } from '../ptc/run-code-value.ts'
import type { ToolErrorKind } from '../tools/types.ts'
import { endEarlyInterrupt, INTERRUPTED } from './early-interrupt.ts'
import { noTerminalResponder, stdinScriptResponder } from './no-terminal-approval.ts'

/** How `ptc run` prints and limits one script. */
export interface RunScriptOptions {
  /** Print exactly the run_code canonical value on stdout (no cards). */
  json: boolean
  /** Type-check before running (default of run_code). */
  typecheck: boolean
  /** The script's deadline in ms. */
  timeoutMs?: number
  /** The script was read from standard input (`ptc run -`), so no approval prompt can be answered there. */
  scriptFromStdin?: boolean
}

/**
 * What `ptc run --json` prints when `run_code` itself failed (refused by policy, no type checker
 * could start, ...), so stdout always holds one JSON status object: `kind` is the pipeline's
 * {@link ToolErrorKind}.
 */
export interface RunCodeFailure {
  status: 'failed'
  error: { kind: ToolErrorKind; message: string }
}

/**
 * Run `code` through the `run_code` tool of a fresh host, as the agent `cli`. Ctrl-C cancels it.
 * Resolves to the exit code: 0 for status `ok`, 130 after Ctrl-C (SIGINT, as shells report it),
 * 1 otherwise (or when run_code itself failed).
 * @throws whatever {@link createHost} throws (the dispatcher reports start-up errors, exit 2).
 */
export async function runScript(code: string, hostOptions: HostOptions, options: RunScriptOptions): Promise<number> {
  const host = await createHost({
    ...hostOptions,
    // S8.2: a person can answer approval prompts only at a terminal; headless, asks are denied,
    // with an error that says stdin is not a terminal and what a CLI user can do. A script read
    // from stdin (`ptc run -`) leaves it at its end: it can answer nothing, at a terminal too.
    setup: async (ctx) => {
      if (options.scriptFromStdin === true) ctx.approval.respond(stdinScriptResponder)
      else if (process.stdin.isTTY) await ctx.plugin(ttyApproval)
      else ctx.approval.respond(noTerminalResponder)
    },
  })
  const stop = new AbortController()
  // Every Ctrl-C cancels (once), and the listener stays to the process's exit, which comes right
  // after the answer (the CLI exits then): a second one, a terminal's or `timeout`'s to the whole
  // process group, must not kill the process before its answer and its journal's results are
  // written, nor between those and the exit with its code (a trial saw all three lost).
  const onSignal = () => stop.abort()
  process.on('SIGINT', onSignal)
  endEarlyInterrupt()
  try {
    if (!options.json) {
      // S11.1, S11.3: a card per tool call, pending then completed, as plain text on stderr,
      // through the very functions `ptc replay` uses, so a replay reproduces this output.
      const lookup = (name: string) => host.ctx.tools.get(name)
      host.ctx.on('tool/call', (call) => process.stderr.write(callCardText(lookup, call)))
      host.ctx.on('tools/result', (result) => process.stderr.write(resultCardText(lookup, result)))
    }
    const result = await host.ctx.tools.execute(
      { name: 'run_code', arguments: { code, ...(!options.typecheck && { typecheck: false }), ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }) } },
      { agent: 'cli', signal: stop.signal },
    )
    if (result.isError) {
      // run_code itself was refused (policy) or failed (no checker could start): not a script status.
      const failure: RunCodeFailure = { status: 'failed', error: { kind: result.error?.kind ?? 'failed', message: result.error?.message ?? '' } }
      if (options.json) process.stdout.write(`${JSON.stringify(failure)}\n`)
      // After Ctrl-C the run was cancelled, not failed: the stderr line says which.
      const what = stop.signal.aborted && failure.error.kind === 'cancelled' ? 'cancelled (Ctrl-C)' : 'run_code failed'
      process.stderr.write(`ptc: ${what}: ${terminalSafe(failure.error.message)}\n`)
      return stop.signal.aborted ? INTERRUPTED : 1
    }
    const value = result.value as RunCodeValue
    if (options.json) {
      process.stdout.write(`${JSON.stringify(value)}\n`)
    } else {
      // Script-controlled text is made terminal-safe: a script cannot drive the operator's terminal.
      for (const entry of value.logs) process.stderr.write(`${entry.level === 'log' ? '' : `[${entry.level}] `}${terminalSafe(entry.text)}\n`)
      if (value.diagnostics?.length) process.stderr.write(`${formatDiagnostics(value.diagnostics)}\n`)
      for (const warning of value.warnings ?? []) process.stderr.write(`${terminalSafe(`warning: ${describeWarning(warning)}`)}\n`)
      if (value.status === 'ok') {
        if (value.value !== undefined) process.stdout.write(`${terminalSafe(JSON.stringify(value.value, null, 2))}\n`)
      } else {
        process.stderr.write(terminalSafe(`status: ${value.status}${value.error ? ` — ${describeRunError(value.error).join('\n')}` : ''}`) + '\n')
      }
    }
    return stop.signal.aborted ? INTERRUPTED : value.status === 'ok' ? 0 : 1
  } finally {
    warnRunningJobs(host.ctx.jobs.list('cli'))
    await host.dispose()
  }
}

/**
 * S10.5: `ptc run` ends with its script, and disposing the host kills the background jobs the
 * script left running; one stderr line says so (stdout stays the result), so a job that was meant
 * to go on (a server, a long build) is not killed without a word.
 */
function warnRunningJobs(jobs: readonly { jobId: string; label: string; status: string }[]): void {
  const running = jobs.filter((job) => job.status === 'running')
  if (running.length === 0) return
  const names = running.map((job) => `${job.jobId} (${job.label})`).join(', ')
  const what = running.length === 1 ? '1 background job was' : `${running.length} background jobs were`
  process.stderr.write(
    `${terminalSafe(`ptc: ${what} still running when the script ended and is killed as ptc run exits: ${names}. To let a job finish, wait for it in the script (job_read with waitMs until its status is not running); ptc serve keeps jobs for its session.`)}\n`,
  )
}
