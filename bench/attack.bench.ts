/**
 * The service under attack (issue 16: "the host only routes"): one host, several sessions (agents)
 * calling `run_code` through the registry as `ptc serve` does, and a probe on the host's event
 * loop. For each attack: the loop's lag (p50/p99/max, `event-loop-probe.ts`), how far past its
 * deadline each attacking run is answered (wall clock from the call, p50/p99), and the latency of
 * a bystander session's `return 1` against its unloaded value; then the cost of the type-check as
 * `ptc run` pays it, cold and warm. Targets (idle 2-core machine) are printed beside the values.
 *
 * More attacks: add an {@link AttackCase} to {@link ATTACKS}.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createHost, type Host } from '../src/host/create-host.ts'
import { defineTool, z } from '../src/index.ts'
import { CheckerPool } from '../src/ptc/check/checker-pool.ts'
import type { RunCodeValue } from '../src/ptc/run-code-value.ts'
import { recursiveTypesScript, SPIN_SCRIPT } from '../test/fixtures/attack-scripts.ts'
import { probeEventLoop, quantile, type EventLoopLag } from './event-loop-probe.ts'
import type { Section } from './harness.ts'

/** Numbers in the big argument of attack (d), and the tool that takes them (registered by {@link report}). */
const BIG_ARGUMENT_ITEMS = 2_000_000
const SINK_TOOL = 'bench_sink'

/** The deadline of every attacking run, in ms. */
export const ATTACK_DEADLINE_MS = 2_000
const ROUNDS = 3
const BYSTANDER_PAUSE_MS = 50
const TARGET_LAG_P99_MS = 50
const TARGET_OVERSHOOT_MS = 100
const TARGET_LATENCY_RATIO = 2
const BIN = resolve(import.meta.dirname, '../bin/ptc.js')

/** One way to attack the service. */
export interface AttackCase {
  name: string
  /** Runs the attack to its end; resolves with how far past its deadline each attacking run was answered (ms). */
  attack: (host: Host) => Promise<number[]>
}

/** One session's `run_code` call through the registry; the canonical value and the wall time from call to answer (ms). */
export async function runCode(host: Host, agent: string, code: string, timeoutMs?: number): Promise<{ value: RunCodeValue; wallMs: number }> {
  const started = performance.now()
  const result = await host.ctx.tools.execute({ name: 'run_code', arguments: { code, ...(timeoutMs !== undefined && { timeoutMs }) } }, { agent })
  return { value: result.value as RunCodeValue, wallMs: performance.now() - started }
}

/** How far past `timeoutMs` a run of `code` is answered (ms); throws unless it ends `timeout`. */
export async function overshoot(host: Host, agent: string, code: string, timeoutMs = ATTACK_DEADLINE_MS): Promise<number> {
  const { value, wallMs } = await runCode(host, agent, code, timeoutMs)
  if (value.status !== 'timeout') throw new Error(`attack by ${agent}: expected status timeout, got ${value.status}: ${value.error?.message}`)
  return wallMs - timeoutMs
}

/** `ROUNDS` rounds of `round`, collecting the overshoots. */
async function rounds(round: () => Promise<number[]>): Promise<number[]> {
  const all: number[] = []
  for (let index = 0; index < ROUNDS; index++) all.push(...(await round()))
  return all
}

/** The attacks measured; each runs {@link ROUNDS} rounds. */
export const ATTACKS: AttackCase[] = [
  {
    name: `(a) 1 session: recursive types, 9 KB`,
    attack: (host) => rounds(async () => [await overshoot(host, 'types', recursiveTypesScript())]),
  },
  {
    name: '(c) 2 sessions: while (true)',
    attack: (host) => rounds(() => Promise.all([overshoot(host, 'spin-1', SPIN_SCRIPT), overshoot(host, 'spin-2', SPIN_SCRIPT)])),
  },
  {
    // Within the 8 MiB crossing limit: the host parses, materializes, validates and journals it.
    name: `(d) 1 session: a tool argument of ${BIG_ARGUMENT_ITEMS.toLocaleString('en-US')} numbers (4 MB of JSON)`,
    attack: (host) =>
      rounds(async () => {
        const { value } = await runCode(host, 'big-argument', `return await tools.${SINK_TOOL}({ items: new Array(${BIG_ARGUMENT_ITEMS}).fill(1) })`, ATTACK_DEADLINE_MS * 5)
        if (value.status !== 'ok' || value.value !== BIG_ARGUMENT_ITEMS) throw new Error(`the big argument's run ended ${value.status}: ${value.error?.message}`)
        return []
      }),
  },
]

/** What one attack did to the service. */
export interface AttackMeasurement {
  lag: EventLoopLag
  overshoots: number[]
  /** Wall times of the bystander's `return 1` runs, in ms. */
  latencies: number[]
}

/**
 * Runs `attack` (none: 2 s of nothing) while a probe samples the host's event loop and a
 * bystander session sends `return 1` every {@link BYSTANDER_PAUSE_MS} ms.
 */
export async function measureUnderAttack(host: Host, attack: AttackCase | undefined): Promise<AttackMeasurement> {
  const probe = probeEventLoop()
  let attacking = true
  const latencies: number[] = []
  const bystander = (async () => {
    while (attacking || latencies.length < 5) {
      const { value, wallMs } = await runCode(host, 'bystander', 'return 1')
      if (value.status !== 'ok') throw new Error(`the bystander's return 1 ended ${value.status}: ${value.error?.message}`)
      latencies.push(wallMs)
      await new Promise((resolve) => setTimeout(resolve, BYSTANDER_PAUSE_MS))
    }
  })()
  const overshoots = attack === undefined ? await new Promise<number[]>((resolve) => setTimeout(() => resolve([]), 2_000)) : await attack.attack(host)
  attacking = false
  await bystander
  return { lag: probe.stop(), overshoots, latencies }
}

