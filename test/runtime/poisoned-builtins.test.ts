/**
 * The runtime depends on nothing a script can change (SPEC S9.1–S9.3): each case poisons one
 * built-in before any tool call, then walks every tool-call path (success, failure, denial, a
 * tool-call timeout, arguments refused inside the isolate, the call limit, a misspelt tool name,
 * console, the return value, an uncaught error, the run's deadline) and checks each still
 * settles with its usual outcome.
 *
 * Not combined, on purpose: a replaced `Promise.prototype.constructor` together with a replaced
 * `then` diverts every `await` the script itself writes (the runtime's own await is protected).
 *
 * Not poisoned, on purpose: `then` and `toJSON` on Object.prototype. They change what the
 * script's own `await` and `JSON` do with every plain object (an inherited `then` makes each
 * result a thenable the script awaits); that is the script's semantics, not the runtime's.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { IsolateToolCall, IsolateToolOutcome } from '../../src/ptc/isolate/isolate-contract.ts'
import { IsolatePool } from '../../src/ptc/isolate/isolate-pool.ts'
import { run } from './harness.ts'

const pool = new IsolatePool({ size: 2 })
afterAll(() => pool.dispose())

const TOOLS = ['echo', 'fail', 'deny', 'late', 'hang']

async function dispatch(call: IsolateToolCall): Promise<IsolateToolOutcome> {
  switch (call.name) {
    case 'echo':
      return { ok: true, valueJson: call.argsJson }
    case 'fail':
      return { ok: false, message: 'the tool failed: boom' }
    case 'deny':
      return { ok: false, message: 'denied by policy: not allowed here' }
    case 'late':
      await new Promise((resolve) => setTimeout(resolve, 5))
      return { ok: false, message: 'the tool timed out after 5 ms' }
    default:
      return new Promise(() => {})
  }
}

const thrower = (what: string) => `function () { throw new Error(${JSON.stringify(`poisoned ${what}`)}) }`
// The poisons themselves use a captured defineProperty and null-prototype descriptors, so that
// applying them all in one script does not trip over the earlier ones.
const accessor = (target: string, key: string) =>
  `__define(${target}, ${key}, { __proto__: null, get: ${thrower(`${target} ${key} get`)}, set: ${thrower(`${target} ${key} set`)}, configurable: true })`
const replace = (target: string, key: string) => `__define(${target}, ${key}, { __proto__: null, value: ${thrower(`${target} ${key}`)}, writable: true, configurable: true })`
const PRELUDE = 'const __define = Object.defineProperty\n'

const OBJECT_KEYS = ['get', 'set', 'value', 'writable', 'enumerable', 'configurable', 'name', 'message', 'toolName', 'resolve', 'reject', 'stack', 'constructor', 'holder', 'key', '0', '1', '2', 'cause', 'errors', 'prototype', '__proto__']

const POISONS: [label: string, code: string][] = [
  ...OBJECT_KEYS.map((key): [string, string] => [`an accessor Object.prototype.${key}`, accessor('Object.prototype', `'${key}'`)]),
  ...['0', '1', '2', 'length'].map((key): [string, string] => [`an accessor Array.prototype[${key}]`, key === 'length' ? replace('Array.prototype', "'at'") : accessor('Array.prototype', `'${key}'`)]),
  ...['push', 'pop', 'shift', 'slice', 'map', 'join', 'indexOf', 'includes', 'forEach', 'concat'].map((key): [string, string] => [`Array.prototype.${key}`, replace('Array.prototype', `'${key}'`)]),
  ['Array.prototype[Symbol.iterator]', replace('Array.prototype', 'Symbol.iterator')],
  ['Promise.prototype.then', replace('Promise.prototype', "'then'")],
  ['Promise.prototype.catch and finally', `${replace('Promise.prototype', "'catch'")}; ${replace('Promise.prototype', "'finally'")}`],
  ['Promise.prototype.constructor', `Promise.prototype.constructor = function Fake() {}`],
  ['Promise[Symbol.species]', accessor('Promise', 'Symbol.species')],
  ['Promise.resolve, reject and all', `${replace('Promise', "'resolve'")}; ${replace('Promise', "'reject'")}; ${replace('Promise', "'all'")}`],
  ['Error.prototype name, message and toString', `${accessor('Error.prototype', "'name'")}; ${accessor('Error.prototype', "'message'")}; ${replace('Error.prototype', "'toString'")}`],
  ['Error.captureStackTrace', replace('Error', "'captureStackTrace'")],
  ['Error.prepareStackTrace', `Error.prepareStackTrace = ${thrower('prepareStackTrace')}`],
  ['Error.stackTraceLimit', accessor('Error', "'stackTraceLimit'")],
  ['Error[Symbol.hasInstance]', replace('Error', 'Symbol.hasInstance')],
  ['JSON.parse and JSON.stringify', `${replace('JSON', "'parse'")}; ${replace('JSON', "'stringify'")}`],
  ['Function.prototype call, apply and bind', `${replace('Function.prototype', "'call'")}; ${replace('Function.prototype', "'apply'")}; ${replace('Function.prototype', "'bind'")}`],
  ['Reflect.apply', replace('Reflect', "'apply'")],
  ['Object.defineProperty, create, freeze, getPrototypeOf, hasOwn', ['defineProperty', 'create', 'freeze', 'getPrototypeOf', 'hasOwn'].map((key) => `Object.${key} = ${thrower(key)}`).join('; ')],
  ['Map.prototype get, set and has', `${replace('Map.prototype', "'get'")}; ${replace('Map.prototype', "'set'")}; ${replace('Map.prototype', "'has'")}`],
  ['String.prototype slice and charCodeAt', `${replace('String.prototype', "'slice'")}; ${replace('String.prototype', "'charCodeAt'")}`],
  ['String.prototype toLowerCase and indexOf', `${replace('String.prototype', "'toLowerCase'")}; ${replace('String.prototype', "'indexOf'")}`],
  ['Proxy', `Proxy = ${thrower('Proxy')}`],
  ['RegExp.prototype exec', replace('RegExp.prototype', "'exec'")],
  ['Number.isFinite, Array.isArray, ArrayBuffer.isView', `Number.isFinite = ${thrower('isFinite')}; Array.isArray = ${thrower('isArray')}; ArrayBuffer.isView = ${thrower('isView')}`],
  ['Symbol.prototype description and toString', `${accessor('Symbol.prototype', "'description'")}; ${replace('Symbol.prototype', "'toString'")}`],
]

/** Poisons of how V8 formats and sizes an error's stack: the script's own errors may lose their line. */
const STACK_FORMAT_POISONS = ['Error.prepareStackTrace', 'Error.stackTraceLimit']

