/**
 * `bash` (SPEC S1.3, S6.5, S8, S9.6, S11.1): runs a shell command in the workspace through
 * `ctx.sandbox` (bubblewrap per the sandbox policy) and `runProcess` (own process group, killed
 * whole on abort or deadline). A non-zero exit is a value, not an error (S6.5).
 */
import type { Context } from 'cordis'
import { z } from 'zod'
import { type BackgroundJob, backgroundJobSchema } from '../jobs/job-schemas.ts'
import type { GenericCard, TerminalCard } from '../tools/cards.ts'
import { defineTool, type Tool } from '../tools/define-tool.ts'
import type { ToolExecution } from '../tools/types.ts'
import { runProcess } from './process-runner.ts'
import { resolveForCall } from './resolve-for-call.ts'

/** Default deadline of a command, in ms (2 minutes). */
export const DEFAULT_BASH_TIMEOUT_MS = 120_000
/** Largest deadline a call may ask for, in ms (10 minutes). */
export const MAX_BASH_TIMEOUT_MS = 600_000
/** Bytes of each output stream kept (512 KiB). */
export const MAX_BASH_OUTPUT_BYTES = 512 * 1024
/** Characters of each stream shown to the model; the value keeps what was captured. */
export const MAX_RENDERED_CHARS = 30_000
/** Grace between SIGTERM and SIGKILL at the deadline, in ms. */
export const BASH_KILL_GRACE_MS = 2000

/** Longest command line, in bytes of UTF-8: one argument of bwrap's command line, which Linux caps at 128 KiB. */
export const MAX_COMMAND_BYTES = 100_000

/** Arguments. */
export const bashParameters = z.strictObject({
  // A trial's 1 MB command failed as `spawn E2BIG`; a review's 50,000 CJK characters (150,000 bytes) too.
  command: z
    .string()
    .min(1)
    .refine((command) => Buffer.byteLength(command) <= MAX_COMMAND_BYTES, `A command line takes at most ${MAX_COMMAND_BYTES} bytes of UTF-8; write a longer script to a file with write_file and run that.`)
    .describe('The bash command line to run.'),
  cwd: z.string().optional().describe('Working directory, relative to the workspace root (default: the root).'),
  timeoutMs: z.number().int().positive().max(MAX_BASH_TIMEOUT_MS).optional().describe(`Deadline in ms (default ${DEFAULT_BASH_TIMEOUT_MS}); the whole process group is killed at it.`),
  network: z.boolean().optional().describe('Ask for network access for this command (may need the user\'s approval; off by default).'),
  background: z.boolean().optional().describe('Start the command as a background job and return {kind: "background", jobId} at once; read it with job_read, stop it with job_kill. No deadline unless timeoutMs is given.'),
})

/**
 * Canonical value (S9.6, S6.5): `exitCode` (`null` when killed by a signal), `signal` (e.g.
 * `'SIGKILL'`, or `null`), `stdout`/`stderr` (UTF-8, the first 512 KiB of each), `truncated` when a
 * stream was cut, `timedOut` when the deadline killed it.
 */
export const bashValue = z.object({
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean(),
  timedOut: z.boolean(),
})

/** The canonical value of `bash`. */
export type BashValue = z.output<typeof bashValue>

/** The output schema: the foreground value, or with `background: true` the job handle (S10.6). */
export const bashOutput = z.union([bashValue, backgroundJobSchema])

/** Arguments without `background`, for a host without the job tools (nothing could read the job). */
export const foregroundBashParameters = bashParameters.omit({ background: true })

/**
 * Build the tool. `background` (default `true`): offer `background: true` (S10.6); off, the
 * parameter is not declared and a call naming it is invalid arguments (strict object).
 */
export function bashTool(ctx: Context, options: { background?: boolean } = {}): Tool {
  const background = options.background !== false
  // Without background jobs the declared value is the foreground one only (S9.1: what is declared is what comes back).
  const parameters = background ? bashParameters : (foregroundBashParameters as typeof bashParameters)
  const schema = background ? bashOutput : (bashValue as unknown as typeof bashOutput)
  return defineTool({
    name: 'bash',
    title: 'Run a shell command',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    description:
      'Run a bash command in the workspace, sandboxed: by default it can write only inside the workspace and has no network. ' +
      'Returns exit code, signal, stdout and stderr; a non-zero exit is a normal result. Commands are killed at their deadline.',
    parameters,
    output: {
      schema,
      render: (_args, value) => [{ type: 'text', text: 'jobId' in value ? renderStarted(value) : renderBash(value) }],
    },
    execute: (args, exec) => (args.background ? startBashJob(ctx, exec, args) : runBash(ctx, exec, args)),
    presentCall: (args): TerminalCard => ({ card: 'terminal', phase: 'pending', command: args.command, ...(args.cwd && { cwd: args.cwd }), ...(args.background && { background: true }) }),
    presentResult: (args, result): TerminalCard | GenericCard | undefined => {
      const started = backgroundJobSchema.safeParse(result.value)
      if (!result.isError && started.success) {
        // Started, not finished: no exit status yet, so not a completed terminal card (job_read shows that).
        return { card: 'generic', phase: 'completed', title: `Started background job ${started.data.jobId}: ${args.command}`, kind: 'terminal' }
      }
      const value = bashValue.safeParse(result.value)
      if (result.isError || !value.success) return undefined
      const { stdout, stderr, exitCode, signal } = value.data
      return {
        card: 'terminal',
        phase: 'completed',
        command: args.command,
        ...(args.cwd && { cwd: args.cwd }),
        output: stdout + (stdout && stderr && !stdout.endsWith('\n') ? '\n' : '') + stderr,
        exitCode,
        signal,
      }
    },
  })
}

