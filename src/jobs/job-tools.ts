/**
 * The `job_*` tools (SPEC S10.6): how the model (or a `run_code` script) controls background jobs
 * started by other tools, e.g. `bash` with `background: true`. The owner of every call is
 * `exec.agent`, so a session sees only its own jobs (S10.5). Values are a programmatic API (S9.6):
 * ids, statuses, byte cursors; the prose is in `render`, the UI in the cards (S11.1).
 */
import type { Context } from 'cordis'
import { z } from 'zod'
import type { Card } from '../tools/cards.ts'
import { defineTool } from '../tools/define-tool.ts'
import type { ContentBlock, ToolResult } from '../tools/types.ts'
import { jobInfoSchema, jobKillSchema, jobReadSchema } from './job-schemas.ts'

/** Plugin name. */
export const name = 'job-tools'
/** Needs the registry and `ctx.jobs` (install `Jobs` first). */
export const inject = ['tools', 'jobs']

/** Default `maxBytes` of one `job_read`, in bytes (64 KiB). */
export const JOB_READ_DEFAULT_BYTES = 64 * 1024
/** Largest `maxBytes` of one `job_read`, in bytes (1 MiB, the default ring size). */
export const JOB_READ_MAX_BYTES = 1024 * 1024
/** Largest `waitMs` of one `job_read`, in ms. */
export const JOB_READ_MAX_WAIT_MS = 30_000

const jobIdParameter = z.string().min(1).max(100).describe('The id a background call returned (its `jobId`).')

/** Parameters of `job_read`. */
export const jobReadParameters = z.strictObject({
  jobId: jobIdParameter,
  sinceOffset: z.number().int().min(0).optional().describe('Byte cursor: pass the previous nextOffset to get only new output. Default 0 (all that is kept).'),
  maxBytes: z.number().int().positive().max(JOB_READ_MAX_BYTES).optional().describe(`Most output bytes to return (default ${JOB_READ_DEFAULT_BYTES}); read again from nextOffset for more.`),
  waitMs: z.number().int().min(0).max(JOB_READ_MAX_WAIT_MS).optional().describe(`Wait up to this many ms for new output or the job's end before answering (default 0, max ${JOB_READ_MAX_WAIT_MS}).`),
})

const JOB_LIST = 'List your background jobs (started by a tool call with background: true): id, kind, label, status, exit code and output byte counts.'
const JOB_READ =
  'Read the output of a background job since a byte cursor, with its status (running, exited, killed, failed) and exit code. ' +
  'Pass the returned nextOffset as sinceOffset to get only new output; waitMs waits for new output instead of polling in a tight loop.'
const JOB_KILL = 'Stop a background job (its whole process group) and return its final status.'

/**
 * Register `job_list`, `job_read` and `job_kill` (S10.6). Each call acts for `exec.agent`; another
 * agent's job is "no job X" (S10.5). `job_list`/`job_read` are concurrency-safe, `job_kill` is not
 * (S2.2). Errors (`JobNotFoundError`) become `isError` results (S6.5).
 */
