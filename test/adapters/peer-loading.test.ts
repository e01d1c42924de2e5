/**
 * The framework packages are optional peers (issue 15): `import 'ptc-runner'` never loads them,
 * and an adapter subpath without its peer fails with one line naming the package and the
 * install command. Each case runs in a fresh Node process, as a user's program would.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'

const REPO = resolve(import.meta.dirname, '../..')
const fixture = (name: string) => join(REPO, 'test', 'fixtures', name)
const url = (path: string) => pathToFileURL(join(REPO, path)).href

interface Outcome {
  code: number
  stdout: string
  stderr: string
}

function node(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((done) => {
    execFile(process.execPath, ['--no-node-snapshot', ...args], { cwd: REPO, timeout: 60_000, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

/** A program that imports `module` and prints the error's message (or `loaded`). */
const importing = (module: string) => `try { await import(${JSON.stringify(module)}); console.log('loaded') } catch (error) { console.log(error.message) }`

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

const ADAPTERS = [
  { subpath: 'ptc-runner/ai', source: 'src/adapters/ai/index.ts', peer: 'ai', install: 'npm install ai@^7' },
  { subpath: 'ptc-runner/openai-agents', source: 'src/adapters/openai-agents/index.ts', peer: '@openai/agents', install: 'npm install @openai/agents@^0.20' },
]

describe('optional peer packages (issue 15)', { timeout: 90_000 }, () => {
  it("issue 15 import of ptc-runner's main entry loads none of the framework packages", async () => {
    const record = join(mkdtempSync(join(tmpdir(), 'ptc-loads-')), 'loads.txt')
    const run = await node(['--import', fixture('record-module-loads.mjs'), '--input-type=module', '-e', `await import(${JSON.stringify(url('src/index.ts'))})`], { PTC_RECORD_LOADS: record })
    expect(run.stderr).toBe('')
    const loaded = readFileSync(record, 'utf8').split('\n')
    expect(loaded.some((file) => file.includes('/node_modules/zod/'))).toBe(true)
    expect(loaded.filter((file) => /\/node_modules\/(ai|@ai-sdk|@openai)\//.test(file))).toEqual([])
  })

  it.each(ADAPTERS)('issue 15 $subpath without its peer fails with one line naming $peer and the npm command', async ({ subpath, source, peer, install }) => {
    const run = await node(['--import', fixture('hide-packages.mjs'), '--input-type=module', '-e', importing(url(source))], { PTC_HIDE_PACKAGES: peer })
    const [line, ...rest] = run.stdout.split('\n')
    expect(rest).toEqual([''])
    expect(line).toMatch(new RegExp(`^${escape(subpath)} needs the package "${escape(peer)}" \\(.+\\), which is not installed: ${escape(install)}$`))
  })

  it.each(ADAPTERS)('issue 15 $subpath loads when its peer is installed', async ({ source }) => {
    const run = await node(['--input-type=module', '-e', importing(url(source))])
    expect(run.stdout).toBe('loaded\n')
  })
})
