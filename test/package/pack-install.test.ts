/**
 * The package as a user installs it (issue 14): `npm pack` (which builds `dist/` through
 * `prepack`), the tarball installed into a scratch project, and there `npx ptc help`, a `ptc run`
 * of a script, a `--tools` plugin in the user's own folder importing `defineTool` and `z` from
 * `ptc-runner`, and `import { createHost } from 'ptc-runner'`; publint and arethetypeswrong (ESM
 * only) on the packed tarball. The framework adapters (issue 15): without their peer,
 * `ptc-runner/ai` and `ptc-runner/openai-agents` fail in one line; with `ai` and with
 * `@openai/agents`, a mock model's tool call runs a script through the subpath's code tool that
 * calls the framework's own tools, type-checked with tsc against the shipped declarations.
 *
 * Most of this file's time is npm, so there is one build, one scratch project and one
 * `npm install` of the tarball with both peers (as a user adding an adapter runs it; a second
 * install of the peers cost 8 s of CPU more). publint and attw read the tarball while npm
 * installs it. The checks "without the peers" run with the peers' folders moved out of
 * `node_modules` (Node then cannot find the package, exactly as when it was never installed) and
 * put back before the adapter tests. The checks of each phase run concurrently: each is a
 * separate process. The scratch processes run with `PTC_CACHE_DIR=off`: each scratch project is
 * a new checkout to the checker-snapshot cache, whose background build (about 4 s of CPU) no
 * check here uses, and which would evict the user's own snapshots.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OLD_NODE } from '../helpers/old-node.ts'
import { AGENTS_SCENARIO, AI_SCENARIO, EMBED, README_EXAMPLE, TOOL_MODULE } from './pack-scenarios.ts'

const REPO = resolve(import.meta.dirname, '../..')
let scratch: string
let tarball: string
const devVersion = (name: string): string => JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).devDependencies[name]

interface Outcome {
  code: number
  stdout: string
  stderr: string
}

function exec(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((done) => {
    execFile(command, args, { cwd, timeout: 300_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false', ...env } }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

const tsconfig = (files: string[]) => JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2024', strict: true, noEmit: true, skipLibCheck: true, allowImportingTsExtensions: true, types: [] }, files })

/** `npm install` `packages` into the scratch project `dir` (from the local npm cache where it can be). */
function npmInstall(dir: string, packages: string[]): Promise<Outcome> {
  return exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...packages], dir)
}

/** The user cache off for the processes started in the scratch project (see the file's docstring). */
const NO_CACHE = { PTC_CACHE_DIR: 'off' }
/** The peers' folders in the scratch project's `node_modules`, moved out for the tests without them. */
const PEER_DIRS = ['ai', '@openai/agents']
const SCENARIOS = ['ai-scenario.ts', 'agents-scenario.ts', 'readme-example.ts']
/** publint and attw over the tarball, started as soon as it is packed (they need no install). */
let lint: Promise<{ publint: Outcome; attw: Outcome }>

