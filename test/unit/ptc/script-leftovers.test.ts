/**
 * Nothing vanishes at return (issue 11, SPEC S9.1–S9.3): a tool call still running when the
 * script ends is waited for and reported in `warnings` with its outcome, a rejection nothing
 * handled is reported with its line, and none of the script's code runs after it ended. Hostile
 * cases (floating calls, floating rejections, many of both, rejections handled late) in both
 * isolation modes, through `ptc.run` and the journal's `tools/result` events.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { renderRunCode, type RunCodeValue } from '../../../src/ptc/run-code-value.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import type { ToolResult } from '../../../src/tools/types.ts'
import { usePtcRoot } from '../../helpers/ptc-root.ts'
import { echoTool, tick } from '../../helpers/registry.ts'

const HANG = new Promise<never>(() => {})

describe.each(['process', 'inline'] as const)('issue 11 nothing vanishes at return (isolation %s)', (isolation) => {
  const saved = new Map<string, string>()
  const results: ToolResult[] = []
  const rootOf = usePtcRoot({ isolation, typecheck: false, concurrency: 8 }, (ctx) => {
    ctx.tools.register(echoTool())
    ctx.tools.register(
      defineTool({
        name: 'save',
        description: 'Saves text under a name, a little later.',
        // delayMs: how much later (default 20 ms); longer where a test needs the call still running after a round trip.
        parameters: z.object({ name: z.string(), text: z.string(), delayMs: z.number().optional() }),
        output: { schema: z.object({ saved: z.string() }), render: (_args, value) => [{ type: 'text', text: value.saved }] },
        isConcurrencySafe: () => true,
        async execute(args) {
          await tick(args.delayMs ?? 20)
          saved.set(args.name, args.text)
          return { saved: args.name }
        },
      }),
    )
    ctx.tools.register(
      defineTool({
        name: 'refuse',
        description: 'Always fails.',
        parameters: z.object({}),
        output: { schema: z.object({}), render: () => [] },
        isConcurrencySafe: () => true,
        execute: () => {
          throw new Error('the disk is full')
        },
      }),
    )
    ctx.tools.register(
      defineTool({
        name: 'hang',
        description: 'Never answers.',
        parameters: z.object({}),
        output: { schema: z.object({}), render: () => [] },
        isConcurrencySafe: () => true,
        execute: () => HANG,
      }),
    )
    ctx.on('tools/result', (result) => void results.push(result))
  })
  const run = (code: string, timeoutMs?: number, memoryMb?: number): Promise<RunCodeValue> =>
    rootOf().ptc.run(code, { ...(timeoutMs !== undefined && { timeoutMs }), ...(memoryMb !== undefined && { memoryMb }) })
  const resultsOf = (name: string) => results.filter((result) => result.name === name)
  const kinds = (value: RunCodeValue) => (value.warnings ?? []).map((warning) => warning.kind)

  it('S9.1 a tool call left without await is waited for: the file is written, the journal says ok, and the result warns', async () => {
    results.length = 0
    const value = await run('tools.save({ name: "notes.txt", text: "hello" })\nreturn "saved"')
    expect(value).toMatchObject({ status: 'ok', value: 'saved', toolCalls: 1 })
    expect(saved.get('notes.txt')).toBe('hello')
    expect(resultsOf('save')).toMatchObject([{ isError: false, value: { saved: 'notes.txt' } }])
    expect(value.warnings).toEqual([
      {
        kind: 'unawaited-calls',
        message:
          '1 tool call was not awaited, still running when the script returned: save {"name":"notes.txt","text":"hello"}. The run waited for it: it succeeded. The script never saw its result; await every tool call.',
      },
    ])
    const [content] = renderRunCode(value)
    expect(content?.type === 'text' && content.text).toContain('\nwarnings:\n  - 1 tool call was not awaited')
  })

  it('S9.3 a failing call left without await is reported with its failure; the run stays the script’s own outcome', async () => {
    const value = await run('tools.refuse({})\nreturn 1')
    expect(value).toMatchObject({ status: 'ok', value: 1, toolCalls: 1 })
    expect(kinds(value)).toEqual(['unawaited-calls'])
    expect(value.warnings?.[0]?.message).toContain('The run waited for it: it failed (refuse {}: ')
    expect(value.warnings?.[0]?.message).toContain('the disk is full')
  })

  it('S9.3 a floating rejection is reported with the line where its error was created', async () => {
    const value = await run('const x = 1\n  Promise.reject(new RangeError("nobody listens"))\nreturn x')
    expect(value).toMatchObject({ status: 'ok', value: 1 })
    expect(value.warnings).toEqual([
      {
        kind: 'unhandled-rejection',
        message: 'Unhandled promise rejection: RangeError: nobody listens. Nothing awaited or caught this promise when it rejected; await every promise the script starts (Promise.all for many).',
        line: 2,
        column: 18,
      },
    ])
    const [content] = renderRunCode(value)
    expect(content?.type === 'text' && content.text).toContain('(at line 2:18)')
  })

  it.each([
    ['Promise.reject', 'await tools.echo({ text: "a" })\nPromise.reject(new Error("floating"))\nreturn 1', 'Error: floating', 2],
    ['an async function nobody awaits that throws', 'async function f() { throw new TypeError("thrown") }\nawait tools.echo({ text: "a" })\nf()\nreturn 1', 'TypeError: thrown', 1],
    ['a new Promise rejected later in the same step', 'await tools.echo({ text: "a" })\nnew Promise((_, reject) => { Promise.resolve().then(() => reject(new RangeError("later"))) })\nreturn 1', 'RangeError: later', 2],
    ['a rejection after the return', 'async function g() { for (let i = 0; i < 20; i++) await null\n  throw new Error("after the return") }\nawait tools.echo({ text: "a" })\ng()\nreturn 1', 'Error: after the return', 2],
  ])('S9.3 in the last step of a sequential script (after the only call succeeded), %s is reported with its line', async (_label, code, reason, line) => {
    const value = await run(code)
    expect(value).toMatchObject({ status: 'ok', value: 1, toolCalls: 1 })
    expect(value.warnings?.map((warning) => [warning.kind, warning.message.split('. ')[0], warning.line])).toEqual([['unhandled-rejection', `Unhandled promise rejection: ${reason}`, line]])
  })

  it('S9.3 a rejection with a non-Error value names the value, as a thrown one does', async () => {
    const value = await run('Promise.reject(42)\nPromise.reject(10n)\nawait tools.echo({ text: "a" })\nPromise.reject({ code: 7 })\nreturn 1')
    const hint = ' (not an Error, so no line is known: reject with new Error(…) to get one)'
    expect(value.warnings?.map((warning) => warning.message.split('. Nothing awaited')[0])).toEqual([`Unhandled promise rejection: a non-Error value: 42${hint}`, 'Unhandled promise rejection: a non-Error object (not an Error, so neither its value nor its line is known: reject with new Error(…) to get them)'])
  })

  it('S9.3 in an earlier step of a sequential script, a rejection never handled is reported with its line', async () => {
    const value = await run('await tools.echo({ text: "a" })\nPromise.reject(new Error("middle"))\nawait tools.echo({ text: "b" })\nreturn 1')
    expect(value).toMatchObject({ status: 'ok', value: 1, toolCalls: 2 })
    expect(value.warnings?.map((warning) => [warning.kind, warning.message.split('. ')[0], warning.line])).toEqual([['unhandled-rejection', 'Unhandled promise rejection: Error: middle', 2]])
  })

  it('S9.3 in the last step of a sequential script, a rejection the script handles is not reported', async () => {
    const value = await run('await tools.echo({ text: "a" })\nconst caught = await Promise.reject(new Error("x")).catch((e) => e.message)\ntry { await (async () => { throw new Error("y") })() } catch {}\nreturn caught')
    expect(value).toMatchObject({ status: 'ok', value: 'x', toolCalls: 1 })
    expect(value.warnings).toBeUndefined()
  })

  it('S9.3 rejections that float after a failed call, in a callback or in an async function nobody awaits, are reported, with their lines when known', async () => {
    const value = await run(
      [
        'try { await tools.refuse({}) } catch {}',
        'Promise.reject(new Error("after an await"))',
        'tools.refuse({}).catch((e) => { throw new TypeError(`in a callback: ${e.name}`) })',
        'await tools.save({ name: "after.txt", text: "-" })',
        'const forgotten = async () => { await tools.refuse({}) }',
        'forgotten()',
        'await tools.save({ name: "after.txt", text: "-" })',
        'return "done"',
      ].join('\n'),
    )
    expect(value).toMatchObject({ status: 'ok', value: 'done' })
    expect(value.warnings?.map(({ message, line }) => [message.split('.')[0], line])).toEqual([
      ['Unhandled promise rejection: Error: after an await', 2],
      ['Unhandled promise rejection: TypeError: in a callback: ToolCallError', 3],
      ['Unhandled promise rejection: ToolCallError: Tool "refuse" failed: the disk is full', undefined],
    ])
  })

  it('S9.1 many floating calls are all run and reported in one warning; many floating rejections are capped with a count', async () => {
    saved.clear()
    const calls = await run('for (let i = 0; i < 60; i++) tools.save({ name: `f${i}`, text: String(i) })\nreturn "queued"')
    expect(calls).toMatchObject({ status: 'ok', value: 'queued', toolCalls: 60 })
    expect(saved.size).toBe(60)
    expect(calls.warnings).toHaveLength(1)
    expect(calls.warnings?.[0]?.message).toMatch(/^60 tool calls were not awaited, still running when the script returned: save \{"name":"f0","text":"0"\}, save \{"name":"f1","text":"1"\}, save \{"name":"f2","text":"2"\}, and 57 more\. The run waited for them: 60 succeeded\./)

    const rejections = await run('for (let i = 0; i < 15; i++) {\n  await tools.refuse({}).catch(() => {})\n  Promise.reject(new Error(`r${i}`))\n}\nreturn 15')
    expect(rejections).toMatchObject({ status: 'ok', value: 15 })
    expect(kinds(rejections)).toEqual(Array(11).fill('unhandled-rejection'))
    expect(rejections.warnings?.[0]).toMatchObject({ line: 3, message: expect.stringContaining('Error: r0.') })
    expect(rejections.warnings?.[10]?.message).toBe('5 more unhandled promise rejections were not listed.')

    const burst = await run('for (let i = 0; i < 1000; i++) Promise.reject(new Error(`b${i}`))\nreturn "burst"')
    expect(burst).toMatchObject({ status: 'ok', value: 'burst' })
    expect(burst.warnings?.[0]?.message).toContain('Error: b0.')
  })

  it('S9.3 a rejection handled later in the same turn is not reported; one first handled after another await is (Node’s rule)', async () => {
    const sameTurn = await run('const p = tools.refuse({})\nawait null\nawait null\ntry { await p } catch (e) { return `caught: ${e.name}` }')
    expect(sameTurn).toMatchObject({ status: 'ok', value: 'caught: ToolCallError' })
    expect(sameTurn.warnings).toBeUndefined()
    // Two calls in between: under load the refusal and the first save's answer may reach the
    // isolate together (one entry), but the second save is always a later turn.
    const laterTurn = await run('const p = tools.refuse({})\nawait tools.save({ name: "between.txt", text: "-" })\nawait tools.save({ name: "between.txt", text: "-" })\ntry { await p } catch (e) { return `caught: ${e.name}` }')
    expect(laterTurn).toMatchObject({ status: 'ok', value: 'caught: ToolCallError' })
    expect(kinds(laterTurn)).toEqual(['unhandled-rejection'])
    expect(laterTurn.warnings?.[0]?.message).toContain('ToolCallError')
  })

  it('S9.3 an uncaught ToolCallError names the tool whose call failed, in the value and the rendered content', async () => {
    const value = await run('const r = await tools.echo({ text: "a" })\nawait tools.refuse({})\nreturn r')
    expect(value).toMatchObject({ status: 'error', error: { name: 'ToolCallError', toolName: 'refuse' } })
    const [content] = renderRunCode(value)
    expect(content?.type === 'text' && content.text).toContain('error: ToolCallError (tools.refuse): ')
  })

  it('S9.1 no code of the script runs after it ended: a .then on an unawaited call never runs', async () => {
    saved.delete('late.txt')
    const value = await run('tools.echo({ text: "x" }).then(() => tools.save({ name: "late.txt", text: "never" }))\nreturn 1')
    expect(value).toMatchObject({ status: 'ok', value: 1, toolCalls: 1 })
    expect(saved.has('late.txt')).toBe(false)
    expect(value.warnings).toMatchObject([{ kind: 'abandoned-calls', message: expect.stringContaining('passed it to Promise.all (or race, any, .then): echo {"text":"x"}') }])
  })

  it('S9.1 a script that throws with calls running still gets them waited for, and its error stands', async () => {
    saved.delete('sibling.txt')
    // 300 ms: the save still runs when refuse's failure reaches the script (two clean-clone runs at load 5-7 saw it end first).
    const value = await run('await Promise.all([tools.refuse({}), tools.save({ name: "sibling.txt", text: "kept", delayMs: 300 })])')
    expect(value).toMatchObject({ status: 'error', error: { name: 'ToolCallError' }, toolCalls: 2 })
    expect(saved.get('sibling.txt')).toBe('kept')
    expect(kinds(value)).toEqual(['abandoned-calls'])
    expect(value.warnings?.[0]?.message).toMatch(/^1 tool call was still running when the script threw, although it had passed it to Promise\.all .*: save .*it succeeded/)
  })

  it('S9.1 the siblings of a failed call in a Promise.all the script caught are reported as left behind by it, not as unawaited', async () => {
    saved.delete('left.txt')
    // 300 ms: both saves must still be running after refuse's round trip (without a delay one had ended first in a full run at load 4).
    const value = await run(
      'try { await Promise.all([tools.save({ name: "left.txt", text: "kept", delayMs: 300 }), tools.refuse({}), tools.save({ name: "left.txt", text: "again", delayMs: 300 })]) } catch { return "caught" }\nreturn "unreachable"',
    )
    expect(value).toMatchObject({ status: 'ok', value: 'caught', toolCalls: 3 })
    expect(saved.get('left.txt')).toBe('again')
    expect(value.warnings).toEqual([
      {
        kind: 'abandoned-calls',
        message:
          '2 tool calls were still running when the script returned, although it had passed them to Promise.all (or race, any, .then): save {"name":"left.txt","text":"kept","delayMs":300}, save {"name":"left.txt","text":"again","delayMs":300}. ' +
          'Before that, refuse {} failed (Tool "refuse" failed: the disk is full), and a Promise.all rejects at its first failure without waiting for the rest. ' +
          'The run waited for them: 2 succeeded. The script never saw their results; to wait for every call, await Promise.allSettled.',
      },
    ])
  })

  it('S9.1 calls awaited inside async callbacks of a caught Promise.all are not said to be unawaited: the warning tells the Promise.all story and says Promise.allSettled', async () => {
    // 500 ms: both saves must still be running after refuse's round trip (20 ms was not enough in a fresh-clone run at load 6).
    const value = await run(
      'const names = ["x.txt", "fail", "y.txt"]\n' +
        'try { await Promise.all(names.map(async (name) => { if (name === "fail") return await tools.refuse({}); return await tools.save({ name, text: name, delayMs: 500 }) })) } catch { return "caught" }\nreturn 0',
    )
    expect(value).toMatchObject({ status: 'ok', value: 'caught', toolCalls: 3 })
    expect(kinds(value)).toEqual(['unawaited-calls'])
    expect(value.warnings?.[0]?.message).toBe(
      '2 tool calls were still running when the script returned, with nothing left waiting for them: save {"name":"x.txt","text":"x.txt","delayMs":500}, save {"name":"y.txt","text":"y.txt","delayMs":500}. ' +
        'Before that, refuse {} failed (Tool "refuse" failed: the disk is full): if these calls were awaited inside callbacks passed to Promise.all (list.map(async (x) => await tools.…)), ' +
        'the Promise.all rejected at that failure without waiting for the other callbacks. The run waited for them: 2 succeeded. The script never saw their results; to wait for every call, await Promise.allSettled, or await every tool call.',
    )
  })

  it('S9.1 a script with both kinds left over gets one warning each: the calls it never awaited, and those a caught Promise.all left behind', async () => {
    // 500 ms: both saves must still be running after refuse's round trip (20 ms was not always enough at load 6).
    const value = await run('tools.save({ name: "a.txt", text: "a", delayMs: 500 })\ntry { await Promise.all([tools.refuse({}), tools.save({ name: "b.txt", text: "b", delayMs: 500 })]) } catch {}\nreturn 2')
    expect(value).toMatchObject({ status: 'ok', value: 2, toolCalls: 3 })
    expect(kinds(value)).toEqual(['unawaited-calls', 'abandoned-calls'])
    expect(value.warnings?.[0]?.message).toMatch(/^1 tool call was not awaited, still running when the script returned: save \{"name":"a\.txt"/)
    expect(value.warnings?.[1]?.message).toMatch(/^1 tool call was still running when the script returned, although it had passed it to Promise\.all .*: save \{"name":"b\.txt"/)
  })

  it('S9.7 a call that never answers is cancelled at the deadline; the script’s own result stands and the warning says so', async () => {
    results.length = 0
    const value = await run('tools.hang({})\nreturn "returned"', 1_500)
    expect(value).toMatchObject({ status: 'ok', value: 'returned', toolCalls: 1 })
    expect(value.warnings?.[0]?.message).toContain("The run waited for it: the run's wall-clock limit cancelled it before it finished (it may or may not have taken effect).")
    expect(resultsOf('hang')).toMatchObject([{ isError: true }])
    const healthy = await run('return (await tools.echo({ text: "ok" })).text')
    expect(healthy).toMatchObject({ status: 'ok', value: 'ok' })
    expect(healthy.warnings).toBeUndefined()
  })

  it('S9.1 code still running after the script returned is stopped by whichever limit it hits (wall clock, memory); the result stands, with a kept-running warning naming the limit', async () => {
    const spin = await run('(async () => { await null; for (;;) await null })()\nreturn "the answer"', 1_000)
    expect(spin).toMatchObject({ status: 'ok', value: 'the answer' })
    expect(spin.warnings).toEqual([{ kind: 'kept-running', message: expect.stringMatching(/^The script returned, but its code kept running after that .* until the run's wall-clock limit stopped it; its result stands\./) }])
    // 32 MB, not the default 128: the same limit is reached with a quarter of the allocation. Its
    // isolate is made for the run, not taken from the pool (another limit): the ending is the runner's either way.
    const grow = await run('const junk = []\n;(async () => { await null; for (;;) { await null; junk.push(new Array(10_000).fill(1)) } })()\nreturn "the answer"', 20_000, 32)
    expect(grow).toMatchObject({ status: 'ok', value: 'the answer' })
    expect(grow.warnings).toEqual([{ kind: 'kept-running', message: expect.stringMatching(/until the memory limit \(32 MB\) stopped it; its result stands/) }])
    expect(await run('return 2')).toMatchObject({ status: 'ok', value: 2 })
  })
})
