/**
 * `ptc typegen`: print (or write atomically with `-o`) the declarations scripts are checked
 * against (S7.1).
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { defineCommand } from '../command.ts'
import { checkHostFlags, HOST_FLAGS, HOST_FLAGS_HELP, hostOptionsFrom } from '../host-flags.ts'
import { UsageError } from '../usage-error.ts'

export default defineCommand({
  order: 30,
  summary: 'print (or write with -o) the declarations scripts are checked against',
  usage: `ptc typegen [-o FILE] [--embedded | --compact] [--workspace DIR] [--tools MODULE]...
            [--mcp-config FILE] [--preset NAME] [--builtins LIST]`,
  details: `-o, --output FILE  write the declarations to FILE (atomically) instead of stdout.
--embedded         the form ptc serve puts in run_code's description (one method a tool).
--compact          that form with only the first sentence of each description.
${HOST_FLAGS_HELP}`,
  options: {
    output: { type: 'string', short: 'o' },
    compact: { type: 'boolean' },
    embedded: { type: 'boolean' },
    ...HOST_FLAGS,
  },
  positionals: { max: 0 },
  precheck(values) {
    // --compact is the embedded form cut short: asking for both is asking for two outputs.
    if (values.embedded && values.compact) throw new UsageError('--embedded and --compact are two forms of the declarations; pass one of them (--compact is the embedded form with first sentences only).')
    checkHostFlags(values)
  },
  async run(values) {
    const options = await hostOptionsFrom(values)
    const { createHost } = await import('../../host/create-host.ts')
    const host = await createHost({ ...options, journal: false, ptc: { ...options.ptc, prestart: false } })
    try {
      const text = await host.ctx.ptc.declarations({ compact: values.compact ?? false, embedded: values.embedded ?? false })
      if (values.output === undefined) {
        process.stdout.write(text)
        return 0
      }
      process.stderr.write(`wrote ${writeOutput(values.output, text)}\n`)
      return 0
    } finally {
      await host.dispose()
    }
  },
})

/**
 * Write `text` to `file` atomically (a temp file renamed over it): a reader never sees half a
 * declaration file. The user names this path, so it is not confined to the workspace. Returns the
 * absolute path.
 * @throws UsageError when the folder is missing or not writable (no temp file is left).
 */
function writeOutput(file: string, text: string): string {
  const target = resolve(file)
  const temp = `${target}.${process.pid}.tmp`
  try {
    writeFileSync(temp, text)
    renameSync(temp, target)
  } catch (error) {
    rmSync(temp, { force: true })
    throw new UsageError(`Cannot write ${target}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}. Check that its folder exists and is writable.`)
  }
  return target
}
