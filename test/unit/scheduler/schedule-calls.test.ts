import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { DEFAULT_CONCURRENCY, ExecutionGate } from '../../../src/scheduler/execution-gate.ts'
import { type SchedulerTarget, scheduleCalls } from '../../../src/scheduler/schedule-calls.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import type { ToolCall, ToolExecutionMode, ToolResult } from '../../../src/tools/types.ts'
import { createRoot, tick, usePlugin } from '../../helpers/registry.ts'

interface Span {
  id: string
  mode: ToolExecutionMode['kind']
  start: number
  end: number
  activeAtStart: number
}

/** A fake registry: name 'p' is parallel, anything else exclusive; `ms` is how long a call takes. */
function instrumented() {
  let active = 0
  let maxActive = 0
  let clock = 0
  const spans: Span[] = []
  const target: SchedulerTarget = {
    executionMode: (call) => ({ kind: call.name === 'p' ? 'parallel' : 'exclusive' }),
    async execute(call) {
      const { id, ms } = call.arguments as { id: string; ms: number }
      active++
      maxActive = Math.max(maxActive, active)
      const span: Span = { id, mode: call.name === 'p' ? 'parallel' : 'exclusive', start: ++clock, end: 0, activeAtStart: active }
      spans.push(span)
      await tick(ms)
      span.end = ++clock
      active--
      return { callId: id, name: call.name, isError: false, value: id } as unknown as ToolResult
    },
  }
  return { target, spans, maxActive: () => maxActive }
}

const call = (name: 'p' | 'x', id: string, ms = 5): ToolCall => ({ callId: id, name, arguments: { id, ms } })
const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end

function assertBarriers(spans: Span[], order: string[]) {
  const byId = new Map(spans.map((span) => [span.id, span]))
  for (const span of spans) {
    if (span.mode !== 'exclusive') continue
    expect(span.activeAtStart, `${span.id} started alone`).toBe(1)
    for (const other of spans) if (other !== span) expect(overlaps(span, other), `${span.id} overlaps ${other.id}`).toBe(false)
    // nothing on either side interleaves across it
    const index = order.indexOf(span.id)
    for (const before of order.slice(0, index)) expect(byId.get(before)!.end, `${before} ends before ${span.id}`).toBeLessThan(span.start)
    for (const after of order.slice(index + 1)) expect(byId.get(after)!.start, `${after} starts after ${span.id}`).toBeGreaterThan(span.end)
  }
}

