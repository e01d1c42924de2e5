/**
 * Bursts of rejected promises cost time linear in their number (issue 11, SPEC S9.3).
 * isolated-vm lists every promise that rejects with no handler during one entry into the isolate
 * and scans the whole list each time one of them gets a handler, so n promises rejected first and
 * handled right after cost n²/2 steps: 100,000 `Promise.reject` in one `Promise.allSettled` took
 * about 75 s where 100,000 resolved ones take 0.3 s. The runtime's `Promise.reject` (and its
 * refusals of tool calls) reject a microtask later, after the script's synchronous handlers.
 *
 * No wall-clock assertion: each run's CPU and wall-clock limits are a multiple of a calibration
 * measured just before on the same pool (100,000 resolved promises through `Promise.allSettled`),
 * so a quadratic cost ends the run as a `timeout` while a linear one finishes `ok` with its value,
 * on a loaded machine as on an idle one.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { IsolatePool } from '../../src/ptc/isolate/isolate-pool.ts'
import { DEFAULT_RUN_LIMITS } from '../../src/ptc/isolate/run-limits.ts'
import { expectHealthy, run } from './harness.ts'

const pool = new IsolatePool({ size: 2 })
afterAll(() => pool.dispose())

/** CPU and wall-clock budget: 40 × the calibration (a linear burst of rejections measured 3×, the quadratic one 100× and more). */
async function budget(): Promise<{ limits: { wallClockMs: number; cpuTimeMs: number }; note: string }> {
  const calibration = await run('await Promise.allSettled(Array.from({ length: 100000 }, (_, i) => Promise.resolve(i)))', { limits: { wallClockMs: 60_000, cpuTimeMs: 60_000 } }, pool)
  expect(calibration.result.status).toBe('ok')
  const ms = Math.ceil(Math.max(DEFAULT_RUN_LIMITS.cpuTimeMs, 40 * calibration.result.durationMs))
  return { limits: { wallClockMs: ms, cpuTimeMs: ms }, note: `budget ${ms} ms (40 × the calibration's ${Math.round(calibration.result.durationMs)} ms)` }
}

describe('issue 11 bursts of rejections', () => {
  it('S9.3 100,000 Promise.reject handled at once by Promise.allSettled settle within a linear budget', { timeout: 600_000 }, async () => {
    const { limits, note } = await budget()
    const { result } = await run(
      'const settled = await Promise.allSettled(Array.from({ length: 100000 }, (_, i) => Promise.reject(new Error(`x${i}`))))\nreturn [settled.length, settled[99999].status, settled[99999].reason.message]',
      { limits },
      pool,
    )
    expect(result.status, note).toBe('ok')
    expect(result.value).toEqual([100000, 'rejected', 'x99999'])
    expect(result.warnings).toBeUndefined()
    await expectHealthy(pool)
  })

  it('S9.3 the deferred Promise.reject keeps the built-in semantics: same reason, caught by await, a subclass gets the built-in, floating ones are reported', async () => {
    const { result } = await run(
      [
        'const reason = { tag: 1 }',
        'let caught',
        'try { await Promise.reject(reason) } catch (e) { caught = e }',
        'class Sub extends Promise {}',
        'const sub = Sub.reject(2); sub.catch(() => {})',
        'Promise.reject(new RangeError("nobody listens"))',
        'return [caught === reason, sub instanceof Sub, Promise.reject.name, Promise.reject.length, await Promise.allSettled([Promise.reject(3)])]',
      ].join('\n'),
      {},
      pool,
    )
    expect(result).toMatchObject({ status: 'ok', value: [true, true, 'reject', 1, [{ status: 'rejected', reason: 3 }]] })
    expect(result.warnings).toMatchObject([{ kind: 'unhandled-rejection', message: expect.stringContaining('RangeError: nobody listens'), frames: [{ line: 6, column: 16 }] }])
  })
})

