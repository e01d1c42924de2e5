/**
 * Finding the commands: every `.ts` (from the sources) or `.js` (from the built package) file in
 * `commands/` is one command named after the file, so adding a command is adding one file there.
 * Only the command asked for is imported; `ptc help` imports them all (each is light).
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Command } from './command.ts'

const COMMANDS_DIR = join(import.meta.dirname, 'commands')
const COMMAND_FILE = /^([a-z][a-z0-9-]*)\.(ts|js)$/

/** Command name → file name, for every command file (sorted by name). */
function commandFiles(): Map<string, string> {
  const files = new Map<string, string>()
  for (const file of readdirSync(COMMANDS_DIR).sort()) {
    const match = COMMAND_FILE.exec(file)
    if (match && !file.endsWith('.d.ts')) files.set(match[1]!, file)
  }
  return files
}

/** The names of every command, sorted by name (help order needs the commands loaded: {@link loadAllCommands}). */
export function commandNames(): string[] {
  return [...commandFiles().keys()]
}

/**
 * Import one command by name; undefined when there is no such command.
 * @throws when the command file exists but does not default-export a command (a programming error).
 */
export async function loadCommand(name: string): Promise<Command | undefined> {
  const file = commandFiles().get(name)
  if (file === undefined) return undefined
  const module = (await import(join(COMMANDS_DIR, file))) as { default?: Command }
  if (typeof module.default?.run !== 'function') throw new Error(`src/cli/commands/${file} must default-export defineCommand({...}).`)
  return module.default
}

/** Every command, in help order (`order`, then name). */
export async function loadAllCommands(): Promise<Array<[string, Command]>> {
  const all = await Promise.all(commandNames().map(async (name) => [name, (await loadCommand(name))!] as [string, Command]))
  return all.sort(([a, x], [b, y]) => x.order - y.order || a.localeCompare(b))
}
