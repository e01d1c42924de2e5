/**
 * `createHost({ builtins })` (issue 14 item 4, issue 11 item 5, S9.1): the built-in tool groups
 * installed are exactly the ones named; a group left out is neither registered, callable from a
 * script, nor in the declarations scripts are checked against and `run_code`'s description.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { BUILTIN_GROUP_TOOLS, builtinGroups, parseBuiltinsList } from '../../../src/builtin/builtin-groups.ts'
import { HostOptionsError } from '../../../src/errors/host-options-error.ts'
import { createHost, type Host, type HostOptions } from '../../../src/host/create-host.ts'

const TOOLS = fileURLToPath(new URL('../../fixtures/serve-tools.ts', import.meta.url))
const ALL = [...BUILTIN_GROUP_TOOLS.fs, ...BUILTIN_GROUP_TOOLS.bash, ...BUILTIN_GROUP_TOOLS.jobs]

let workspace: string
const hosts: Host[] = []
beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), 'ptc-builtins-'))
})
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

async function host(options: HostOptions): Promise<Host> {
  const started = await createHost({ workspace, journal: false, ptc: { isolation: 'inline', poolSize: 1 }, ...options })
  hosts.push(started)
  return started
}

const builtinNames = (h: Host) => h.ctx.tools.list().map((tool) => tool.name).filter((name) => ALL.includes(name)).sort()

describe('createHost builtins (issue 14 item 4)', { timeout: 60_000 }, () => {
  it('by default every built-in group is registered: fs, bash and jobs', async () => {
    expect(builtinNames(await host({}))).toEqual([...ALL].sort())
  })

  it('each subset registers exactly its groups', async () => {
    expect(builtinNames(await host({ builtins: ['fs'] }))).toEqual([...BUILTIN_GROUP_TOOLS.fs].sort())
    expect(builtinNames(await host({ builtins: ['bash'] }))).toEqual(['bash'])
    expect(builtinNames(await host({ builtins: ['jobs', 'bash'] }))).toEqual(['bash', 'job_kill', 'job_list', 'job_read'])
    expect(builtinNames(await host({ builtins: [] }))).toEqual([])
  })

  it("'none' leaves only run_code and the host's own tools, and the declarations mention no built-in", async () => {
    const h = await host({ builtins: 'none', toolModules: [TOOLS] })
    expect(builtinNames(h)).toEqual([])
    const names = h.ctx.tools.list().map((tool) => tool.name)
    expect(names).toContain('echo')
    expect(names).toContain('run_code')
    for (const embedded of [false, true]) {
      const text = await h.ctx.ptc.declarations({ embedded })
      expect(text).toContain('echo')
      for (const name of ALL) expect(text).not.toMatch(new RegExp(`\\b${name}\\b`))
    }
  })

  it('S9.1 a left-out group cannot be called from a script: the type check names the unknown tool', async () => {
    const h = await host({ builtins: ['fs'] })
    const checked = await h.ctx.ptc.run(`return await tools.bash({ command: 'echo hi' })`)
    expect(checked.status).toBe('type-error')
    expect(checked.diagnostics?.map((d) => d.message).join('\n')).toMatch(/bash/)
    // Without the type check the call reaches the registry, which has no such tool.
    const unchecked = await h.ctx.ptc.run(`return await tools.bash({ command: 'echo hi' })`, { typecheck: false })
    expect(unchecked.status).toBe('error')
    expect(JSON.stringify(unchecked.error)).toMatch(/bash/)
    const fine = await h.ctx.ptc.run(`return (await tools.list_dir({ path: '.' })) !== undefined`)
    expect(fine).toMatchObject({ status: 'ok', value: true })
  })

  it('without jobs, bash offers no background parameter (nothing could read the job)', async () => {
    const h = await host({ builtins: ['bash'] })
    expect(await h.ctx.ptc.declarations()).not.toMatch(/background/)
    const withJobs = await host({ builtins: ['bash', 'jobs'] })
    expect(await withJobs.ctx.ptc.declarations()).toMatch(/background\?: boolean/)
  })

  it('an unknown group name is refused with the allowed names, before anything starts', async () => {
    await expect(createHost({ workspace, journal: false, builtins: ['fs', 'shell' as never] })).rejects.toThrow(
      /unknown built-in tool group "shell"; the groups are fs, bash, jobs \(or 'none'\)/,
    )
    await expect(createHost({ workspace, journal: false, builtins: 'all' as never })).rejects.toBeInstanceOf(HostOptionsError)
  })
})

describe('parseBuiltinsList (--builtins LIST)', () => {
  it('reads none, one group, or a comma-separated list (duplicates folded)', () => {
    expect(parseBuiltinsList('none')).toBe('none')
    expect(parseBuiltinsList('fs')).toEqual(['fs'])
    expect(parseBuiltinsList('fs,jobs,fs')).toEqual(['fs', 'jobs'])
    expect(builtinGroups(parseBuiltinsList('bash,jobs'))).toEqual(new Set(['bash', 'jobs']))
  })

  it('refuses an empty list, an empty item and an unknown group, naming the allowed values', () => {
    expect(() => parseBuiltinsList('')).toThrow('--builtins takes none or a comma-separated list of fs, bash, jobs; got "".')
    expect(() => parseBuiltinsList('fs,,bash')).toThrow(/comma-separated list of fs, bash, jobs/)
    expect(() => parseBuiltinsList('fs,git')).toThrow('--builtins: unknown group "git"; use none or a comma-separated list of fs, bash, jobs.')
  })
})
