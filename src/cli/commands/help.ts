/**
 * `ptc help [COMMAND]`: the overview of every command, or one command's flags. Loads no host.
 */
import { defineCommand } from '../command.ts'
import { commandNames, loadAllCommands, loadCommand } from '../command-files.ts'
import { commandHelpText, overviewText } from '../help-text.ts'
import { UsageError } from '../usage-error.ts'

export default defineCommand({
  order: 90,
  summary: 'print this help, or one command\'s flags',
  usage: 'ptc help [COMMAND]',
  options: {},
  positionals: { max: 1 },
  async run(_values, [name]) {
    if (name === undefined) {
      process.stdout.write(overviewText(await loadAllCommands()))
      return 0
    }
    const command = await loadCommand(name)
    if (!command) throw new UsageError(`Unknown command "${name}". Commands: ${commandNames().join(', ')}.`)
    process.stdout.write(commandHelpText(command))
    return 0
  },
})
