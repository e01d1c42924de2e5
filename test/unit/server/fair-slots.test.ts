import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../../src/host/create-host.ts'
import { createRunLimiter, type RunLimiter } from '../../../src/server/run-limiter.ts'
import { connectSession, type SessionClient } from '../../helpers/mcp-session-client.ts'

describe('run slots are shared fairly between sessions (S9.4)', { timeout: 60_000 }, () => {
  let host: Host
  let workspace: string
  const open: SessionClient[] = []

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'ptc-fair-'))
    host = await createHost({ workspace, journal: false })
  }, 60_000)
  afterAll(async () => {
    for (const connection of open) await connection.close()
    await host.dispose()
  })

  async function connect(limiter: RunLimiter) {
    const connection = await connectSession(host, { limiter })
    open.push(connection)
    return connection
  }

  it('S9.4 a session holding never-settling runs on every slot it may take cannot starve another session\'s return 1', async () => {
    const limiter = createRunLimiter({ maxConcurrent: 4 })
    const hog = await connect(limiter)
    const polite = await connect(limiter)
    const settled: string[] = []
    // The hog's runs never end by themselves (a far deadline; closing its session ends them), so
    // the order below cannot depend on how long the polite run takes on a loaded machine (issue 14).
    const hogRuns = Array.from({ length: 4 }, () =>
      hog.client.callTool({ name: 'run_code', arguments: { code: 'await new Promise(() => {})', timeoutMs: 300_000 } }, undefined, { timeout: 400_000 }).finally(() => settled.push('hog')),
    )
    await expect.poll(() => limiter.active + limiter.pending).toBe(4)
    const answer = await polite.client.callTool({ name: 'run_code', arguments: { code: 'return 1' } })
    settled.push('polite')
    expect(answer.structuredContent).toMatchObject({ status: 'ok', value: 1 })
    // Answered while all four of the hog's runs were still running or waiting.
    expect(settled).toEqual(['polite'])
    expect(limiter.active).toBe(2)
    await hog.session.close()
    await Promise.allSettled(hogRuns)
    expect(limiter.active + limiter.pending).toBe(0)
  })
})
