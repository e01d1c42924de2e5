/**
 * PTC mode through the `run_code` tool (SPEC S9): calls from code re-enter the whole pipeline,
 * resolve to the final canonical value, reject with ToolCallError, are scheduled by execution
 * mode, and only the outer result passes through caps and the spill.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { MAX_CALL_ERROR_CHARS } from '../../../src/ptc/bridge.ts'
import { DEFAULT_RUN_LIMITS } from '../../../src/ptc/isolate/run-limits.ts'
import { DEFAULT_MAX_WALL_CLOCK_MS } from '../../../src/ptc/ptc-config.ts'
import { Ptc } from '../../../src/ptc/ptc-service.ts'
import * as runCodeTool from '../../../src/ptc/run-code-tool.ts'
import type { RunCodeValue } from '../../../src/ptc/run-code-value.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import type { PtcDispatch, ToolCallRecord, ToolExecution, ToolResult } from '../../../src/tools/types.ts'
import { createRoot, echoTool, tick, usePlugin } from '../../helpers/registry.ts'

let root: Context
let spillDir: string
const executions: ToolExecution[] = []
const dispatches: PtcDispatch[] = []
const calls: ToolCallRecord[] = []
const results: ToolResult[] = []
let active = 0
let maxActive = 0
const timeline: string[] = []

const slowTool = (name: string, parallel: boolean) =>
  defineTool({
    name,
    description: `${parallel ? 'Parallel-safe' : 'Exclusive'} tool that waits a little.`,
    parameters: z.object({ id: z.number() }),
    output: { schema: z.object({ id: z.number() }), render: (_args, value) => [{ type: 'text', text: String(value.id) }] },
    ...(parallel && { isConcurrencySafe: () => true }),
    async execute(args) {
      active++
      maxActive = Math.max(maxActive, active)
      timeline.push(`start ${name} ${args.id} (active ${active})`)
      await tick(20)
      timeline.push(`end ${name} ${args.id}`)
      active--
      return { id: args.id }
    },
  })

async function runCode(code: string, options: { agent?: string; typecheck?: boolean; signal?: AbortSignal } = {}) {
  const result = await root.tools.execute(
    { name: 'run_code', arguments: { code, ...(options.typecheck === false && { typecheck: false }) } },
    { agent: options.agent ?? 'tester', ...(options.signal && { signal: options.signal }) },
  )
  return result
}
const valueOf = (result: ToolResult) => result.value as RunCodeValue

beforeAll(async () => {
  spillDir = mkdtempSync(join(tmpdir(), 'ptc-spill-'))
  root = await createRoot()
  // Two checkers: when a test's check is killed at its deadline, the next run finds the other warm.
  await root.plugin(Ptc, { isolation: 'inline', poolSize: 1, checkers: 2 })
  await root.plugin(runCodeTool, { spillDir, maxResultChars: 200, maxLogChars: 100 })
  await usePlugin(root, (ctx) => {
    ctx.tools.register(echoTool())
    ctx.tools.register(slowTool('fetch_page', true))
    ctx.tools.register(slowTool('save_page', false))
    ctx.tools.register(
      defineTool({
        name: 'secret',
        description: 'Returns a value a result policy replaces.',
        parameters: z.object({}),
        output: { schema: z.object({ token: z.string() }), render: (_args, value) => [{ type: 'text', text: value.token }] },
        execute: () => ({ token: 'raw-secret' }),
      }),
    )
    ctx.on('tools/pre-execute', (execution, next) => {
      executions.push(execution as ToolExecution)
      if (execution.name === 'echo' && (execution.arguments as { text: string }).text === 'forbidden') {
        return { kind: 'deny', reason: 'echoing "forbidden" is not allowed', info: { code: 'E_POLICY' } }
      }
      return next()
    })
    ctx.on('tools/post-execute', (execution, result, next) => {
      if (execution.name === 'secret') return { kind: 'accept', value: { token: 'redacted' } }
      if (execution.name === 'echo') return { kind: 'accept', additionalContext: 'remember this' }
      return next()
    })
    ctx.tools.guard((execution) => (execution.name === 'echo' && (execution.arguments as { text: string }).text === 'guarded' ? 'the guard says no' : undefined))
    ctx.on('tool/ptc-dispatch', (dispatch) => void dispatches.push(dispatch))
    ctx.on('tool/call', (call) => void calls.push(call))
    ctx.on('tools/result', (result) => void results.push(result))
  })
  // The checker starts before the first test, so no test pays (or times out on) its cold start.
  await root.ptc.prewarm()
}, 60_000)

afterAll(async () => {
  rmSync(spillDir, { recursive: true, force: true })
})

describe('run_code (S9)', () => {
  it("S9.4 run_code tells the model its timeoutMs default and cap, the host's own (PtcConfig limits.wallClockMs, maxWallClockMs)", () => {
    const described = (config: Parameters<typeof runCodeTool.runCodeParameters>[0]) =>
      (z.toJSONSchema(runCodeTool.runCodeParameters(config)) as unknown as { properties: { timeoutMs: { description: string } } }).properties.timeoutMs.description
    expect(described({})).toBe(`Wall-clock deadline of the run in ms (default ${DEFAULT_RUN_LIMITS.wallClockMs}; at most ${DEFAULT_MAX_WALL_CLOCK_MS}: a larger value is capped).`)
    expect(described({ limits: { wallClockMs: 5_000 }, maxWallClockMs: 60_000 })).toContain('(default 5000; at most 60000: a larger value is capped)')
    expect(described({ maxWallClockMs: 1_500 })).toContain('(default 1500; at most 1500: a larger value is capped)')
    // The registered tool describes this host's numbers.
    const registered = root.tools.get('run_code')!
    expect(JSON.stringify(z.toJSONSchema(registered.parameters as z.ZodType))).toContain(`default ${DEFAULT_RUN_LIMITS.wallClockMs}; at most ${DEFAULT_MAX_WALL_CLOCK_MS}`)
  })

  it('S9.1 every visible tool is callable as tools.name(args) and each call re-enters the pipeline', async () => {
    executions.length = 0
    const result = await runCode(`const a = await tools.echo({ text: 'hi' }); return a.text`)
    expect(valueOf(result)).toMatchObject({ status: 'ok', value: 'hi', toolCalls: 1 })
    // The pre-execute waterfall saw the outer run_code call and the call from code.
    expect(executions.map((e) => e.name)).toEqual(['run_code', 'echo'])
  })

  it('S9.1 a script is type-checked against the tools: a wrong argument is a type-error and no tool runs', async () => {
    calls.length = 0
    const result = await runCode(`const a = await tools.echo({ text: 42 })\nreturn a`)
    const value = valueOf(result)
    expect(value.status).toBe('type-error')
    expect(value.toolCalls).toBe(0)
    expect(value.diagnostics?.[0]).toMatchObject({ line: 1, category: 'error' })
    expect(calls.filter((c) => c.name !== 'run_code')).toEqual([])
    // Rounded to the µs as every other result's durationMs (was 13.691689999999994).
    expect(String(value.durationMs)).toMatch(/^\d+(\.\d{1,3})?$/)
  })

  it('S6.1 a script\'s return value keeps a __proto__ key as plain data: not dropped, no prototype changed', async () => {
    const result = await runCode('return JSON.parse(\'{"__proto__":{"isAdmin":true},"a":1}\')', { typecheck: false })
    const value = valueOf(result)
    expect(value.status).toBe('ok')
    const returned = value.value as Record<string, unknown>
    expect(Object.keys(returned)).toEqual(['__proto__', 'a'])
    expect(Object.getPrototypeOf(returned)).toBe(Object.prototype)
    expect((returned as { isAdmin?: unknown }).isAdmin).toBeUndefined()
    expect(Object.getOwnPropertyDescriptor(returned, '__proto__')?.value).toEqual({ isAdmin: true })
    expect(result.isError).toBe(false)
  })

  it('S9.3 a tool\'s huge failure message reaches the script cut to MAX_CALL_ERROR_CHARS, saying how long it was', async () => {
    await usePlugin(root, (ctx) =>
      ctx.tools.register(
        defineTool({
          name: 'loud_failure',
          description: 'Fails with a 1 MB message.',
          parameters: {},
          output: { schema: z.object({}), render: () => [] },
          async execute() {
            throw new Error('x'.repeat(1_000_000))
          },
        }),
      ),
    )
    const value = valueOf(await runCode('try { await tools.loud_failure({}); return null } catch (e) { return [e.name, e.message.length, e.message.slice(-60)] }', { typecheck: false }))
    expect(value.status).toBe('ok')
    const [name, length, tail] = value.value as [string, number, string]
    expect(name).toBe('ToolCallError')
    expect(length).toBeLessThan(MAX_CALL_ERROR_CHARS + 100)
    expect(length).toBeGreaterThan(MAX_CALL_ERROR_CHARS)
    expect(tail).toMatch(/… \(cut: the message had \d+ characters\)$/)
  })

  it('S9.3 the cut of a huge failure message never splits a surrogate pair', async () => {
    const prefix = 'Tool "emoji_failure" failed: '
    await usePlugin(root, (ctx) =>
      ctx.tools.register(
        defineTool({
          name: 'emoji_failure',
          description: 'Fails with a long message whose emoji straddles the cut.',
          parameters: {},
          output: { schema: z.object({}), render: () => [] },
          async execute() {
            throw new Error('a'.repeat(MAX_CALL_ERROR_CHARS - prefix.length - 1) + '😀'.repeat(10))
          },
        }),
      ),
    )
    const value = valueOf(await runCode('try { await tools.emoji_failure({}) } catch (e) { return e.message.split("…")[0] }', { typecheck: false }))
    const cut = value.value as string
    expect(cut.startsWith(prefix)).toBe(true)
    expect(cut).toHaveLength(MAX_CALL_ERROR_CHARS - 1)
    expect(cut.isWellFormed()).toBe(true)
  })

  it('S9.2 a call resolves to the final canonical value after post-execute policy, not to content', async () => {
    const result = await runCode(`return await tools.secret({})`)
    expect(valueOf(result).value).toEqual({ token: 'redacted' })
  })

  it('S9.3 a denial rejects with a real ToolCallError exposing only name, toolName and message', async () => {
    const result = await runCode(`
      try { await tools.echo({ text: 'forbidden' }); return 'not rejected' }
      catch (caught) {
        const e = caught as ToolCallError
        return { isToolCallError: e instanceof ToolCallError, isError: e instanceof Error, keys: Object.keys(e).sort(), name: e.name, toolName: e.toolName, message: e.message }
      }`)
    expect(valueOf(result).value).toEqual({
      isToolCallError: true,
      isError: true,
      keys: ['message', 'name', 'toolName'],
      name: 'ToolCallError',
      toolName: 'echo',
      message: 'echoing "forbidden" is not allowed',
    })
  })

  it('S9.3 guard denials and invalid arguments are binding rejections too; unknown tools do not exist on tools', async () => {
    const result = await runCode(
      `const outcomes = await Promise.allSettled([tools.echo({ text: 'guarded' }), (tools as any).echo({ text: 1 })])
       return { messages: outcomes.map((o) => o.status === 'rejected' ? o.reason.message : 'fulfilled'), unknown: 'nope' in tools }`,
      { typecheck: false },
    )
    expect(valueOf(result).status, JSON.stringify(valueOf(result))).toBe('ok')
    const { messages, unknown } = valueOf(result).value as { messages: string[]; unknown: boolean }
    expect(messages[0]).toBe('the guard says no')
    expect(messages[1]).toMatch(/Invalid arguments for "echo"/)
    expect(unknown).toBe(false)
  })

  it('S9.4 the bridge records only the pairing id, the name and the arguments before policy', async () => {
    dispatches.length = 0
    await runCode(`await tools.echo({ text: 'a' }); return 1`)
    expect(dispatches).toHaveLength(1)
    const [dispatch] = dispatches
    expect(Object.keys(dispatch!).sort()).toEqual(['arguments', 'name', 'pairingId', 'parentToken'])
    expect(dispatch).toMatchObject({ name: 'echo', arguments: { text: 'a' } })
    expect(JSON.stringify(dispatch)).not.toContain('Echo the text back')
  })

  it('S9.5 child calls carry the parent token, record tool/ptc-dispatch, and omit additionalContexts', async () => {
    executions.length = 0
    dispatches.length = 0
    results.length = 0
    await runCode(`await tools.echo({ text: 'b' }); return 1`)
    const outer = executions.find((e) => e.name === 'run_code')!
    const child = executions.find((e) => e.name === 'echo')!
    expect(child.parentToken).toBe(outer.token)
    expect(dispatches[0]!.parentToken).toBe(outer.token)
    const childResult = results.find((r) => r.name === 'echo')!
    expect(childResult.additionalContexts).toBeUndefined()
    // The same listener adds context to a direct call.
    const direct = await root.tools.execute({ name: 'echo', arguments: { text: 'c' } })
    expect(direct.additionalContexts).toEqual(['remember this'])
  })

  it('S7/S9 parallel calls from code overlap; exclusive calls form barriers', async () => {
    maxActive = 0
    timeline.length = 0
    await runCode(`await Promise.all([1, 2, 3].map((id) => tools.fetch_page({ id }))); return 1`)
    expect(maxActive).toBe(3)
    maxActive = 0
    timeline.length = 0
    await runCode(`await Promise.all([tools.fetch_page({ id: 1 }), tools.save_page({ id: 2 }), tools.fetch_page({ id: 3 })]); return 1`)
    expect(maxActive).toBe(1)
    expect(timeline).toEqual(['start fetch_page 1 (active 1)', 'end fetch_page 1', 'start save_page 2 (active 1)', 'end save_page 2', 'start fetch_page 3 (active 1)', 'end fetch_page 3'])
  })

  it('S7.2 by default sixteen concurrency-safe calls from one script run at once', async () => {
    maxActive = 0
    timeline.length = 0
    const result = await runCode(`await Promise.all(Array.from({ length: 20 }, (_, id) => tools.fetch_page({ id }))); return 1`, { typecheck: false })
    expect(valueOf(result).status).toBe('ok')
    expect(maxActive).toBe(16)
  })

  it('S9.7 intermediate values are never capped; only the outer result is, and it spills to a file', async () => {
    const result = await runCode(`
      const big = 'x'.repeat(100_000)
      const back = await tools.echo({ text: big })
      console.log('y'.repeat(500))
      return { length: back.text.length, big: back.text }`)
    const value = valueOf(result)
    expect((value.value as { length: number }).length).toBe(100_000)
    const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    expect(text.length).toBeLessThan(1_000)
    const resultPath = /the full result is in (\S+)\]/.exec(text)?.[1]
    const logsPath = /the full logs are in (\S+)\]/.exec(text)?.[1]
    expect(resultPath?.startsWith(join(spillDir, 'tester'))).toBe(true)
    expect(JSON.parse(readFileSync(resultPath!, 'utf8')).big).toHaveLength(100_000)
    expect(readFileSync(logsPath!, 'utf8')).toBe('y'.repeat(500))
  })

  it('S9.4 run_code is itself a tool call: policy can deny it', async () => {
    const fiber = await usePlugin(root, (ctx) => {
      ctx.on('tools/pre-execute', (execution, next) => (execution.name === 'run_code' ? { kind: 'deny', reason: 'no scripts today' } : next()), { prepend: true })
    }, 'deny-run-code')
    const result = await runCode('return 1')
    expect(result.isError).toBe(true)
    expect(result.error).toMatchObject({ kind: 'denied', message: 'no scripts today' })
    await fiber.dispose()
  })

  it('S9.1 a script cannot call run_code itself', async () => {
    const result = await runCode(`return await (tools as any).run_code({ code: 'return 1' })`, { typecheck: false })
    expect(valueOf(result).status).toBe('error')
    expect(valueOf(result).error?.message).toMatch(/run_code/)
  })

  it('limits: a script over maxScriptBytes is refused before type-checking, and no tool runs; ptc.check refuses it too', async () => {
    const code = `return 1 // ${'x'.repeat(600 * 1024)}`
    const result = await runCode(code)
    expect(valueOf(result)).toMatchObject({ status: 'error', error: { name: 'LimitError' }, toolCalls: 0 })
    expect(valueOf(result).error?.message).toMatch(/over the 524288-byte limit/)
    // `ptc check` said ok to a script run_code refuses.
    expect(await root.ptc.check(code)).toEqual([
      { line: 1, column: 1, category: 'error', message: `The script is ${code.length} bytes, over the 524288-byte limit (maxScriptBytes), which run_code refuses. Send a shorter script.` },
    ])
  })

  it('limits: type-checking spends from the wall-clock deadline', async () => {
    // Both checkers warm and idle first: a checker still starting, or still busy with an earlier
    // test's check, would make the 1 ms go to waiting for one (a loaded fresh-clone run got that message).
    await Promise.all([runCode('return 1'), runCode('return 2')])
    const lines = Array.from({ length: 3000 }, (_, i) => `const v${i}: number = ${i}`).join('\n')
    const result = await root.tools.execute({ name: 'run_code', arguments: { code: `${lines}\nreturn v1`, timeoutMs: 1 } }, { agent: 'tester' })
    expect(valueOf(result)).toMatchObject({ status: 'timeout', toolCalls: 0 })
    expect(valueOf(result).error?.message).toMatch(/Type-checking the script used up the run's 1 ms deadline \(timeoutMs\)/)
  })

  it('limits: a timeout names the deadline the caller set, not the time left after checking', async () => {
    const result = await root.tools.execute({ name: 'run_code', arguments: { code: 'await new Promise(() => {})', timeoutMs: 800 } }, { agent: 'tester' })
    expect(valueOf(result).status).toBe('timeout')
    // Which use is largest depends on the machine's load; the account is always there.
    expect(valueOf(result).error?.message).toMatch(/within the wall-clock limit of 800 ms \(wallClockMs\); most of it went to .* \(type-checking and compiling \d+ ms, running code \d+ ms \(CPU \d+ ms\), waiting on tool calls 0 ms, waiting on nothing \d+ ms(?:, waiting for a fresh isolate \d+ ms)?\)/)
  })

  it('S6.1 a return value nested too deeply is an error status with a readable message, not a failed run_code', async () => {
    const result = await runCode(`let v: unknown = 0\nfor (let i = 0; i < 3000; i++) v = [v]\nreturn v`)
    expect(result.isError).toBe(false)
    expect(valueOf(result).status).toBe('error')
    expect(valueOf(result).error?.message).toMatch(/nesting deeper than 256 levels/)
  })

  it('S6.1 a return value at the nesting limit is judged where it sits in the result: 255 levels are the value, 256 a script error, never an invalid run_code result', async () => {
    // `$.value` is one level down in run_code's result: 255 levels of the value fit in the 256.
    const fits = await runCode(`let v: unknown = 0\nfor (let i = 0; i < 255; i++) v = [v]\nreturn v`)
    expect(fits.isError).toBe(false)
    expect(valueOf(fits).status).toBe('ok')
    const over = await runCode(`let v: unknown = 0\nfor (let i = 0; i < 256; i++) v = [v]\nreturn v`)
    expect(over.isError).toBe(false)
    expect(valueOf(over).status).toBe('error')
    expect(valueOf(over).error?.message).toMatch(/^The script's return value cannot be the result: \$\.value\[0\].*nesting deeper than 256 levels; send a flatter value \(a list instead of a chain of nested objects\)\.$/)
  })

  it('S9.5 a large return value is pretty-printed once for its render, its spill and the journal, not once each', async () => {
    const pretty = vi.spyOn(JSON, 'stringify')
    try {
      const result = await runCode('return Array.from({ length: 30_000 }, (_, i) => ({ i }))', { typecheck: false })
      expect(valueOf(result).status).toBe('ok')
      const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
      expect(text).toMatch(/the full result is in \S+\]/)
      const printsOfTheValue = pretty.mock.calls.filter(([value, , space]) => space === 2 && Array.isArray(value) && value.length === 30_000)
      expect(printsOfTheValue).toHaveLength(1)
    } finally {
      pretty.mockRestore()
    }
  })

  it('S9.3 an Error whose message getter throws is reported as such, not as an undescribable value', async () => {
    const result = await runCode(`const e = new Error('x')\nObject.defineProperty(e, 'message', { get() { throw new Error('boom') } })\nthrow e`, { typecheck: false })
    expect(valueOf(result).status).toBe('error')
    expect(valueOf(result).error?.message).toMatch(/^a thrown value whose name or message could not be read \(a getter threw\)/)
  })

  it('S9 cancelling the outer call cancels the run', async () => {
    const controller = new AbortController()
    const pending = runCode(`await new Promise(() => {})`, { signal: controller.signal })
    await tick(300)
    controller.abort()
    const result = await pending
    expect(result.error?.kind ?? valueOf(result).status).toMatch(/cancelled/)
    expect(valueOf(await runCode('return 2')).value).toBe(2)
  })
})
