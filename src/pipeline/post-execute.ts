/**
 * From the body's return value to the outcome (SPEC S1.2, S5.4, S5.5, S9.5): the value checked
 * against `output.schema` and made canonical, `output.render`, `projectContent`, then the
 * `tools/post-execute` waterfall, which may replace content or value, or block.
 */
import { z } from 'zod'
import { capText } from '../cap-text.ts'
import { describeThrown } from '../errors/describe-thrown.ts'
import { NotJsonError } from '../errors/ptc-error.ts'
import type { Tool } from '../tools/define-tool.ts'
import type { ContentBlock, JsonValue, PendingResult, PostToolDecision } from '../tools/types.ts'
import { CANCELLED, Execution, untilCallerStop } from './execution.ts'
import { cancellation, failure, type Outcome } from './finish.ts'
import { type EventHooks, waterfall } from './cordis-adapter.ts'
import { materializeJson } from './materialize.ts'
import { normalizeContent } from './results.ts'
import { isThenable } from './thenable.ts'

const ACCEPT: PostToolDecision = Object.freeze({ kind: 'accept' })

/**
 * Turn what `tool` returned for `execution` into its outcome. `fromCode` calls (S9.5) drop
 * `additionalContext`. Every failure is an `isError` outcome; the caller's stop a cancellation.
 * Never throws.
 */
export async function postExecute(events: EventHooks, tool: Tool, execution: Execution, raw: unknown, fromCode: boolean): Promise<Outcome> {
  const { name } = execution
  const stop = Execution.stopOf(execution)
  const args = execution.arguments
  // S1.2: output.schema is enforced on every returned value; S6.1 it must be lossless JSON.
  let value: JsonValue
  try {
    value = canonical(tool, raw)
  } catch (error) {
    return failure({ kind: 'invalid-output', message: `Tool "${name}" returned an invalid value: ${describeThrown(error)}` })
  }
  // The tool has run: a render that fails loses nothing. The call keeps its value (a script
  // told it failed might run it again) and the content says what went wrong (a tool author's trial).
  let content: readonly ContentBlock[]
  try {
    content = render(tool, args, value)
  } catch (error) {
    content = renderFailed(name, describeThrown(error), value)
  }
  if (tool.projectContent) {
    try {
      const projected = untilCallerStop(tool.projectContent({ args, value, content, execution }), stop)
      content = normalizeContent(isThenable(projected) ? await projected : projected, `projectContent of "${name}"`)
    } catch (error) {
      if (error === CANCELLED) return cancellation()
      // e.g. run_code's spill could not be written: the rendered content (already capped) stays.
      const why = describeThrown(error)
      content = [...content, { type: 'text', text: `(Projecting the content of "${name}" failed: ${why}; the content above is as rendered.)` }]
      console.error(`[ptc-runner] projectContent of "${name}" failed; the rendered content is kept: ${why}`)
    }
  }

  // S5.4: the post-execute waterfall.
  let post: PostToolDecision
  try {
    const pending: PendingResult = Object.freeze({ isError: false, value, content })
    // Awaited only when a listener answered asynchronously (an `await` costs a microtask turn).
    const decided = untilCallerStop(waterfall<PostToolDecision | Promise<PostToolDecision>>(events, 'tools/post-execute', [execution, pending], () => ACCEPT), stop)
    post = isThenable(decided) ? await decided : decided
  } catch (error) {
    if (error === CANCELLED) return cancellation()
    return failure({ kind: 'failed', message: `A result policy failed, so the result of "${name}" was withheld: ${describeThrown(error)}` })
  }
  if (post?.kind === 'block') {
    const feedback = typeof post.feedback === 'string' && post.feedback !== '' ? post.feedback : 'The result was blocked by policy.'
    return failure({ kind: 'blocked', message: feedback })
  }
  if (post?.kind !== 'accept') {
    return failure({ kind: 'failed', message: `A result policy returned an unrecognized decision, so the result of "${name}" was withheld.` })
  }
  try {
    if (post.value !== undefined) {
      value = canonical(tool, post.value)
      content = render(tool, args, value)
    }
    if (post.content !== undefined) content = normalizeContent(post.content, 'a tools/post-execute content replacement')
  } catch (error) {
    return failure({ kind: 'invalid-output', message: `A result policy replaced the result of "${name}" with an invalid one: ${describeThrown(error)}` })
  }
  // S9.5: calls from code omit additionalContexts so each call stays adjacent to its result.
  const additionalContexts: string[] = []
  if (typeof post.additionalContext === 'string' && !fromCode) additionalContexts.push(post.additionalContext)

  let presentationMeta: JsonValue | undefined
  if (tool.output.presentationMeta) {
    try {
      presentationMeta = materializeJson(tool.output.presentationMeta(args, value))
    } catch (error) {
      // One line: the tool's author needs the reason, not ptc-runner's stack.
      console.error(`[ptc-runner] presentationMeta of "${name}" failed; it is omitted: ${describeThrown(error)}`)
    }
  }
  return { isError: false, value, content, presentationMeta, additionalContexts }
}

/**
 * The value checked against `output.schema` and materialized (S1.2, S6.1). @throws Error with the
 * schema's complaint, led by what JSON cannot carry when the tool returned that (a `Map`
 * returned for an object schema says `$: Map is not plain JSON…`, not only "expected object").
 */
function canonical(tool: Tool, raw: unknown): JsonValue {
  const checked = tool.output.schema.safeParse(raw)
  if (!checked.success) throw new Error(notJsonFirst(raw) + z.prettifyError(checked.error))
  return materializeJson(checked.data)
}

/** `'<path>: <why>; and against output.schema:\n'` when `raw` is not lossless JSON, else `''` (only on the error path: it copies `raw`). */
function notJsonFirst(raw: unknown): string {
  try {
    materializeJson(raw)
    return ''
  } catch (error) {
    return error instanceof NotJsonError ? `${error.message}; and against output.schema:\n` : ''
  }
}

function render(tool: Tool, args: unknown, value: JsonValue): readonly ContentBlock[] {
  return normalizeContent(tool.output.render(args, value), `output.render of "${tool.name}"`)
}

/** Most characters of a value's JSON in the content of a call whose render failed. */
const MAX_FALLBACK_CHARS = 10_000

/**
 * The content of a call whose `render` threw or returned no content blocks: what failed, and the
 * value as JSON (cut to {@link MAX_FALLBACK_CHARS}, never inside a surrogate pair). One stderr
 * line tells the tool's author.
 */
function renderFailed(name: string, why: string, value: JsonValue): readonly ContentBlock[] {
  console.error(`[ptc-runner] output.render of "${name}" failed; its value is shown as JSON instead: ${why}`)
  const json = JSON.stringify(value) ?? 'null'
  const { text, cut } = capText(json, MAX_FALLBACK_CHARS)
  return [{ type: 'text', text: `The tool "${name}" ran, but rendering its result failed (${why}). Its value as JSON: ${cut === 0 ? text : `${text}… (cut: ${json.length} characters)`}` }]
}
