/**
 * Memory over many runs (issue 12: "host and worker RSS within ±5 % from run 1,000 to run
 * 10,000"): `memory-child.ts` in a fresh process per isolation mode runs a one-tool-call script
 * `PTC_BENCH_MEMORY_RUNS` times (default 2,000; set 10000 for the check) and samples RSS
 * after a full GC every tenth of the runs. Printed: the samples, and how far every sample from run
 * 1,000 on strays from the first of them, against the ±5 % target; beside each RSS its anonymous
 * part (heaps and malloc; the rest is the node binary's pages mapped from its file, shared between
 * processes and paged in as code first runs, which a leak does not grow). Then, in processes of
 * their own, the native memory one disposed isolate leaves behind (`isolate-residue-child.ts`).
 * `npm run bench memory` runs this section alone.
 */
import { execFileSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { resolve } from 'node:path'
import type { Section } from './harness.ts'
import { DEFAULT_RECYCLE_AFTER_RUNS } from '../src/ptc/isolate/isolate-contract.ts'

const CHILD = resolve(import.meta.dirname, 'memory-child.ts')
const RESIDUE_CHILD = resolve(import.meta.dirname, 'isolate-residue-child.ts')
const RESIDUE_ISOLATES = 8_000
const RUNS = Number(process.env.PTC_BENCH_MEMORY_RUNS ?? 2_000)
const TARGET_PERCENT = 5

/**
 * The hosts measured: as `ptc serve` runs (young generation kept small), an embedding that sets
 * nothing, and an inline embedding set up as the README recommends (small young generation, and
 * glibc's malloc arenas capped because isolates allocate on threads of this process).
 */
const CASES = [
  { isolation: 'process', label: 'worker process (default), host as ptc serve runs it (young generation kept small)', smallYoung: true, env: {} },
  { isolation: 'process', label: 'worker process (default), host that sets nothing', smallYoung: false, env: {} },
  { isolation: 'inline', label: 'inline, young generation kept small and MALLOC_ARENA_MAX=2', smallYoung: true, env: { MALLOC_ARENA_MAX: '2' } },
] as const

interface Point {
  run: number
  hostMb: number
  workerMb: number | null
  /** The RSS split into anonymous pages (what a leak grows) and pages mapped from files (the node binary, shared). */
  host: { anonMb: number; fileMb: number } | null
  worker: { anonMb: number; fileMb: number } | null
}

/** The window starts here: earlier samples show a fresh process growing to its working size. */
const WINDOW_FROM_RUN = 1_000

/**
 * The samples of one process, judged over the whole window: every sample from run 1,000 on
 * (`runs[i]`) within ±5 % of the first of them (a worker replaced every few thousand runs draws a
 * sawtooth, so the last sample alone could hide a peak). All samples are printed.
 */
function growth(label: string, runs: number[], values: number[]): string {
  const from = Math.max(0, runs.findIndex((run) => run >= WINDOW_FROM_RUN))
  const window = values.slice(from)
  const first = window[0]!
  const percents = window.map((value) => ((value - first) / first) * 100)
  const low = Math.min(...percents)
  const high = Math.max(...percents)
  const verdict = Math.max(-low, high) <= TARGET_PERCENT ? 'met' : 'missed'
  const signed = (percent: number) => `${percent >= 0 ? '+' : ''}${percent.toFixed(1)} %`
  return `    ${label} RSS MB: ${values.join(' → ')}; from run ${runs[from]!.toLocaleString('en-US')} every sample within ${signed(low)} .. ${signed(high)} of that one (target ±${TARGET_PERCENT} %: ${verdict})`
}

/**
 * The worker's RSS at every hundredth of the runs, as it is (no GC): its range from run 1,000 on,
 * and the series, in which each replacement shows as a drop followed by the new worker's warm-up
 * (V8's heap and compiled code growing to their working size over its first few hundred runs).
 */
function workerCurve(values: number[]): string {
  // A sample skipped during a replacement makes the step a little longer than RUNS / 100.
  const step = Math.round(RUNS / values.length)
  const window = values.slice(Math.max(0, Math.ceil(WINDOW_FROM_RUN / step) - 1))
  return `    isolate worker RSS MB every ${step.toLocaleString('en-US')} runs, as it is (no GC): ${Math.min(...window)}–${Math.max(...window)} from run ${WINDOW_FROM_RUN.toLocaleString('en-US')} on; ${values.join(' ')}`
}

async function report(): Promise<string[]> {
  const lines = [`load average ${loadavg()[0]!.toFixed(2)}; ${RUNS.toLocaleString('en-US')} runs of one tools.noop() call each, RSS after GC every ${Math.round(RUNS / 10).toLocaleString('en-US')} runs`]
  for (const { isolation, label, smallYoung, env } of CASES) {
    const started = performance.now()
    const out = execFileSync(process.execPath, ['--no-node-snapshot', '--expose-gc', CHILD, isolation, String(RUNS), ...(smallYoung ? ['small-young'] : [])], { encoding: 'utf8', maxBuffer: 1 << 20, env: { ...process.env, ...env } })
    const { points, workerEvery } = JSON.parse(out) as { points: Point[]; workerEvery: number[] }
    const runs = points.map((point) => point.run)
    lines.push(`  ${label}: ${((performance.now() - started) / RUNS).toFixed(2)} ms a run`)
    lines.push(growth('host', runs, points.map((point) => point.hostMb)))
    lines.push(growth('host (anonymous pages only)', runs, points.map((point) => point.host?.anonMb ?? 0)))
    if (isolation === 'process') {
      lines.push(growth('isolate worker', runs, points.map((point) => point.workerMb ?? 0)))
      lines.push(growth('isolate worker (anonymous pages only)', runs, points.map((point) => point.worker?.anonMb ?? 0)))
      lines.push(workerCurve(workerEvery))
    }
  }
  lines.push(`  native memory a disposed isolate leaves in its process (${RESIDUE_ISOLATES.toLocaleString('en-US')} one after another, full GC every 500, RSS slope from the 2,000th; why the worker is replaced every ${DEFAULT_RECYCLE_AFTER_RUNS.toLocaleString('en-US')} runs):`)
  for (const kind of ['raw', 'prepared'] as const) {
    const out = execFileSync(process.execPath, ['--no-node-snapshot', '--expose-gc', RESIDUE_CHILD, kind, String(RESIDUE_ISOLATES)], { encoding: 'utf8', env: { ...process.env, MALLOC_ARENA_MAX: '2' } })
    const { kbPerIsolate, firstMb, lastMb } = JSON.parse(out) as { kbPerIsolate: number; firstMb: number; lastMb: number }
    const label = kind === 'raw' ? 'raw isolated-vm isolate with a context' : "this product's prepareIsolate (runtime installed)"
    lines.push(`    ${label}: ${kbPerIsolate.toFixed(2)} KB an isolate (RSS ${firstMb.toFixed(0)} → ${lastMb.toFixed(0)} MB)`)
  }
  return lines
}

export const memory: Section = { name: `memory over ${RUNS.toLocaleString('en-US')} runs (issue 12)`, cases: () => [], options: {}, report }
