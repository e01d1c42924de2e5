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

/** Frames kept from one stack: enough to see the callback and its caller. */
export const MAX_FRAMES = 8

// `    at fn (file:///ptc/script.js:5:22)`, `    at async fn (…)`, `    at file:///ptc/script.js:7:30`
const FRAME = new RegExp(`^\\s*at (?:async )?(?:(.*?) \\()?${SCRIPT_ORIGIN.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:(\\d+):(\\d+)\\)?\\s*$`)

/**
 * The frames of `stack` (a V8 `Error.prototype.stack` text; anything else gives `[]`) that are
 * in the script, top first, at most {@link MAX_FRAMES}. `line` and `column` are 1-based, as V8
 * prints them; `function` is the name V8 printed, absent for anonymous functions.
 */
export function scriptFrames(stack: unknown): JsFrame[] {
  if (typeof stack !== 'string') return []
  const frames: JsFrame[] = []
  for (const text of stack.split('\n')) {
    const match = FRAME.exec(text)
    if (match === null) continue
    const [, name, line, column] = match
    frames.push({ line: Number(line), column: Number(column), ...(name !== undefined && name !== '' && { function: name }) })
    if (frames.length === MAX_FRAMES) break
  }
  return frames
}
