import type fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { buildBwrapArgs } from '../../../src/policy/bwrap.ts'
import type { SandboxOptions } from '../../../src/workspace/workspace-options.ts'

const namespaces = ['ipc', 'pid', 'net', 'uts', 'user', 'cgroup'] as const

/** A fake host: only the paths in `dirs` exist (as directories), `links` as symlinks. */
function fakeLstat(dirs: readonly string[] = [], links: readonly string[] = []) {
  return (file: string) =>
    dirs.includes(file) ? ({ isDirectory: () => true, isSymbolicLink: () => false } as fs.Stats)
    : links.includes(file) ? ({ isDirectory: () => false, isSymbolicLink: () => true } as fs.Stats)
    : undefined
}

function build(options: Partial<SandboxOptions>, lstat = fakeLstat()) {
  const full: SandboxOptions = { mode: 'workspace-write', network: false, workspaceRoots: ['/tmp/ws'], writableRoots: [], ...options }
  return buildBwrapArgs({ bwrapPath: 'bwrap', options: full, cwd: '/tmp/ws', argv: ['bash', '-c', 'echo "$1"', '--', '--bind / /'], namespaces, lstat })
}

describe('buildBwrapArgs', () => {
  it('S8 mounts read-only root, private dev/proc/tmp, then the writable roots over them, shortest first', () => {
    const { argv } = build({ workspaceRoots: ['/tmp/ws/nested', '/tmp/ws'] })
    expect(argv).toEqual([
      'bwrap', '--die-with-parent', '--new-session', '--unshare-all',
      '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp',
      '--bind', '/tmp/ws', '/tmp/ws', '--bind', '/tmp/ws/nested', '/tmp/ws/nested',
      '--chdir', '/tmp/ws', '--', 'bash', '-c', 'echo "$1"', '--', '--bind / /',
    ])
  })

  it('S8 read-only re-mounts the roots read-only (a root under /tmp stays visible) and reports no writable root', () => {
    const { argv, report } = build({ mode: 'read-only' })
    expect(argv).toContain('--ro-bind')
    expect(argv).not.toContain('--bind')
    expect(argv.slice(argv.indexOf('/tmp') + 1, argv.indexOf('--chdir'))).toEqual(['--ro-bind', '/tmp/ws', '/tmp/ws'])
    expect(report).toEqual({ backend: 'bwrap', mode: 'read-only', readOnlyRoot: true, writableRoots: [], privateTmp: true, network: false, namespaces })
  })

  it('S8 network on adds --share-net and drops net from the reported namespaces', () => {
    const { argv, report } = build({ network: true })
    expect(argv.slice(0, 5)).toEqual(['bwrap', '--die-with-parent', '--new-session', '--unshare-all', '--share-net'])
    expect(report.network).toBe(true)
    expect(report.namespaces).not.toContain('net')
  })

  it('S8 a root at or above /tmp is reported honestly: no private tmp, and / writable means no read-only root', () => {
    expect(build({ writableRoots: ['/tmp'] }).report.privateTmp).toBe(false)
    expect(build({ writableRoots: ['/'] }).report).toMatchObject({ readOnlyRoot: false, privateTmp: false })
  })

  it('S8 danger-full-access is never built into a bwrap command', () => {
    expect(() => build({ mode: 'danger-full-access' })).toThrow(/not sandboxed/)
  })

  it('S8 the .ptc state folder of a workspace root is hidden by a tmpfs after the roots, in every sandboxed mode (not when it is a symlink)', () => {
    const { argv } = build({}, fakeLstat(['/tmp/ws/.ptc']))
    const bindAt = argv.indexOf('/tmp/ws')
    const stateAt = argv.indexOf('/tmp/ws/.ptc')
    expect(argv.slice(stateAt - 1, stateAt + 1)).toEqual(['--tmpfs', '/tmp/ws/.ptc'])
    expect(stateAt).toBeGreaterThan(bindAt)
    expect(build({}, fakeLstat([], ['/tmp/ws/.ptc'])).argv).not.toContain('/tmp/ws/.ptc')
    const readOnly = build({ mode: 'read-only' }, fakeLstat(['/tmp/ws/.ptc'])).argv
    expect(readOnly.slice(readOnly.indexOf('/tmp/ws/.ptc') - 1, readOnly.indexOf('/tmp/ws/.ptc') + 1)).toEqual(['--tmpfs', '/tmp/ws/.ptc'])
  })

  it('S8 /run and /var/tmp (real directories only, not the /var/run symlink) get private tmpfs mounts before the roots', () => {
    const { argv } = build({ workspaceRoots: ['/var/tmp/ws'] }, fakeLstat(['/run', '/var/tmp'], ['/var/run']))
    const tmpfs = argv.flatMap((arg, index) => (arg === '--tmpfs' ? [argv[index + 1]] : []))
    expect(tmpfs).toEqual(['/tmp', '/run', '/var/tmp'])
    // Homes stay visible (toolchains live there); only their credential stores are masked.
    expect(build({}, fakeLstat(['/run', '/home', '/root'])).argv.flatMap((arg, index, all) => (arg === '--tmpfs' ? [all[index + 1]] : []))).toEqual(['/tmp', '/run'])
    // A root inside a hidden directory is bound back after it.
    expect(argv.indexOf('/var/tmp/ws')).toBeGreaterThan(argv.lastIndexOf('/var/tmp'))
  })

  it('S8 with network on, a resolv.conf living under /run is bound back so DNS keeps working', () => {
    const full: SandboxOptions = { mode: 'workspace-write', network: true, workspaceRoots: ['/tmp/ws'], writableRoots: [] }
    const input = { bwrapPath: 'bwrap', options: full, cwd: '/tmp/ws', argv: ['true'], namespaces, lstat: fakeLstat(['/run']) }
    const resolv = '/run/systemd/resolve/stub-resolv.conf'
    expect(buildBwrapArgs({ ...input, realpath: () => resolv }).argv.join(' ')).toContain(`--ro-bind ${resolv} ${resolv}`)
    expect(buildBwrapArgs({ ...input, options: { ...full, network: false }, realpath: () => resolv }).argv).not.toContain(resolv)
  })

  it('S8 /etc/shadow and /etc/gshadow are masked with /dev/null after the roots (a root of / cannot unmask them)', () => {
    const lstat = (file: string) => (file === '/etc/shadow' || file === '/etc/gshadow' ? ({ isFile: () => true, isDirectory: () => false } as fs.Stats) : undefined)
    const { argv } = build({ writableRoots: ['/'] }, lstat)
    const text = argv.join(' ')
    expect(text).toContain('--ro-bind /dev/null /etc/shadow --ro-bind /dev/null /etc/gshadow')
    expect(argv.indexOf('/etc/shadow')).toBeGreaterThan(argv.lastIndexOf('/'))
    expect(argv).not.toContain('/etc/shadow-')
  })

  it('S8 credential stores in /root and /home/* are masked after the roots: directories by tmpfs, files by /dev/null; symlinks left alone', () => {
    const files = ['/root/.git-credentials', '/home/ann/.npmrc']
    const lstat = (file: string) =>
      ['/root/.ssh', '/home/ann/.aws'].includes(file) ? ({ isDirectory: () => true, isFile: () => false, isSymbolicLink: () => false } as fs.Stats)
      : files.includes(file) ? ({ isDirectory: () => false, isFile: () => true, isSymbolicLink: () => false } as fs.Stats)
      : file === '/home/ann/.docker' ? ({ isDirectory: () => false, isFile: () => false, isSymbolicLink: () => true } as fs.Stats)
      : undefined
    const full: SandboxOptions = { mode: 'workspace-write', network: false, workspaceRoots: ['/root'], writableRoots: [] }
    const { argv } = buildBwrapArgs({ bwrapPath: 'bwrap', options: full, cwd: '/root', argv: ['true'], namespaces, lstat, readdir: (dir) => (dir === '/home' ? ['ann'] : undefined) })
    const joined = argv.join(' ')
    expect(joined).toContain('--tmpfs /root/.ssh')
    expect(joined).toContain('--tmpfs /home/ann/.aws')
    expect(joined).toContain('--ro-bind /dev/null /root/.git-credentials')
    expect(joined).toContain('--ro-bind /dev/null /home/ann/.npmrc')
    expect(joined).not.toContain('/home/ann/.docker')
    // A workspace at /root cannot unmask its own secrets: the masks come after the root's bind.
    const rootBind = argv.findIndex((arg, index) => arg === '--bind' && argv[index + 1] === '/root')
    expect(rootBind).toBeGreaterThan(0)
    expect(argv.indexOf('/root/.ssh')).toBeGreaterThan(rootBind)
  })

  it('S8 tool directories hidden by the private /tmp are bound back read-only; visible ones and roots are not re-bound', () => {
    const lstat = (file: string) => (['/tmp/clone/.node24/bin', '/usr/bin', '/tmp/ws/bin'].includes(file) ? ({ isDirectory: () => true } as fs.Stats) : undefined)
    const full: SandboxOptions = { mode: 'workspace-write', network: false, workspaceRoots: ['/tmp/ws'], writableRoots: [] }
    const { argv } = buildBwrapArgs({
      bwrapPath: 'bwrap', options: full, cwd: '/tmp/ws', argv: ['true'], namespaces, lstat, realpath: (file) => file,
      toolDirs: ['/tmp/clone/.node24/bin', '/usr/bin', '/tmp/ws/bin', 'relative/bin', '/tmp/missing'],
    })
    const joined = argv.join(' ')
    expect(joined).toContain('--ro-bind /tmp/clone/.node24/bin /tmp/clone/.node24/bin')
    expect(joined).not.toContain('/usr/bin')
    expect(joined).not.toContain('/tmp/ws/bin')
    expect(joined).not.toContain('relative')
    expect(joined).not.toContain('/tmp/missing')
    expect(argv.indexOf('/tmp/clone/.node24/bin')).toBeGreaterThan(argv.indexOf('/tmp'))
  })
})