export function apply(ctx: Context) {
  ctx.tools.register(
    defineTool({
      name: 'job_list',
      title: 'List background jobs',
      annotations: { readOnlyHint: true, openWorldHint: false },
      description: JOB_LIST,
      parameters: z.strictObject({}),
      output: { schema: z.array(jobInfoSchema), render: (_args, jobs) => [text(renderList(jobs))] },
      execute: (_args, exec) => ctx.jobs.list(exec.agent),
      isConcurrencySafe: () => true,
      presentCall: () => ({ card: 'generic', phase: 'pending', title: 'List background jobs', kind: 'jobs' }),
      presentResult: (_args, result) => {
        const jobs = valueOf(result, z.array(jobInfoSchema))
        return jobs && { card: 'generic', phase: 'completed', title: `Background jobs: ${jobs.length}`, kind: 'jobs', body: renderList(jobs) }
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'job_read',
      title: 'Read a background job',
      annotations: { readOnlyHint: true, openWorldHint: false },
      description: JOB_READ,
      parameters: jobReadParameters,
      output: { schema: jobReadSchema, render: (_args, read) => [text(renderRead(read))] },
      execute: async (args, exec) => {
        const since = args.sinceOffset ?? 0
        // S10.4: the waiting is this call's and stops with exec.signal; the job itself is untouched (S10.3).
        if (args.waitMs) await ctx.jobs.waitForOutput(args.jobId, exec.agent, { sinceOffset: since, waitMs: args.waitMs, signal: exec.signal })
        return ctx.jobs.read(args.jobId, exec.agent, { sinceOffset: since, maxBytes: args.maxBytes ?? JOB_READ_DEFAULT_BYTES })
      },
      isConcurrencySafe: () => true,
      presentCall: (args) => ({ card: 'generic', phase: 'pending', title: `Read job ${args.jobId}`, kind: 'jobs' }),
      presentResult: (_args, result): Card | undefined => {
        const read = valueOf(result, jobReadSchema)
        if (!read) return undefined
        // A running job has no exit status yet: a terminal card would read as a failure.
        if (read.status === 'running') {
          return { card: 'generic', phase: 'completed', title: `Job ${read.jobId} running: ${read.label}`, kind: 'jobs', ...(read.output && { body: read.output.replace(/\n$/, '') }) }
        }
        return {
          card: 'terminal',
          phase: 'completed',
          command: read.label,
          output: read.output,
          exitCode: read.exitCode,
          signal: read.signal,
          background: true,
        }
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'job_kill',
      title: 'Stop a background job',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      description: JOB_KILL,
      parameters: z.strictObject({ jobId: jobIdParameter }),
      output: {
        schema: jobKillSchema,
        render: (_args, job) => [text(job.killed ? `Killed job ${job.jobId} (${job.label}).${ended(job)}` : `Job ${job.jobId} had already ended: ${job.status}.${ended(job)}`)],
      },
      execute: (args, exec) => ctx.jobs.kill(args.jobId, exec.agent),
      presentCall: (args) => ({ card: 'generic', phase: 'pending', title: `Kill job ${args.jobId}`, kind: 'jobs' }),
      presentResult: (_args, result) => {
        const job = valueOf(result, jobKillSchema)
        return job && { card: 'generic', phase: 'completed', title: `${job.killed ? 'Killed' : 'Already ended'}: job ${job.jobId}`, kind: 'jobs', body: `${job.label}\nstatus: ${job.status}${ended(job)}` }
      },
    }),
  )
}

type JobInfoValue = z.output<typeof jobInfoSchema>

/** A presenter sees old or malformed records on replay (S11.5): no valid value, no custom card. */
function valueOf<S extends z.ZodType>(result: ToolResult, schema: S): z.output<S> | undefined {
  if (result.isError) return undefined
  const parsed = schema.safeParse(result.value)
  return parsed.success ? parsed.data : undefined
}

function text(value: string): ContentBlock {
  return { type: 'text', text: value }
}

function ended(job: JobInfoValue): string {
  const parts = [
    job.exitCode !== null && `exit code ${job.exitCode}`,
    job.signal !== null && `signal ${job.signal}`,
    job.error !== undefined && `error: ${job.error}`,
  ].filter(Boolean)
  return parts.length ? ` (${parts.join(', ')})` : ''
}

function renderList(jobs: readonly JobInfoValue[]): string {
  if (jobs.length === 0) return 'No background jobs.'
  return jobs.map((job) => `${job.jobId}  ${job.status}${ended(job)}  ${job.totalBytes} bytes  ${job.label}`).join('\n')
}

function renderRead(read: z.output<typeof jobReadSchema>): string {
  const lines = [`Job ${read.jobId} (${read.label}): ${read.status}${ended(read)}.`]
  if (read.missedBytes > 0) lines.push(`[${read.missedBytes} bytes before this output were dropped: the job's buffer is bounded]`)
  lines.push(read.output === '' ? '(no new output)' : read.output.endsWith('\n') ? read.output.slice(0, -1) : read.output)
  lines.push(
    read.nextOffset < read.totalBytes
      ? `[more output: read again with sinceOffset ${read.nextOffset}; ${read.totalBytes - read.nextOffset} bytes left]`
      : `[next sinceOffset: ${read.nextOffset}]`,
  )
  return lines.join('\n')
}
