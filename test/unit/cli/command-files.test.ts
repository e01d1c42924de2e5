/**
 * The CLI's commands (issue 9 item 4): every file in `src/cli/commands/` default-exports a command
 * whose usage starts with `ptc <file name>`, and the dispatcher's table of static imports (which
 * the package's bundled CLI follows, issue 12) names exactly those files.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
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

  it('the table of commands names every file of src/cli/commands and nothing else', () => {
    const files = readdirSync(join(import.meta.dirname, '../../../src/cli/commands')).filter((file) => file.endsWith('.ts')).map((file) => file.slice(0, -3))
    expect(commandNames()).toEqual(files.sort())
  })

  it('a name that is not a command loads nothing', async () => {
    expect(await loadCommand('nope')).toBeUndefined()
    expect(await loadCommand('../main')).toBeUndefined()
    expect(await loadCommand('toString')).toBeUndefined()
  })

  it('the overview lists every command, run first', async () => {
    const text = overviewText(await loadAllCommands())
    expect(text.indexOf('  ptc run ')).toBeLessThan(text.indexOf('  ptc check '))
    for (const name of commandNames()) expect(text).toContain(`  ptc ${name}`)
  })
})
