/**
 * Loading `--tools` modules (issue 14): a TypeScript plugin with `import`/`export` in a project
 * whose package.json says `"type": "commonjs"` (what `npm init -y` writes) is loaded by Node as
 * CommonJS and fails; the user gets one line naming the file and the two fixes, and not Node's
 * warning and raw SyntaxError.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const LOADER = new URL('../../../src/host/load-tool-modules.ts', import.meta.url).href
const REGISTRY = new URL('../../../src/pipeline/tool-registry.ts', import.meta.url).href
const INDEX = new URL('../../../src/index.ts', import.meta.url).href

/**
 * `loadToolModules` of `file` in a plain Node process (vitest's own module loader would transform
 * the plugin and hide how Node loads it): the error message, and every warning its listeners heard.
 */
async function loadInNode(files: string | string[]): Promise<{ message: string; code: string; warnings: string[] }> {
  const script = `
    import { Context } from 'cordis'
    import { loadToolModules } from ${JSON.stringify(LOADER)}
    import { ToolRegistry } from ${JSON.stringify(REGISTRY)}
    const warnings = []
    process.on('warning', (warning) => warnings.push(warning.message))
    let message = ''
    let code = ''
    const ctx = new Context()
    await ctx.plugin(ToolRegistry)
    try { await loadToolModules(ctx, ${JSON.stringify([files].flat())}) } catch (error) { message = error.message; code = error.code }
    process.emitWarning('still heard')
    // Written, then exit: a module may have left a timer running that would keep this process alive.
    setImmediate(() => process.stdout.write(JSON.stringify({ message, code, warnings }) + '\\n', () => process.exit(0)))
  `
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: import.meta.dirname, timeout: 60_000 })
  return JSON.parse(stdout) as { message: string; code: string; warnings: string[] }
}

/** One case of {@link loadEachInNode}: the modules of one `loadToolModules` call, and its limit. */
interface LoadCase {
  files: string | string[]
  limitMs?: number
}

/**
 * `loadToolModules` of each case in turn, each into a fresh cordis Context with its own registry, in
 * one plain Node process (a process per case cost about 0.6 s of CPU each): what each rejected
 * with, by case name, and the process's error if it failed (a case without an answer then failed
 * with it). Only for cases that leave the process as they found it: not the CommonJS ones (Node
 * caches a failed module, so a second import would not warn again), and of the stalls, the one that
 * keeps a timer running goes last.
 */
async function loadEachInNode(cases: Record<string, LoadCase>): Promise<{ answers: Map<string, { message: string; code: string }>; error?: Error }> {
  const names = Object.keys(cases)
  const script = `
    import { Context } from 'cordis'
    import { loadToolModules } from ${JSON.stringify(LOADER)}
    import { ToolRegistry } from ${JSON.stringify(REGISTRY)}
    for (const { files, limitMs } of ${JSON.stringify(names.map((name) => ({ files: [cases[name]!.files].flat(), limitMs: cases[name]!.limitMs })))}) {
      let message = ''
      let code = ''
      const ctx = new Context()
      await ctx.plugin(ToolRegistry)
      try { await loadToolModules(ctx, files, ...(limitMs === undefined ? [] : [limitMs])) } catch (error) { message = error.message; code = error.code }
      process.stdout.write(JSON.stringify({ message, code }) + '\\n')
    }
    // Written, then exit: a module may have left a timer running that would keep this process alive.
    setImmediate(() => process.stdout.write('', () => process.exit(0)))
  `
  const { stdout, error } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: import.meta.dirname, timeout: 60_000 }).then(
    ({ stdout }) => ({ stdout, error: undefined }),
    (error: Error & { stdout?: string }) => ({ stdout: error.stdout ?? '', error }),
  )
  const lines = stdout.split('\n').filter(Boolean)
  return { answers: new Map(lines.map((line, i) => [names[i]!, JSON.parse(line) as { message: string; code: string }])), error }
}

