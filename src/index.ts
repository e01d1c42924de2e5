/**
 * The public library API of ptc-runner. Everything here is documented at its definition; the
 * README shows how the pieces fit.
 */
export type * from './tools/types.ts'
export type * from './tools/cards.ts'
export { defineTool, isTool, type Tool, type ToolSpec, type ArgsOf } from './tools/define-tool.ts'
export { ToolRegistry } from './pipeline/tool-registry.ts'
export { materializeJson, deepFreeze } from './pipeline/materialize.ts'
export { scheduleCalls, type ScheduleOptions, type SchedulerTarget } from './scheduler/schedule-calls.ts'
export { ExecutionGate } from './scheduler/execution-gate.ts'
export { Approval, type ApprovalResponder } from './policy/approval.ts'
export * as timeoutPolicy from './policy/timeout-policy.ts'
export * as journal from './journal/journal.ts'
export { SandboxPolicy } from './policy/sandbox-policy.ts'
export { Sandbox } from './policy/sandbox.ts'
export { PermissionPresets, PERMISSION_PRESETS, type PermissionPresetName } from './policy/permission-presets.ts'
export { Jobs } from './jobs/jobs.ts'
export { Ptc, RUN_CODE, type PtcConfig, type RunOptions } from './ptc/ptc-service.ts'
export type { RunCodeValue } from './ptc/run-code-value.ts'
export { runCodeDescription } from './ptc/run-code-tool.ts'
export { jsonSchemaCheck } from './mcp/json-schema-check.ts'
export { generateDeclarations, generateDeclarationsSync, type TypegenTool } from '../typegen/index.ts'
export { presentCallCard, presentResultCard } from './present/present.ts'
export { formatCard } from './present/format-card.ts'
export { replayJournal } from './present/replay.ts'
export { createHost, type Host, type HostOptions } from './host/create-host.ts'
export { PtcError, NotJsonError, ToolTimeoutError, ToolDefinitionError, ToolDeniedError } from './errors/ptc-error.ts'
/** cordis' `Context` (the `ctx` of plugins and hooks), for typing a tool plugin's `apply(ctx)`. */
export type { Context } from 'cordis'
/** zod, the very copy ptc-runner validates with: a tool module outside this package writes `import { defineTool, z } from 'ptc-runner'`. */
export { z } from 'zod'
