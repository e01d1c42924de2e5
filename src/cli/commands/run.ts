/**
 * `ptc run FILE|-`: type-check a script against the tools' declarations, run it in an isolate
 * (S7), print a card per tool call on stderr (S11.1) and the result on stdout. Exit 0 only for
 * status `ok`.
 */
import { defineCommand } from '../command.ts'
import { checkHostFlags, HOST_FLAGS, HOST_FLAGS_HELP, hostOptionsFrom, positiveInt } from '../host-flags.ts'
import { readScript } from '../read-script.ts'

export default defineCommand({
  order: 10,
  summary: 'type-check a script, run it in an isolate, print the result',
  usage: `ptc run FILE|- [--json] [--no-typecheck] [--timeout-ms N] [--memory-mb N] [--journal FILE]
               [--workspace DIR] [--tools MODULE]... [--mcp-config FILE] [--preset NAME]
               [--builtins LIST]`,
  details: `Type-checks FILE (- reads standard input) against the tools' generated types, runs it in an
isolate and prints a card per tool call on stderr and the result on stdout. Exit code 0 only for
status ok, 130 after Ctrl-C, 2 for a usage error, 1 otherwise.

--json             print exactly the run_code canonical value on stdout, and no cards; when
                   run_code itself fails (refused, or no type checker could start),
                   {"status":"failed","error":{"kind":...,"message":...}} instead.
--no-typecheck     skip the type check.
--timeout-ms N     the script's deadline in ms (default 30000; at most 300000: a larger value is
                   capped; the CPU limit, 10000 ms, holds as well).
--memory-mb N      the isolate's heap limit in MB (from 8 to 1048576).
--journal FILE     where the session journal goes, appended to if it exists (default
                   .ptc/journal/<time>-<pid>.jsonl in the workspace, which keeps the newest 100);
                   replay it with ptc replay.
${HOST_FLAGS_HELP}`,
  options: {
    json: { type: 'boolean' },
    'no-typecheck': { type: 'boolean' },
    'timeout-ms': { type: 'string' },
    'memory-mb': { type: 'string' },
    journal: { type: 'string' },
    ...HOST_FLAGS,
  },
  positionals: { max: 1 },
  precheck: checkHostFlags,
  async run(values, [file]) {
    const code = await readScript(file)
    const timeoutMs = positiveInt(values['timeout-ms'], 'timeout-ms')
    const { prestartRunWorker, runMemoryMb } = await import('../prestart-run.ts')
    const memoryMb = runMemoryMb(values['memory-mb'])
    const options = await hostOptionsFrom(values)
    // The isolate worker starts now, unless the bin script started it already (prestart-run.ts),
    // and the host's modules load while it does (issue 12); the host's supervisor adopts it.
    // Only once the arguments are checked: a caller of main() in a long-lived process (a test)
    // would otherwise keep a worker nobody takes.
    prestartRunWorker(memoryMb)
    if (values['no-typecheck'] === true) {
      // Unchecked, the host compiles it: esbuild's service starts now too, and the host finds it compiled.
      const { precompileInHost } = await import('../../ptc/check/prepare-in-host.ts')
      await precompileInHost(code)
    }
    const { runScript } = await import('../run-script.ts')
    return runScript(code, {
      ...options,
      ...(values.journal !== undefined && { journal: values.journal }),
      ptc: { ...(memoryMb !== undefined && { limits: { memoryMb } }) },
    }, { json: values.json === true, typecheck: values['no-typecheck'] !== true, ...(timeoutMs !== undefined && { timeoutMs }), scriptFromStdin: file === '-' })
  },
})