/** The first call runs every case of `cases()` in one process ({@link loadEachInNode}); each call answers one case. */
function sharedLoads(cases: () => Record<string, LoadCase>): (name: string) => Promise<{ message: string; code: string }> {
  let all: ReturnType<typeof loadEachInNode> | undefined
  return async (name) => {
    all ??= loadEachInNode(cases())
    const { answers, error } = await all
    const answer = answers.get(name)
    if (answer === undefined) throw error ?? new Error(`no answer for the case ${name}`)
    return answer
  }
}

const CREATE_HOST = new URL('../../../src/host/create-host.ts', import.meta.url).href

/** `createHost({ toolModules: [file] })` in a plain Node process with nothing else running: what it rejects with. */
async function createHostInNode(file: string): Promise<{ message: string; code: string }> {
  const script = `
    import { createHost } from ${JSON.stringify(CREATE_HOST)}
    try { await createHost({ workspace: ${JSON.stringify(project)}, stateDir: false, toolModules: [${JSON.stringify(file)}] }); console.log('{}') }
    catch (error) { console.log(JSON.stringify({ message: error.message, code: error.code })) }
  `
  const { stdout } = await promisify(execFile)(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script], { cwd: import.meta.dirname, timeout: 60_000 })
  return JSON.parse(stdout) as { message: string; code: string }
}

let project: string
beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'ptc-cjs-project-'))
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-agent', version: '1.0.0', type: 'commonjs' }))
  writeFileSync(join(project, 'weather.ts'), 'const days: number = 3\nexport default [days]\n')
  writeFileSync(join(project, 'entry.mts'), "export * from './weather.ts'\n")
  mkdirSync(join(project, 'broken'))
  writeFileSync(join(project, 'broken', 'package.json'), JSON.stringify({ type: 'module' }))
  writeFileSync(join(project, 'broken', 'plugin.ts'), 'export const = 1\n')
  const echo = (name: string) =>
    `import { defineTool, z } from ${JSON.stringify(INDEX)}\n` +
    `export default [defineTool({ name: '${name}', description: 'Echo.', parameters: {}, output: { schema: z.string(), render: (_a, v) => [{ type: 'text', text: v }] }, async execute() { return 'x' } })]\n`
  writeFileSync(join(project, 'stalls.mjs'), 'await new Promise(() => {})\nexport default []\n')
  writeFileSync(join(project, 'stalls-busy.mjs'), 'setInterval(() => {}, 1000)\nawait new Promise(() => {})\nexport default []\n')
  writeFileSync(join(project, 'throws-null.mjs'), 'throw null\n')
  writeFileSync(join(project, 'throws-object.mjs'), 'throw { code: 7 }\n')
  writeFileSync(join(project, 'apply-stalls.mjs'), 'export async function apply() { await new Promise(() => {}) }\n')
  writeFileSync(join(project, 'first.mjs'), echo('echo'))
  // Two modules naming read_file (S1.4 below).
  for (const file of ['mine.mjs', 'mine-too.mjs']) writeFileSync(join(project, file), echo('echo').replace("name: 'echo'", "name: 'read_file'"))
  writeFileSync(join(project, 'runtime-throws.mjs'), 'const cfg = undefined\n\nexport default [cfg.name]\n')
  writeFileSync(join(project, 'js-syntax.mjs'), 'const a = 1\nconst b = [a]\nexport default {,}\n')
  writeFileSync(join(project, 'bad-json.mjs'), 'export const settings = JSON.parse("{x")\n')
  writeFileSync(join(project, 'uses-bad-json.mjs'), "import './bad-json.mjs'\nexport default []\n")
  const plugin = (inject: string) => `export const name = 'greeter'\nexport const inject = ${inject}\nexport function apply(ctx) { ctx.tools.register((${echo('greet').split('export default [')[1]!.replace(/]\n$/, '')})) }\n`
  writeFileSync(join(project, 'inject-typo.mjs'), `import { defineTool, z } from ${JSON.stringify(INDEX)}\n${plugin("['tool', 'tools']")}`)
  writeFileSync(join(project, 'inject-right.mjs'), `import { defineTool, z } from ${JSON.stringify(INDEX)}\n${plugin("['tools']")}`)
  writeFileSync(join(project, 'again.mjs'), echo('echo'))
  writeFileSync(join(project, 'no-inject.mjs'), `import { defineTool, z } from ${JSON.stringify(INDEX)}\n${plugin("['tools']").replace("export const inject = ['tools']\n", '')}`)
})
afterAll(() => rmSync(project, { recursive: true, force: true }))

