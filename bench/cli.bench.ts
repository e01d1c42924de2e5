/**
 * What the `ptc` command costs before it does any work (issue 14: `ptc help` and usage errors
 * load nothing heavy, target ≤ 150 ms wall on an idle machine): a whole process each, started the
 * way a user starts it (`node bin/ptc.js`, as its shebang does), against a bare
 * `node -e 0` as the baseline. Node's compile cache is warm after the warm-up runs, as it is for
 * a user from the second run on.
 */
import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'
import { section } from './harness.ts'

const BIN = resolve(import.meta.dirname, '../bin/ptc.js')
const HELP = 'ptc help'
const USAGE_ERROR = 'ptc run x.ts --port 5 (usage error)'
const TARGET_MS = 150

function node(args: string[]): void {
  try {
    execFileSync(process.execPath, args, { stdio: 'ignore' })
  } catch {
    // a usage error exits 2: that is the case being measured
  }
}

export const cli = section(
  'ptc command start-up (whole processes)',
  [
    { name: 'node -e 0', baseline: true, run: () => node(['-e', '0']) },
    { name: HELP, run: () => node([BIN, 'help']) },
    { name: USAGE_ERROR, run: () => node([BIN, 'run', 'x.ts', '--port', '5']) },
  ],
  {
    samples: 5,
    iterations: 4,
    warmup: 2,
    summary: (medians) => [HELP, USAGE_ERROR].map((name) => `${name}: ${(medians[name]! / 1000).toFixed(0)} ms wall (target ≤ ${TARGET_MS} ms on an idle machine)`),
  },
)
