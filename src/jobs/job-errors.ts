/**
 * Errors of the `ctx.jobs` service (SPEC S10). Inside the pipeline they become `isError` results
 * (S6.5); from `run_code` a script sees a `ToolCallError` whose message is this error's message.
 */
import { PtcError } from '../errors/ptc-error.ts'

/**
 * `read`/`kill` of a job that does not exist, was forgotten, or belongs to another owner. The
 * message is the same in every case ("no job X"), so one session cannot learn that another's
 * job exists (S10.5). `code: 'job-not-found'`, `details.jobId`.
 */
export class JobNotFoundError extends PtcError {
  constructor(jobId: string) {
    super('job-not-found', `no job ${JSON.stringify(jobId)}: it does not exist, or it was started by another session. job_list shows your jobs.`, {
      details: { jobId },
    })
  }

  static override isInstance(value: unknown): value is JobNotFoundError {
    return PtcError.hasCode(value, 'job-not-found')
  }
}

/**
 * `start` refused: an invalid `kind`/`run`, the service is shutting down, or the owner is at its
 * running-jobs limit. `code: 'job-start-refused'`.
 */
export class JobStartError extends PtcError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('job-start-refused', message, details ? { details } : undefined)
  }
}