const at = (name: string) => join(project, name)
/** The cases that load in one process: each module fails (or not) at import or start, and leaves nothing running. */
const loaded = sharedLoads(() => ({
  broken: { files: at('broken/plugin.ts') },
  'js-syntax': { files: at('js-syntax.mjs') },
  'runtime-throws': { files: at('runtime-throws.mjs') },
  'uses-bad-json': { files: at('uses-bad-json.mjs') },
  missing: { files: at('missing.mts') },
  mine: { files: [at('mine.mjs'), at('mine-too.mjs')] },
  'inject-typo': { files: [at('inject-right.mjs'), at('inject-typo.mjs')] },
  'inject-right': { files: at('inject-right.mjs') },
  'no-inject': { files: at('no-inject.mjs') },
  again: { files: [at('first.mjs'), at('again.mjs')] },
  'throws-null': { files: at('throws-null.mjs') },
  'throws-object': { files: at('throws-object.mjs') },
}))
/**
 * The stalls, in one process of their own: each waits until Node's loop runs dry (beforeExit, which
 * Node emits again each time the loop next runs dry) or its time limit; the one that keeps a timer
 * running goes last.
 */
const stalled = sharedLoads(() => ({
  stalls: { files: at('stalls.mjs') },
  'apply-stalls': { files: at('apply-stalls.mjs') },
  'stalls-busy': { files: at('stalls-busy.mjs'), limitMs: 300 },
}))