describe('issue 11 rejections in turns where only successful results arrived', () => {
  const floating = (js: string) => run(js, {}, pool).then(({ result }) => ({ status: result.status, value: result.value, messages: (result.warnings ?? []).map((warning) => `${warning.kind}: ${warning.message.split('.')[0]}`) }))

  it('S9.3 a throwing .then on a successful call is reported while the script awaits another call', async () => {
    expect(await floating('tools.noop({}).then(() => { throw new TypeError("in a then") })\nawait tools.slow({})\nreturn 2')).toEqual({
      status: 'ok',
      value: 2,
      messages: ['unhandled-rejection: Unhandled promise rejection: TypeError: in a then'],
    })
  })

  it('S9.3 an async helper nobody awaits that throws after its successful call is reported', async () => {
    expect(await floating('const helper = async () => { await tools.echo({ n: 1 }); throw new RangeError("in a helper") }\nhelper()\nawait tools.slow({})\nreturn 3')).toEqual({
      status: 'ok',
      value: 3,
      messages: ['unhandled-rejection: Unhandled promise rejection: RangeError: in a helper'],
    })
  })

  it('S9.3 a Promise.reject left floating after a successful call is reported while another call runs', async () => {
    expect(await floating('const later = tools.slow({})\nawait tools.noop({})\nPromise.reject(new Error("after a success"))\nawait later\nreturn 1')).toEqual({
      status: 'ok',
      value: 1,
      messages: ['unhandled-rejection: Unhandled promise rejection: Error: after a success'],
    })
  })

  // The step of a plain sequential script: its successful result is entered without waiting (issue 12).
  it.each([
    ['Promise.reject', 'await tools.echo({})\nPromise.reject(new Error("floating"))\nreturn 1', 'Error: floating'],
    ['an async function nobody awaits that throws', 'async function f() { throw new TypeError("thrown") }\nawait tools.echo({})\nf()\nreturn 1', 'TypeError: thrown'],
    ['a new Promise rejected later in the same step', 'await tools.echo({})\nnew Promise((_, reject) => { Promise.resolve().then(() => Promise.resolve()).then(() => reject(new RangeError("later"))) })\nreturn 1', 'RangeError: later'],
    ['a rejection after the return, in the same step', 'async function g() { for (let i = 0; i < 20; i++) await null\n throw new Error("after the return") }\nawait tools.echo({})\ng()\nreturn 1', 'Error: after the return'],
  ])('S9.3 in the last step, after the only call succeeded, %s is reported', async (_label, js, reason) => {
    expect(await floating(js)).toEqual({ status: 'ok', value: 1, messages: [`unhandled-rejection: Unhandled promise rejection: ${reason}`] })
  })

  // An earlier step: nothing waited for enters the isolate between the rejection and the end.
  it.each([
    ['Promise.reject', 'await tools.echo({})\nPromise.reject(new Error("middle"))\nawait tools.echo({})\nawait tools.echo({})\nreturn 1', 'Error: middle'],
    ['an async function nobody awaits that throws', 'async function f() { throw new TypeError("early") }\nawait tools.echo({})\nf()\nfor (let i = 0; i < 5; i++) await tools.echo({ i })\nreturn 1', 'TypeError: early'],
  ])('S9.3 in an earlier step of a sequential script, %s is reported', async (_label, js, reason) => {
    expect(await floating(js)).toEqual({ status: 'ok', value: 1, messages: [`unhandled-rejection: Unhandled promise rejection: ${reason}`] })
  })

  it('S9.3 a hostile reason in the last step (a Proxy, a throwing getter) is still reported; one whose trap spins is stopped by the CPU limit, the returned value standing with a kept-running warning, and the host goes on', async () => {
    for (const reason of ['new Proxy({}, { get() { throw new Error("trap") } })', '{ get message() { throw new Error("getter") }, toString() { throw 1 } }']) {
      const { result } = await run(`await tools.echo({})\nPromise.reject(${reason})\nreturn 1`, {}, pool)
      expect(result).toMatchObject({ status: 'ok', value: 1, warnings: [{ kind: 'unhandled-rejection', message: expect.stringContaining('a non-Error object (not an Error') }] })
    }
    const { result } = await run('await tools.echo({})\nPromise.reject(new Proxy({}, { get() { for (;;) {} } }))\nreturn 1', { limits: { cpuTimeMs: 500 } }, pool)
    expect(result).toMatchObject({ status: 'ok', value: 1 })
    expect(result.warnings).toContainEqual({ kind: 'kept-running', message: expect.stringContaining('until the CPU limit (500 ms) stopped it') })
    await expectHealthy(pool)
  })

  it('S9.3 in the steps of a sequential script, a rejection handled in the same step or a later one is not reported', async () => {
    expect(await floating('await tools.echo({})\nawait Promise.reject(new Error("caught")).catch(() => 0)\ntry { await (async () => { throw new Error("also caught") })() } catch {}\nreturn 1')).toEqual({ status: 'ok', value: 1, messages: [] })
    expect(await floating('await tools.echo({})\nconst p = (async () => { throw new Error("caught later") })()\nawait tools.echo({})\nawait p.catch(() => 0)\nreturn 1')).toEqual({ status: 'ok', value: 1, messages: [] })
  })

  it('S9.3 a sequential loop of successful calls that handles everything has no warning', async () => {
    expect(await floating('let n = 0\nfor (let i = 0; i < 50; i++) n += (await tools.echo({ i })).i\nreturn n')).toEqual({ status: 'ok', value: 1225, messages: [] })
  })
})
