/**
 * Journal records without a second copy of every payload (issue 14 item 4: one `ptc run` of the
 * README example wrote 1.6 MB, half of it `read_file` content that is only the value rendered
 * with line numbers). A result's `content` that its tool's pure `output.render` (S1.2) reproduces
 * from the arguments and value is left out and marked `contentFrom: 'render'`; readers (`ptc
 * replay`) render it back. Pure: no I/O.
 */
import type { Context } from 'cordis'
import type { Tool } from '../tools/define-tool.ts'
import type { ToolResult } from '../tools/types.ts'
import { isOmitted } from './omitted.ts'

/**
 * `result` without its `content` (and with `contentFrom: 'render'`) when the registered tool of
 * that name renders exactly that content from the result's arguments and value; else `result`
 * unchanged (an error, a `projectContent` or policy replacement, an unknown tool, or content of
 * more than `maxChars` characters, which its record cannot hold anyway: rendering it again to
 * compare held the host's thread for seconds, a review measured 3.3 s). Never throws.
 */
export function withoutRenderedContent(ctx: Context, result: ToolResult, maxChars = Number.POSITIVE_INFINITY): Record<string, unknown> {
  if (result.isError || result.value === undefined) return { ...result }
  let chars = 0
  for (const block of result.content) chars += block.type === 'text' ? block.text.length : 0
  if (chars > maxChars) return { ...result }
  try {
    const tool = (ctx.reflect.get('tools') as Context['tools'] | undefined)?.get(result.name)
    if (!tool || JSON.stringify(tool.output.render(result.arguments, result.value)) !== JSON.stringify(result.content)) return { ...result }
    const { content: _content, ...rest } = result
    return { ...rest, contentFrom: 'render' }
  } catch {
    return { ...result }
  }
}

/**
 * The content blocks of a journal `tool/result` record: its `content`, or for a record written
 * with `contentFrom: 'render'` the tool's `output.render(arguments, value)` (`tool` as the reader
 * looked it up; `undefined` when there is none or render throws). `undefined` too when the
 * record's `arguments` or `value` is a `{"$omitted"}` placeholder (a field too big for its
 * record, omitted.ts): a placeholder is not the field, and a render given one printed
 * `Updated undefined (undefined bytes…` (S11.5). Never throws.
 */
export function journalContent(tool: Pick<Tool, 'output'> | undefined, record: { content?: unknown; contentFrom?: unknown; arguments?: unknown; value?: unknown }): ToolResult['content'] | undefined {
  if (Array.isArray(record.content)) return record.content as ToolResult['content']
  if (record.contentFrom !== 'render' || !tool || isOmitted(record.arguments) || isOmitted(record.value)) return undefined
  try {
    const rendered = tool.output.render(record.arguments, record.value as never)
    return Array.isArray(rendered) ? rendered : undefined
  } catch {
    return undefined
  }
}