/** Assert tsc reported nothing for `file` (tsc names the file first on each diagnostic), and parse what its run printed. */
function checkedScenario(check: Outcome, file: string, run: Outcome): Record<string, unknown> {
  const others = SCENARIOS.filter((name) => name !== file)
  const diagnostics = (check.stdout + check.stderr).split('\n').filter((line) => line !== '' && !others.some((name) => line.startsWith(name)))
  expect(diagnostics).toEqual([])
  expect(run.stderr).toBe('')
  return JSON.parse(run.stdout)
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'ptc-pack-'))
  // The build skips its own type check (PTC_BUILD_NO_CHECK): npm test's first step type-checks the
  // same sources, and the scenarios below type-check against the shipped declarations.
  const pack = await exec('npm', ['pack', '--pack-destination', scratch, '--silent'], REPO, { PTC_BUILD_NO_CHECK: '1' })
  expect(pack.stderr).not.toMatch(/\berror\b/i)
  expect(pack.code).toBe(0)
  tarball = join(scratch, readdirSync(scratch).find((file) => file.endsWith('.tgz'))!)
  lint = Promise.all([
    exec(process.execPath, [join(REPO, 'node_modules/publint/src/cli.js'), '--strict', tarball], REPO),
    exec(process.execPath, [join(REPO, 'node_modules/@arethetypeswrong/cli/dist/index.js'), tarball, '--profile', 'esm-only', '--format', 'ascii'], REPO),
  ]).then(([publint, attw]) => ({ publint, attw }))
  const project = join(scratch, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }))
  const install = await npmInstall(project, [tarball, `ai@${devVersion('ai')}`, `@openai/agents@${devVersion('@openai/agents')}`])
  expect(install.stderr).not.toMatch(/ERR!/)
  expect(install.code).toBe(0)
  writeFileSync(join(project, 'ai-scenario.ts'), AI_SCENARIO)
  writeFileSync(join(project, 'agents-scenario.ts'), AGENTS_SCENARIO)
  writeFileSync(join(project, 'readme-example.ts'), README_EXAMPLE)
  writeFileSync(join(project, 'tsconfig.json'), tsconfig(SCENARIOS))
  writeFileSync(join(project, 'shout-tools.ts'), TOOL_MODULE)
  writeFileSync(join(project, 'script.ts'), 'const r = await tools.shout({ text: "hi" })\nreturn r.loud\n')
  writeFileSync(join(project, 'bad-args.ts'), 'return await tools.shout({ text: 5 })\n')
  writeFileSync(join(project, 'embed.ts'), EMBED)
  writeFileSync(join(project, 'no-peers.mjs'), "for (const subpath of ['ptc-runner/ai', 'ptc-runner/openai-agents']) { try { await import(subpath) } catch (error) { console.log(`${error.name}: ${error.message}`) } }\n")
}, 600_000)
afterAll(async () => {
  await lint
  rmSync(scratch, { recursive: true, force: true })
})

