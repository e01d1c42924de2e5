/**
 * `host.dispose()` waits for the calls still finishing (S11.1, issue 14): a run cancelled while a
 * call from its script is in flight (Ctrl-C during `ptc run`) ends that call a moment later, and
 * its `tool/result` still reaches the journal before the host stops, instead of the journal
 * keeping only its `tool/call`. The default isolation (the worker process), as `ptc run` uses;
 * the tool's 200 ms clean-up is a tenth of the 2 s the drain allows.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createHost } from '../../../src/host/create-host.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import { stoppableTool } from '../../helpers/stoppable-tool.ts'

const workspace = mkdtempSync(join(tmpdir(), 'ptc-dispose-drain-'))
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

describe('host.dispose waits for calls still finishing (S11.1)', { timeout: 60_000 }, () => {
  it('S11.1 a call from code cancelled with its run has its tool/result journaled before dispose ends', async () => {
    const journal = join(workspace, 'j.jsonl')
    const host = await createHost({ workspace, journal, builtins: 'none' })
    const { tool, running } = stoppableTool('slow', 200)
    host.ctx.tools.register(tool)
    const stop = new AbortController()
    const run = host.ctx.tools.execute({ name: 'run_code', arguments: { code: 'await tools.slow({}); return 1', typecheck: false } }, { agent: 'cli', signal: stop.signal })
    await running
    stop.abort()
    expect((await run).isError).toBe(true)
    await host.dispose()
    const records = readFileSync(journal, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; name?: string })
    const slow = records.filter((record) => record.name === 'slow').map((record) => record.type)
    expect(slow).toEqual(['tool/call', 'tool/result'])
  })
})

describe('host.dispose refuses new calls while it waits (S6.5)', { timeout: 60_000 }, () => {
  it('S6.5 a call made after dispose() began is refused, not made, while a run already going finishes its own calls from code', async () => {
    const host = await createHost({ workspace, journal: false, builtins: 'none', ptc: { isolation: 'inline' } })
    const { promise: reached, resolve: reach } = Promise.withResolvers<void>()
    const { promise: released, resolve: release } = Promise.withResolvers<void>()
    const made: string[] = []
    host.ctx.tools.register(defineTool({ ...noop, name: 'gate', execute: async () => (reach(), await released, {}) }))
    host.ctx.tools.register(defineTool({ ...noop, name: 'mark', execute: async (_args, exec) => (made.push(exec.parentToken === undefined ? 'direct' : 'from code'), {}) }))
    // The run waits at tools.gate until dispose() has begun, then calls mark from code.
    const run = host.ctx.tools.execute({ name: 'run_code', arguments: { code: 'await tools.gate({}); await tools.mark({}); return 1', typecheck: false } }, { agent: 'a' })
    await reached
    const disposed = host.dispose()
    const late = await host.ctx.tools.execute({ name: 'mark', arguments: {} }, { agent: 'a' })
    expect(late.isError).toBe(true)
    expect(late.error).toMatchObject({ kind: 'failed', message: 'The host is being disposed (host.dispose()): "mark" was not called. Make a new host with createHost() for more calls.' })
    release()
    expect((await run).value).toMatchObject({ status: 'ok', value: 1, toolCalls: 2 })
    await disposed
    expect(made).toEqual(['from code'])
  })
})

describe('host.dispose ends the calls that would never end (S6.3, S6.5)', { timeout: 60_000 }, () => {
  it('S6.3 a direct call whose body never answers, with or without its own signal, and one held by a pre-execute listener that never answers, end cancelled once the host is disposed, and the journal keeps each one\'s tool/result (S11.1)', async () => {
    const journal = join(workspace, 'hung.jsonl')
    const host = await createHost({ workspace, journal, builtins: 'none' })
    const hang = defineTool({
      name: 'hang',
      description: 'Never answers and ignores its signal.',
      parameters: {},
      output: { schema: z.object({}), render: () => [] },
      execute: () => new Promise<never>(() => {}),
    })
    host.ctx.tools.register(hang)
    host.ctx.tools.register(defineTool({ ...noop, name: 'held' }))
    let held!: () => void
    const listening = new Promise<void>((resolve) => (held = resolve))
    host.ctx.on('tools/pre-execute', (execution, next) => {
      if (execution.name !== 'held') return next()
      held()
      return new Promise<never>(() => {})
    })
    const never = new AbortController()
    const settled: string[] = []
    const calls = [
      host.ctx.tools.execute({ name: 'hang', arguments: {} }, { agent: 'me' }),
      host.ctx.tools.execute({ name: 'hang', arguments: {} }, { agent: 'me', signal: never.signal }),
      host.ctx.tools.execute({ name: 'held', arguments: {} }, { agent: 'me' }),
    ].map((call, index) => call.then((result) => (settled.push(`call ${index}`), result)))
    await listening
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(settled).toEqual([])
    await host.dispose()
    const results = await Promise.all(calls)
    expect(results.map((result) => result.error?.kind)).toEqual(['cancelled', 'cancelled', 'cancelled'])
    // Journaled before the journal closed: each call's tool/call and its cancelled tool/result.
    const records = readFileSync(journal, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; name?: string; error?: { kind?: string } })
    const hung = records.filter((record) => record.name === 'hang' || record.name === 'held')
    expect(hung.map((record) => `${record.type} ${record.name}${record.error ? ` ${record.error.kind}` : ''}`).sort()).toEqual(
      ['tool/call hang', 'tool/call hang', 'tool/call held', 'tool/result hang cancelled', 'tool/result hang cancelled', 'tool/result held cancelled'],
    )
  })
})

const noop = {
  description: 'Answers at once.',
  parameters: {},
  output: { schema: z.object({}), render: () => [] },
  execute: () => ({}),
}

describe('host.dispose keeps the process up for the calls it ends (S6.3)', { timeout: 60_000 }, () => {
  it('S6.3 a program that awaits a hung call after host.dispose() hears it end cancelled and exits 0, though nothing else keeps its event loop alive', async () => {
    const program = `
      import { createHost, defineTool, z } from ${JSON.stringify(new URL('../../../src/index.ts', import.meta.url).href)}
      const host = await createHost({ workspace: ${JSON.stringify(workspace)}, journal: false, builtins: 'none', ptc: { prestart: false } })
      host.ctx.tools.register(defineTool({ name: 'hang', description: 'Never answers.', parameters: {}, output: { schema: z.object({}), render: () => [] }, execute: () => new Promise(() => {}) }))
      const pending = host.ctx.tools.execute({ name: 'hang', arguments: {} }, { agent: 'me' })
      await host.dispose()
      const result = await pending
      console.log(result.error?.kind)
    `
    const { stdout, code } = await new Promise<{ stdout: string; code: number | null }>((resolve) => {
      execFile(process.execPath, ['--input-type=module', '-e', program], { cwd: workspace, timeout: 50_000 }, (error, out, err) => resolve({ stdout: out + err, code: error ? ((error as { code?: number }).code ?? 1) : 0 }))
    })
    expect(stdout.trim()).toBe('cancelled')
    expect(code).toBe(0)
  })

  it('S11.1 dispose is once: a second call, during the first or after it, waits for the same dispose and throws nothing', async () => {
    const host = await createHost({ workspace, journal: false, builtins: 'none', ptc: { prestart: false } })
    const first = host.dispose()
    const during = host.dispose()
    expect(during).toBe(first)
    await Promise.all([first, during])
    await expect(host.dispose()).resolves.toBeUndefined()
  })
})
