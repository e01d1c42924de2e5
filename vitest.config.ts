import { defineConfig } from 'vitest/config'

// isolated-vm on Node >= 20 requires `--no-node-snapshot` (its README; laverdet/isolated-vm#420).
// The flag is refused in NODE_OPTIONS for worker threads, so tests run in forked processes with
// it on their command line.
export default defineConfig({
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    // Vitest's default on a 2-core machine is one worker (cores - 1), which runs the files one
    // after another although most of an end-to-end file's time is spent waiting for the processes
    // it starts. Three forks keep both cores busy; files must therefore not share fixed ports,
    // folders or files (every test makes its own temporary folder and listens on port 0).
    maxWorkers: 3,
    // Each test file gets a fresh fork (isolate: true). Reusing forks across files (isolate: false)
    // saved about 0.4 s of CPU per file, but made outcomes depend on file order: a per-process
    // "build once" guard used up by an earlier file failed the checker-snapshot test, and the
    // search tests failed in two clean-clone runs and never alone. Correctness first.
    isolate: true,
    // Outcomes, not durations: a test that passes on an idle machine must pass on a loaded one
    // (2 cores shared by many processes), so the per-test budget is generous. Tests bound their
    // own waits by the deadlines of the code under test, not by vitest's timer.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Type tests (`test/types/*.test-d.ts`, expectTypeOf) are checked by tsc through vitest.
    typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
})
