/**
 * `ptc-runner/openai-agents`: ptc-runner in the OpenAI Agents SDK (`@openai/agents` 0.20, an
 * optional peer dependency; issue 15). Two directions: {@link createCodeTool} offers `run_code`
 * to an agent as a function tool, and {@link registerAgentsTools} makes an agent's function tools
 * callable from scripts as `tools.name(args)`. Importing this module without `@openai/agents`
 * installed fails with one line naming the package.
 */
import '../../node-version.ts'
import './agents-peer.ts'

export { createCodeTool, type AgentsCodeToolOptions } from './code-tool.ts'
export { registerAgentsTools, type RegisterAgentsToolsOptions } from './register-tools.ts'
export type { CodeToolInput, CodeToolRunOption } from '../code-tool-core.ts'
export type { RegisteredTools } from '../foreign-tools.ts'
