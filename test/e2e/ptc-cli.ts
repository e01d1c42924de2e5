/**
 * Run the real `ptc` command as a user does (`node bin/ptc.js`, as its `#!/usr/bin/env node` line
 * starts it: without `--no-node-snapshot`, which only the isolate worker process needs, so the CLI
 * keeps Node's start-up snapshot, 0.1-0.2 s of CPU less a start), and collect its exit code and
 * output. Never rejects.
 */
import { execFile } from 'node:child_process'
import { resolve } from 'node:path'

export const PTC_BIN = resolve(import.meta.dirname, '../../bin/ptc.js')

/** The outcome of one `ptc` invocation. */
export interface PtcOutcome {
  code: number
  stdout: string
  stderr: string
}

/** Run `ptc ...args` in `cwd`, killed after `timeoutMs` (default 60 s). */
export function runPtc(args: readonly string[], cwd: string, timeoutMs = 60_000): Promise<PtcOutcome> {
  return new Promise((done) => {
    execFile(process.execPath, [PTC_BIN, ...args], { cwd, timeout: timeoutMs }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}
