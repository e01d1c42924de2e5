/**
 * `ptc check FILE|-`: type-check a script against the tools' declarations without running it
 * (S7.2). Diagnostics print as `line:column`, or with `--json` as one JSON object for editors and
 * CI; exit 1 when there is an error.
 */
import { defineCommand } from '../command.ts'
import { checkHostFlags, HOST_FLAGS, HOST_FLAGS_HELP, hostOptionsFrom } from '../host-flags.ts'
import { readScript } from '../read-script.ts'

export default defineCommand({
  order: 20,
  summary: 'type-check a script only; diagnostics as line:column',
  usage: `ptc check FILE|- [--json] [--workspace DIR] [--tools MODULE]... [--mcp-config FILE]
                 [--preset NAME] [--builtins LIST]`,
  details: `Type-checks FILE (- reads standard input) against the declarations ptc typegen prints. Exit
code 1 when there is an error.

--json             print one JSON object on stdout, also when the script is fine:
                   {"ok":true|false,"diagnostics":[{"line":1,"column":1,"category":"error"|"warning",
                   "code":2345,"message":"..."}]} ("code" only for TypeScript's own; lines and
                   columns count from 1; ok is false when any diagnostic is an error).
${HOST_FLAGS_HELP}`,
  options: { json: { type: 'boolean' }, ...HOST_FLAGS },
  positionals: { max: 1 },
  precheck: checkHostFlags,
  async run(values, [file]) {
    const code = await readScript(file)
    const options = await hostOptionsFrom(values)
    const { createHost } = await import('../../host/create-host.ts')
    const { formatDiagnostics } = await import('../../ptc/compile-diagnostics.ts')
    const host = await createHost({ ...options, journal: false, ptc: { ...options.ptc, prestart: false } })
    // Ctrl-C or SIGTERM ends ptc as a shell reports it, through process.exit, whose hook stops the
    // checker process: one deep in TypeScript's work notices its host is gone only when it ends.
    const onSignal = (signal: NodeJS.Signals) => process.exit(signal === 'SIGINT' ? 130 : 143)
    process.once('SIGINT', onSignal)
    process.once('SIGTERM', onSignal)
    try {
      const diagnostics = await host.ctx.ptc.check(code)
      const ok = !diagnostics.some((d) => d.category === 'error')
      if (values.json === true) {
        const listed = diagnostics.map(({ line, column, category, code: tsCode, message }) => ({ line, column, category, ...(tsCode !== undefined && { code: tsCode }), message }))
        process.stdout.write(`${JSON.stringify({ ok, diagnostics: listed })}\n`)
      } else if (diagnostics.length > 0) process.stdout.write(`${formatDiagnostics(diagnostics)}\n`)
      return ok ? 0 : 1
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      await host.dispose()
    }
  },
})
