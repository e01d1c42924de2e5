/**
 * `bin/ptc.js` as MCP clients and shells start it (issue 14): `node bin/ptc.js …` runs scripts
 * without `--no-node-snapshot` (only the isolate worker process loads isolated-vm, and it gets the
 * flag; issue 12); started by a Node older than 24 it re-runs itself with the checkout's bootstrapped Node (`.node24/`), or
 * says in one line that it needs Node 24.
 */
import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { userCacheFolder } from '../../src/ptc/user-cache.ts'
import { OLD_NODE } from '../helpers/old-node.ts'
import { PTC_BIN } from './ptc-cli.ts'

const REPO = resolve(import.meta.dirname, '../..')

/**
 * A checkout-shaped folder: a copy of bin/ptc.js, the sources and dependencies linked from this
 * repository, and (when `bootstrapped`) `.node24/` holding this Node 24, as scripts/setup.sh
 * leaves it. Returns the path of its bin/ptc.js.
 */
function checkout(bootstrapped: boolean): string {
  const root = mkdtempSync(join(tmpdir(), 'ptc-checkout-'))
  dirs.push(root)
  mkdirSync(join(root, 'bin'))
  copyFileSync(join(REPO, 'bin', 'ptc.js'), join(root, 'bin', 'ptc.js'))
  for (const entry of ['src', 'runtime', 'typegen', 'node_modules', 'package.json', 'scripts']) symlinkSync(join(REPO, entry), join(root, entry))
  if (bootstrapped) {
    const bin = join(root, '.node24', 'node_modules', `node-linux-${process.arch}`, 'bin')
    mkdirSync(bin, { recursive: true })
    symlinkSync(process.execPath, join(bin, 'node'))
  }
  return join(root, 'bin', 'ptc.js')
}

const dirs: string[] = []
afterAll(() => dirs.forEach((entry) => rmSync(entry, { recursive: true, force: true })))

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-bin-'))
  writeFileSync(join(dir, 'ok.ts'), 'return 6 * 7\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The README's MCP client configuration, with its placeholder paths filled in. */
function readmeMcpConfig(bin: string, project: string): { command: string; args: string[] } {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8')
  const block = /Add it to an MCP client[^]*?```json\n([^]*?)```/.exec(readme)![1]!
  const filled = block.replaceAll('/path/to/ptc-runner/bin/ptc.js', bin).replaceAll('/path/to/project', project)
  return (JSON.parse(filled) as { mcpServers: { ptc: { command: string; args: string[] } } }).mcpServers.ptc
}

/** Runs Node with `args`; the 240 s kill only bounds a hang (a cold ptc run took over 60 s at load 20+). */
function node(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd: dir, timeout: 240_000 }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

describe('bin/ptc.js', { timeout: 300_000 }, () => {
  it('started without --no-node-snapshot, runs a script (the isolates live in the worker process)', async () => {
    const { code, stdout, stderr } = await node([PTC_BIN, 'run', 'ok.ts', '--json', '--workspace', dir])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ status: 'ok', value: 42 })
  })

  it.skipIf(!OLD_NODE)('on an older Node with no bootstrapped Node 24, says so in one line and exits 2', async () => {
    const { code, stdout, stderr } = await node20([checkout(false), 'help'])
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' })
    expect(stderr).toMatch(/^ptc: needs Node\.js >= 24 \(this is v\d+\.[\d.]+\); install Node 24 \(https:\/\/nodejs\.org\), or run bash scripts\/setup\.sh in the ptc-runner checkout\.\n$/)
  })

  it.skipIf(!OLD_NODE)("the README's MCP client config works from a PATH whose node is older than 24", async () => {
    const { command, args } = readmeMcpConfig(checkout(true), dir)
    expect(command).toBe('node')
    const client = new Client({ name: 'e2e-node20', version: '1' })
    // The client resolves "node" on this PATH: the old Node first, as on a machine whose default node is 20.
    // The user cache folder stays this process's: with HOME as the only hint the server would
    // build a checker snapshot and a runtime bundle of its own (about 8 s of CPU) for one run.
    const cache = userCacheFolder()
    const env = { PATH: `${dirname(OLD_NODE!)}:/bin`, HOME: dir, ...(cache !== undefined && { PTC_CACHE_DIR: cache }) }
    await client.connect(new StdioClientTransport({ command, args, env, stderr: 'ignore' }))
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toContain('run_code')
      // The first run starts the checker cold (not charged to its deadline, and without a start
      // limit): on a loaded machine that can take longer than the SDK's 60 s default request timeout.
      const ok = await client.callTool({ name: 'run_code', arguments: { code: 'return 6 * 7' } }, undefined, { timeout: 240_000 })
      expect(ok.structuredContent).toMatchObject({ status: 'ok', value: 42 })
    } finally {
      await client.close()
    }
  }, 300_000)
})

function node20(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(OLD_NODE!, args, { cwd: dir, env: { PATH: '/usr/bin:/bin' } }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}
