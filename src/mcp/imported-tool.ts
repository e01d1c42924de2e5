/**
 * One MCP server tool as a registry tool (SPEC S1, S2, S9.1). Its `inputSchema` is the
 * parameters (checked by ajv, shown to the model and to typegen as is); its `outputSchema`, when
 * the server declares one, is the canonical output schema and feeds `ToolOutputMap`.
 *
 * The canonical value, and the declared output type with it: without an `outputSchema`, the text
 * content blocks joined with newlines (a string). With one, the `structuredContent`; a text-only
 * answer (a server bug) becomes the text parsed as JSON when that matches the schema, else the
 * text, with a warning (declared as the outputSchema's type all the same: that answer breaks the
 * server's own contract, and typing every result `Output | string` would burden every script). A result with `isError` becomes
 * a failed call (a `ToolCallError` in code, S9.3) whose message is the server's text, whatever
 * its `structuredContent`. The
 * model-facing content is the server's own content blocks (through `projectContent`, S2), with a
 * JSON rendering of the value as the pure fallback.
 */
import { z } from 'zod'
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'
import { defineTool, type Tool } from '../tools/define-tool.ts'
import type { ContentBlock, JsonValue, ToolAnnotations } from '../tools/types.ts'
import { jsonSchemaCheck } from './json-schema-check.ts'
import type { SupervisedConnection } from './supervised-connection.ts'
import { mcpToolName } from './mcp-tool-name.ts'

/** Options of {@link importedTool}. */
export interface ImportedToolOptions {
  /** Told when a schema cannot be compiled (it then degrades, see `jsonSchemaCheck`), or a result was text where structure was declared. */
  warn?: (message: string) => void
  /** The registry name (default `mcpToolName(server, tool)`). */
  name?: string
}

/** Make the registry tool for `mcpTool` of `connection`; register it with `ctx.tools.register`. */
export function importedTool(connection: SupervisedConnection, mcpTool: McpTool, options: ImportedToolOptions = {}): Tool {
  const name = options.name ?? mcpToolName(connection.server, mcpTool.name)
  const inputSchema = mcpTool.inputSchema as Record<string, unknown>
  const outputSchema = mcpTool.outputSchema as Record<string, unknown> | undefined
  const label = `${connection.server}/${mcpTool.name}`
  const uncompilable = options.warn && { onUncompilable: options.warn }
  const structured = outputSchema ? jsonSchemaCheck(outputSchema, { label: `${label} output`, ...uncompilable }) : undefined
  // The declared type: the text for a tool without outputSchema, else its structure. A server that
  // breaks its own outputSchema by answering text gets its text through (with a warning) instead
  // of a failed call: the one case where the value is not the declared type.
  const declaredOutput = outputSchema ?? { type: 'string' }
  // The server's own content for a call, kept from execute to projectContent (keyed by exec.token).
  const contentOf = new Map<symbol, ContentBlock[]>()
  const title = mcpTool.title ?? mcpTool.annotations?.title
  const annotations = hintsOf(mcpTool)
  return defineTool({
    name,
    ...(typeof title === 'string' && title.trim() !== '' && { title }),
    ...(annotations && { annotations }),
    description: mcpTool.description?.trim() || `Tool "${mcpTool.name}" of the MCP server "${connection.server}".`,
    parameters: jsonSchemaCheck(inputSchema, { label: `${label} input`, ...(options.warn && { onUncompilable: options.warn }) }),
    jsonSchemas: { parameters: inputSchema, output: declaredOutput },
    output: {
      schema: outputSchema ? z.union([z.string(), structured!]) : z.string(),
      render: (_args, value) => [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
    },
    timeoutMs: connection.timeoutMs,
    ...(connection.config.parallel === true && { isConcurrencySafe: () => true }),
    execute: async (args, exec) => {
      const result = await connection.callTool(mcpTool.name, args, exec.signal)
      const text = textOf(result)
      if (result.isError) {
        // The server's own words, whatever its structuredContent (which may not match the schema).
        const said = text || (result.structuredContent ? JSON.stringify(result.structuredContent) : '')
        throw new Error(said || `the MCP server "${connection.server}" reported an error without a message`)
      }
      contentOf.set(exec.token, contentBlocks(result))
      if (!structured) return text || (result.structuredContent ? JSON.stringify(result.structuredContent) : '')
      if (result.structuredContent !== undefined) return result.structuredContent as JsonValue
      const parsed = parseJson(text)
      const fits = parsed !== undefined && structured.safeParse(parsed).success
      options.warn?.(`${label} declares an outputSchema but answered with text only; using ${fits ? 'the text parsed as JSON (it matches the schema)' : 'the text'}.`)
      return (fits ? parsed : text) as JsonValue
    },
    projectContent: ({ content, execution }) => {
      const own = contentOf.get(execution.token)
      contentOf.delete(execution.token)
      return own && own.length > 0 ? own : [...content]
    },
  })
}

/** The server's four behaviour hints, those that are booleans; `undefined` when there are none. */
function hintsOf(mcpTool: McpTool): ToolAnnotations | undefined {
  const given = (mcpTool.annotations ?? {}) as Record<string, unknown>
  const hints = Object.fromEntries(
    (['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const).filter((key) => typeof given[key] === 'boolean').map((key) => [key, given[key]]),
  ) as ToolAnnotations
  return Object.keys(hints).length > 0 ? hints : undefined
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * The result's text blocks joined with newlines, each other block (an image, audio, a resource)
 * as one line saying it was left out: code reads a tool's text, and a script whose tool answered
 * with a picture had got an empty string without a word. A direct call's content keeps them.
 */
function textOf(result: CallToolResult): string {
  return (result.content ?? []).map((block) => (block.type === 'text' ? block.text : leftOutNote(block))).join('\n')
}

function leftOutNote(block: { type: string; mimeType?: unknown }): string {
  const mime = typeof block.mimeType === 'string' ? ` (${block.mimeType})` : ''
  return `[${block.type} content${mime} left out: code gets a tool's text; a direct call's content carries it]`
}

/** MCP content → model content: text and images as they are, anything else as its JSON. */
function contentBlocks(result: CallToolResult): ContentBlock[] {
  return (result.content ?? []).map((block): ContentBlock => {
    if (block.type === 'text') return { type: 'text', text: block.text }
    if (block.type === 'image') return { type: 'image', data: block.data, mimeType: block.mimeType }
    return { type: 'text', text: JSON.stringify(block) }
  })
}
