/**
 * The CLI's one-line answers to a newcomer's mistakes, run in-process through `main()` (issue 14
 * item 3): what was wrong and what to do, on one `ptc:` line, exit code 2, before any host starts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { main } from '../../../src/cli/main.ts'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-usage-'))
  writeFileSync(join(dir, 'ok.ts'), 'return 1\n')
  mkdirSync(join(dir, 'scripts'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Run `ptc ...argv` in-process; the exit code and what it wrote on stderr. */
async function ptc(...argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = ''
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk)
    return true
  })
  try {
    return { code: await main(argv), stderr }
  } finally {
    spy.mockRestore()
  }
}

describe('ptc usage errors are one line and exit 2 (issue 14)', () => {
  it('a script that does not exist: "no such file", not ENOENT', async () => {
    const missing = join(dir, 'missing.ts')
    expect(await ptc('run', missing)).toEqual({ code: 2, stderr: `ptc: cannot read script '${missing}': no such file. Name a readable script file, or - to read it from standard input.\n` })
    expect((await ptc('check', missing)).stderr).toContain(`cannot read script '${missing}': no such file.`)
  })

  it('S9.4 a script that is not UTF-8 is refused with its line (Latin-1) or its encoding (UTF-16), not run with U+FFFD in it', async () => {
    const latin1 = join(dir, 'latin1.ts')
    writeFileSync(latin1, Buffer.from('const a = 1\nreturn "caf\xe9"\n', 'latin1'))
    expect(await ptc('run', latin1, '--no-typecheck')).toEqual({ code: 2, stderr: `ptc: cannot read script '${latin1}': line 2 has bytes that are not valid UTF-8 (another encoding, such as Latin-1). Save it as UTF-8.\n` })
    const utf16 = join(dir, 'utf16.ts')
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('return 1\n', 'utf16le')]))
    expect(await ptc('check', utf16)).toEqual({ code: 2, stderr: `ptc: cannot read script '${utf16}': it is UTF-16LE text (it starts with a UTF-16 byte-order mark). Save it as UTF-8 (iconv -f UTF-16 -t UTF-8).\n` })
  })

  it('ptc --version (and -v, version) prints the package version and Node.js version on stdout, exit 0', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
    for (const flag of ['--version', '-v', 'version']) {
      let stdout = ''
      const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        stdout += String(chunk)
        return true
      })
      try {
        expect(await ptc(flag)).toEqual({ code: 0, stderr: '' })
      } finally {
        spy.mockRestore()
      }
      expect(stdout, flag).toBe(`ptc-runner ${version} (Node.js ${process.versions.node})\n`)
    }
  })

  it('an unknown flag close to one of the command\'s flags (its start, or a typo) is named with a "did you mean"', async () => {
    expect(await ptc('run', 'ok.ts', '--timeout', '5')).toEqual({ code: 2, stderr: "ptc: Unknown option '--timeout'. Did you mean --timeout-ms? Run ptc run --help for its flags.\n" })
    expect(await ptc('run', 'ok.ts', '--jsn')).toEqual({ code: 2, stderr: "ptc: Unknown option '--jsn'. Did you mean --json? Run ptc run --help for its flags.\n" })
    expect(await ptc('run', 'ok.ts', '--bogus')).toEqual({ code: 2, stderr: "ptc: Unknown option '--bogus'. Run ptc run --help for its flags.\n" })
  })

  it('a device or a file past 16 MiB is refused without reading it all (ptc run /dev/zero filled 4 GB)', async () => {
    expect(await ptc('run', '/dev/zero')).toEqual({ code: 2, stderr: "ptc: cannot read script '/dev/zero': it is a device, not a file. Name a script file, or - to read it from standard input.\n" })
    const huge = join(dir, 'huge.ts')
    writeFileSync(huge, Buffer.alloc(17 * 2 ** 20, 0x20))
    expect(await ptc('check', huge)).toEqual({ code: 2, stderr: `ptc: cannot read script '${huge}': it is longer than 16777216 bytes, and a script may be 512 KiB (maxScriptBytes). Name a script file.\n` })
  })

  it('a script path that is a folder: "is a directory", not EISDIR', async () => {
    const folder = join(dir, 'scripts')
    expect(await ptc('run', folder)).toEqual({ code: 2, stderr: `ptc: cannot read script '${folder}': is a directory. Name a readable script file, or - to read it from standard input.\n` })
  })

  it('typegen --embedded --compact is a usage error: the two forms conflict', async () => {
    expect(await ptc('typegen', '--embedded', '--compact', '--workspace', dir)).toEqual({
      code: 2,
      stderr: 'ptc: --embedded and --compact are two forms of the declarations; pass one of them (--compact is the embedded form with first sentences only).\n',
    })
  })

  it.each([
    [['run', 'ok.ts', '--timeout-ms', '-5'], '--timeout-ms takes a positive whole number, got "-5".'],
    [['run', 'ok.ts', '--timeout-ms', '1.5'], '--timeout-ms takes a positive whole number, got "1.5".'],
    // Past 2^53 a number is not exact (zod then refused it with "Too big" as a failed run, exit 1).
    [['run', 'ok.ts', '--timeout-ms', '99999999999999999999'], '--timeout-ms takes a whole number from 1 to 9007199254740991, got "99999999999999999999".'],
    [['run', 'ok.ts', '--memory-mb', '-64'], '--memory-mb takes a whole number from 8 to 1048576, got "-64".'],
    // Decimal digits only: Number() would have taken these as 16, 16 and 1000.
    [['run', 'ok.ts', '--memory-mb', ' 16'], '--memory-mb takes a whole number from 8 to 1048576, got " 16".'],
    [['run', 'ok.ts', '--memory-mb', '0x10'], '--memory-mb takes a whole number from 8 to 1048576, got "0x10".'],
    [['run', 'ok.ts', '--timeout-ms', '1e3'], '--timeout-ms takes a positive whole number, got "1e3".'],
    [['view', '--port', '0x50'], '--port takes a whole number from 0 to 65535, got "0x50".'],
    [['run', 'ok.ts', '--memory-mb', '4'], '--memory-mb takes a whole number from 8 to 1048576, got "4".'],
    // isolated-vm's heap limit wraps around past 2^44 MB: 2^53 - 1 would have been a 23 MB heap.
    [['run', 'ok.ts', '--memory-mb', '9007199254740991'], '--memory-mb takes a whole number from 8 to 1048576, got "9007199254740991".'],
    [['view', '--port', '-1'], '--port takes a whole number from 0 to 65535, got "-1".'],
  ])('a negative, fractional or too large number for a numeric flag names the flag and its range: ptc %j', async (argv, message) => {
    const cwd = process.cwd()
    process.chdir(dir)
    try {
      expect(await ptc(...argv)).toEqual({ code: 2, stderr: `ptc: ${message}\n` })
    } finally {
      process.chdir(cwd)
    }
  })

  it('S11.3 ptc replay of a file that is not a journal fails (exit 2) instead of printing nothing and exiting 0', async () => {
    const notes = join(dir, 'notes.txt')
    writeFileSync(notes, 'just some notes\n{"not": "a record"}\n')
    expect(await ptc('replay', notes)).toEqual({
      code: 2,
      stderr: `ptc: ${notes} is not a ptc journal: none of its 2 lines is a journal record. Name a journal file (ptc run --journal FILE writes one; ptc serve and ptc run keep theirs in .ptc/journal/).\n`,
    })
  })

  it('a flag whose value is missing is one line, not parseArgs\' three', async () => {
    const { code, stderr } = await ptc('run', join(dir, 'ok.ts'), '--timeout-ms')
    expect(code).toBe(2)
    expect(stderr).toBe("ptc: Option '--timeout-ms <value>' argument missing. Run ptc run --help for its flags.\n")
  })
})

