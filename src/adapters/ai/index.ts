/**
 * `ptc-runner/ai`: ptc-runner in the Vercel AI SDK (`ai` 7, an optional peer dependency; issue
 * 15). Two directions: {@link createCodeTool} offers `run_code` to a model as an AI SDK tool, and
 * {@link registerAiSdkTools} makes an AI SDK `ToolSet` callable from scripts as `tools.name(args)`.
 * Importing this module without `ai` installed fails with one line naming the package.
 */
import '../../node-version.ts'
import './ai-peer.ts'

export { createCodeTool, type AiCodeToolOptions } from './code-tool.ts'
export { registerAiSdkTools, type RegisterAiSdkToolsOptions } from './register-tools.ts'
export type { CodeToolInput, CodeToolRunOption } from '../code-tool-core.ts'
export type { RegisteredTools } from '../foreign-tools.ts'