/** Every tool-call path; only primitives and own properties, so the script itself survives each poison. */
const PATHS = `
let ok = 'unset', failed = 'unset', denied = 'unset', late = 'unset', refused = 'unset', limited = 'unset', unknown = 'unset'
try { const r = await tools.echo({ a: 1, list: [2, 3] }); ok = 'ok ' + r.a + r.list[1] } catch (e) { ok = 'threw ' + e.message }
try { await tools.fail({}); failed = 'resolved' } catch (e) { failed = e.name + ' ' + e.toolName + ' ' + e.message }
try { await tools.echo({ m: new Set() }); refused = 'resolved' } catch (e) { refused = e.name + ' ' + e.message }
try { await tools.deny({}); denied = 'resolved' } catch (e) { denied = e.name + ' ' + e.message }
try { await tools.late({}); late = 'resolved' } catch (e) { late = e.name + ' ' + e.message }
try { await tools.echo({}); limited = 'resolved' } catch (e) { limited = e.name + ' ' + e.message }
try { await tools.ehco({}); unknown = 'resolved' } catch (e) { unknown = e.name + ' ' + e.message }
console.log('logged', 1)
return ok + ' | ' + failed + ' | ' + refused + ' | ' + denied + ' | ' + late + ' | ' + limited + ' | ' + unknown
`

const EXPECTED = [
  'ok 13',
  'ToolCallError fail the tool failed: boom',
  'ToolCallError the arguments cannot be sent as JSON: args.m is a Set: convert it with Array.from(set)',
  'ToolCallError denied by policy: not allowed here',
  'ToolCallError the tool timed out after 5 ms',
  'ToolCallError tool call limit reached: a run may make at most 4 tool calls (maxToolCalls); this call was not made. Batch the work into fewer calls.',
  "ToolCallError There is no tool named 'ehco'. Did you mean 'echo'? The tools are: deny, echo, fail, hang, late.",
].join(' | ')

