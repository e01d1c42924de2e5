import { defineConfig } from 'vitest/config'

// isolated-vm on Node >= 20 requires `--no-node-snapshot` (its README; laverdet/isolated-vm#420).
// The flag is refused in NODE_OPTIONS for worker threads, so tests run in forked processes with
// it on their command line.

/**
 * Unit files that keep a fresh fork each: their outcome depended on the files run before them in
 * a reused fork (checker-snapshot: a per-process build guard, fixed in 8db1a30; fs-tools: a search
 * failed in two clean-clone runs, cause not found), or they change what a process can do for the
 * files after them (search puts a fake `rg` first on PATH; run-deadlines calibrates budgets and
 * charges esbuild's first start, which is once per process).
 */
const ISOLATED = [
  'test/unit/ptc/checker-snapshot.test.ts',
  'test/unit/builtin/fs-tools.test.ts',
  'test/unit/builtin/search.test.ts',
  'test/unit/ptc/run-deadlines.test.ts',
]

export default defineConfig({
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    // Vitest's default on a 2-core machine is one worker (cores - 1), which runs the files one
    // after another although most of an end-to-end file's time is spent waiting for the processes
    // it starts. Three forks keep both cores busy; files must therefore not share fixed ports,
    // folders or files (every test makes its own temporary folder and listens on port 0).
    maxWorkers: 3,
    // Outcomes, not durations: a test that passes on an idle machine must pass on a loaded one
    // (2 cores shared by many processes), so the per-test budget is generous. Tests bound their
    // own waits by the deadlines of the code under test, not by vitest's timer.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        // In-process unit tests share forks (isolate: false): a fresh fork per file cost about
        // 0.5 s of CPU each (vitest's start and the re-import of src/), which was a sixth of the
        // suite's CPU. These files restore what they change in the process (env, PATH, cwd, spies,
        // fake timers) and keep their state in their own temporary folders and hosts; module-level
        // caches of src/ (compiled scripts, the runtime bundle, schema validators) are keyed and
        // give the same answers to every file.
        extends: true,
        test: { name: 'shared', include: ['test/unit/**/*.test.ts', 'test/typegen/**/*.test.ts'], exclude: [...ISOLATED], isolate: false },
      },
      {
        // A fresh fork per file for end-to-end, runtime and package tests (processes, servers,
        // scratch installs, timing calibrations) and for the unit files in ISOLATED.
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', 'test/typegen/**'],
          isolate: true,
          // Type tests (`test/types/*.test-d.ts`, expectTypeOf) are checked by tsc through vitest.
          typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
        },
      },
      { extends: true, test: { name: 'isolated-unit', include: [...ISOLATED], isolate: true } },
    ],
  },
})
