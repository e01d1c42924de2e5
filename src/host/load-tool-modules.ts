/**
 * Loading tool plugin modules named on the command line (`--tools MODULE…`): a module exports a
 * cordis plugin (an `apply` function, or a default export that is a plugin) or an array of
 * `defineTool` results (default export or a named `tools` export). TypeScript modules load
 * directly on Node 24.
 */
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Context, Plugin } from 'cordis'
import { describeThrown } from '../errors/describe-thrown.ts'
import { PtcError } from '../errors/ptc-error.ts'
import { isTool, type Tool } from '../tools/define-tool.ts'

/** A module could not be used as a tool module; the message says what it should export. */
export class ToolModuleError extends PtcError {
  constructor(message: string) {
    super('tool-module', message)
  }
}

/**
 * Import each module and install its tools into `ctx`, in order.
 * @throws ToolModuleError when a module cannot be imported or exports nothing usable.
 */
export async function loadToolModules(ctx: Context, modules: readonly string[]): Promise<void> {
  for (const specifier of modules) {
    let module: Record<string, unknown>
    try {
      module = await import(pathToFileURL(resolve(specifier)).href)
    } catch (error) {
      throw new ToolModuleError(`Could not import tool module ${specifier}: ${(error as Error).message}`)
    }
    const tools = [module.default, module.tools].find((value) => Array.isArray(value)) as unknown[] | undefined
    if (tools) {
      const bad = tools.findIndex((tool) => !isTool(tool))
      if (bad >= 0) throw new ToolModuleError(`Tool module ${specifier}: item ${bad} of its tool array is not a defineTool({...}) result.`)
      await ctx.plugin({
        name: `tools:${specifier}`,
        inject: ['tools'],
        apply: (child: Context) => tools.forEach((tool) => child.tools.register(tool as Tool)),
      })
      continue
    }
    const plugin = typeof module.apply === 'function' ? module : isPlugin(module.default) ? module.default : undefined
    if (!plugin) {
      throw new ToolModuleError(
        `Tool module ${specifier} exports neither a cordis plugin (export function apply(ctx) {...}) nor an array of defineTool results (export default [defineTool({...})]).`,
      )
    }
    try {
      await ctx.plugin(plugin as Plugin)
    } catch (error) {
      throw new ToolModuleError(`Tool module ${specifier} failed to start: ${describeThrown(error)}`)
    }
  }
}

function isPlugin(value: unknown): boolean {
  return typeof value === 'function' || (typeof value === 'object' && value !== null && typeof (value as { apply?: unknown }).apply === 'function')
}
