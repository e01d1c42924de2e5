/**
 * Where in the model's own script a runtime error happened (issue 11: errors point at the
 * script). The isolate reports frames in the coordinates of the compiled JavaScript
 * (`JsFrame`); the compile step's source map (`CompiledScript.map`) takes them back to the
 * TypeScript the model wrote. Decoded on the host with Node's own `node:module` `SourceMap`.
 */
import { SourceMap } from 'node:module'
import type { CompiledScript } from './compile.ts'
import { positionAt, splitLines, UNFINISHED_SCRIPT_MESSAGE } from './compile-source.ts'
import type { IsolateRunError, IsolateRunWarning, JsFrame } from './isolate/isolate-contract.ts'

/** One frame in the user's script: 1-based line and UTF-16 column; `function` when it had a name. */
export interface ScriptFrame {
  line: number
  column: number
  function?: string
}

/** A run's error as the model gets it: where it was thrown (`line`, `column`) and the script's frames. */
export interface ScriptError {
  name: string
  message: string
  /** For an uncaught `ToolCallError`: the tool whose call failed. */
  toolName?: string
  /** The first script frame's line and column; absent when no frame is in the script. */
  line?: number
  column?: number
  /** The script's frames, top first, when there is more than one (runtime and built-in frames removed). */
  stack?: ScriptFrame[]
}

/** The wrapper the compile step puts around the script (`compile-source.ts`): not the user's function. */
const WRAPPER_FUNCTION = '__ptc_main__'

/**
 * `frames` (positions in `compiled.js`) in the coordinates of `code`, the script `compiled` came
 * from. Frames on the compiler's own lines (the wrapper that calls the script) are dropped, and
 * so are repeats of the frame just before. Never throws: a map that cannot be read maps nothing.
 */
export function mapFrames(frames: readonly JsFrame[], compiled: CompiledScript, code: string): ScriptFrame[] {
  if (frames.length === 0) return []
  let map: SourceMap
  try {
    map = new SourceMap(JSON.parse(compiled.map) as ConstructorParameters<typeof SourceMap>[0])
  } catch {
    return []
  }
  // V8 counts lines at every JavaScript line terminator, and so does the source map: a script
  // written with CR or U+2028 line breaks has its lines.
  const lines = splitLines(code)
  const jsLines = splitLines(compiled.js)
  const mapped: ScriptFrame[] = []
  for (const frame of frames) {
    const position = scriptPosition(map, { lines, jsLines }, frame)
    if (position === undefined) continue
    const previous = mapped[mapped.length - 1]
    if (previous !== undefined && previous.line === position.line && previous.column === position.column) continue
    const name = frame.function === WRAPPER_FUNCTION ? undefined : frame.function
    mapped.push({ ...position, ...(name !== undefined && { function: name }) })
  }
  return mapped
}

/** `error` with its frames mapped to the script: `line`/`column` of the top one, `stack` when there are more. */
export function scriptError(error: IsolateRunError, compiled: CompiledScript, code: string): ScriptError {
  const { frames, ...rest } = error
  const mapped = frames === undefined ? [] : mapFrames(frames, compiled, code)
  const top = mapped[0]
  // V8 refused the wrapper's own closing brace: the script ended inside a statement, as in
  // `for (const x of xs)` compiled without esbuild (plain-script.ts), said as esbuild says it.
  if (top === undefined && rest.name === 'SyntaxError' && frames?.length === 1 && closesWrapper(compiled, frames[0]!)) {
    return { name: 'SyntaxError', message: UNFINISHED_SCRIPT_MESSAGE, ...positionAt(code, code.trimEnd().length) }
  }
  if (top === undefined) return rest
  return { ...rest, line: top.line, column: top.column, ...(mapped.length > 1 && { stack: mapped }) }
}

/** Whether `frame` is on the line of the `}` that closes the compile step's wrapper function (the line before its call). */
function closesWrapper(compiled: CompiledScript, frame: JsFrame): boolean {
  const call = splitLines(compiled.js).lastIndexOf(`return await ${WRAPPER_FUNCTION}();`)
  return call > 0 && frame.line === call
}

/** A warning as the model gets it: `line`/`column` where a rejected error was created, when known. */
export interface ScriptWarning {
  kind: IsolateRunWarning['kind']
  message: string
  line?: number
  column?: number
}

/** `warning` with its frames reduced to the script's line and column of the top one, and its host-only `calls` dropped. */
export function scriptWarning(warning: IsolateRunWarning, compiled: CompiledScript, code: string): ScriptWarning {
  const { frames, calls, ...rest } = warning
  const top = frames === undefined ? undefined : mapFrames(frames, compiled, code)[0]
  return top === undefined ? rest : { ...rest, line: top.line, column: top.column }
}

/**
 * `at line 12:17`, or `at summarize (line 12:17)` for a named function: how the rendered result
 * and warnings show a frame.
 */
export function describeFrame(frame: ScriptFrame): string {
  return frame.function === undefined ? `at line ${frame.line}:${frame.column}` : `at ${frame.function} (line ${frame.line}:${frame.column})`
}

function scriptPosition(map: SourceMap, texts: { lines: readonly string[]; jsLines: readonly string[] }, frame: JsFrame): { line: number; column: number } | undefined {
  const generatedLine = frame.line - 1
  const generatedColumn = frame.column - 1
  const entry = map.findEntry(generatedLine, generatedColumn) as Partial<SourceMapEntryShape>
  // findEntry answers with the closest earlier mapping, possibly on another line: no mapping then.
  if (entry.generatedLine !== generatedLine || entry.originalLine === undefined || entry.originalColumn === undefined || entry.generatedColumn === undefined) return undefined
  // Line 0 of the mapped source is the wrapper's first line, so original line N is the user's line N.
  const line = entry.originalLine
  const text = texts.lines[line - 1]
  if (line < 1 || text === undefined) return undefined
  const into = (texts.jsLines[generatedLine] ?? '').slice(entry.generatedColumn, generatedColumn)
  return { line, column: originalColumn(text, entry.originalColumn, into) + 1 }
}

/**
 * The 0-based column in the user's line `text` of a position `into` characters past a mapping
 * that starts at `start`. A mapping may begin on esbuild's own indentation, so leading
 * whitespace is skipped on both sides; the rest carries over only when it is the user's text
 * as written, otherwise the mapping's start is the closest honest answer.
 */
function originalColumn(text: string, start: number, into: string): number {
  let column = start
  while (column < text.length && (text[column] === ' ' || text[column] === '\t')) column++
  const rest = into.trimStart()
  return text.startsWith(rest, column) ? column + rest.length : Math.min(column, text.length)
}

interface SourceMapEntryShape {
  generatedLine: number
  generatedColumn: number
  originalLine: number
  originalColumn: number
}
