/**
 * What an MCP client sees of the registry (SPEC S2.1, S9.4, S10.6): the exposed tool list and the
 * mapping of a frozen `ToolResult` to an MCP `CallToolResult`.
 *
 * Exposed: `run_code` (its description carries the generated declarations, so the model
 * knows every callable tool's types), the job tools when registered, and with `exposeTools` every
 * registered tool. Results: `structuredContent` is the canonical value when the tool's output
 * schema is an object (then `outputSchema` is declared); otherwise, since MCP requires an object,
 * it is wrapped as `{value: <canonical value>}` and no `outputSchema` is declared. `content` is the
 * rendered model content; `isError` marks a failed call: a pipeline failure (no value, so no
 * `structuredContent`), or a `run_code` run whose `status` is not `ok` (the script threw, failed
 * type-checking, timed out, …), which keeps its full canonical value as `structuredContent` so a
 * client reads the diagnostics while one that looks only at `isError` sees a failure.
 *
 * Listed schemas have one `type` per node (`type: ["number", "null"]` is listed as `anyOf`
 * branches, `single-type-schema.ts`), as portable clients and the MCP Inspector's `--strict` want.
 *
 * Each entry carries the tool's `title` and `annotations` (MCP behaviour hints). `run_code`'s hints
 * are derived from the tools a script can call: read-only only when every one of them is, and
 * destructive or open-world when any of them may be (a tool without hints counts as MCP's
 * defaults: not read-only, destructive, open-world).
 */
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { RUN_CODE } from '../ptc/ptc-service.ts'
import { runCodeDescription } from '../ptc/run-code-tool.ts'
import type { Tool } from '../tools/define-tool.ts'
import type { ToolRegistry } from '../pipeline/tool-registry.ts'
import type { ToolAnnotations, ToolResult } from '../tools/types.ts'
import { withSingleTypes } from './single-type-schema.ts'

/** The background job tools (S10.6), exposed whenever they are registered. */
export const JOB_TOOLS: readonly string[] = ['job_list', 'job_read', 'job_kill']

/** Which tools a session exposes: `run_code`, the job tools, and all tools with `exposeTools`. */
export function exposedTools(tools: ToolRegistry, options: { exposeTools: boolean }): Tool[] {
  return tools.list().filter((tool) => options.exposeTools || tool.name === RUN_CODE || JOB_TOOLS.includes(tool.name))
}

/** The JSON Schema of `tool`'s canonical value when it is an object schema, else `undefined`. */
export function objectOutputSchema(tool: Tool): Record<string, unknown> | undefined {
  let schema: Record<string, unknown> | undefined = tool.jsonSchemas?.output
  if (!schema) {
    try {
      schema = z.toJSONSchema(tool.output.schema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>
    } catch {
      return undefined
    }
  }
  return schema.type === 'object' ? schema : undefined
}

/**
 * The MCP tool list entry for each exposed tool, from the registry's allow-listed schemas (S2.1).
 * `declarations` (typegen's `embedded` form) is appended to `run_code`'s description.
 */
export function mcpToolList(tools: ToolRegistry, exposed: readonly Tool[], declarations: string): McpTool[] {
  const schemas = new Map(tools.schemas().map((schema) => [schema.name, schema]))
  return exposed.flatMap((tool): McpTool[] => {
    const schema = schemas.get(tool.name)
    if (!schema) return []
    const outputSchema = objectOutputSchema(tool)
    const description =
      tool.name === RUN_CODE
        ? runCodeDescription(schema.description, declarations)
        : schema.description
    const annotations = tool.name === RUN_CODE ? runCodeAnnotations(tools) : tool.annotations
    return [
      {
        name: tool.name,
        ...(tool.title !== undefined && { title: tool.title }),
        description,
        // One `type` per schema node (anyOf for nullable fields): what the Inspector's --strict asks for.
        inputSchema: withSingleTypes({ ...schema.parameters, type: 'object' }),
        ...(outputSchema && { outputSchema: withSingleTypes({ ...outputSchema, type: 'object' }) }),
        ...(annotations !== undefined && { annotations: { ...annotations } }),
      },
    ]
  })
}

/**
 * `run_code`'s behaviour hints: what the tools a script can call (every registered tool but
 * `run_code`) may do together. Never idempotent (a script is arbitrary code).
 */
export function runCodeAnnotations(tools: ToolRegistry): ToolAnnotations {
  const callable = tools.list().filter((tool) => tool.name !== RUN_CODE)
  const readOnly = callable.every((tool) => tool.annotations?.readOnlyHint === true)
  return {
    readOnlyHint: readOnly,
    destructiveHint: callable.some((tool) => tool.annotations?.readOnlyHint !== true && tool.annotations?.destructiveHint !== false),
    idempotentHint: false,
    openWorldHint: callable.some((tool) => tool.annotations?.openWorldHint !== false),
  }
}

/** True for a `run_code` result whose run did not end `ok` (S9: the script failed in some way). */
export function isFailedRun(result: ToolResult): boolean {
  if (result.name !== RUN_CODE || result.isError) return false
  const status = (result.value as { status?: unknown } | null | undefined)?.status
  return status !== 'ok'
}

/** Map a final result to an MCP tool result (see the module comment for the wrapping rule). */
export function toCallToolResult(result: ToolResult, options: { objectOutput: boolean }): CallToolResult {
  const content = result.content.map((block) =>
    block.type === 'text' ? { type: 'text' as const, text: block.text } : { type: 'image' as const, data: block.data, mimeType: block.mimeType },
  )
  if (result.isError) return { content, isError: true }
  const value = result.value ?? null
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value)
  const structuredContent = options.objectOutput && isObject ? (value as Record<string, unknown>) : { value }
  return { content, structuredContent, isError: isFailedRun(result) }
}
