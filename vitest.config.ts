import { defineConfig } from 'vitest/config'

// isolated-vm on Node >= 20 requires `--no-node-snapshot` (its README; laverdet/isolated-vm#420).
// The flag is refused in NODE_OPTIONS for worker threads, so tests run in forked processes with
// it on their command line.

/**
 * Unit files that keep a fresh fork each: their outcome depended on the files run before them in
 * a reused fork (fs-tools: a search failed in two clean-clone runs, cause not found), or they
 * change what a process can do for the files after them (search puts a fake `rg` first on PATH;
 * run-deadlines calibrates budgets and charges esbuild's first start, which is once per process).
 * checker-snapshot shares forks again: the per-process build guard that made it depend on earlier
 * files is per cache folder since 8db1a30, and it tests exactly that. state-folder-race mocks
 * `node:fs` for create-host.ts, which a shared fork has usually loaded already.
 */
const ISOLATED = [
  'test/unit/builtin/fs-tools.test.ts',
  'test/unit/builtin/search.test.ts',
  'test/unit/ptc/run-deadlines.test.ts',
  'test/unit/host/state-folder-race.test.ts',
]

/** Folders whose files share forks (project 'shared'), except {@link ISOLATED}. */
const SHARED = ['test/unit/**/*.test.ts', 'test/typegen/**/*.test.ts', 'test/adapters/**/*.test.ts', 'test/e2e/**/*.test.ts']

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
    // The same for `expect.poll`, whose own default (1 s) is a wall-clock bound: a poll waits for
    // an outcome as long as the test may (a loaded fresh-clone run missed a 1 s `vi.waitFor`,
    // which has no such setting and names its timeout where it is used).
    expect: { poll: { timeout: 30_000 } },
    projects: [
      {
        // Unit, typegen, adapter and end-to-end files share forks (isolate: false): a fresh fork per
        // file cost about 0.5 s of CPU each (vitest's start and the re-import of src/), a sixth of
        // the suite's CPU. These files restore what they change in the process (env, PATH, cwd,
        // spies, fake timers), keep their state in their own temporary folders and hosts, and the
        // end-to-end ones work through the processes they start; module-level caches of src/
        // (compiled scripts, schema validators) are keyed and give every file the same answers.
        extends: true,
        test: { name: 'shared', include: SHARED, exclude: [...ISOLATED], isolate: false },
      },
      {
        // A fresh fork per file for the runtime tests (isolated-vm in this process: memory bombs,
        // poisoned built-ins, the per-process runtime bundle cache), the package test (scratch
        // installs) and the unit files in ISOLATED. The type tests (`test/types/*.test-d.ts`,
        // expectTypeOf) are not run here: npm test's first step (tsgo over the root project,
        // which includes test/) checks them, and a failed expectTypeOf fails it; vitest's own
        // typecheck ran tsc over them a second time (4-5 s of CPU).
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          exclude: SHARED,
          isolate: true,
        },
      },
      { extends: true, test: { name: 'isolated-unit', include: [...ISOLATED], isolate: true } },
    ],
  },
})
