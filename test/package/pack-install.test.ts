/**
 * The package as a user installs it (issue 14): `npm pack` (which builds `dist/` through
 * `prepack`), the tarball installed into a scratch project, and there `npx ptc help`, a `ptc run`
 * of a script, a `--tools` plugin in the user's own folder importing `defineTool` and `z` from
 * `ptc-runner`, and `import { createHost } from 'ptc-runner'`; then publint and
 * arethetypeswrong (ESM only) on what was packed. One build for the whole file.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const REPO = resolve(import.meta.dirname, '../..')
let scratch: string
let tarball: string

interface Outcome {
  code: number
  stdout: string
  stderr: string
}

function exec(command: string, args: string[], cwd: string): Promise<Outcome> {
  return new Promise((done) => {
    execFile(command, args, { cwd, timeout: 300_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

const TOOL_MODULE = `import { defineTool, z } from 'ptc-runner'

export default [
  defineTool({
    name: 'shout',
    description: 'Upper-case a text.',
    parameters: z.object({ text: z.string() }),
    output: { schema: z.object({ loud: z.string() }), render: (_args, value) => [{ type: 'text', text: value.loud }] },
    async execute(args) {
      return { loud: args.text.toUpperCase() }
    },
  }),
]
`

const EMBED = `import { createHost, type HostOptions } from 'ptc-runner'

const options: HostOptions = { workspace: '.', journal: false }
const host = await createHost(options)
const result = await host.ctx.tools.execute({ name: 'run_code', arguments: { code: 'return 6 * 7' } }, { agent: 'embed' })
console.log(JSON.stringify(result.value))
await host.dispose()
`

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'ptc-pack-'))
  const pack = await exec('npm', ['pack', '--pack-destination', scratch, '--silent'], REPO)
  expect(pack.stderr).not.toMatch(/\berror\b/i)
  expect(pack.code).toBe(0)
  tarball = join(scratch, readdirSync(scratch).find((file) => file.endsWith('.tgz'))!)
  const project = join(scratch, 'project')
  await exec('mkdir', [project], scratch)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }))
  const install = await exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project)
  expect(install.stderr).not.toMatch(/ERR!/)
  expect(install.code).toBe(0)
  writeFileSync(join(project, 'shout-tools.ts'), TOOL_MODULE)
  writeFileSync(join(project, 'script.ts'), 'const r = await tools.shout({ text: "hi" })\nreturn r.loud\n')
  writeFileSync(join(project, 'embed.ts'), EMBED)
}, 600_000)
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('the packed package, installed', { timeout: 300_000 }, () => {
  const project = () => join(scratch, 'project')

  it('ships the built files and the README only, not private', async () => {
    const list = await exec('tar', ['-tzf', tarball], scratch)
    const files = list.stdout.trim().split('\n')
    expect(files).toContain('package/dist/bin/ptc.js')
    expect(files).toContain('package/dist/src/index.d.ts')
    expect(files).toContain('package/dist/runtime/isolate-runtime.bundle.txt')
    expect(files).toContain('package/README.md')
    // The viewer's browser app ships as sources: `ptc view` bundles it with esbuild at start.
    const viewClient = /^package\/dist\/src\/view\/client\//
    expect(files.filter((file) => !viewClient.test(file) && !/^package\/(dist\/.*\.(js|d\.ts|txt)|README\.md|package\.json|LICENSE)$/.test(file))).toEqual([])
    expect(files.filter((file) => !viewClient.test(file) && /\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([])
    const manifest = JSON.parse(readFileSync(join(project(), 'node_modules', 'ptc-runner', 'package.json'), 'utf8'))
    expect(manifest).toMatchObject({ bin: { ptc: './dist/bin/ptc.js' }, types: './dist/src/index.d.ts' })
    expect(manifest.private).toBeUndefined()
  })

  it('npx ptc help prints the usage', async () => {
    const help = await exec('npx', ['--no-install', 'ptc', 'help'], project())
    expect(help.stderr).toBe('')
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^ptc: run TypeScript that calls tools/)
  })

  it('ptc run --tools loads a plugin that imports defineTool and z from ptc-runner, and runs a script with it', async () => {
    const run = await exec('npx', ['--no-install', 'ptc', 'run', 'script.ts', '--json', '--tools', 'shout-tools.ts'], project())
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'ok', value: 'HI', toolCalls: 1 })
  })

  it("import { createHost } from 'ptc-runner' starts a host that runs code", async () => {
    const embed = await exec(process.execPath, ['--no-node-snapshot', 'embed.ts'], project())
    expect(embed.stderr).toBe('')
    expect(JSON.parse(embed.stdout)).toMatchObject({ status: 'ok', value: 42 })
  })

  it('publint and arethetypeswrong (ESM only) report nothing', async () => {
    const installed = join(project(), 'node_modules', 'ptc-runner')
    const publint = await exec(process.execPath, [join(REPO, 'node_modules/publint/src/cli.js'), '--pack', 'false', '--strict', installed], REPO)
    expect(publint.stdout + publint.stderr).toContain('All good!')
    expect(publint.code).toBe(0)
    const attw = await exec(process.execPath, [join(REPO, 'node_modules/@arethetypeswrong/cli/dist/index.js'), tarball, '--profile', 'esm-only', '--format', 'ascii'], REPO)
    // attw exits 1 on any problem outside the resolutions the ESM-only profile ignores (node10, CJS require).
    expect(attw.code, attw.stdout).toBe(0)
  })
})
