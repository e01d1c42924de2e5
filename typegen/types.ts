/**
 * Contracts of the declaration generator (SPEC S9.1): what a caller hands to
 * `generateDeclarations` and which knobs it has. Types only.
 */
import type { z } from 'zod'

/**
 * One tool as the generator sees it: the model-visible protocol fields (S2) plus the canonical
 * output schema (S1.2). `name` may contain `.`, `-` or `__` (namespaced MCP tools): such names are
 * quoted in the generated maps, so scripts call them as `tools['my-tool'](args)`.
 */
export interface TypegenTool {
  name: string
  /** The model's only guide (S2); becomes the doc comment of the tool's `ToolArgsMap` entry. */
  description: string
  /** A zod 4 object schema; its input side (`io: 'input'`) is the argument type. */
  parameters: z.ZodType
  /** A zod 4 schema of the canonical value (any root: scalar, array, null, union…, S9.6). */
  output: z.ZodType
  /** S2 `deferLoading`: the tool stays callable, but only the first sentence of its docs is emitted. */
  deferLoading?: boolean
  /** Already-JSON-Schema argument schema (tools imported from MCP servers); wins over `parameters`. */
  parametersJsonSchema?: Record<string, unknown>
  /** Already-JSON-Schema output schema (tools imported from MCP servers); wins over `output`. */
  outputJsonSchema?: Record<string, unknown>
}

/** Options of `generateDeclarations`. */
export interface TypegenOptions {
  /**
   * The form `ptc serve` puts in the `run_code` description, for a model to read: the same types
   * as one `declare const tools` with a method a tool, one-line docs at the end of their line, no
   * header and no `ToolCallError` (the description says it). Every description stays whole.
   */
  embedded?: boolean
  /** The embedded form with every doc comment cut to its first sentence (explicit opt-in only). */
  compact?: boolean
}
