/**
 * What was wrong with a call's arguments, for the model (SPEC S6.5): zod's own rendering
 * (`z.prettifyError`), kept short whatever the arguments or the schema are. An object of 650,000
 * unexpected keys rendered to 7 MB of text (a review: the message, its journal records and the
 * script's error all carried it, seconds of the host's thread); an enum of 5,000 values rendered
 * a 39,000-character issue, and the card's 2,000-character cut fell inside the list, losing its
 * `→ at` path and every later issue (a user trial). So here an issue names at most
 * {@link MAX_KEYS_NAMED} keys and {@link MAX_VALUES_NAMED} allowed values, any other issue
 * message is cut at {@link MAX_ISSUE_MESSAGE_CHARS}, and the message shows at most
 * {@link MAX_ISSUES_SHOWN} issues: each shown issue keeps its own start and its path.
 */
import { z } from 'zod'
import { capText } from '../cap-text.ts'

/** Unexpected keys named in one issue; the rest are counted. */
export const MAX_KEYS_NAMED = 20
/** Allowed values named in one `invalid_value` issue; the rest are counted. */
export const MAX_VALUES_NAMED = 20
/** Longest message of one issue, in characters (a custom message, another locale's list). */
export const MAX_ISSUE_MESSAGE_CHARS = 500
/** Issues rendered; the rest are counted. */
export const MAX_ISSUES_SHOWN = 20

const { joinValues } = z.core.util

/** `z.prettifyError(error)`, bounded as the module says. Pure; never throws beyond zod's own. */
export function argumentProblems(error: z.ZodError): string {
  const issues = error.issues.slice(0, MAX_ISSUES_SHOWN).map((issue) => capMessage(namingFewer(issue)))
  const rest = error.issues.length - issues.length
  return z.prettifyError({ issues } as unknown as z.ZodError) + (rest > 0 ? `\n(and ${rest} more problems)` : '')
}

/** `issue` with its long list of keys or allowed values shortened, the rest counted. */
function namingFewer(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code === 'unrecognized_keys' && issue.keys.length > MAX_KEYS_NAMED) {
    const keys = issue.keys.slice(0, MAX_KEYS_NAMED)
    return { ...issue, keys, message: `Unrecognized keys: ${keys.map((key) => JSON.stringify(key)).join(', ')} and ${issue.keys.length - MAX_KEYS_NAMED} more` }
  }
  // Only zod's own (English) wording is rewritten: a schema's custom message says what its
  // author meant and is kept (cut by capMessage if it is long).
  if (issue.code === 'invalid_value' && issue.values.length > MAX_VALUES_NAMED && issue.message === `Invalid option: expected one of ${joinValues(issue.values, '|')}`) {
    const values = issue.values.slice(0, MAX_VALUES_NAMED)
    return { ...issue, values, message: `Invalid option: expected one of ${joinValues(values, '|')}|… and ${issue.values.length - MAX_VALUES_NAMED} more` }
  }
  return issue
}

/** `issue` with its message cut to {@link MAX_ISSUE_MESSAGE_CHARS}, saying so. */
function capMessage(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  const { text, cut } = capText(issue.message, MAX_ISSUE_MESSAGE_CHARS)
  return cut === 0 ? issue : { ...issue, message: `${text}… (cut: the message had ${issue.message.length} characters)` }
}
