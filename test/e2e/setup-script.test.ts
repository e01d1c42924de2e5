/**
 * `scripts/setup.sh` (issue 14) refuses what it cannot do safely before it writes anything: a
 * shell that is not bash (run or sourced), and a copy outside the ptc-runner checkout. Its
 * installs (Node 24, apt packages, npm ci) run in CI through `.ci/run`, not here.
 */
import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const SETUP = resolve(import.meta.dirname, '../../scripts/setup.sh')
const dirs: string[] = []
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

function sh(shell: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(shell, args, { cwd, env: { PATH: '/usr/bin:/bin', HOME: cwd } }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

describe('scripts/setup.sh', () => {
  it('refuses /bin/sh (dash) clearly, run or sourced, and writes nothing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ptc-setup-'))
    dirs.push(root)
    const refusal = 'setup.sh: needs bash (this shell is not bash). Run: bash scripts/setup.sh, or from bash: source scripts/setup.sh\n'
    const run = await sh('/bin/sh', [SETUP], root)
    expect(run).toEqual({ code: 2, stdout: '', stderr: refusal })
    const sourced = await sh('/bin/sh', ['-c', `. ${SETUP}; echo "still here $?"`], root)
    expect(sourced).toEqual({ code: 0, stdout: 'still here 2\n', stderr: refusal })
    expect(readdirSync(root)).toEqual([])
  })

  it('outside the ptc-runner checkout, refuses before installing anything', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ptc-setup-'))
    dirs.push(root)
    mkdirSync(join(root, 'scripts'))
    copyFileSync(SETUP, join(root, 'scripts', 'setup.sh'))
    const run = await sh('/bin/bash', [join(root, 'scripts', 'setup.sh')], root)
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/^setup\.sh: .* is not the ptc-runner checkout/)
    expect(readdirSync(root)).toEqual(['scripts'])
  })
})
