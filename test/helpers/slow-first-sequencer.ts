/**
 * Vitest's file order, with the files measured slowest first within their project. Vitest orders
 * by the durations it cached from the last run, and without them (a fresh clone: CI) by file size,
 * which put the slowest end-to-end files last: a fresh-clone run took 218 s against 196 s with the
 * durations cached (2026-12-04, 2-core machine). Started first, their waits overlap the rest.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** The slowest files of a run on a 2-core machine (2026-12-04, seconds in brackets), slowest first. */
const SLOWEST = [
  'test/package/pack-install.test.ts', // 37
  'test/e2e/examples.test.ts', // 29
  'test/unit/mcp/mcp-import.test.ts', // 23
  'test/unit/ptc/checker-pool.test.ts', // 20
  'test/e2e/serve-stdio.test.ts', // 20
  'test/unit/host/load-tool-modules.test.ts', // 20
  'test/runtime/run-memory.test.ts', // 19
  'test/unit/mcp/mcp-restart.test.ts', // 18
  'test/e2e/serve-inspector.test.ts', // 17
  'test/e2e/builtins-flag.test.ts', // 17
  'test/runtime/supervisor-group.test.ts', // 16
  'test/unit/ptc/run-deadlines.test.ts', // 16
  'test/e2e/mcp-config-cli.test.ts', // 16
  'test/e2e/lazy-loading.test.ts', // 16
]

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const rank = (spec: TestSpecification): number => {
      const index = SLOWEST.findIndex((file) => spec.moduleId.endsWith(file))
      return index === -1 ? SLOWEST.length : index
    }
    // Stable: within a project, the listed files first in their order, the rest as vitest had them.
    return sorted
      .map((spec, position) => ({ spec, position }))
      .sort((a, b) => (a.spec.project.name === b.spec.project.name ? rank(a.spec) - rank(b.spec) || a.position - b.position : a.position - b.position))
      .map(({ spec }) => spec)
  }
}
