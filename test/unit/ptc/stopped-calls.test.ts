/**
 * A run stopped under its calls (SPEC S8.2, S9.1; issue 16): a cancel, a limit other than the wall
 * clock's, or a failure says which calls were in flight then. A call that was running may have
 * taken effect before it was stopped, so the model is told to check before making it again; a
 * call still awaiting approval was not made, and is said to be so. Both isolation modes.
 */
import type { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Approval } from '../../../src/policy/approval.ts'
import { Ptc } from '../../../src/ptc/ptc-service.ts'
import * as runCodeTool from '../../../src/ptc/run-code-tool.ts'
import { withStoppedCalls } from '../../../src/ptc/isolate/run-endings.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import { createRoot } from '../../helpers/registry.ts'

const MAY_HAVE_TAKEN_EFFECT = 'may or may not have taken effect: check before making it again.'

describe.each(['process', 'inline'] as const)('calls in flight when a run is stopped, isolation %s', (isolation) => {
  let root: Context
  let dispose: () => unknown
  /** Called when a `hang` call starts; it then runs until its signal aborts. */
  let onHang: () => void = () => {}
  /** Called when an approval is asked for; nobody ever answers it. */
  let onAsk: () => void = () => {}
  /** Called when a `quick` call runs (it answers at once). */
  let onQuick: () => void = () => {}
  const made: string[] = []

  beforeAll(async () => {
    root = await createRoot()
    await root.plugin(Approval)
    const fiber = root.plugin(Ptc, { isolation, poolSize: 1, checkers: 1 })
    await fiber
    dispose = () => fiber.dispose()
    await root.plugin(runCodeTool, { spill: false })
    await root.plugin({
      name: 'stopped-calls-tools',
      inject: ['tools'],
      apply(ctx: Context) {
        // `guarded` is `hang` behind an approval.
        for (const name of ['hang', 'guarded']) {
          ctx.tools.register(
            defineTool({
              name,
              description: 'Runs until it is stopped.',
              parameters: z.object({}),
              output: { schema: z.null(), render: () => [{ type: 'text', text: 'done' }] },
              isConcurrencySafe: () => true,
              execute: (_args, { signal }) =>
                new Promise<null>((_resolve, reject) => {
                  signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
                  onHang()
                }),
            }),
          )
        }
        ctx.tools.register(
          defineTool({
            name: 'quick',
            description: 'Answers at once.',
            parameters: z.object({}),
            output: { schema: z.null(), render: () => [{ type: 'text', text: 'done' }] },
            isConcurrencySafe: () => true,
            execute: () => (onQuick(), null),
          }),
        )
        ctx.tools.register(
          defineTool({
            name: 'effect',
            description: 'A call with an effect, which needs approval.',
            parameters: z.object({ allow: z.boolean().optional(), tag: z.string().optional() }),
            output: { schema: z.null(), render: () => [{ type: 'text', text: 'done' }] },
            isConcurrencySafe: () => true,
            execute: () => (made.push('effect'), null),
          }),
        )
        ctx.on('tools/pre-execute', (execution, next) => (execution.name === 'effect' || execution.name === 'guarded' ? { kind: 'ask', reason: 'test policy' } : next()))
      },
    })
    // `guarded`, and `effect` with `allow`, are allowed at once (a synchronous answer); nobody ever answers for another `effect`.
    root.approval.respond((request) => {
      const { name, arguments: args } = request.execution
      if (name === 'guarded' || (name === 'effect' && (args as { allow?: boolean }).allow === true)) return 'allowed-once'
      onAsk()
      return new Promise(() => {})
    })
  }, 120_000)
  afterAll(() => dispose())

  /** Cancels through `caller` once a `hang` call runs and an approval is asked for, in whichever order. */
  const abortOnceBothStart = (caller: AbortController) => {
    let started = 0
    onHang = onAsk = () => void (++started === 2 && caller.abort())
  }

  it('S8.2 S9.1 a run cancelled while a call runs says the call may have taken effect', async () => {
    const caller = new AbortController()
    onHang = () => caller.abort()
    const result = await root.ptc.run('await tools.hang({}); return 1', { typecheck: false, timeoutMs: 60_000, signal: caller.signal })
    expect(result).toMatchObject({ status: 'cancelled', toolCalls: 1, error: { name: 'CancelledError' } })
    expect(result.error?.message).toContain(`A tool call was still running when the run stopped (1 call: hang): it was stopped then and ${MAY_HAVE_TAKEN_EFFECT}`)
    expect(result).not.toHaveProperty('stoppedCalls')
  }, 60_000)

  it('S8.2 S9.1 a run cancelled while one call runs and another awaits approval: the first may have taken effect, the second was not made', async () => {
    const caller = new AbortController()
    abortOnceBothStart(caller)
    const result = await root.ptc.run('await Promise.all([tools.hang({}), tools.effect({})]); return 1', { typecheck: false, timeoutMs: 60_000, signal: caller.signal, agent: 'approver' })
    expect(result).toMatchObject({ status: 'cancelled', toolCalls: 2 })
    expect(result.error?.message).toContain(`A tool call was still running when the run stopped (1 call: hang): it was stopped then and ${MAY_HAVE_TAKEN_EFFECT}`)
    expect(result.error?.message).toContain('A tool call was awaiting approval when the run stopped (1 call: effect {}): it was not made.')
    expect(made).toEqual([])
  }, 60_000)

  it('S5.1 S8.2 a call awaiting approval is named with its arguments, apart from a call of the same tool that was allowed', async () => {
    const caller = new AbortController()
    abortOnceBothStart(caller)
    const code = "await Promise.all([tools.effect({ allow: true, tag: 'made' }), tools.hang({}), tools.effect({ tag: 'asked' })]); return 1"
    const result = await root.ptc.run(code, { typecheck: false, timeoutMs: 60_000, signal: caller.signal, agent: 'approver' })
    expect(result).toMatchObject({ status: 'cancelled', toolCalls: 3 })
    expect(result.error?.message).toContain('A tool call was awaiting approval when the run stopped (1 call: effect {"tag":"asked"}): it was not made.')
    // The allowed call ran or not, by when the cancel came (effect is exclusive): the other tests' `made` stays empty.
    made.length = 0
  }, 60_000)

  it('S5.1 S6.3 S9.1 run_code cancelled through the pipeline: its cancellation names the call running and the one awaiting approval', async () => {
    const caller = new AbortController()
    abortOnceBothStart(caller)
    const code = 'await Promise.all([tools.hang({}), tools.effect({})]); return 1'
    const result = await root.tools.execute({ name: 'run_code', arguments: { code, typecheck: false } }, { agent: 'approver', signal: caller.signal })
    expect(result).toMatchObject({ isError: true, error: { kind: 'cancelled' } })
    expect(result.error?.message).toBe(
      'The tool call was cancelled before it finished; what it had already done stands (for run_code: the tool calls its script had made), and nothing more was done. ' +
        `A tool call was still running when the run stopped (1 call: hang): it was stopped then and ${MAY_HAVE_TAKEN_EFFECT} ` +
        'A tool call was awaiting approval when the run stopped (1 call: effect {}): it was not made.',
    )
    expect(made).toEqual([])
  }, 60_000)

  it('S5.1 S6.3 S9.1 a call approved at once and then running is named as running, not as awaiting approval', async () => {
    const caller = new AbortController()
    onHang = () => caller.abort()
    const result = await root.tools.execute({ name: 'run_code', arguments: { code: 'await tools.guarded({}); return 1', typecheck: false } }, { agent: 'approver', signal: caller.signal })
    expect(result.error?.message).toContain(`A tool call was still running when the run stopped (1 call: guarded): it was stopped then and ${MAY_HAVE_TAKEN_EFFECT}`)
    expect(result.error?.message).not.toContain('awaiting approval')
  }, 60_000)

  it('S5.1 S8.1 a call the script left behind while it awaited approval is said not to have been made', async () => {
    onAsk = () => {}
    const result = await root.ptc.run('void tools.effect({}).catch(() => {})\nreturn 1', { typecheck: false, timeoutMs: 1_500, agent: 'approver' })
    expect(result).toMatchObject({ status: 'ok', value: 1, toolCalls: 1 })
    expect(result.warnings?.[0]?.message, JSON.stringify(result.warnings)).toMatch(/^1 tool call was.*Among them, this call was still awaiting approval when the run ended \(nobody answered the prompt\), so it was not made: effect \{\}\.$/)
    expect(result.warnings?.[0]).not.toHaveProperty('calls') // The host's list of calls stays the host's.
    expect(made).toEqual([])
  }, 60_000)

  it('S5.1 S8.1 of two calls of one tool left behind, only the one still awaiting approval is said not to have been made', async () => {
    onAsk = () => {}
    const code = 'void tools.effect({ allow: true }).catch(() => {})\nvoid tools.effect({}).catch(() => {})\nreturn 1'
    const result = await root.ptc.run(code, { typecheck: false, timeoutMs: 1_500, agent: 'approver' })
    expect(result).toMatchObject({ status: 'ok', value: 1, toolCalls: 2 })
    expect(result.warnings?.[0]?.message, JSON.stringify(result.warnings)).toMatch(/^2 tool calls were .*effect \{"allow":true\}, effect \{\}.* Among them, this call was still awaiting approval .*, so it was not made: effect \{\}\.$/)
    // The allowed one ran (the other tests' `made` stays empty).
    expect(made.splice(0)).toEqual(['effect'])
  }, 60_000)

  it("S9.1 a caller's onCancelNote that throws loses its note, never the host", async () => {
    const caller = new AbortController()
    onHang = () => caller.abort()
    const onCancelNote = () => {
      throw new Error('a bug in the caller')
    }
    const result = await root.ptc.run('await tools.hang({}); return 1', { typecheck: false, timeoutMs: 60_000, signal: caller.signal, onCancelNote })
    expect(result).toMatchObject({ status: 'cancelled', toolCalls: 1 })
    expect(await root.ptc.run('return 2', { typecheck: false })).toMatchObject({ status: 'ok', value: 2 })
  }, 60_000)

  it('S6.3 S9.1 run_code cancelled through the pipeline after its only call was answered adds nothing to the cancellation', async () => {
    const caller = new AbortController()
    onQuick = () => setTimeout(() => caller.abort(), 100)
    const result = await root.tools.execute({ name: 'run_code', arguments: { code: 'await tools.quick({}); while (true) {}', typecheck: false } }, { agent: 'approver', signal: caller.signal })
    expect(result.error).toEqual({ kind: 'cancelled', message: 'The tool call was cancelled before it finished; what it had already done stands (for run_code: the tool calls its script had made), and nothing more was done.' })
  }, 60_000)

  it('S9.7 a run stopped by its memory limit while a call runs says the call may have taken effect', async () => {
    onHang = () => {}
    const script = 'void tools.hang({}).catch(() => {})\nconst kept = []\nwhile (true) kept.push(new Array(10_000).fill(kept.length))'
    const result = await root.ptc.run(script, { typecheck: false, timeoutMs: 60_000, memoryMb: 16 })
    expect(result).toMatchObject({ status: 'memory', toolCalls: 1, error: { name: 'MemoryError' } })
    expect(result.error?.message).toContain(`(1 call: hang): it was stopped then and ${MAY_HAVE_TAKEN_EFFECT}`)
  }, 60_000)

  it.runIf(isolation === 'process')('S9.1 a run whose isolate worker is killed while a call runs says the call may have taken effect', async () => {
    // Whichever isolate worker holds the run (PtcConfig.isolateWorkers): every one is killed.
    onHang = () => {
      for (const pid of root.ptc._supervisor!.workerPids) process.kill(pid, 'SIGKILL')
    }
    const result = await root.ptc.run('await tools.hang({}); return 1', { typecheck: false, timeoutMs: 60_000 })
    expect(result).toMatchObject({ status: 'error', toolCalls: 1, error: { name: 'WorkerCrashError' } })
    expect(result.error?.message).toContain(`the next run uses a fresh worker. A tool call was still running when the run stopped (1 call: hang): it was stopped then and ${MAY_HAVE_TAKEN_EFFECT}`)
  }, 60_000)

  it.runIf(isolation === 'process')('S8.2 S9.1 a cancel names only the calls the host had started: not one the worker sent while the host was busy, which the host then refused', async () => {
    const caller = new AbortController()
    onQuick = () =>
      setImmediate(() => {
        // The host's thread held up past the answer, so the worker's next call waits unread, then the cancel.
        const until = performance.now() + 400
        while (performance.now() < until);
        caller.abort()
      })
    const result = await root.ptc.run('await tools.quick({}); await tools.effect({}); return 1', { typecheck: false, timeoutMs: 60_000, signal: caller.signal, agent: 'approver' })
    expect(result).toMatchObject({ status: 'cancelled', toolCalls: 1 })
    expect(result.error?.message).not.toMatch(/still running|awaiting approval/)
    expect(made).toEqual([])
  }, 60_000)

  it('S9.1 a run cancelled after its call was answered says nothing of calls', async () => {
    const caller = new AbortController()
    // Cancelled while the script spins after its only call: the call is over, not in flight.
    onQuick = () => setTimeout(() => caller.abort(), 100)
    const { status, toolCalls, error } = await root.ptc.run('await tools.quick({}); while (true) {}', { typecheck: false, timeoutMs: 60_000, signal: caller.signal })
    expect({ status, toolCalls }).toEqual({ status: 'cancelled', toolCalls: 1 })
    expect(error?.message).not.toMatch(/still running|awaiting approval/)
  }, 60_000)

  it.runIf(isolation === 'process')("S9.1 a run whose worker stops answering while a call runs names the call once, in the watchdog's ending", async () => {
    const stopped: number[] = []
    onHang = () => {
      for (const pid of root.ptc._supervisor!.workerPids) process.kill(pid, 'SIGSTOP'), stopped.push(pid)
    }
    try {
      const result = await root.ptc.run('await tools.hang({}); return 1', { typecheck: false, timeoutMs: 1_000 })
      expect(result).toMatchObject({ status: 'timeout' })
      expect(result.error?.message).toContain('Still running then: 1 call: hang.')
      expect(result.error?.message).not.toContain('when the run stopped')
    } finally {
      // A worker the host has already killed (and reaped) for the missed deadline is gone: ESRCH.
      for (const pid of stopped) {
        try {
          process.kill(pid, 'SIGCONT')
        } catch {}
      }
    }
  }, 60_000)
})

describe('withStoppedCalls', () => {
  const error = { name: 'CancelledError', message: 'The run was cancelled.' }
  it('S9.1 names each kind of call in flight, and leaves the message alone when there were none', () => {
    expect(withStoppedCalls(error, [], [])).toBe(error)
    expect(withStoppedCalls(error, ['read', 'read', 'write'], []).message).toBe(
      'The run was cancelled. Tool calls were still running when the run stopped (3 calls: read ×2, write): they were stopped then and may or may not have taken effect: check before making them again.',
    )
    expect(withStoppedCalls(error, [], ['write', 'send']).message).toBe('The run was cancelled. Tool calls were awaiting approval when the run stopped (2 calls: write, send): they were not made.')
  })
})
