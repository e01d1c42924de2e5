/**
 * What typegen reads of a registered tool (SPEC S9.1: the declarations scripts are checked
 * against come from the same schemas the pipeline validates with).
 */
import type { TypegenTool } from '../../typegen/index.ts'
import type { Tool } from '../tools/define-tool.ts'

/** `tool` as typegen's input: its name, description, parameter and output schemas (with their JSON Schemas when declared) and `deferLoading`. Never throws. */
export function typegenTool(tool: Tool): TypegenTool {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    output: tool.output.schema,
    ...(tool.jsonSchemas?.parameters && { parametersJsonSchema: tool.jsonSchemas.parameters }),
    ...(tool.jsonSchemas?.output && { outputJsonSchema: tool.jsonSchemas.output }),
    ...(tool.deferLoading === true && { deferLoading: true }),
  }
}
