/**
 * `createHost` refuses a bad option before it starts anything (issue 14): an unknown option, an
 * unknown preset, a negative or non-numeric limit, a journal in a folder that does not exist.
 * Each is one HostOptionsError (code `host-options`) naming the option and what it takes; the
 * journal's folder, like the workspace, must exist (nothing is created).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HostOptionsError } from '../../../src/errors/host-options-error.ts'
import { PtcError } from '../../../src/errors/ptc-error.ts'
import { createHost, type HostOptions } from '../../../src/host/create-host.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import { z } from 'zod'

let workspace: string
beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), 'ptc-option-checks-'))
})
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

/** The error `createHost(options)` rejects with (the test fails if it starts a host). */
async function refusal(options: Record<string, unknown>): Promise<PtcError> {
  let host
  try {
    host = await createHost({ workspace, stateDir: false, ...options } as HostOptions)
  } catch (error) {
    return error as PtcError
  }
  await host.dispose()
  throw new Error(`createHost accepted ${JSON.stringify(options)}`)
}

describe('createHost option checks (issue 14)', { timeout: 60_000 }, () => {
  it('an unknown preset is a HostOptionsError listing the presets, not a TypeError', async () => {
    const error = await refusal({ preset: 'bogus' })
    expect(HostOptionsError.isInstance(error)).toBe(true)
    expect(error.code).toBe('host-options')
    expect(error.message).toBe('preset "bogus" is not a permission preset; use one of read-only, workspace-write, danger-full-access.')
  })

  it.each([
    [{ ptc: { limits: { wallClockMs: -5 } } }, 'ptc.limits.wallClockMs takes a number ≥ 1, got -5.'],
    [{ ptc: { limits: { cpuTimeMs: Number.NaN } } }, 'ptc.limits.cpuTimeMs takes a number ≥ 1, got NaN.'],
    [{ ptc: { limits: { memoryMb: 4 } } }, 'ptc.limits.memoryMb takes a number ≥ 8, got 4.'],
    [{ ptc: { limits: { memoryMb: 2 ** 53 - 1 } } }, "ptc.limits.memoryMb takes at most 1048576 (1 TiB; isolated-vm's limit wraps around past it), got 9007199254740991."],
    [{ ptc: { limits: { maxToolCalls: '10' } } }, 'ptc.limits.maxToolCalls takes a number ≥ 0, got "10".'],
    [{ ptc: { maxWallClockMs: -1 } }, 'ptc.maxWallClockMs takes a whole number ≥ 1, got -1.'],
    [{ ptc: { maxWallClockMs: 1_000, limits: { wallClockMs: 3_000 } } }, "ptc.limits.wallClockMs (3000 ms, every run's default deadline) is over ptc.maxWallClockMs (1000 ms, the longest a run may ask for); lower the default or raise ptc.maxWallClockMs."],
    [{ ptc: { limits: { wallClockMs: 600_000 } } }, "ptc.limits.wallClockMs (600000 ms, every run's default deadline) is over ptc.maxWallClockMs (300000 ms, its default, the longest a run may ask for); lower the default or raise ptc.maxWallClockMs."],
    [{ ptc: { checkers: 1.5 } }, 'ptc.checkers takes a whole number ≥ 1, got 1.5.'],
    [{ ptc: { startTimeoutMs: 0 } }, 'ptc.startTimeoutMs takes a whole number ≥ 1, got 0.'],
    [{ ptc: { recycleWorkerAfterRuns: -1 } }, 'ptc.recycleWorkerAfterRuns takes a whole number ≥ 0, got -1.'],
    [{ ptc: { isolateWorkers: 0 } }, 'ptc.isolateWorkers takes a whole number from 1 to 16 (each is a process of 70-90 MB), got 0.'],
    [{ ptc: { isolateWorkers: 1.5 } }, 'ptc.isolateWorkers takes a whole number from 1 to 16 (each is a process of 70-90 MB), got 1.5.'],
    [{ ptc: { isolateWorkers: '2' } }, 'ptc.isolateWorkers takes a whole number from 1 to 16 (each is a process of 70-90 MB), got "2".'],
    [{ ptc: { isolateWorkers: 2 ** 32 } }, 'ptc.isolateWorkers takes a whole number from 1 to 16 (each is a process of 70-90 MB), got 4294967296.'],
    [{ jobs: { ringBytes: -1 } }, 'jobs.ringBytes takes a whole number ≥ 1, got -1.'],
  ])('S9.7 a negative, NaN or non-numeric limit is refused, naming the option: %j', async (options, message) => {
    const error = await refusal(options)
    expect(HostOptionsError.isInstance(error)).toBe(true)
    expect(error.message).toBe(message)
  })

  it('options that are not an object, a ptc.visible that is not a function, a fractional count limit and an invalid mcpConfig object are refused before anything starts (a new-user trial)', async () => {
    for (const options of [null, 'x', ['workspace'], new Date(0), new Map([['workspace', 5]]), Promise.resolve({ workspace: 5 })]) {
      const error = await createHost(options as unknown as HostOptions).then(
        (host) => host.dispose().then(() => undefined),
        (thrown: unknown) => thrown as PtcError,
      )
      expect(HostOptionsError.isInstance(error), String(options)).toBe(true)
      expect(error?.message).toMatch(/^createHost takes an options object \(\{ workspace, preset, ptc, \.\.\. \}, or nothing\), got /)
    }
    expect((await refusal({ ptc: { visible: 'all' } })).message).toBe("ptc.visible takes a function (tool) => boolean choosing the tools scripts see, got \"all\"; leave it out for every tool.")
    expect((await refusal({ ptc: { limits: { maxToolCalls: 1.5 } } })).message).toBe('ptc.limits.maxToolCalls takes a whole number ≥ 0, got 1.5.')
    expect((await refusal({ ptc: { limits: { maxLogBytes: 10.5 } } })).message).toBe('ptc.limits.maxLogBytes takes a whole number ≥ 0, got 10.5.')
    const mcp = await refusal({ mcpConfig: { mcpServers: 5 } })
    expect(mcp.code).toBe('mcp-config')
    expect(mcp.message).toMatch(/^Invalid MCP config; expected \{"mcpServers"[^\n]*\n  mcpServers: /)
  })

  it('a jobs option it does not know, a ptc.typecheck that is no boolean and ptc.limits that is no object are refused, naming them', async () => {
    expect((await refusal({ jobs: { ringByte: 10 } })).message).toBe('jobs has no option "ringByte"; the options are ringBytes, killWaitMs, maxRunningPerOwner, retainEnded.')
    // 'no' is truthy: it would have type-checked every script.
    expect((await refusal({ ptc: { typecheck: 'no' } })).message).toBe('ptc.typecheck takes true or false, got "no".')
    expect((await refusal({ ptc: { prestart: 0 } })).message).toBe('ptc.prestart takes true or false, got 0.')
    expect((await refusal({ ptc: { limits: 5 } })).message).toBe('ptc.limits takes an object of run limits ({ wallClockMs, memoryMb, ... }), got 5.')
    // A key named like an Object.prototype member is no option either.
    expect((await refusal({ ptc: { limits: { toString: 1 } } })).message).toMatch(/^ptc\.limits has no limit "toString"; /)
    expect((await refusal({ jobs: { constructor: 1 } })).message).toMatch(/^jobs has no option "constructor"; /)
  })

  it('an mcpConfig object gets the defaults of a config file: a server without args that cannot start is an McpConnectionError naming it', async () => {
    const error = await refusal({ builtins: 'none', mcpConfig: { mcpServers: { x: { command: 'no-such-command-ptc-test' } } } })
    expect(error.code).toBe('mcp-connection')
    expect(error.message).toMatch(/^MCP server "x" \(no-such-command-ptc-test\) could not start: spawn no-such-command-ptc-test ENOENT\./)
  })

  it('a misplaced or misspelt option is refused instead of silently ignored', async () => {
    expect((await refusal({ limits: { timeoutMs: -5 } })).message).toMatch(/^createHost has no option "limits"; the options are workspace, preset, .*\(run limits go in ptc\.limits\)\.$/)
    expect((await refusal({ ptc: { limits: { timeoutMs: 1000 } } })).message).toBe(
      'ptc.limits has no limit "timeoutMs"; the limits are wallClockMs, cpuTimeMs, memoryMb, maxToolCalls, maxCallsInFlight, maxCrossingBytes, maxLogBytes.',
    )
    // A misspelt PtcConfig option (here `typeCheck`) would silently leave type-checking on.
    for (const key of ['typeCheck', 'isolatedWorkers']) {
      const error = await refusal({ ptc: { [key]: false } })
      expect(HostOptionsError.isInstance(error)).toBe(true)
      expect(error.message).toMatch(new RegExp(`^ptc has no option "${key}"; the options are limits, maxWallClockMs, typecheck, .*isolateWorkers.*\\.$`))
    }
  })

  it('a journal in a folder that does not exist is refused, and no folder is created', async () => {
    const missing = join(workspace, 'path', 'in', 'missing')
    const error = await refusal({ journal: join(missing, 'x.jsonl') })
    expect(error.code).toBe('journal-unwritable')
    expect(error.message).toBe(`Cannot write the journal ${join(missing, 'x.jsonl')}: its folder ${missing} does not exist. Create the folder first, or name a file in an existing folder (the journal option; --journal for ptc).`)
    expect(existsSync(join(workspace, 'path'))).toBe(false)
    writeFileSync(join(workspace, 'afile'), '')
    expect((await refusal({ journal: join(workspace, 'afile', 'x.jsonl') })).message).toMatch(/: its folder .*afile is not a directory\. Create the folder first/)
    // A folder named as the journal is said to be one (it was an EISDIR on an internal /proc path).
    mkdirSync(join(workspace, 'logs'))
    expect((await refusal({ journal: join(workspace, 'logs') })).message).toBe(`Cannot write the journal ${join(workspace, 'logs')}: it is a folder. Name a file, for example ${join(workspace, 'logs', 'session.jsonl')} (the journal option; --journal for ptc).`)
  })

  it.each([
    [{ workspace: 5 }, 'workspace takes a folder path (a string), got 5.'],
    [{ stateDir: true }, 'stateDir takes a folder path (a string) or false, got true.'],
    [{ journal: true }, 'journal takes a file path (a string) or false, got true.'],
    [{ toolModules: './tools.mjs' }, 'toolModules takes an array of module paths (strings), got "./tools.mjs".'],
    [{ toolModules: [{}] }, 'toolModules takes an array of module paths (strings), got an array [{}].'],
    [{ setup: 'install()' }, 'setup takes a function (ctx) => void, got "install()".'],
    [{ mcpConfig: 5 }, 'mcpConfig takes a config file path (a string) or a parsed { mcpServers } object, got 5.'],
    [{ ptc: 'inline' }, 'ptc takes an object (PtcConfig), got "inline".'],
  ])('an option of the wrong kind is a HostOptionsError naming it, not a TypeError from deep inside: %j', async (options, message) => {
    const error = await refusal(options)
    expect(HostOptionsError.isInstance(error)).toBe(true)
    expect(error.message).toBe(message)
  })

  it('S8 a refused journal creates no state folder either', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'ptc-option-checks-fresh-'))
    try {
      const error = await createHost({ workspace: fresh, journal: join(fresh, 'missing', 'x.jsonl') }).then(() => undefined, (thrown: PtcError) => thrown)
      expect(error?.code).toBe('journal-unwritable')
      expect(readdirSync(fresh)).toEqual([])
      // A journal inside the state folder to be made is still fine in a fresh workspace.
      const host = await createHost({ workspace: fresh, journal: join(fresh, '.ptc', 'j.jsonl'), ptc: { isolation: 'inline' } })
      await host.dispose()
      expect(existsSync(join(fresh, '.ptc', 'j.jsonl'))).toBe(true)
    } finally {
      rmSync(fresh, { recursive: true, force: true })
    }
  })

  it('a journal in an existing folder is written', async () => {
    const host = await createHost({ workspace, stateDir: false, journal: join(workspace, 'j.jsonl'), ptc: { isolation: 'inline', limits: { wallClockMs: 5_000 } } })
    await host.dispose()
    expect(existsSync(join(workspace, 'j.jsonl'))).toBe(true)
  })

  it('S11.1 a start that fails after the journal was made (a tool module that throws) leaves no empty journal behind, and keeps a journal that was there', async () => {
    const folder = mkdtempSync(join(workspace, 'failed-start-'))
    writeFileSync(join(folder, 'throws.mjs'), "throw new Error('boom')\n")
    const failed = (options: HostOptions) => createHost({ workspace: folder, builtins: 'none', toolModules: [join(folder, 'throws.mjs')], ...options }).then(() => 'started', (error: PtcError) => error.code)
    expect(await failed({})).toBe('tool-module')
    expect(readdirSync(join(folder, '.ptc', 'journal'))).toEqual([])
    writeFileSync(join(folder, 'kept.jsonl'), '')
    expect(await failed({ journal: join(folder, 'kept.jsonl') })).toBe('tool-module')
    expect(existsSync(join(folder, 'kept.jsonl'))).toBe(true)
  })
})

