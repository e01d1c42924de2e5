/**
 * One fresh process for `memory.bench.ts` (run with `--expose-gc`): a host with one `noop` tool
 * runs `const x = await tools.noop({ i: 1 }); return x.i + 1` through the `run_code` tool (the
 * pipeline, no type-check, as the peer harness's leak check does) RUNS times, and prints one JSON
 * line: `{ runs, points: [{ run, hostMb, workerMb, heapMb, externalMb, host, worker }], workerEvery }`,
 * in MB sampled after a full GC of the host at every tenth of the runs: RSS of the host and of the
 * isolate worker process (null inline), the host's committed JS heap and its external memory, and
 * each process's RSS split into anonymous and file-backed pages (`{ anonMb, fileMb }`);
 * `workerEvery` is the worker's RSS as it is at every hundredth of the runs (no pause, no GC; none while a replacement takes over), which
 * shows each replacement's warm-up between the tenths.
 * Arguments: isolation (`process` | `inline`), RUNS, and `small-young` to keep the host's young
 * generation small first, as `ptc serve` does (`keepYoungGenerationSmall`).
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { keepYoungGenerationSmall } from '../src/cli/young-generation.ts'
import { createHost, defineTool, type Context } from '../src/index.ts'

const isolation = process.argv[2] === 'inline' ? 'inline' : 'process'
const runs = Number(process.argv[3] ?? 2_000)
if (process.argv[4] === 'small-young') keepYoungGenerationSmall()
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('memory-child.ts needs node --expose-gc')

/**
 * Of a process's RSS in MB, the anonymous part (heaps, malloc, stacks: what a leak grows) and the
 * rest (pages of the node binary and libraries mapped from files, shared with every node process
 * and paged in as code runs for the first time), from /proc/<pid>/smaps_rollup.
 */
function rssParts(pid: number | 'self'): { anonMb: number; fileMb: number } | null {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? NaN)
    const anon = kb('Anonymous')
    return { anonMb: Math.round(anon / 1024), fileMb: Math.round((kb('Rss') - anon) / 1024) }
  } catch {
    return null
  }
}

const workspace = mkdtempSync(join(tmpdir(), 'ptc-bench-memory-'))
const host = await createHost({ workspace, journal: false, ptc: { isolation, typecheck: false } })
await host.ctx.plugin({
  name: 'bench-noop',
  inject: ['tools'],
  apply(ctx: Context) {
    ctx.tools.register(
      defineTool({
        name: 'noop',
        description: 'Echoes its arguments.',
        parameters: z.looseObject({}),
        output: { schema: z.unknown(), render: () => [{ type: 'text', text: 'noop' }] },
        isConcurrencySafe: () => true,
        execute: (args) => args,
      }),
    )
  },
})
const code = 'const x = await tools.noop({ i: 1 }); return x.i + 1'
/** RSS in MB of the isolate worker process. */
function workerRss(pid: number | null): number | null {
  if (pid === null) return null
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return kb ? Math.round(Number(kb[1]) / 1024) : null
  } catch {
    return null
  }
}

type Parts = { anonMb: number; fileMb: number } | null
const points: Array<{ run: number; hostMb: number; workerMb: number | null; heapMb: number; externalMb: number; host: Parts; worker: Parts }> = []
const sample = async (run: number) => {
  await new Promise((resolve) => setTimeout(resolve, 50))
  gc()
  gc()
  const usage = process.memoryUsage()
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20)
  // The workers runs go to now, as the supervisors know them (a replaced one may still be
  // draining): their RSS summed (PtcConfig.isolateWorkers), the parts of the first.
  const worker = host.ctx.ptc._supervisor?.workerPid ?? null
  points.push({ run, hostMb: mb(usage.rss), workerMb: workersRss(), heapMb: mb(usage.heapTotal), externalMb: mb(usage.external), host: rssParts('self'), worker: worker === null ? null : rssParts(worker) })
}
/** The RSS in MB of every isolate worker running now, summed; `null` when there is none. */
function workersRss(): number | null {
  const sizes = (host.ctx.ptc._supervisor?.workerPids ?? []).map((pid) => workerRss(pid)).filter((mb) => mb !== null)
  return sizes.length === 0 ? null : sizes.reduce((sum, mb) => sum + mb, 0)
}
const every = Math.max(1, Math.round(runs / 10))
const fine = Math.max(1, Math.round(runs / 100))
const workerEvery: number[] = []
for (let run = 1; run <= runs; run++) {
  const result = await host.ctx.tools.execute({ name: 'run_code', arguments: { code, typecheck: false } }, { agent: 'bench' })
  const value = result.value as { status?: string; value?: unknown } | undefined
  if (result.isError || value?.value !== 2) throw new Error(`run ${run} failed: ${JSON.stringify(result.value ?? result.error)}`)
  if (run % every === 0) await sample(run)
  if (isolation === 'process' && run % fine === 0) {
    // None while a replacement takes over (no worker pid known): the sample is skipped, not 0.
    const rss = workersRss()
    if (rss !== null) workerEvery.push(rss)
  }
}
process.stdout.write(`${JSON.stringify({ runs, points, workerEvery })}\n`)
await host.dispose()
rmSync(workspace, { recursive: true, force: true })
