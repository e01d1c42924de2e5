/**
 * `host.dispose()` stops the runs still in flight in both isolation modes (S9.1, S11.1): the
 * worker process's supervisor ends its runs when it is disposed, and an inline run (isolates in
 * the host's own process) is cancelled by the PTC service's dispose the same way, instead of
 * running on to its own deadline in a disposed host, a spinning script included. Both end
 * `cancelled`, naming the dispose; a run the dispose overtakes before its script ran fails saying
 * so, as one made after the dispose does.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createHost } from '../../../src/host/create-host.ts'
import { markerTool } from '../../helpers/stoppable-tool.ts'
import type { RunCodeValue } from '../../../src/ptc/run-code-value.ts'

const workspace = mkdtempSync(join(tmpdir(), 'ptc-dispose-inline-'))
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

describe('host.dispose stops the runs in flight (S9.1, S11.1)', { timeout: 60_000 }, () => {
  for (const isolation of ['inline', 'process'] as const) {
    for (const [what, tail] of [
      ['waits forever', 'await new Promise(() => {})'],
      ['spins', 'while (true) {}'],
    ] as const) {
      it(`S9.1 a ${isolation} run whose script ${what} ends cancelled, naming the dispose, long before its deadline`, async () => {
        const host = await createHost({ workspace, journal: false, builtins: 'none', ptc: { isolation } })
        const { tool, running } = markerTool('mark')
        host.ctx.tools.register(tool)
        // A deadline of 10 minutes: the run can only end this soon because of the dispose.
        const run = host.ctx.tools.execute({ name: 'run_code', arguments: { code: `await tools.mark({}); ${tail}`, typecheck: false, timeoutMs: 600_000 } }, { agent: 'test' })
        await running
        await host.dispose()
        const result = await run
        expect(result.value as RunCodeValue).toMatchObject({ status: 'cancelled', error: { name: 'CancelledError', message: expect.stringContaining('The host was disposed') } })
      })
    }
  }

  for (const isolation of ['inline', 'process'] as const) {
    it(`S9.1 a ${isolation} run whose caller cancelled just before the dispose keeps the caller's ending`, async () => {
      const host = await createHost({ workspace, journal: false, builtins: 'none', ptc: { isolation } })
      const { tool, running } = markerTool('mark')
      host.ctx.tools.register(tool)
      const caller = new AbortController()
      const run = host.ctx.ptc.run('await tools.mark({}); await new Promise(() => {})', { typecheck: false, signal: caller.signal, agent: 'test' })
      await running
      caller.abort()
      const disposed = host.dispose()
      expect(await run).toMatchObject({ status: 'cancelled', error: { name: 'CancelledError', message: expect.stringContaining('cancelled by the caller') } })
      await disposed
    })

    it(`S9.1 a ${isolation} run still being type-checked when the host is disposed fails saying the host was disposed and the script not run, not with a checker's error`, async () => {
      const host = await createHost({ workspace, journal: false, builtins: 'none', ptc: { isolation } })
      const run = host.ctx.ptc.run('const n: number = 1; await new Promise(() => {}); return n', { typecheck: true, agent: 'test' })
      await host.dispose()
      await expect(run).rejects.toThrow('the PTC service was disposed (the host is shutting down); the script was not run')
    })
  }
})
