/**
 * Choosing the card for a call (SPEC S11.1–S11.5): the tool's own presenter when it gives one,
 * else the generic card. Pure (S11.3): the same inputs give the same card, live or in replay.
 * Never throws: a malformed call, result or presenter falls back to the generic card (S11.5).
 */
import { cardOrFallback, type Tool } from '../tools/define-tool.ts'
import type { ToolResult } from '../tools/types.ts'
import type { Card, CardLocation, GenericCard } from '../tools/cards.ts'

/** Longest body of a generic card, in characters. */
export const MAX_GENERIC_BODY_CHARS = 2000
/** Longest arguments summary in a generic title, in characters. */
export const MAX_ARGS_SUMMARY_CHARS = 120

/**
 * The "calling" card for `args` (S11.1, S11.2): `tool.presentCall(args)` if it gives a card, else
 * a generic pending card titled with `name` (default the tool's name) and a compact arguments
 * summary.
 */
export function presentCallCard(tool: Tool | undefined, args: unknown, name: string = safeName(tool)): Card {
  const card = cardOrFallback(() => tool?.presentCall(args))
  return card ?? genericCall(name, args)
}

/**
 * The "done" card of `result` (S11.1, S11.2): `tool.presentResult(args, result)` if it gives a
 * card, else a generic completed card with the content text (or the error message) as its body.
 */
export function presentResultCard(tool: Tool | undefined, args: unknown, result: ToolResult): Card {
  const card = cardOrFallback(() => tool?.presentResult(args, result))
  return card ?? genericResult(tool, args, result)
}

/** The generic pending card (S11.2). */
export function genericCall(name: string, args: unknown): GenericCard {
  const locations = locationsOf(args)
  return { card: 'generic', phase: 'pending', title: titleOf(name, args), ...(locations && { locations }) }
}

/** The generic completed card. */
export function genericResult(tool: Tool | undefined, args: unknown, result: ToolResult): GenericCard {
  const name = typeof result?.name === 'string' ? result.name : safeName(tool)
  const isError = result?.isError === true
  let body = ''
  try {
    body = isError && typeof result.error?.message === 'string'
      ? result.error.message
      : (Array.isArray(result?.content) ? result.content : []).map((block) => (block?.type === 'text' && typeof block.text === 'string' ? block.text : `[${String(block?.type)}]`)).join('\n')
  } catch {
    body = ''
  }
  if (body.length > MAX_GENERIC_BODY_CHARS) body = `${body.slice(0, MAX_GENERIC_BODY_CHARS)}…`
  const locations = locationsOf(args)
  return {
    card: 'generic',
    phase: 'completed',
    title: titleOf(name, args),
    ...(locations && { locations }),
    ...(body && { body }),
    ...(isError && { isError: true }),
  }
}


function safeName(tool: Tool | undefined): string {
  try {
    return typeof tool?.name === 'string' ? tool.name : 'tool'
  } catch {
    return 'tool'
  }
}

function titleOf(name: string, args: unknown): string {
  let summary: string
  try {
    summary = JSON.stringify(args) ?? ''
  } catch {
    summary = ''
  }
  if (summary === '{}' || summary === '') return name
  if (summary.length > MAX_ARGS_SUMMARY_CHARS) summary = `${summary.slice(0, MAX_ARGS_SUMMARY_CHARS)}…`
  return `${name} ${summary}`
}

/** `path`-like string arguments become locations, so an editor can follow the call. */
function locationsOf(args: unknown): CardLocation[] | undefined {
  if (typeof args !== 'object' || args === null) return undefined
  try {
    const path = (args as Record<string, unknown>).path
    return typeof path === 'string' && path !== '' ? [{ path }] : undefined
  } catch {
    return undefined
  }
}
