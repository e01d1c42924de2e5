/**
 * `ptc run`'s isolate worker started from its command line before the CLI loads (issue 12:
 * start-up, S9.1; `src/cli/prestart-run.ts`; that a `ptc run` host's supervisor adopts it is in
 * worker-prestart.test.ts): a command line asking for help or giving a heap limit `ptc run`
 * refuses starts none, and in-process usage errors leave none waiting. Order and outcome only.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { prestartRun, runMemoryMb } from '../../src/cli/prestart-run.ts'
import { UsageError } from '../../src/cli/usage-error.ts'
import { DEFAULT_WORKER_ENTRY, isolateWorkerOptions, takePrestartedWorker } from '../../src/ptc/isolate/worker-start.ts'

const ignore = { onMessage: () => {}, onExit: () => {} }

describe('ptc run prestarts its isolate worker (issue 12, S9.1)', { timeout: 120_000 }, () => {
  it('S9.1 help, or a --memory-mb that ptc run refuses, starts no worker', () => {
    for (const args of [['--help'], ['script.ts', '-h'], ['script.ts', '--memory-mb', '7'], ['script.ts', '--memory-mb=lots'], ['script.ts', '--memory-mb']]) {
      expect(prestartRun(args), args.join(' ')).toBeUndefined()
      expect(takePrestartedWorker(isolateWorkerOptions({}), DEFAULT_WORKER_ENTRY, ignore)).toBeUndefined()
    }
  })

  it('S9.1 ptc run called in-process with a usage error, or whose host fails to start (a tool module that cannot load), leaves no worker waiting', async () => {
    const { main } = await import('../../src/cli/main.ts')
    const dir = mkdtempSync(join(tmpdir(), 'ptc-prestart-run-'))
    try {
      writeFileSync(join(dir, 'ok.ts'), 'return 1\n')
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
      try {
        expect(await main(['run', join(dir, 'missing.ts'), '--workspace', dir])).toBe(2)
        expect(takePrestartedWorker(isolateWorkerOptions({}), DEFAULT_WORKER_ENTRY, ignore)).toBeUndefined()
        expect(await main(['run', join(dir, 'ok.ts'), '--workspace', dir, '--journal', join(dir, 'j.jsonl'), '--tools', join(dir, 'missing-tools.mjs')])).toBe(2)
      } finally {
        stderr.mockRestore()
      }
      expect(takePrestartedWorker(isolateWorkerOptions({}), DEFAULT_WORKER_ENTRY, ignore)).toBeUndefined()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('--memory-mb outside 8..1048576 is a usage error naming the flag and the range', () => {
    expect(runMemoryMb(undefined)).toBeUndefined()
    expect(runMemoryMb('8')).toBe(8)
    expect(() => runMemoryMb('7')).toThrow(UsageError)
    expect(() => runMemoryMb('7')).toThrow('--memory-mb takes a whole number from 8 to 1048576, got "7".')
  })
})