describe('ptc help run', () => {
  it("states --timeout-ms's default, cap and the CPU limit as the service applies them (S9.7)", async () => {
    const { default: run } = await import('../../../src/cli/commands/run.ts')
    const { DEFAULT_RUN_LIMITS } = await import('../../../src/ptc/isolate/run-limits.ts')
    const { DEFAULT_MAX_WALL_CLOCK_MS } = await import('../../../src/ptc/ptc-config.ts')
    const help = (run as { details: string }).details.replace(/\s+/g, ' ')
    expect(help).toContain(`--timeout-ms N the script's deadline in ms (default ${DEFAULT_RUN_LIMITS.wallClockMs}; at most ${DEFAULT_MAX_WALL_CLOCK_MS}: a larger value is capped; the CPU limit, ${DEFAULT_RUN_LIMITS.cpuTimeMs} ms, holds as well).`)
  })

  it('S11 states every exit code ptc run gives: 0 for ok, 130 after Ctrl-C, 2 for a usage error, else 1', async () => {
    const { default: run } = await import('../../../src/cli/commands/run.ts')
    const help = (run as { details: string }).details.replace(/\s+/g, ' ')
    expect(help).toContain('Exit code 0 only for status ok, 130 after Ctrl-C, 2 for a usage error, 1 otherwise.')
  })

  it('S1.4 --mcp-config names every key a server entry takes, as the config check does', async () => {
    const { default: run } = await import('../../../src/cli/commands/run.ts')
    const help = (run as { details: string }).details.replace(/\s+/g, ' ')
    for (const key of ['command', 'args?', 'env?', 'cwd?', 'parallel?', 'timeoutMs?', 'include?', 'exclude?', 'rename?']) expect(help).toMatch(new RegExp(`--mcp-config FILE .*[{ ]${key.replace('?', '\\?')}[,:}]`))
  })
})
