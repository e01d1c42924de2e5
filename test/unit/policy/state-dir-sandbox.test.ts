/**
 * S8 for a host's own state folder (issue 14 item 4, `createHost({ stateDir })`): like every
 * workspace root's `.ptc`, a state folder outside the workspace holds every session's journals
 * and spills, so sandboxed commands (`bash`) see it as an empty private mount.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../../src/host/create-host.ts'
import { buildBwrapArgs } from '../../../src/policy/bwrap.ts'
import { normalizeOptions } from '../../../src/policy/sandbox-policy.ts'

const cleanup: string[] = []
let host: Host | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
  for (const dir of cleanup.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

describe('a stateDir outside the workspace is hidden from commands (S8)', { timeout: 60_000 }, () => {
  it('buildBwrapArgs mounts an empty tmpfs over each state folder after the roots (not over a symlink)', () => {
    const dirs = ['/srv/state']
    const lstat = (file: string) => (dirs.includes(file) ? ({ isDirectory: () => true, isSymbolicLink: () => false } as fs.Stats) : undefined)
    const options = { mode: 'workspace-write' as const, network: false, workspaceRoots: ['/work/ws'], writableRoots: [], stateDirs: ['/srv/state', '/srv/missing'] }
    const { argv } = buildBwrapArgs({ bwrapPath: 'bwrap', options, cwd: '/work/ws', argv: ['true'], namespaces: [], lstat })
    const at = argv.indexOf('/srv/state')
    expect(argv.slice(at - 1, at + 1)).toEqual(['--tmpfs', '/srv/state'])
    expect(at).toBeGreaterThan(argv.indexOf('/work/ws'))
    expect(argv).not.toContain('/srv/missing')
  })

  it('the policy keeps state folders realpath\'d and refuses a missing one', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-statedir-'))
    cleanup.push(dir)
    expect(normalizeOptions({ mode: 'read-only', network: false, workspaceRoots: [dir], writableRoots: [], stateDirs: [dir] }).stateDirs).toEqual([fs.realpathSync(dir)])
    expect(() => normalizeOptions({ mode: 'read-only', network: false, workspaceRoots: [dir], writableRoots: [], stateDirs: [path.join(dir, 'nope')] })).toThrow(/state folder/)
  })

  it('bash in a host with stateDir elsewhere lists that folder as empty while the journal is written there', async () => {
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-statedir-ws-')))
    // Not under /tmp or /var/tmp: those are private in the sandbox anyway, which would prove nothing.
    const state = fs.realpathSync(fs.mkdtempSync(path.join(os.homedir(), '.ptc-statedir-test-')))
    cleanup.push(workspace, state)
    host = await createHost({ workspace, stateDir: state, builtins: ['bash'] })
    expect(host.ctx.sandboxPolicy.options().stateDirs).toEqual([state])
    const result = await host.ctx.tools.execute({ name: 'bash', arguments: { command: `ls -A ${state}; echo end` } })
    expect(result.isError).toBe(false)
    expect((result.value as { stdout: string }).stdout).toBe('end\n')
    expect(fs.readdirSync(path.join(state, 'journal'))).toHaveLength(1)
  })
})