describe('scheduleCalls (S7.1, S7.2)', () => {
  it('S7.1 an exclusive call never overlaps anything and is a barrier on both sides', async () => {
    const { target, spans } = instrumented()
    const calls = [call('p', 'p1', 15), call('p', 'p2', 5), call('x', 'x1', 5), call('p', 'p3', 5), call('p', 'p4', 5), call('x', 'x2', 1), call('x', 'x3', 1), call('p', 'p5', 1)]
    await scheduleCalls(target, calls)
    expect(spans).toHaveLength(calls.length)
    assertBarriers(spans, calls.map((c) => c.callId!))
  })

  it('S7.2 parallel calls do overlap', async () => {
    const { target, spans, maxActive } = instrumented()
    await scheduleCalls(target, [call('p', 'a', 20), call('p', 'b', 20), call('p', 'c', 20)])
    expect(maxActive()).toBe(3)
    expect(overlaps(spans[0]!, spans[1]!)).toBe(true)
  })

  it('S7.2 results come back in call order even when later calls finish first', async () => {
    const { target, spans } = instrumented()
    const results = await scheduleCalls(target, [call('p', 'slow', 30), call('p', 'medium', 15), call('p', 'fast', 1)])
    expect(results.map((result) => result.callId)).toEqual(['slow', 'medium', 'fast'])
    const finished = [...spans].sort((a, b) => a.end - b.end).map((span) => span.id)
    expect(finished).toEqual(['fast', 'medium', 'slow'])
  })

  it('S7.2 by default sixteen parallel calls overlap, and the seventeenth waits for a free slot', async () => {
    const { target, spans, maxActive } = instrumented()
    const calls = Array.from({ length: 17 }, (_, index) => call('p', `p${index}`, 10))
    await scheduleCalls(target, calls)
    expect(DEFAULT_CONCURRENCY).toBe(16)
    expect(maxActive()).toBe(16)
    const last = spans.find((span) => span.id === 'p16')!
    expect(spans.some((span) => span.id !== 'p16' && span.end < last.start)).toBe(true)
  })

  it('S7.2 the rolling pool width is respected and refills as calls finish', async () => {
    const { target, maxActive, spans } = instrumented()
    const calls = Array.from({ length: 10 }, (_, index) => call('p', `p${index}`, 3 + (index % 3) * 4))
    await scheduleCalls(target, calls, { concurrency: 3 })
    expect(maxActive()).toBe(3)
    // rolling: some call starts before every call of the first wave has finished
    const firstWaveEnd = Math.max(...spans.slice(0, 3).map((span) => span.end))
    expect(spans.slice(3).some((span) => span.start < firstWaveEnd)).toBe(true)
  })

  it('S7.1 an invalid pool width is refused', async () => {
    const { target } = instrumented()
    for (const concurrency of [0, -1, 1.5, Number.NaN]) {
      await expect(scheduleCalls(target, [call('p', 'a')], { concurrency })).rejects.toThrow(RangeError)
    }
  })

  it('S7.1 an empty turn resolves to no results', async () => {
    expect(await scheduleCalls(instrumented().target, [])).toEqual([])
  })

  it('S7.1/S2.2 with the real registry: a fail-closed tool never overlaps, a parallel-safe one does', async () => {
    let active = 0
    const log: { name: string; activeAtStart: number }[] = []
    const sleeper = (name: string, isConcurrencySafe?: () => boolean) =>
      defineTool({
        name,
        description: 'Sleeps.',
        parameters: { ms: { type: 'number', required: true } },
        output: { schema: z.null(), render: () => [{ type: 'text', text: 'ok' }] },
        execute: async (args) => {
          log.push({ name, activeAtStart: ++active })
          await tick(args.ms)
          active--
          return null
        },
        ...(isConcurrencySafe && { isConcurrencySafe }),
      })
    const root = await createRoot()
    await usePlugin(root, (ctx) => {
      ctx.tools.register(sleeper('read', () => true))
      ctx.tools.register(sleeper('write')) // omitted classifier: exclusive
      ctx.tools.register(sleeper('flaky', () => { throw new Error('cannot tell') }))
    })
    const calls: ToolCall[] = ['read', 'read', 'write', 'read', 'flaky', 'read', 'read'].map((name, index) => ({ callId: `c${index}`, name, arguments: { ms: 10 } }))
    const results = await scheduleCalls(root.tools, calls)
    expect(results.map((result) => result.callId)).toEqual(calls.map((c) => c.callId))
    expect(results.every((result) => !result.isError)).toBe(true)
    for (const entry of log) if (entry.name !== 'read') expect(entry.activeAtStart, entry.name).toBe(1)
    expect(Math.max(...log.map((entry) => entry.activeAtStart))).toBe(2)
  })

  it('S7.1/S6.1 a call is classified on the same argument snapshot it executes with (a flipping getter cannot sneak past)', async () => {
    const executed: string[] = []
    const root = await createRoot()
    await usePlugin(root, (ctx) =>
      ctx.tools.register(
        defineTool({
          name: 'fs',
          description: 'Reads are parallel-safe, writes are not.',
          parameters: { op: { type: 'string', required: true, enum: ['read', 'write'] } },
          output: { schema: z.string(), render: (_args, value) => [{ type: 'text', text: value }] },
          execute: (args) => (executed.push(args.op), args.op),
          isConcurrencySafe: (args) => args.op === 'read',
        }),
      ),
    )
    let reads = 0
    const flipping = {
      get op() {
        return ++reads === 1 ? 'read' : 'write'
      },
    }
    const modes: string[] = []
    const target: SchedulerTarget = {
      executionMode: (c) => {
        const mode = root.tools.executionMode(c)
        modes.push(mode.kind)
        return mode
      },
      execute: (c, options) => root.tools.execute(c, options),
    }
    const [result] = await scheduleCalls(target, [{ name: 'fs', arguments: flipping }])
    expect(reads).toBe(1)
    expect(modes).toEqual(['parallel'])
    expect(executed).toEqual(['read'])
    expect(result!.arguments).toEqual({ op: 'read' })
  })

  it('S7.1 a call whose arguments are not JSON is still scheduled (exclusive) and yields an error result', async () => {
    const root = await createRoot()
    await usePlugin(root, (ctx) =>
      ctx.tools.register(defineTool({ name: 't', description: 'd', parameters: {}, output: { schema: z.null(), render: () => [] }, execute: () => null, isConcurrencySafe: () => true })),
    )
    const results = await scheduleCalls(root.tools, [{ name: 't', arguments: { n: 1n } }, { name: 't', arguments: {} }])
    expect(results.map((result) => result.isError)).toEqual([true, false])
  })

  it('S2.2 a target whose classifier throws schedules the call exclusive instead of failing the turn', async () => {
    const { target, spans } = instrumented()
    const throwing: SchedulerTarget = {
      executionMode: (c) => {
        if ((c.arguments as { id: string }).id === 'bad') throw new Error('classifier crashed')
        return target.executionMode(c)
      },
      execute: target.execute,
    }
    const results = await scheduleCalls(throwing, [call('p', 'a', 10), call('p', 'bad', 5), call('p', 'b', 5)])
    expect(results).toHaveLength(3)
    assertBarriers(spans.map((span) => (span.id === 'bad' ? { ...span, mode: 'exclusive' } : span)), ['a', 'bad', 'b'])
  })

  it('S7.2 execute options (agent, signal) reach every call', async () => {
    const seen: unknown[] = []
    const target: SchedulerTarget = {
      executionMode: () => ({ kind: 'parallel' }),
      execute: async (_call, options) => (seen.push(options), { isError: false } as ToolResult),
    }
    const signal = new AbortController().signal
    await scheduleCalls(target, [call('p', 'a'), call('p', 'b')], { agent: 'a1', signal, concurrency: 2 })
    expect(seen).toEqual([{ agent: 'a1', signal }, { agent: 'a1', signal }])
  })
})

