import { defineConfig } from 'vitest/config'

// isolated-vm on Node >= 20 requires `--no-node-snapshot` (its README; laverdet/isolated-vm#420).
// The flag is refused in NODE_OPTIONS for worker threads, so tests run in forked processes with
// it on their command line.
export default defineConfig({
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    // Outcomes, not durations: a test that passes on an idle machine must pass on a loaded one
    // (2 cores shared by many processes), so the per-test budget is generous. Tests bound their
    // own waits by the deadlines of the code under test, not by vitest's timer.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Type tests (`test/types/*.test-d.ts`, expectTypeOf) are checked by tsc through vitest.
    typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
})
