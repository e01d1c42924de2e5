/**
 * A tiny benchmark harness shared by every bench section (`npm run bench`). A section is a named
 * list of cases measured together: each sample runs every case for `iterations` sequential awaited
 * calls, cases interleaved so drift (GC, CPU frequency) hits them alike; after a warm-up the
 * medians over `samples` are reported in µs per call, with the spread and the ratio to the
 * section's baseline case. Sections can add summary lines computed from the medians.
 */

/** One measured operation. Exactly one case per section should be the `baseline`. */
export interface BenchCase {
  name: string
  /** One call of the operation; awaited when it returns a promise. */
  run: () => unknown
  baseline?: boolean
  /**
   * Awaited before every call and not timed: for latency cases whose calls are separated in real
   * use (e.g. `run_code` runs a model turn apart, so the isolate pool has refilled).
   */
  pause?: () => unknown
  /** Calls per sample and warm-up calls for this case, overriding the section's. */
  iterations?: number
}

export interface SectionOptions {
  /** Timed samples per case (default 7). */
  samples?: number
  /** Calls per sample (default 20,000). */
  iterations?: number
  /** Untimed calls per case before the first sample (default 20,000). */
  warmup?: number
  /**
   * Untimed rounds over every case before the first sample (default 1). Two when what is measured
   * spreads its runs over two processes that each warm up on their own (the product's two isolate
   * workers take runs in turn): otherwise one of them meets each workload first in a timed sample.
   */
  warmupRounds?: number
  /** Extra lines printed under the table, from the medians in µs/call keyed by case name. */
  summary?: (medians: Readonly<Record<string, number>>) => string[]
}

/** A benchmark section: `cases` may be built asynchronously (e.g. after installing plugins). */
export interface Section {
  name: string
  cases: () => BenchCase[] | Promise<BenchCase[]>
  options: SectionOptions
  teardown?: () => unknown
  /** A section that measures sizes, not time: its lines are printed and no case is timed. */
  report?: () => Promise<string[]>
}

/** Declare a section; `run.ts` imports sections and runs them in order. */
export function section(
  name: string,
  cases: BenchCase[] | (() => BenchCase[] | Promise<BenchCase[]>),
  options: SectionOptions = {},
): Section {
  return { name, cases: typeof cases === 'function' ? cases : () => cases, options }
}

/** Measured statistics of one case, in µs per call. */
export interface CaseStats {
  name: string
  median: number
  min: number
  max: number
  /** (max − min) / median over the samples, in percent. */
  spreadPercent: number
  /** median / baseline median. */
  ratio: number
}

async function timeOnce(run: () => unknown, iterations: number, pause?: () => unknown): Promise<number> {
  if (pause !== undefined) {
    let elapsedNs = 0
    for (let index = 0; index < iterations; index++) {
      await pause()
      const started = process.hrtime.bigint()
      await run()
      elapsedNs += Number(process.hrtime.bigint() - started)
    }
    return elapsedNs / iterations / 1000
  }
  const started = process.hrtime.bigint()
  for (let index = 0; index < iterations; index++) {
    const returned = run()
    if (returned !== null && typeof returned === 'object' && typeof (returned as PromiseLike<unknown>).then === 'function') await returned
  }
  const elapsedNs = Number(process.hrtime.bigint() - started)
  return elapsedNs / iterations / 1000
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Run one section and return its statistics (also printed). */
export async function runSection(entry: Section): Promise<CaseStats[]> {
  if (entry.report) {
    console.log(`## ${entry.name}`)
    for (const line of await entry.report()) console.log(line)
    console.log()
    return []
  }
  const { samples = 7, iterations = 20_000, warmup = 20_000, warmupRounds = 1, summary } = entry.options
  const cases = await entry.cases()
  const baseline = cases.find((c) => c.baseline) ?? cases[0]
  if (!baseline) throw new Error(`bench section "${entry.name}" has no cases`)
  for (let round = 0; round < warmupRounds; round++) for (const c of cases) await timeOnce(c.run, c.iterations ?? warmup, c.pause)
  const timings = new Map<BenchCase, number[]>(cases.map((c) => [c, []]))
  for (let sample = 0; sample < samples; sample++) {
    for (const c of cases) timings.get(c)!.push(await timeOnce(c.run, c.iterations ?? iterations, c.pause))
  }
  const baselineMedian = median(timings.get(baseline)!)
  const stats = cases.map((c): CaseStats => {
    const values = timings.get(c)!
    const m = median(values)
    const min = Math.min(...values)
    const max = Math.max(...values)
    return { name: c.name, median: m, min, max, spreadPercent: ((max - min) / m) * 100, ratio: m / baselineMedian }
  })
  print(entry.name, stats, { samples, iterations, baseline: baseline.name })
  if (summary) for (const line of summary(Object.fromEntries(stats.map((s) => [s.name, s.median])))) console.log(`  ${line}`)
  console.log()
  await entry.teardown?.()
  return stats
}

function print(name: string, stats: CaseStats[], info: { samples: number; iterations: number; baseline: string }) {
  console.log(`## ${name}  (${info.samples} samples × ${info.iterations.toLocaleString('en-US')} calls, medians; baseline: ${info.baseline})`)
  const header = ['case', 'median µs/call', 'spread (max−min)/median', 'ratio vs baseline']
  const rows = stats.map((s) => [s.name, `${s.median.toFixed(3)} µs`, `±${(s.spreadPercent / 2).toFixed(1)} %`, `${s.ratio.toFixed(2)}×`])
  const widths = header.map((h, column) => Math.max(h.length, ...rows.map((row) => row[column]!.length)))
  const line = (cells: string[]) => `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(' | ')} |`
  console.log(line(header))
  console.log(`|${widths.map((width, column) => (column === 0 ? ` ${'-'.repeat(width)} ` : ` ${'-'.repeat(width - 1)}: `)).join('|')}|`)
  for (const row of rows) console.log(line(row))
}