describe('createHost setup (issue 14)', { timeout: 60_000 }, () => {
  it('S5.1 setup runs with the host services injected: an approval responder it registers with ctx.approval.respond answers a policy ask, a broken one is reported as broken; a throwing setup fails createHost with its error', async () => {
    const asked: string[] = []
    const host = await createHost({
      workspace,
      stateDir: false,
      journal: false,
      builtins: 'none',
      setup: (ctx) => {
        ctx.on('tools/pre-execute', (execution, next) => (execution.name === 'guarded' ? { kind: 'ask', reason: 'a test asks' } : next()))
        ctx.approval.respond((request) => {
          asked.push(request.execution.name)
          const { mode } = request.execution.arguments as { mode?: string }
          if (mode === 'throw') throw new Error('responder bug')
          return (mode === 'odd' ? 'yes please' : 'allowed-once') as 'allowed-once'
        })
      },
    })
    try {
      host.ctx.tools.register(defineTool({ name: 'guarded', description: 'Asks first.', parameters: z.object({ mode: z.string().optional() }), output: { schema: z.object({ done: z.boolean() }), render: () => [] }, execute: () => ({ done: true }) }))
      const result = await host.ctx.tools.execute({ name: 'guarded', arguments: {} }, { agent: 'test' })
      expect(result.error).toBeUndefined()
      expect(asked).toEqual(['guarded'])
      // A broken responder is reported as broken, not as someone's refusal.
      const threw = await host.ctx.tools.execute({ name: 'guarded', arguments: { mode: 'throw' } }, { agent: 'test' })
      expect(threw.error?.message).toBe("This call needs approval (a test asks), but the approval responder failed (it threw: responder bug), so it was denied. Fix the responder: it answers 'allowed-once' or 'denied', or calls next().")
      const odd = await host.ctx.tools.execute({ name: 'guarded', arguments: { mode: 'odd' } }, { agent: 'test' })
      expect(odd.error?.message).toMatch(/^This call needs approval \(a test asks\), but the approval responder failed \(it answered "yes please", not 'allowed-once', 'denied' or 'unavailable'\)/)
    } finally {
      await host.dispose()
    }
    await expect(createHost({ workspace, stateDir: false, journal: false, builtins: 'none', setup: () => Promise.reject(new Error('setup bug')) })).rejects.toThrow('setup bug')
  })
})
