/**
 * Start-up costs (issue 12, "start-up in milliseconds"), each a whole fresh process, against a
 * bare `node -e 0` measured in the same run (cases interleaved, one warm-up each, medians of
 * `PTC_BENCH_STARTUP_SAMPLES`, default 5):
 * - `ptc run` of `return 1` without and with the type-check, started as a user starts it (the
 *   bin script's shebang), targets ≤ 0.4 s and ≤ 1.0 s on an idle machine: from the package as
 *   installed (`dist/bin/ptc.js`, the bundled CLI; the section builds `dist/` first with
 *   `scripts/build.ts`, about 3 s), and, without a target, from the checkout's sources and from
 *   the package with a `--tools` plugin that imports `ptc-runner` (the same bundle's modules);
 * - the library: `createHost` to the first answered `return 1` run (the import not included),
 *   in both isolation modes, target ≤ 250 ms: from the package as installed (`dist/bundle/`, its
 *   isolate worker's entry bundled too), and, without a target, from the checkout's sources
 *   (whose worker strips the types of every module it loads: about 50 ms more).
 * Node's compile cache and ptc-runner's own cache (`PTC_CACHE_DIR`) are warm after the warm-up,
 * as they are for a user from the second run on; "cold" here means a new process.
 * `node --no-node-snapshot -e 0` is the floor of the isolate worker's start (isolated-vm needs
 * the flag); `startup-floor.mjs` is the floor of `ptc run`'s design (a process that starts that
 * worker, which runs `return 1` in a fresh isolate), with nothing of the product's own.
 * `ptc help` is measured in `cli.bench.ts`.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import type { Section } from './harness.ts'

const ROOT = resolve(import.meta.dirname, '..')
const BIN = resolve(ROOT, 'bin/ptc.js')
/** The package's bin as installed, after `scripts/build.ts` (which `report` runs first). */
const PACKAGE_BIN = resolve(ROOT, 'dist/bin/ptc.js')
const FIRST_RUN = resolve(import.meta.dirname, 'first-run-child.ts')
const FLOOR = resolve(import.meta.dirname, 'startup-floor.mjs')
const SAMPLES = Number(process.env.PTC_BENCH_STARTUP_SAMPLES ?? 5)
/** `bin/ptc.js` is run as an executable: its shebang's `node` must be this Node. */
const ENV = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` }

interface Scenario {
  name: string
  /** Target in ms (undefined: the baseline). */
  target?: number
  /** One sample in ms. */
  sample: () => number
}

function wall(file: string, args: readonly string[]): number {
  const started = performance.now()
  execFileSync(file, args, { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] })
  return performance.now() - started
}

function firstRun(isolation: 'process' | 'inline', typecheck: boolean, from: 'package' | 'sources' = 'package'): number {
  // `--no-node-snapshot`: what isolated-vm needs in the process that loads it (inline).
  const out = execFileSync(process.execPath, ['--no-node-snapshot', FIRST_RUN, isolation, typecheck ? 'typecheck' : 'no-typecheck', from], { env: ENV, encoding: 'utf8' })
  const timings = JSON.parse(out) as { firstRunMs: number; status: string }
  if (timings.status !== 'ok') throw new Error(`first run ended ${timings.status}`)
  return timings.firstRunMs
}

/** A one-tool plugin module importing `defineTool` and `z` from the package, as the README shows. */
const PLUGIN = `import { defineTool, z } from 'ptc-runner'
export default [defineTool({
  name: 'shout',
  description: 'Upper-case a text.',
  parameters: z.object({ text: z.string() }),
  output: { schema: z.object({ loud: z.string() }), render: (_args, value) => [{ type: 'text', text: value.loud }] },
  async execute(args) { return { loud: args.text.toUpperCase() } },
})]
`

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!

async function report(): Promise<string[]> {
  const workspace = mkdtempSync(join(tmpdir(), 'ptc-bench-startup-'))
  const script = join(workspace, 'return-1.ts')
  writeFileSync(script, 'return 1\n')
  execFileSync(process.execPath, [resolve(ROOT, 'scripts/build.ts')], { env: { ...ENV, PTC_BUILD_NO_CHECK: '1' }, stdio: 'ignore' })
  const runArgs = ['run', script, '--json', '--workspace', workspace, '--journal', join(workspace, 'journal.jsonl')]
  const run = (...flags: string[]) => () => wall(PACKAGE_BIN, [...runArgs, ...flags])
  const runFromSources = (...flags: string[]) => () => wall(BIN, [...runArgs, ...flags])
  // A tool module as a plugin author writes it, importing the package by name (resolved through
  // a node_modules link to this checkout, so to the built dist/ the exports name).
  mkdirSync(join(workspace, 'node_modules'))
  symlinkSync(ROOT, join(workspace, 'node_modules', 'ptc-runner'), 'dir')
  writeFileSync(join(workspace, 'plugin.mjs'), PLUGIN)
  const scenarios: Scenario[] = [
    { name: 'node -e 0 (baseline)', sample: () => wall(process.execPath, ['-e', '0']) },
    // The isolate worker's floor: isolated-vm needs Node without its start-up snapshot.
    { name: 'node --no-node-snapshot -e 0 (the isolate worker process floor)', sample: () => wall(process.execPath, ['--no-node-snapshot', '-e', '0']) },
    // The floor of `ptc run`'s design: a process starting the isolate process, which runs `return 1`.
    { name: "ptc run's floor: node starting a --no-node-snapshot child that runs return 1 in isolated-vm (startup-floor.mjs)", sample: () => wall(process.execPath, [FLOOR]) },
    { name: 'ptc run return-1.ts --no-typecheck (whole process, the package as installed: bundled CLI)', target: 400, sample: run('--no-typecheck') },
    { name: 'ptc run return-1.ts, type-checked (whole process, the package as installed)', target: 1_000, sample: run() },
    { name: 'ptc run return-1.ts --no-typecheck --tools plugin.mjs, a plugin importing ptc-runner (whole process, the package)', sample: run('--no-typecheck', '--tools', join(workspace, 'plugin.mjs')) },
    { name: 'ptc run return-1.ts --no-typecheck (whole process, from the checkout\'s sources)', sample: runFromSources('--no-typecheck') },
    { name: 'ptc run return-1.ts, type-checked (whole process, from the checkout\'s sources)', sample: runFromSources() },
    { name: 'createHost → first answered run, worker process (the package as installed)', target: 250, sample: () => firstRun('process', false) },
    { name: 'createHost → first answered run, inline (the package)', target: 250, sample: () => firstRun('inline', false) },
    { name: 'createHost → first answered run, worker process, type-checked (the package)', sample: () => firstRun('process', true) },
    { name: "createHost → first answered run, worker process (from the checkout's sources)", sample: () => firstRun('process', false, 'sources') },
  ]
  try {
    const samples = new Map<Scenario, number[]>(scenarios.map((scenario) => [scenario, []]))
    const loadBefore = loadavg()[0]!
    for (const scenario of scenarios) scenario.sample()
    for (let round = 0; round < SAMPLES; round++) for (const scenario of scenarios) samples.get(scenario)!.push(scenario.sample())
    const baseline = median(samples.get(scenarios[0]!)!)
    const lines = [`load average ${loadBefore.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}; ${SAMPLES} samples each, medians [min–max]`]
    for (const scenario of scenarios) {
      const values = samples.get(scenario)!
      const value = median(values)
      const range = `[${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}]`
      const verdict = scenario.target === undefined ? '' : `  target ≤ ${scenario.target} ms: ${value <= scenario.target ? 'met' : 'missed'}`
      lines.push(`  ${scenario.name}: ${value.toFixed(0)} ms ${range}, ${(value / baseline).toFixed(1)}× baseline${verdict}`)
    }
    return lines
  } finally {
    rmSync(workspace, { recursive: true, force: true })
  }
}

export const startup: Section = { name: 'start-up (fresh processes; issue 12)', cases: () => [], options: {}, report }
