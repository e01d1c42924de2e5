/**
 * `ptc check FILE|-`: type-check a script against the tools' declarations without running it
 * (S7.2). Diagnostics print as `line:column`; exit 1 when there is an error.
 */
import { defineCommand } from '../command.ts'
import { checkHostFlags, HOST_FLAGS, HOST_FLAGS_HELP, hostOptionsFrom } from '../host-flags.ts'
import { readScript } from '../read-script.ts'

export default defineCommand({
  order: 20,
  summary: 'type-check a script only; diagnostics as line:column',
  usage: `ptc check FILE|- [--workspace DIR] [--tools MODULE]... [--mcp-config FILE] [--preset NAME]
                 [--builtins LIST]`,
  details: `Type-checks FILE (- reads standard input) against the declarations ptc typegen prints. Exit
code 1 when there is an error.

${HOST_FLAGS_HELP}`,
  options: { ...HOST_FLAGS },
  positionals: { max: 1 },
  precheck: checkHostFlags,
  async run(values, [file]) {
    const code = await readScript(file)
    const options = await hostOptionsFrom(values)
    const { createHost } = await import('../../host/create-host.ts')
    const { formatDiagnostics } = await import('../../ptc/compile-diagnostics.ts')
    const host = await createHost({ ...options, journal: false, ptc: { ...options.ptc, prestart: false } })
    try {
      const diagnostics = await host.ctx.ptc.check(code)
      if (diagnostics.length > 0) process.stdout.write(`${formatDiagnostics(diagnostics)}\n`)
      return diagnostics.some((d) => d.category === 'error') ? 1 : 0
    } finally {
      await host.dispose()
    }
  },
})
