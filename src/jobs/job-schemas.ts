/**
 * Zod schemas of the canonical values around background jobs (SPEC S10.6, S9.6): the handle a
 * background branch returns and the values of the `job_*` tools. They double as the programmatic
 * API a `run_code` script is typed against, so they carry fields, not prose.
 */
import { z } from 'zod'

/** `JobStatus` (see job-types.ts). */
export const jobStatusSchema = z.enum(['running', 'exited', 'killed', 'failed'])

/**
 * The canonical value of a successful background branch (S10.6): `{kind: 'background', jobId}`.
 * A script reads `.jobId`; it never parses "started job bash-1" out of text.
 */
export const backgroundJobSchema = z.strictObject({
  kind: z.literal('background'),
  jobId: z.string().describe('Pass to job_read / job_kill.'),
})

/** The value of {@link backgroundJobSchema}. */
export type BackgroundJob = z.output<typeof backgroundJobSchema>

/** One job's state (`JobInfo`). Byte counts are UTF-8 bytes. */
export const jobInfoSchema = z.object({
  jobId: z.string(),
  kind: z.string().describe('The tool that started it.'),
  label: z.string().describe('The command or a one-line description.'),
  status: jobStatusSchema,
  exitCode: z.number().nullable().describe('Exit code once ended with one, else null.'),
  signal: z.string().nullable().describe('Terminating signal once known, else null.'),
  error: z.string().optional().describe('Why the job failed (status "failed").'),
  totalBytes: z.number().describe('Bytes of output the job ever wrote.'),
  droppedBytes: z.number().describe('Oldest output bytes no longer kept (the buffer is bounded).'),
})

/** The value of `job_read` (`JobRead`): output since a cursor, plus the job's state. */
export const jobReadSchema = jobInfoSchema.extend({
  output: z.string().describe('Output (stdout and stderr interleaved) from offset to nextOffset.'),
  offset: z.number().describe('Byte offset where output starts.'),
  nextOffset: z.number().describe('Pass as sinceOffset next time to get only new output.'),
  missedBytes: z.number().describe('Bytes between your sinceOffset and offset that were dropped before you read them.'),
})

/** The value of `job_kill`: the job's state after the kill, and whether this call stopped it. */
export const jobKillSchema = jobInfoSchema.extend({
  killed: z.boolean().describe('True when this call stopped a running job; false when it had already ended.'),
})