function wrapCommand(ctx: Context, exec: Readonly<ToolExecution>, args: z.output<typeof bashParameters>) {
  const cwd = resolveForCall(ctx, exec, args.cwd ?? '.', 'read')
  const escalation = ctx.bail('permission/escalation', exec)
  return ctx.sandbox.wrap({ argv: ['bash', '-c', args.command], cwd, ...(escalation && { policy: escalation }) })
}

/**
 * The background branch (S10): publish a `bash` job whose producer runs the sandboxed command on
 * the job's own signal (S10.3), streaming output into the job's ring; return the handle at once.
 */
async function startBashJob(ctx: Context, exec: Readonly<ToolExecution>, args: z.output<typeof bashParameters>): Promise<BackgroundJob> {
  // `jobs` is an optional dependency of the workspace tools (cordis injects are all required, and
  // the foreground tools must not wait for it): look it up at use time, through this plugin's
  // context, so the job is still tied to this plugin's fiber (S10.5).
  const jobs = ctx.reflect.get('jobs') as Context['jobs'] | undefined
  if (!jobs) throw new Error('background commands are not available here: the jobs service (ctx.jobs) is not installed')
  const command = await wrapCommand(ctx, exec, args)
  // S10.2: cancelled before the job exists: fail here, so no id is ever published.
  if (exec.signal.aborted) throw exec.signal.reason ?? new Error('bash was cancelled')
  const { jobId } = jobs.start({
    kind: 'bash',
    label: args.command,
    owner: exec.agent,
    signal: exec.signal,
    run: async ({ signal, write }) => {
      const result = await runProcess({
        argv: command.argv,
        cwd: command.cwd,
        env: command.env,
        signal,
        ...(args.timeoutMs !== undefined && { timeoutMs: args.timeoutMs }),
        maxOutputBytes: 0, // The job's ring keeps the output.
        killGraceMs: BASH_KILL_GRACE_MS,
        onOutput: write,
      })
      return { exitCode: result.exitCode, signal: result.signal }
    },
  })
  return { kind: 'background', jobId }
}

function renderStarted(job: BackgroundJob): string {
  return `Started background job ${job.jobId}. Read its output with job_read({jobId: "${job.jobId}"}); stop it with job_kill.`
}

async function runBash(ctx: Context, exec: Readonly<ToolExecution>, args: z.output<typeof bashParameters>): Promise<BashValue> {
  const command = await wrapCommand(ctx, exec, args)
  const result = await runProcess({
    argv: command.argv,
    cwd: command.cwd,
    env: command.env,
    signal: exec.signal,
    timeoutMs: args.timeoutMs ?? DEFAULT_BASH_TIMEOUT_MS,
    maxOutputBytes: MAX_BASH_OUTPUT_BYTES,
    killGraceMs: BASH_KILL_GRACE_MS,
  })
  // Stopped from outside (the caller or a timeout wrapper): the group is dead; report the stop.
  if (result.aborted) throw exec.signal.reason ?? new Error('bash was cancelled')
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    stdout: result.stdout,
    stderr: result.stderr,
    truncated: result.truncated,
    timedOut: result.timedOut,
  }
}

function cap(text: string): string {
  return text.length <= MAX_RENDERED_CHARS ? text : `${text.slice(0, MAX_RENDERED_CHARS)}\n… (${text.length - MAX_RENDERED_CHARS} more characters not shown)`
}

function renderBash(value: BashValue): string {
  const status = value.timedOut
    ? `Timed out and was killed (${value.signal ?? 'exit ' + value.exitCode}).`
    : value.exitCode === null
      ? `Killed by ${value.signal}.`
      : `Exit code ${value.exitCode}.`
  const parts = [status]
  if (value.stdout) parts.push(`stdout:\n${cap(value.stdout)}`)
  if (value.stderr) parts.push(`stderr:\n${cap(value.stderr)}`)
  if (!value.stdout && !value.stderr) parts.push('(no output)')
  if (value.truncated) parts.push(`(output was cut at ${MAX_BASH_OUTPUT_BYTES} bytes per stream)`)
  return parts.join('\n')
}
