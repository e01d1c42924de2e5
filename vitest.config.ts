import { defineConfig } from 'vitest/config'

// isolated-vm on Node >= 20 requires `--no-node-snapshot` (its README; laverdet/isolated-vm#420).
// The flag is refused in NODE_OPTIONS for worker threads, so tests run in forked processes with
// it on their command line.
export default defineConfig({
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    // Type tests (`test/types/*.test-d.ts`, expectTypeOf) are checked by tsc through vitest.
    typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
})