const ms = (value: number) => `${value.toFixed(0)} ms`
const mark = (ok: boolean) => (ok ? '✓' : '✗')

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`
  return [line(rows[0]!), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.slice(1).map(line)]
}

async function attackTable(host: Host): Promise<string[]> {
  const unloaded = await measureUnderAttack(host, undefined)
  const baseline = quantile(unloaded.latencies, 0.5)
  const rows = [['case', 'event-loop lag p50 / p99 / max', `overshoot past ${ATTACK_DEADLINE_MS} ms, p50 / p99`, 'bystander return 1, median']]
  rows.push(['unloaded', `${ms(unloaded.lag.p50)} / ${ms(unloaded.lag.p99)} / ${ms(unloaded.lag.max)}`, '–', ms(baseline)])
  for (const attack of ATTACKS) {
    const { lag, overshoots, latencies } = await measureUnderAttack(host, attack)
    const p99 = quantile(overshoots, 0.99)
    const latency = quantile(latencies, 0.5)
    rows.push([
      attack.name,
      `${ms(lag.p50)} / ${ms(lag.p99)} ${mark(lag.p99 < TARGET_LAG_P99_MS)} / ${ms(lag.max)}`,
      overshoots.length === 0 ? '– (no deadline reached)' : `${ms(quantile(overshoots, 0.5))} / ${ms(p99)} ${mark(p99 <= TARGET_OVERSHOOT_MS)}`,
      `${ms(latency)} (${(latency / baseline).toFixed(1)}× ${mark(latency <= TARGET_LATENCY_RATIO * baseline)})`,
    ])
  }
  return [...table(rows), `  targets (idle 2-core machine): lag p99 < ${TARGET_LAG_P99_MS} ms; overshoot ≤ ${TARGET_OVERSHOOT_MS} ms; bystander ≤ ${TARGET_LATENCY_RATIO}× unloaded. ${ROUNDS} rounds per attack.`]
}

/** The checker's cold start (a CLI run waits for it; not charged to the run) and a warm check (charged). */
async function typeCheckCost(host: Host): Promise<string[]> {
  const declarations = await host.ctx.ptc.declarations()
  const starts: number[] = []
  const checks: number[] = []
  for (let index = 0; index < 3; index++) {
    const pool = new CheckerPool({ kind: 'process', size: 1, warmup: async () => declarations })
    const started = performance.now()
    await pool.prewarm()
    starts.push(performance.now() - started)
    if (index === 0) {
      for (let check = 0; check < 20; check++) {
        checks.push((await pool.prepare({ code: `return ${check}`, typecheck: true, compile: true }, { declarations, timeoutMs: 30_000 })).checkMs)
      }
    }
    pool.dispose()
  }
  const workspace = mkdtempSync(join(tmpdir(), 'ptc-bench-cli-'))
  const walls: number[] = []
  const durations: number[] = []
  try {
    writeFileSync(join(workspace, 'return-1.ts'), 'return 1\n')
    for (let index = 0; index < 3; index++) {
      const started = performance.now()
      const out = execFileSync(process.execPath, ['--no-node-snapshot', BIN, 'run', join(workspace, 'return-1.ts'), '--json', '--workspace', workspace, '--journal', join(workspace, 'journal.jsonl')], { encoding: 'utf8' })
      walls.push(performance.now() - started)
      durations.push((JSON.parse(out) as RunCodeValue).durationMs)
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true })
  }
  return [
    '  type-check as `ptc run` pays it (medians):',
    `    cold: checker start-up (Node, TypeScript, lib files, the built-in tools' declarations; waited for, not charged): ${ms(quantile(starts, 0.5))} of 3`,
    `    warm: type-check + compile of a small script (charged to the run's deadline): ${quantile(checks, 0.5).toFixed(1)} ms of 20`,
    `    \`ptc run return-1.ts --json\`, whole process: ${ms(quantile(walls, 0.5))} wall, durationMs ${quantile(durations, 0.5).toFixed(0)} of 3`,
  ]
}

async function report(): Promise<string[]> {
  const workspace = mkdtempSync(join(tmpdir(), 'ptc-bench-attack-'))
  // Journaled, as a served session is: the journal writes every call's arguments.
  const host = await createHost({ workspace, journal: join(workspace, 'journal.jsonl') })
  try {
    host.ctx.tools.register(
      defineTool({
        name: SINK_TOOL,
        description: 'Counts the numbers it is given.',
        parameters: z.object({ items: z.array(z.number()) }),
        output: { schema: z.number(), render: (_args, count) => [{ type: 'text', text: String(count) }] },
        execute: async (args) => args.items.length,
      }),
    )
    await host.ctx.ptc.prewarm()
    return [...(await attackTable(host)), ...(await typeCheckCost(host))]
  } finally {
    await host.dispose()
    rmSync(workspace, { recursive: true, force: true })
  }
}

/** Registered in `run.ts`; `runSection` prints `report()`. */
export const attack: Section = { name: 'service under attack (issue 16: the host only routes)', cases: () => [], options: {}, report }
