/**
 * Background jobs end to end (S10), through the real CLI and `run_code`: a model-style script
 * starts `bash` in the background, polls `job_read` by the returned `.jobId` (never parsing
 * text), kills the job with `job_kill` and returns a summary.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runPtc } from './ptc-cli.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const ptc = (args: string[], cwd: string) => runPtc(args, cwd)

const SCRIPT = `
const started = await tools.bash({ command: 'for i in 1 2 3; do echo tick $i; sleep 0.2; done; sleep 30', background: true })
if (!('jobId' in started)) throw new Error('bash did not return a background handle')
const jobId = started.jobId
let cursor = 0
let output = ''
let polls = 0
while (!output.includes('tick 3') && polls < 60) {
  const read = await tools.job_read({ jobId, sinceOffset: cursor, waitMs: 1000 })
  if (read.offset !== cursor) throw new Error('the cursor skipped output')
  output += read.output
  cursor = read.nextOffset
  polls++
}
const listed = await tools.job_list({})
const killed = await tools.job_kill({ jobId })
const after = await tools.job_read({ jobId, sinceOffset: cursor })
return {
  kind: started.kind,
  jobId,
  output,
  statusWhileListed: listed.find((job) => job.jobId === jobId)?.status,
  killed: killed.killed,
  killedStatus: killed.status,
  finalStatus: after.status,
  exitCode: after.exitCode,
  finalBytes: after.totalBytes,
}
`

describe('background jobs through run_code (S10)', () => {
  it('S10.6 a script starts bash in the background, polls job_read by .jobId, kills it with job_kill, and returns a summary', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'ptc-jobs-e2e-'))
    dirs.push(workspace)
    writeFileSync(join(workspace, 'script.ts'), SCRIPT)
    const { code, stdout, stderr } = await ptc(['run', '--json', 'script.ts', '--workspace', '.'], workspace)
    expect(stderr).toBe('')
    const value = JSON.parse(stdout)
    expect(value).toMatchObject({ status: 'ok', logs: [] })
    expect(value.value).toEqual({
      kind: 'background',
      jobId: 'bash-1',
      output: 'tick 1\ntick 2\ntick 3\n',
      statusWhileListed: 'running',
      killed: true,
      killedStatus: 'killed',
      finalStatus: 'killed',
      exitCode: null,
      finalBytes: 21,
    })
    // The `sleep 30` was killed (killed, exitCode null), not waited for.
    expect(code).toBe(0)
  }, 60_000)

  it('S10.5 a background job still running when the script ends is killed as ptc run exits, and stderr says so in one line', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'ptc-jobs-e2e-'))
    dirs.push(workspace)
    writeFileSync(join(workspace, 'left.ts'), "return await tools.bash({ command: 'sleep 40 && echo late > late.txt', background: true })\n")
    const { code, stdout, stderr } = await ptc(['run', '--json', '--no-typecheck', 'left.ts', '--workspace', '.'], workspace)
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ status: 'ok', value: { kind: 'background', jobId: 'bash-1' } })
    expect(stderr).toBe(
      'ptc: 1 background job was still running when the script ended and is killed as ptc run exits: bash-1 (sleep 40 && echo late > late.txt). To let a job finish, wait for it in the script (job_read with waitMs until its status is not running); ptc serve keeps jobs for its session.\n',
    )
  })
})