describe('S9.1–S9.3 poisoned built-ins cannot stop a tool call from settling', () => {
  it.each(POISONS)('S9.3 after poisoning %s every tool-call path settles as usual', async (_label, poison) => {
    const { result, calls } = await run(`${PRELUDE}${poison}\n${PATHS}`, { toolNames: TOOLS, dispatch, limits: { maxToolCalls: 4, wallClockMs: 20_000 } }, pool)
    expect(result.error).toBeUndefined()
    expect(result).toMatchObject({ status: 'ok', value: EXPECTED, logs: [{ level: 'log', text: 'logged 1' }] })
    expect(calls.map((call) => call.name)).toEqual(['echo', 'fail', 'deny', 'late'])
  })

  it.each(POISONS)('S9.3 after poisoning %s an uncaught error still ends the run as status error with its message and line', async (label, poison) => {
    const { result } = await run(`${PRELUDE}${poison}\nawait tools.echo({})\n  null.x`, { toolNames: TOOLS, dispatch }, pool)
    expect(result.status).toBe('error')
    expect(result.error).toMatchObject({ name: 'TypeError', message: "Cannot read properties of null (reading 'x')" })
    // Issue 11: the line is read from the error's own stack, which these two poisons take over
    // (V8 formats and sizes stacks with them), so they may cost the line, never the run.
    if (STACK_FORMAT_POISONS.includes(label)) expect(result.error?.frames).toBeUndefined()
    else expect(result.error?.frames).toEqual([{ line: 4, column: 8 }])
  })

  it.each(POISONS)('S9.1 after poisoning %s a call left without await is waited for and reported, and so is a floating rejection', async (_label, poison) => {
    const { result, calls } = await run(`${PRELUDE}${poison}\n;(async () => { throw 'floating' })()\ntools.echo({ floating: true })\nreturn 'returned'`, { toolNames: TOOLS, dispatch }, pool)
    expect(result).toMatchObject({ status: 'ok', value: 'returned', toolCalls: 1 })
    expect(calls.map((call) => call.argsJson)).toEqual(['{"floating":true}'])
    expect(result.warnings?.map((warning) => warning.message.split('. ')[0])).toEqual([
      '1 tool call was not awaited, still running when the script returned: echo {"floating":true}',
      'Unhandled promise rejection: floating',
    ])
  })

  // Not with Promise[Symbol.species]: the built-in `then` the script calls reads it (on any promise).
  const THEN_POISONS = POISONS.filter(([label]) => label !== 'Promise[Symbol.species]')

  it.each(THEN_POISONS)('S9.1 after poisoning %s a call the script reacted to with .then and left running is reported as abandoned, not unawaited', async (_label, poison) => {
    const { result } = await run(`${PRELUDE}${poison}\ntools.late({}).then(undefined, () => {})\nreturn 'returned'`, { toolNames: TOOLS, dispatch }, pool)
    expect(result).toMatchObject({ status: 'ok', value: 'returned', toolCalls: 1 })
    expect(result.warnings?.map((warning) => `${warning.kind}: ${warning.message.split(': late')[0]}`)).toEqual([
      'abandoned-calls: 1 tool call was still running when the script returned, although it had passed it to Promise.all (or race, any, .then)',
    ])
  })

  const ALL = PRELUDE + POISONS.filter(([label]) => label !== 'Promise.prototype.constructor').map(([, code]) => code).join('\n')

  it('S9.3 with Promise.prototype.constructor and then replaced, an uncaught error still ends the run as status error', async () => {
    const { result } = await run(`${PRELUDE}Promise.prototype.constructor = function Fake() {}\n${replace('Promise.prototype', "'then'")}\nnull.x`, { toolNames: TOOLS, dispatch }, pool)
    expect(result).toMatchObject({ status: 'error', error: { name: 'TypeError', message: "Cannot read properties of null (reading 'x')" } })
  })

  it('S9.3 with every poison at once, an uncaught error still ends the run as status error with its message', async () => {
    const { result } = await run(`${ALL}\nawait tools.echo({})\nnull.x`, { toolNames: TOOLS, dispatch }, pool)
    expect(result.status).toBe('error')
    expect(result.error).toMatchObject({ name: 'TypeError', message: "Cannot read properties of null (reading 'x')" })
  })

  it('S9.3 with every poison at once, an uncaught ToolCallError still names its tool', async () => {
    const { result } = await run(`${ALL}\nawait tools.fail({})`, { toolNames: TOOLS, dispatch }, pool)
    expect(result).toMatchObject({ status: 'error', error: { name: 'ToolCallError', toolName: 'fail', message: 'the tool failed: boom' } })
  })

  it('S9.3 with every poison at once, a call that never answers ends at the run deadline as status timeout', async () => {
    const { result } = await run(`${ALL}\nawait tools.hang({})`, { toolNames: TOOLS, dispatch, limits: { wallClockMs: 300 } }, pool)
    expect(result.status).toBe('timeout')
  })

  it('S9.3 with every poison at once, every path still settles', async () => {
    const { result } = await run(`${ALL}\n${PATHS}`, { toolNames: TOOLS, dispatch, limits: { maxToolCalls: 4, wallClockMs: 20_000 } }, pool)
    expect(result).toMatchObject({ status: 'ok', value: EXPECTED })
  })
})
