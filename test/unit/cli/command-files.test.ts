/**
 * The CLI finds its commands by file: every file in `src/cli/commands/` default-exports a command
 * whose usage starts with `ptc <file name>`, so adding a command is adding one file (issue 9 item 4).
 */
import { describe, expect, it } from 'vitest'
import { commandNames, loadAllCommands, loadCommand } from '../../../src/cli/command-files.ts'
import { overviewText } from '../../../src/cli/help-text.ts'

describe('CLI commands', () => {
  it('are the files of src/cli/commands, each with its own usage and flag table', async () => {
    expect(commandNames()).toEqual(expect.arrayContaining(['check', 'help', 'replay', 'run', 'serve', 'typegen']))
    for (const [name, command] of await loadAllCommands()) {
      expect(command.usage.startsWith(`ptc ${name}`)).toBe(true)
      expect(command.options).not.toHaveProperty('help')
      expect(typeof command.run).toBe('function')
    }
  })

  it('a name that is not a command file loads nothing', async () => {
    expect(await loadCommand('nope')).toBeUndefined()
    expect(await loadCommand('../main')).toBeUndefined()
  })

  it('the overview lists every command, run first', async () => {
    const text = overviewText(await loadAllCommands())
    expect(text.indexOf('  ptc run ')).toBeLessThan(text.indexOf('  ptc check '))
    for (const name of commandNames()) expect(text).toContain(`  ptc ${name}`)
  })
})