describe('the packed package, installed', { timeout: 300_000 }, () => {
  const project = () => join(scratch, 'project')

  it('ships the built files, the README and the docs it links to, not private', async () => {
    const list = await exec('tar', ['-tzf', tarball], scratch)
    const files = list.stdout.trim().split('\n')
    expect(files).toContain('package/dist/bin/ptc.js')
    expect(files).toContain('package/dist/src/index.d.ts')
    expect(files).toContain('package/dist/runtime/isolate-runtime.bundle.txt')
    // Issue 12 (start-up): the bin runs the bundled CLI, the exports are entries of the same
    // bundle, and the isolate worker's entry is one file.
    expect(files).toContain('package/dist/bundle/main.js')
    expect(files).toContain('package/dist/bundle/index.js')
    const installed = join(project(), 'node_modules', 'ptc-runner', 'dist')
    expect(readFileSync(join(installed, 'bin', 'ptc.js'), 'utf8')).toContain("await import('../bundle/main.js')")
    expect(readFileSync(join(installed, 'src', 'ptc', 'isolate', 'isolate-worker-entry.js'), 'utf8')).not.toMatch(/from ["']\.\.?\//)
    // zod is in the bundle; other packages stay imports.
    const bundleFiles = readdirSync(join(installed, 'bundle')).map((file) => readFileSync(join(installed, 'bundle', file), 'utf8'))
    expect(bundleFiles.some((text) => /from ["']zod["']/.test(text))).toBe(false)
    expect(bundleFiles.some((text) => /from ["']cordis["']/.test(text))).toBe(true)
    expect(files).toContain('package/README.md')
    // Every docs/ file the README links to ships with it, so its links work in node_modules.
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8')
    const linked = [...new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+)\)/g)].map((match) => match[1]!))]
    expect(linked.length).toBeGreaterThan(0)
    for (const doc of linked) expect(files).toContain(`package/${doc}`)
    // The viewer's browser app ships as sources: `ptc view` bundles it with esbuild at start.
    const viewClient = /^package\/dist\/src\/view\/client\//
    expect(files.filter((file) => !viewClient.test(file) && !/^package\/(dist\/.*\.(js|d\.ts|txt)|README\.md|package\.json|LICENSE|docs\/[\w-]+\.(md|png))$/.test(file))).toEqual([])
    expect(files.filter((file) => !viewClient.test(file) && /\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([])
    const manifest = JSON.parse(readFileSync(join(project(), 'node_modules', 'ptc-runner', 'package.json'), 'utf8'))
    expect(manifest).toMatchObject({ bin: { ptc: './dist/bin/ptc.js' }, types: './dist/src/index.d.ts' })
    expect(manifest.private).toBeUndefined()
  })

  it('publint and arethetypeswrong (ESM only) report nothing on the tarball', async () => {
    const { publint, attw } = await lint
    expect(publint.stdout + publint.stderr).toContain('All good!')
    expect(publint.code).toBe(0)
    // attw exits 1 on any problem outside the resolutions the ESM-only profile ignores (node10, CJS require).
    expect(attw.code, attw.stdout).toBe(0)
  })

  describe.concurrent('without the peers (their folders moved out of node_modules)', () => {
    const modules = () => join(project(), 'node_modules')
    beforeAll(() => {
      for (const dir of PEER_DIRS) renameSync(join(modules(), dir), join(modules(), `${dir}.aside`))
    })
    afterAll(() => {
      for (const dir of PEER_DIRS) renameSync(join(modules(), `${dir}.aside`), join(modules(), dir))
    })

    it('npx ptc help prints the usage', async ({ expect }) => {
      const help = await exec('npx', ['--no-install', 'ptc', 'help'], project(), NO_CACHE)
      expect(help.stderr).toBe('')
      expect(help.code).toBe(0)
      expect(help.stdout).toMatch(/^ptc: run TypeScript that calls tools/)
      // The bundled CLI finds package.json from its modules' own URLs.
      const version = await exec(join(modules(), '.bin', 'ptc'), ['--version'], project(), NO_CACHE)
      expect(version.stdout).toMatch(new RegExp(`^ptc-runner ${JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version.replaceAll('.', '\\.')} \\(Node\\.js `))
    })

    it('ptc run --tools loads a plugin that imports defineTool and z from ptc-runner, and runs a script with it, loading no module of the library twice', async ({ expect }) => {
      // The bin link npm made (what npx runs, without npx's own start-up).
      const loads = join(scratch, 'loads.txt')
      const run = await exec(process.execPath, ['--import', join(REPO, 'test/fixtures/record-module-loads.mjs'), join(modules(), '.bin', 'ptc'), 'run', 'script.ts', '--json', '--tools', 'shout-tools.ts'], project(), { ...NO_CACHE, PTC_RECORD_LOADS: loads })
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'ok', value: 'HI', toolCalls: 1 })
      // The plugin's `ptc-runner` is the bundle the CLI runs from: no per-module file of the library, no zod file.
      const loaded = readFileSync(loads, 'utf8').split('\n')
      expect(loaded.filter((url) => url.includes('/ptc-runner/dist/bundle/')).length).toBeGreaterThan(0)
      expect(loaded.filter((url) => url.includes('/ptc-runner/dist/src/') || url.includes('/node_modules/zod/'))).toEqual([])
    })

    it("the README's install example runs a script with npx ptc run in the installed project", async ({ expect }) => {
      const readme = readFileSync(join(REPO, 'README.md'), 'utf8')
      // The block's last line, after its comments, `npm pack` and `npm install` of the tarball (done by beforeAll here).
      const example = /```bash\n(?:#[^\n]*\n)*\(cd [^\n]*npm pack[^\n]*\nnpm install \/tmp\/ptc-runner-[^\n]*\n(echo [^\n]*npx ptc run [^\n]*)\n```/.exec(readme)
      expect(example).not.toBeNull()
      const run = await exec('bash', ['-c', example![1]!], project(), NO_CACHE)
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toMatch(/^\d+\n$/)
    })

    it("issue 12 the bundled zod reads a plugin's schemas: descriptions in typegen, a refusal's message", async ({ expect }) => {
      const ptc = join(modules(), '.bin', 'ptc')
      const [typegen, refused] = await Promise.all([
        exec(ptc, ['typegen', '--tools', 'shout-tools.ts'], project(), NO_CACHE),
        exec(ptc, ['run', 'bad-args.ts', '--json', '--no-typecheck', '--tools', 'shout-tools.ts'], project(), NO_CACHE),
      ])
      expect(typegen.code).toBe(0)
      expect(typegen.stdout).toMatch(/\/\*\* The text to shout\. \*\/\n\s+text: string/)
      expect(JSON.parse(refused.stdout)).toMatchObject({ status: 'error', error: { message: expect.stringMatching(/Invalid arguments for "shout": ✖ Invalid input: expected string, received number\n\s+→ at text/) } })
    })

    it("import { createHost } from 'ptc-runner' starts a host that runs code, and ptc-runner/view exports startViewer", async ({ expect }) => {
      const embed = await exec(process.execPath, ['--no-node-snapshot', 'embed.ts'], project(), NO_CACHE)
      expect(embed.stderr).toBe('')
      expect(JSON.parse(embed.stdout)).toMatchObject({ status: 'ok', value: 42 })
    })

    it.skipIf(!OLD_NODE)('on a Node older than 24, every entry point fails at import with one sentence naming the Node it needs', async ({ expect }) => {
      const entries = ['ptc-runner', 'ptc-runner/server', 'ptc-runner/view', 'ptc-runner/ai', 'ptc-runner/openai-agents']
      const outcomes = await Promise.all(entries.map((entry) => exec(OLD_NODE!, ['--input-type=module', '-e', `await import(${JSON.stringify(entry)})`], project(), NO_CACHE)))
      for (const outcome of outcomes) {
        expect(outcome.code).not.toBe(0)
        expect(outcome.stderr).toMatch(/Error: ptc-runner needs Node\.js >= 24 \(this is v\d+\.[\d.]+\); install Node 24 \(https:\/\/nodejs\.org\)\./)
      }
    })

    it('issue 15 both adapter subpaths fail with one line naming the package and the npm command', async ({ expect }) => {
      const run = await exec(process.execPath, ['no-peers.mjs'], project(), NO_CACHE)
      expect(run.stdout).toBe(
        // The error's name as unbundled (a bundler renames a class that names itself unless told not to).
        'PtcError: ptc-runner/ai needs the package "ai" (the Vercel AI SDK, version 7), which is not installed: npm install ai@^7\n' +
          'PtcError: ptc-runner/openai-agents needs the package "@openai/agents" (the OpenAI Agents SDK, version 0.20), which is not installed: npm install @openai/agents@^0.20\n',
      )
    })
  })

  describe('with both peers installed', () => {
    let check: Outcome
    let ai: Outcome
    let agents: Outcome
    let readmeExample: Outcome
    beforeAll(async () => {
      // One tsc over both scenarios (the scratch project's own TypeScript, the shipped
      // declarations), run beside the two scenario runs.
      ;[check, ai, agents, readmeExample] = await Promise.all([
        exec(process.execPath, [join(project(), 'node_modules/typescript/bin/tsc'), '-p', '.'], project()),
        ...SCENARIOS.map((file) => exec(process.execPath, ['--no-node-snapshot', file], project(), NO_CACHE)),
      ])
    }, 600_000)

    it("the README's library example type-checks (strict, module nodenext) against the shipped declarations and runs", () => {
      const others = SCENARIOS.filter((name) => name !== 'readme-example.ts')
      const diagnostics = (check.stdout + check.stderr).split('\n').filter((line) => line !== '' && !others.some((name) => line.startsWith(name)))
      expect(diagnostics).toEqual([])
      expect(readmeExample.stderr).toBe('')
      expect(readmeExample.code).toBe(0)
    })

    it('issue 15 with ai installed, a mock model runs a script through ptc-runner/ai: two AI SDK tools, a headless denial, typed', () => {
      const { literal, output, text } = checkedScenario(check, 'ai-scenario.ts', ai)
      expect(literal).toMatchObject({ status: 'ok', value: 42 })
      expect(output).toMatchObject({ status: 'ok', value: { doubled: 8, squared: 9, denied: 'wipe' }, toolCalls: 3 })
      expect(text).toBe('done')
    })

    it('issue 15 with @openai/agents installed, a real Runner runs a script through ptc-runner/openai-agents after approving the interruption, typed', () => {
      const { interrupted, runCode, text } = checkedScenario(check, 'agents-scenario.ts', agents)
      expect(interrupted).toBe(1)
      expect(runCode).toMatchObject({ status: 'ok', value: { doubled: 42, denied: 'wipe' }, toolCalls: 2 })
      expect(text).toBe('done')
    })
  })
})
