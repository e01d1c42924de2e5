/**
 * `PtcConfig.startTimeoutMs` (issue 14) is the start limit of the host's real checker and isolate
 * worker: with a limit no Node process can meet (1 ms), the run fails saying the start was not
 * ready within it, instead of waiting for the worker.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../../src/host/create-host.ts'

let workspace: string
let host: Host
beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), 'ptc-start-limit-'))
  host = await createHost({ workspace, stateDir: false, builtins: 'none', ptc: { startTimeoutMs: 1 } })
})
afterAll(async () => {
  await host.dispose()
  rmSync(workspace, { recursive: true, force: true })
})

const run = (typecheck: boolean) => host.ctx.tools.execute({ name: 'run_code', arguments: { code: 'return 1', typecheck } }, { agent: 'test' })

describe('PtcConfig.startTimeoutMs (issue 14, S9.1)', { timeout: 60_000 }, () => {
  it('S9.1 a checker start past the configured limit fails the run, saying so', async () => {
    const result = await run(true)
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toContain('the type checker could not start (it was not ready within 1 ms, the start limit set by PtcConfig.startTimeoutMs)')
  })

  it('S9.1 an isolate worker start past the configured limit fails the run, saying so', async () => {
    const result = await run(false)
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toContain('the isolate worker process was stopped: it was not ready within 1 ms, the start limit set by PtcConfig.startTimeoutMs.')
  })
})
