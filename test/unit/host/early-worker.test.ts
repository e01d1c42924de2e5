/**
 * `createHost` starts the isolate worker process before its plugins load (issue 12: `createHost`
 * to a first answered run; `PtcConfig.prestart`, S9.1): the first run is answered by that worker,
 * a host disposed before any run, or one whose start fails, leaves no worker process behind, and
 * `prestart: false` starts none until a run. Order and outcome only.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createHost } from '../../../src/host/create-host.ts'
import { childPids, isAlive as alive } from '../../helpers/process-alive.ts'

const workspace = mkdtempSync(join(tmpdir(), 'ptc-early-worker-'))
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

/** Pids of this process's isolate worker children (Linux /proc), except those in `before`. */
function isolateWorkers(before: readonly number[] = []): number[] {
  return childPids('isolate-worker-entry').filter((pid) => !before.includes(pid))
}

const run = (host: Awaited<ReturnType<typeof createHost>>, code: string) => host.ctx.tools.execute({ name: 'run_code', arguments: { code, typecheck: false } }, { agent: 'test' })

describe('createHost starts the isolate worker (issue 12, S9.1)', { timeout: 120_000 }, () => {
  it('S9.1 the worker createHost started answers the first run', async () => {
    const host = await createHost({ workspace, stateDir: false, builtins: 'none' })
    try {
      const pid = host.ctx.ptc._supervisor?.workerPid
      expect(pid).toBeTypeOf('number')
      expect(alive(pid!)).toBe(true)
      const result = await run(host, 'return 6 * 7')
      expect(result.value).toMatchObject({ status: 'ok', value: 42 })
      expect(host.ctx.ptc._supervisor?.workerPid).toBe(pid)
    } finally {
      await host.dispose()
    }
  })

  it('S9.1 a host disposed before its first run leaves no worker process behind', async () => {
    const host = await createHost({ workspace, stateDir: false, builtins: 'none' })
    const pid = host.ctx.ptc._supervisor!.workerPid!
    await host.dispose()
    await expect.poll(() => alive(pid), { timeout: 30_000 }).toBe(false)
  })

  it.each([
    ['its setup throws, before the Ptc service exists', { setup: () => { throw new Error('setup failed') } }, 'setup failed'],
    ['a tool module cannot load, after the Ptc service adopted the worker', { toolModules: [join(workspace, 'missing.mjs')] }, 'missing.mjs'],
  ])('S9.1 a createHost that fails (%s) leaves no worker process behind', async (_case, options, message) => {
    const before = isolateWorkers() // A file run earlier in this process may have its own.
    await expect(createHost({ workspace, stateDir: false, builtins: 'none', ...options })).rejects.toThrow(message)
    await expect.poll(() => isolateWorkers(before), { timeout: 30_000 }).toEqual([])
  })

  it('S9.1 with prestart: false no worker starts until the first run, which then starts one', async () => {
    const before = isolateWorkers()
    const host = await createHost({ workspace, stateDir: false, builtins: 'none', ptc: { prestart: false } })
    try {
      expect(host.ctx.ptc._supervisor?.workerPid).toBeUndefined()
      expect(isolateWorkers(before)).toEqual([])
      expect((await run(host, 'return 1')).value).toMatchObject({ status: 'ok', value: 1 })
      expect(host.ctx.ptc._supervisor?.workerPid).toBeTypeOf('number')
    } finally {
      await host.dispose()
    }
  })

  it('S9.1 a run_code call made as the host is disposed fails saying so, and leaves no worker process behind', async () => {
    const before = isolateWorkers()
    const host = await createHost({ workspace, stateDir: false, builtins: 'none' })
    expect((await run(host, 'return 1')).value).toMatchObject({ status: 'ok', value: 1 })
    const disposed = host.dispose()
    const late = await run(host, 'return 2')
    await disposed
    expect(late.isError).toBe(true)
    // Refused as dispose begins (S6.5): not made, so no worker starts for it.
    expect(late.error).toEqual({ kind: 'failed', message: 'The host is being disposed (host.dispose()): "run_code" was not called. Make a new host with createHost() for more calls.' })
    await expect.poll(() => isolateWorkers(before), { timeout: 30_000 }).toEqual([])
  })

  it("S9.1 ptc.prestart that is not a boolean is refused, naming the option", async () => {
    await expect(createHost({ workspace, stateDir: false, ptc: { prestart: 'yes' as never } })).rejects.toThrow('ptc.prestart takes true or false, got "yes".')
  })
})
