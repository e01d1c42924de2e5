/**
 * One fresh process for `startup.bench.ts`: imports the library, creates a host and answers one
 * `return 1` run, then prints one JSON line of phase timings in ms:
 * `{ importMs, createHostMs, firstRunMs, status }`, where `firstRunMs` counts from the call of
 * `createHost` to the run's answer (the issue 12 target). Argument 1: `process` or `inline`;
 * argument 2: `typecheck` or `no-typecheck`; argument 3: `package` (the built `dist/bundle/`,
 * as a user installs it; `scripts/build.ts` first) or `sources` (default: this checkout's `src/`).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const isolation = process.argv[2] === 'inline' ? 'inline' : 'process'
const typecheck = process.argv[3] === 'typecheck'
const workspace = mkdtempSync(join(tmpdir(), 'ptc-bench-first-run-'))
const started = performance.now()
const { createHost } = (await import(process.argv[4] === 'package' ? '../dist/bundle/index.js' : '../src/index.ts')) as typeof import('../src/index.ts')
const imported = performance.now()
const host = await createHost({ workspace, journal: false, ptc: { isolation, typecheck } })
const created = performance.now()
const result = await host.ctx.ptc.run('return 1')
const answered = performance.now()
process.stdout.write(`${JSON.stringify({ importMs: imported - started, createHostMs: created - imported, firstRunMs: answered - imported, status: result.status })}\n`)
await host.dispose()
rmSync(workspace, { recursive: true, force: true })