describe('loadToolModules (issue 14)', { timeout: 60_000 }, () => {
  it('an ES module .ts plugin in a "type": "commonjs" project fails with one line: rename it .mts or set "type": "module"', async () => {
    const file = join(project, 'weather.ts')
    const { message, warnings } = await loadInNode(file)
    expect(message).toBe(
      `Tool module ${file} uses import/export, but Node loads it as CommonJS because ${join(project, 'package.json')} does not say "type": "module": rename it weather.mts, or set "type": "module" in that package.json.`,
    )
    // Node's own two-line warning about it was held back; other warnings still reach listeners.
    expect(warnings).toEqual(['still heard'])
  })

  it('the message names the file Node loaded as CommonJS when the plugin imports it', async () => {
    const { message } = await loadInNode(join(project, 'entry.mts'))
    expect(message).toMatch(new RegExp(`^Tool module ${join(project, 'weather.ts')} \\(imported by .*entry\\.mts\\) uses import/export, but Node loads it as CommonJS`))
  })

  it('another import failure keeps its own message; a TypeScript syntax error adds the file and line', async () => {
    const file = join(project, 'broken', 'plugin.ts')
    expect((await loaded('broken')).message).toMatch(new RegExp(`^Could not import tool module ${file}: .+ \\(at ${file}:1\\)$`))
  })

  it('a JavaScript module failing at load names the place: the line of its syntax error, the file and line of a throw, in the module it imports too', async () => {
    expect((await loaded('js-syntax')).message).toBe(`Could not import tool module ${at('js-syntax.mjs')}: Unexpected token ',' (at ${at('js-syntax.mjs')}:3)`)
    expect((await loaded('runtime-throws')).message).toBe(`Could not import tool module ${at('runtime-throws.mjs')}: Cannot read properties of undefined (reading 'name') (at ${at('runtime-throws.mjs')}:3:21)`)
    expect((await loaded('uses-bad-json')).message).toMatch(new RegExp(`^Could not import tool module ${at('uses-bad-json.mjs')}: .*JSON.* \\(at ${at('bad-json.mjs')}:1:\\d+\\)$`))
  })

  it('a module that does not exist is "no such file" with its path, not a Cannot find module naming ptc\'s own loader', async () => {
    const file = join(project, 'missing.mts')
    expect((await loaded('missing')).message).toBe(`Could not import tool module ${file}: no such file (${file})`)
  })

  it('S1.4 a module registering a built-in tool\'s name is told how to free it: rename, or leave the built-in group out', async () => {
    // Two modules naming read_file: the second is told the name is a built-in's, whoever took it first.
    expect((await loaded('mine')).message).toMatch(/failed to start: A tool named "read_file" is already registered \(by the plugin "tools:.*mine\.mjs"\); .*rename one of them \(a built-in tool is left out with createHost's builtins option, --builtins for ptc\)\. "read_file" is a built-in tool of the group fs\.$/)
  })

  it('S1.4 a plugin injecting a service the host does not provide is a ToolModuleError naming it, not a plugin silently never applied', async () => {
    const typo = join(project, 'inject-typo.mjs')
    const { message, code } = await loaded('inject-typo')
    expect(code).toBe('tool-module')
    expect(message).toBe(`Tool module ${typo} never started: it injects "tool", which this host does not provide (its services include tools, approval, sandbox and ptc, and jobs with the jobs tools). Fix the name in its inject list.`)
    // The same plugin with the right name starts and registers its tool (no error at all).
    expect((await loaded('inject-right')).message).toBe('')
  })

  it('S1.4 a plugin that uses ctx.tools without injecting it is told to add the inject list, after cordis\' own sentence', async () => {
    const { message, code } = await loaded('no-inject')
    expect(code).toBe('tool-module')
    expect(message).toMatch(/^Tool module .*no-inject\.mjs failed to start: .*cannot get property "tools" without inject\. A plugin lists the services it uses: add export const inject = \["tools"\] to the module/)
  })

  it('S1.4 an array module whose tool name is taken fails with one ToolModuleError line naming the module, as a plugin does', async () => {
    const again = join(project, 'again.mjs')
    const { message, code } = await loaded('again')
    expect(code).toBe('tool-module')
    expect(message).toBe(
      `Tool module ${again} failed to start: A tool named "echo" is already registered (by the plugin "tools:${join(project, 'first.mjs')}"); tool names must be unique. Unregister the other plugin or rename one of them (a built-in tool is left out with createHost's builtins option, --builtins for ptc).`,
    )
  })

  it('a module whose top-level await never settles is a ToolModuleError once nothing else is running, not a silent exit 0', async () => {
    const file = join(project, 'stalls.mjs')
    const { message, code } = await stalled('stalls')
    expect(code).toBe('tool-module')
    expect(message).toBe(
      `Tool module ${file} never finished loading: its top-level await waits for a promise that never settles, and nothing else is left running. Make every promise the module awaits at load settle.`,
    )
  })

  it('a module whose top-level await never settles while its own timer keeps the process busy is a ToolModuleError at the start limit, not a hang', async () => {
    const file = join(project, 'stalls-busy.mjs')
    const { message, code } = await stalled('stalls-busy')
    expect(code).toBe('tool-module')
    expect(message).toBe(`Tool module ${file} did not finish loading within 300 ms (PtcConfig.startTimeoutMs): its top-level await is still waiting. Make every promise the module awaits at load settle.`)
  })

  it('a module that throws something other than an Error at import gets one line showing what it threw', async () => {
    expect(await loaded('throws-null')).toMatchObject({ code: 'tool-module', message: `Could not import tool module ${join(project, 'throws-null.mjs')}: null` })
    expect(await loaded('throws-object')).toMatchObject({ code: 'tool-module', message: `Could not import tool module ${join(project, 'throws-object.mjs')}: {"code":7}` })
  })

  it('a plugin whose apply never settles is a ToolModuleError once nothing else is running', async () => {
    const file = join(project, 'apply-stalls.mjs')
    const { message, code } = await stalled('apply-stalls')
    expect(code).toBe('tool-module')
    expect(message).toMatch(new RegExp(`^Tool module ${file} never finished starting: its apply awaits a promise that never settles`))
  })

  it('createHost with such a plugin rejects with that ToolModuleError, though the stalled plugin keeps its fiber from disposing', async () => {
    const file = join(project, 'apply-stalls.mjs')
    expect(await createHostInNode(file)).toMatchObject({ code: 'tool-module', message: expect.stringMatching(/never finished starting/) })
  })
})
