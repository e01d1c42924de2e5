/**
 * The `ptc` command line: the dispatcher. `ptc COMMAND [flags] [args]` loads
 * `commands/COMMAND.ts`, parses the arguments with that command's own flag table (`util.parseArgs`,
 * strict: a flag of another command is a usage error) and runs it. Exit codes: 0 success, 1 the
 * script or check failed, 2 a usage or start-up error (one `ptc:` line on stderr).
 */
import { parseArgs } from 'node:util'
import { ignoreClosedPipes } from './closed-pipes.ts'
import type { Command } from './command.ts'
import { commandNames, loadAllCommands, loadCommand } from './command-files.ts'
import { commandHelpText, overviewText } from './help-text.ts'
import { reportableStartupError } from './startup-errors.ts'
import { UsageError } from './usage-error.ts'

export { keepWriteError, outputFailure } from './closed-pipes.ts'

/** Run the CLI with `argv` (without node and script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  ignoreClosedPipes()
  try {
    return await dispatch(argv)
  } catch (error) {
    if (UsageError.isInstance(error) || reportableStartupError(error)) {
      process.stderr.write(`ptc: ${(error as Error).message}\n`)
      return 2
    }
    throw error
  }
}

/**
 * `args` with a value that looks like a negative number joined to its flag (`--timeout-ms -5` →
 * `--timeout-ms=-5`) for the command's string flags: parseArgs would refuse `-5` as an
 * "ambiguous" option argument, and the flag's own check then says which numbers it takes.
 */
function joinNegativeValues(args: readonly string[], options: Command['options']): string[] {
  const stringFlags = new Set<string>()
  for (const [flag, option] of Object.entries(options)) {
    if (option.type !== 'string') continue
    stringFlags.add(`--${flag}`)
    if (option.short !== undefined) stringFlags.add(`-${option.short}`)
  }
  const joined: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const next = args[i + 1]
    if (arg === '--') {
      joined.push(...args.slice(i))
      break
    }
    if (stringFlags.has(arg) && next !== undefined && /^-\.?\d/.test(next)) {
      joined.push(`${arg}=${next}`)
      i++
    } else joined.push(arg)
  }
  return joined
}

/**
 * ` Did you mean --timeout-ms?` for parseArgs' `Unknown option '--timeout'` when a flag of the
 * command starts with the unknown one or differs from it by one or two letters; else ''.
 */
function didYouMean(problem: string, flags: readonly string[]): string {
  const unknown = /^Unknown option '--([^'=]+)'/.exec(problem)?.[1]
  if (unknown === undefined) return ''
  const close = flags.find((flag) => flag.startsWith(unknown)) ?? flags.find((flag) => editDistance(flag, unknown) <= 2)
  return close === undefined ? '' : ` Did you mean --${close}?`
}

/** Levenshtein distance of two short strings. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]!
}

async function dispatch(argv: string[]): Promise<number> {
  const [name, ...args] = argv
  if (name === undefined || name === '--help' || name === '-h') {
    process.stdout.write(overviewText(await loadAllCommands()))
    return name === undefined ? 2 : 0
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    const { PACKAGE_VERSION } = await import('../package-version.ts')
    process.stdout.write(`ptc-runner ${PACKAGE_VERSION} (Node.js ${process.versions.node})\n`)
    return 0
  }
  if (name.startsWith('-')) throw new UsageError(`Name the command first: ptc COMMAND [flags]. Commands: ${commandNames().join(', ')}.`)
  const command = await loadCommand(name)
  if (!command) throw new UsageError(`Unknown command "${name}". Commands: ${commandNames().join(', ')}.`)
  let parsed: { values: Record<string, unknown>; positionals: string[] }
  try {
    parsed = parseArgs({ args: joinNegativeValues(args, command.options), options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
  } catch (error) {
    // parseArgs says e.g. `Unknown option '--bogus'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- "--bogus"`
    // (some messages span lines): keep the first sentence.
    const first = (error as Error).message.split(/\.\s|\n/)[0]!.replace(/\.$/, '')
    throw new UsageError(`${first}.${didYouMean(first, Object.keys(command.options))} Run ptc ${name} --help for its flags.`)
  }
  const { values, positionals } = parsed
  if (values.help) {
    process.stdout.write(commandHelpText(command))
    return 0
  }
  const { max, missing } = command.positionals
  if (positionals.length > max) {
    throw new UsageError(`ptc ${name} takes ${max === 0 ? 'no file argument' : 'one file argument'}; unexpected: ${positionals.slice(max).join(' ')}.`)
  }
  if (positionals.length === 0 && missing !== undefined) throw new UsageError(missing)
  // parseArgs checked the values against this very table.
  const flags = values as Parameters<Command['run']>[0]
  command.precheck?.(flags)
  return command.run(flags, positionals)
}
