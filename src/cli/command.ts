/**
 * What one `ptc` command is: a file in `src/cli/commands/` whose default export is a
 * {@link Command}. The dispatcher (`main.ts`) finds them in `command-files.ts`'s table, so adding a
 * command is adding one file and its line there. A command file stays light: its flag table and
 * usage text are plain data, and its `run` loads the host (or anything heavy) with `await
 * import()`, so `ptc help` and usage errors never load it.
 */
import type { ParseArgsOptionsConfig } from 'node:util'

/** The flags `util.parseArgs` parsed for a command's own flag table `O`. */
export type FlagValues<O extends ParseArgsOptionsConfig> = {
  [K in keyof O]?: O[K] extends { multiple: true } ? (O[K]['type'] extends 'boolean' ? boolean[] : string[]) : O[K]['type'] extends 'boolean' ? boolean : string
}

/** One `ptc` command. */
export interface Command<O extends ParseArgsOptionsConfig = ParseArgsOptionsConfig> {
  /** Position in `ptc help` (lower first). */
  order: number
  /** One line for the command list in `ptc help`. */
  summary: string
  /** The synopsis, starting with `ptc <name>`, wrapped at about 100 columns. */
  usage: string
  /** Further paragraphs for `ptc help <name>` / `ptc <name> --help` (flags explained). */
  details?: string
  /** The command's own flags (strict: any other flag is a usage error). `--help` is added for every command. */
  options: O
  /** How many positional arguments the command takes, and the message when one is missing. */
  positionals: { max: number; missing?: string }
  /**
   * Cheap checks of flag values (no heavy imports), run before `run` loads anything, so a
   * mistake such as a missing `--workspace` folder is reported at once.
   * @throws UsageError
   */
  precheck?(values: FlagValues<O>): void
  /**
   * Do the work. Resolves to the exit code (0 success, 1 the script or check failed).
   * @throws UsageError (exit 2, one line) for a bad flag value; other start-up errors the
   *   dispatcher recognises (see `exit-code.ts`) are reported the same way.
   */
  run(values: FlagValues<O>, positionals: string[]): Promise<number>
}

/** Identity with typing: `export default defineCommand({ options: {...}, run(values) {...} })`. */
export function defineCommand<const O extends ParseArgsOptionsConfig>(command: Command<O>): Command<O> {
  return command
}
