/**
 * The script's own frames in a V8 stack text from the isolate (issue 11: errors point at the
 * script). The runner compiles the script under {@link SCRIPT_ORIGIN}, so its frames are told
 * apart from the runtime's (`file:///ptc/runtime.js`) and built-ins (`<anonymous>`) by file name.
 * Positions are in the coordinates of the compiled `js` the run was given; the host maps them to
 * the user's TypeScript (`src/ptc/script-positions.ts`).
 */
import type { JsFrame } from './isolate-contract.ts'

/** The file name the runner compiles the script under; its lines are the lines of `js`. */
export const SCRIPT_ORIGIN = 'file:///ptc/script.js'

/**
 * Lines of the runner's closure before the script's first (`isolate-run.ts`): V8 reports lines of
 * the closure, since a `sourceURL` comment makes it ignore a line offset.
 */
const CLOSURE_LINES = 1

/** Frames kept from one stack: enough to see the callback and its caller. */
export const MAX_FRAMES = 8

const ESCAPED_ORIGIN = SCRIPT_ORIGIN.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
// `    at fn (file:///ptc/script.js:5:22)`, `    at async fn (…)`, `    at file:///ptc/script.js:7:30`
const FRAME = new RegExp(`^\\s*at (?:async )?(?:(.*?) \\()?${ESCAPED_ORIGIN}:(\\d+):(\\d+)\\)?\\s*$`)

/**
 * The frames of `stack` (a V8 `Error.prototype.stack` text; anything else gives `[]`) that are
 * in the script, top first, at most {@link MAX_FRAMES}. `line` and `column` are 1-based, in the
 * script's own lines (V8 prints the closure's); `function` is the name V8 printed, absent for anonymous functions.
 */
export function scriptFrames(stack: unknown): JsFrame[] {
  if (typeof stack !== 'string') return []
  const frames: JsFrame[] = []
  for (const text of stack.split('\n')) {
    const match = FRAME.exec(text)
    if (match === null) continue
    const [, name, line, column] = match
    frames.push({ line: Number(line) - CLOSURE_LINES, column: Number(column), ...(name !== undefined && name !== '' && { function: name }) })
    if (frames.length === MAX_FRAMES) break
  }
  return frames
}

// V8's compile error names its place last: `... Duplicate capture group name [file:///ptc/script.js:4:10]`.
const COMPILE_ERROR_PLACE = new RegExp(` \\[${ESCAPED_ORIGIN}:(\\d+):(\\d+)\\]$`)

/**
 * A V8 compile error's `message` split into the message and its place, as one frame the host maps
 * to the script's line and column like a thrown error's (what only V8 refuses once esbuild passed
 * the script: a regular expression's syntax). A message naming no place comes back as it is.
 */
export function compileErrorAt(message: string): { message: string; frames?: JsFrame[] } {
  const place = COMPILE_ERROR_PLACE.exec(message)
  if (place === null) return { message }
  return { message: message.slice(0, place.index), frames: [{ line: Number(place[1]) - CLOSURE_LINES, column: Number(place[2]) }] }
}