describe('ExecutionGate (S7.1, S7.2) for calls arriving one by one', () => {
  it('S7.1 calls from run() arriving one by one follow the same barrier rules', async () => {
    const gate = new ExecutionGate(4)
    const { target, spans } = instrumented()
    const run = (c: ToolCall) => gate.run(target.executionMode(c), () => target.execute(c))
    const pending: Promise<unknown>[] = []
    pending.push(run(call('p', 'p1', 20)))
    await tick(2)
    pending.push(run(call('p', 'p2', 5))) // overlaps p1
    await tick(1)
    pending.push(run(call('x', 'x1', 10))) // waits for p1 and p2, then runs alone
    pending.push(run(call('p', 'p3', 5))) // arrives while x1 is waiting: must wait for x1
    await tick(1)
    pending.push(run(call('p', 'p4', 5)))
    await Promise.all(pending)
    assertBarriers(spans, ['p1', 'p2', 'x1', 'p3', 'p4'])
    const byId = new Map(spans.map((span) => [span.id, span]))
    expect(overlaps(byId.get('p1')!, byId.get('p2')!)).toBe(true)
    expect(overlaps(byId.get('p3')!, byId.get('p4')!)).toBe(true)
  })

  it('S7.1 a parallel call arriving while an exclusive one runs waits for it', async () => {
    const gate = new ExecutionGate()
    const events: string[] = []
    const exclusive = gate.run({ kind: 'exclusive' }, async () => {
      events.push('x start')
      await tick(15)
      events.push('x end')
    })
    await tick(2)
    expect(gate.active).toBe(1)
    const parallel = gate.run({ kind: 'parallel' }, async () => void events.push('p start'))
    await Promise.all([exclusive, parallel])
    expect(events).toEqual(['x start', 'x end', 'p start'])
    expect(gate.active).toBe(0)
  })

  it('S7.1 a failing task rejects only its own run and does not wedge the gate', async () => {
    const gate = new ExecutionGate(2)
    const failing = gate.run({ kind: 'exclusive' }, async () => {
      throw new Error('task failed')
    })
    const syncThrow = gate.run({ kind: 'parallel' }, () => {
      throw new Error('sync throw')
    })
    const after = gate.run({ kind: 'exclusive' }, async () => 'still runs')
    await expect(failing).rejects.toThrow('task failed')
    await expect(syncThrow).rejects.toThrow('sync throw')
    expect(await after).toBe('still runs')
  })

  it('S2.2 a mode that is not exactly parallel is treated as exclusive (fail-closed)', async () => {
    const gate = new ExecutionGate(4)
    const events: string[] = []
    const first = gate.run({ kind: 'parallel' }, async () => (events.push('a start'), await tick(10), events.push('a end')))
    const odd = gate.run({ kind: 'Parallel' } as never, async () => void events.push('odd start'))
    await Promise.all([first, odd])
    expect(events).toEqual(['a start', 'a end', 'odd start'])
  })
})
