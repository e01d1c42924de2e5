/**
 * Checker threads hand their esbuild transforms to the host (`check/host-transform.ts`, SPEC
 * S9.1): a worker thread that ran esbuild left esbuild's service process a zombie in the host's
 * process table when the pool terminated the thread (a check past its deadline, a host's dispose).
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { answerTransform, transformViaHost } from '../../../src/ptc/check/host-transform.ts'
import { CompileError, compileScript, setScriptTransform } from '../../../src/ptc/compile.ts'

const INDEX = fileURLToPath(new URL('../../../src/index.ts', import.meta.url))

describe('transforms through the host (S9.1)', () => {
  afterEach(() => setScriptTransform(undefined))

  it('S9.1 a script transformed through the host compiles as with esbuild in place, and a syntax error keeps its diagnostics', async () => {
    const sent: string[] = []
    const viaHost = transformViaHost((message) => {
      sent.push(message.source)
      answerTransform(message, (answer) => viaHost.answered(answer))
    })
    const direct = await compileScript('const a: number = 41 // direct\nreturn a + 1')
    const broken = await compileScript('const b = (\nreturn b // direct').then(() => undefined, (error: unknown) => error)
    setScriptTransform(viaHost.transform)
    const relayed = await compileScript('const a: number = 41 // relayed\nreturn a + 1')
    const relayedBroken = await compileScript('const b = (\nreturn b // relayed').then(() => undefined, (error: unknown) => error)
    expect(sent).toHaveLength(4) // two compiles, each the script in its wrapper and in the guard wrapper (compile-source.ts)
    expect(relayed.js.replace('relayed', 'direct')).toBe(direct.js)
    expect(CompileError.isInstance(relayedBroken)).toBe(true)
    expect((relayedBroken as CompileError).diagnostics).toEqual((broken as CompileError).diagnostics)
  })

  it('S9.1 an inline host leaves no zombie esbuild behind: not after a check past its deadline, not after its dispose', () => {
    const seen = scenario(`
      const slow = "type A<N extends number, R extends any[] = []> = R['length'] extends N ? R : A<N, [...R, R]>\\nconst v: A<900> = null as any\\nreturn 1"
      const statuses = []
      for (let round = 0; round < 2; round++) {
        const host = await createHost({ workspace, journal: false, builtins: 'none', ptc: { isolation: 'inline' } })
        for (const args of [{ code: 'const x: number = 1\\nreturn x' }, { code: slow, timeoutMs: 500 }]) statuses.push((await run(host, args)).status)
        await host.dispose()
      }
      await new Promise((resolve) => setTimeout(resolve, 1000))
      return { statuses, zombies: children((state) => state === 'Z') }`)
    expect(seen).toEqual({ statuses: ['ok', 'timeout', 'ok', 'timeout'], zombies: 0 })
  }, 90_000)

  it("S9.1 the last host's dispose stops the host's esbuild service: no esbuild process is left, and a new host compiles again", () => {
    const seen = scenario(`
      const esbuilds = () => children((state, name) => name === 'esbuild')
      const seen = []
      const [one, two] = [await createHost({ workspace, journal: false, builtins: 'none', ptc: { typecheck: false } }), await createHost({ workspace, journal: false, builtins: 'none', ptc: { typecheck: false } })]
      // TypeScript: a plain JavaScript script compiles without esbuild (plain-script.ts).
      seen.push((await run(one, { code: 'const n: number = 1; return n' })).value)
      await one.dispose()
      seen.push(esbuilds(), (await run(two, { code: 'const n: number = 2; return n' })).value)
      await two.dispose()
      await new Promise((resolve) => setTimeout(resolve, 300))
      seen.push(esbuilds())
      const three = await createHost({ workspace, journal: false, builtins: 'none', ptc: { typecheck: false } })
      seen.push((await run(three, { code: 'const n: number = 3; return n' })).value)
      await three.dispose()
      return seen`)
    // One host disposed, one alive: esbuild stays; both gone: none; a new host starts it again.
    expect(seen).toEqual([1, 1, 2, 0, 3])
  }, 90_000)
})

/**
 * Runs `body` (an async function body returning JSON) in a fresh Node process, with `createHost`,
 * a `workspace`, `run(host, args)` (a run_code call's value) and `children(test)` (how many child
 * processes of that process pass `test(state, name)`, from /proc) in scope; its value.
 */
function scenario(body: string): unknown {
  const source = `
    import { readdirSync, readFileSync, mkdtempSync } from 'node:fs'
    import { tmpdir } from 'node:os'
    import { join } from 'node:path'
    import { createHost } from ${JSON.stringify(INDEX)}
    const workspace = mkdtempSync(join(tmpdir(), 'ptc-esbuild-'))
    const run = async (host, args) => (await host.ctx.tools.execute({ name: 'run_code', arguments: args }, { agent: 'test' })).value
    const children = (test) => readdirSync('/proc').filter((entry) => /^\\d+$/.test(entry)).filter((entry) => {
      try {
        const stat = readFileSync('/proc/' + entry + '/stat', 'utf8')
        const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        return Number(rest[1]) === process.pid && test(rest[0], stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')))
      } catch {
        return false
      }
    }).length
    console.log(JSON.stringify(await (async () => {${body}})()))
    process.exit(0)`
  const child = spawnSync(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', source], { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' })
  expect(child.stderr).toBe('')
  return JSON.parse(child.stdout.trim())
}
