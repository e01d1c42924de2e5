/**
 * Finding the commands: one file per command in `commands/`, named after the command, and one
 * line per command in {@link COMMAND_LOADERS}. The loaders are static `import()`s so that the
 * package's bundled CLI (`scripts/bundle-package.ts`, issue 12: start-up) can follow them; only the
 * command asked for is imported; `ptc help` imports them all (each is light). A test keeps the
 * table and the folder the same (`test/unit/cli/command-files.test.ts`).
 */
import type { Command } from './command.ts'

type CommandModule = { default?: Command }

/** Command name → its module's import, sorted by name. */
const COMMAND_LOADERS = new Map<string, () => Promise<CommandModule>>([
  ['check', () => import('./commands/check.ts')],
  ['help', () => import('./commands/help.ts')],
  ['replay', () => import('./commands/replay.ts')],
  ['run', () => import('./commands/run.ts')],
  ['serve', () => import('./commands/serve.ts')],
  ['typegen', () => import('./commands/typegen.ts')],
  ['view', () => import('./commands/view.ts')],
])

/** The names of every command, sorted by name (help order needs the commands loaded: {@link loadAllCommands}). */
export function commandNames(): string[] {
  return [...COMMAND_LOADERS.keys()]
}

/**
 * Import one command by name; undefined when there is no such command.
 * @throws when the command's module does not default-export a command (a programming error).
 */
export async function loadCommand(name: string): Promise<Command | undefined> {
  const load = COMMAND_LOADERS.get(name)
  if (load === undefined) return undefined
  const module = await load()
  if (typeof module.default?.run !== 'function') throw new Error(`src/cli/commands/${name}.ts must default-export defineCommand({...}).`)
  return module.default
}

/** Every command, in help order (`order`, then name). */
export async function loadAllCommands(): Promise<Array<[string, Command]>> {
  const all = await Promise.all(commandNames().map(async (name) => [name, (await loadCommand(name))!] as [string, Command]))
  return all.sort(([a, x], [b, y]) => x.order - y.order || a.localeCompare(b))
}
