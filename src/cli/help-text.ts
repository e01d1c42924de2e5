/**
 * The help texts: the overview `ptc help` prints (every command's synopsis and summary) and one
 * command's full help (`ptc help run`, `ptc run --help`).
 */
import type { Command } from './command.ts'

const TAGLINE = 'ptc: run TypeScript that calls tools, with every call through one policy pipeline.'

/** The overview of every command, in the order given. */
export function overviewText(commands: ReadonlyArray<readonly [string, Command]>): string {
  const width = Math.max(...commands.map(([name]) => name.length))
  const usage = commands.map(([, command]) => `  ${command.usage.replaceAll('\n', '\n  ')}`).join('\n')
  const summaries = commands.map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`).join('\n')
  return `${TAGLINE}

Usage:
${usage}

Commands:
${summaries}

Run ptc help COMMAND (or ptc COMMAND --help) for a command's flags; ptc --version for the version.
`
}

/** One command's synopsis and details. */
export function commandHelpText(command: Command): string {
  return `Usage:
  ${command.usage.replaceAll('\n', '\n  ')}

${command.summary}.${command.details ? `\n\n${command.details}` : ''}
`
}
