/**
 * What was wrong with a call's arguments, for the model (SPEC S6.5): zod's own rendering
 * (`z.prettifyError`), kept short whatever the arguments are. An object of 650,000 unexpected keys
 * rendered to 7 MB of text (a review: the message, its journal records and the script's error all
 * carried it, seconds of the host's thread); here an issue names at most
 * {@link MAX_KEYS_NAMED} keys and the message at most {@link MAX_ISSUES_SHOWN} issues.
 */
import { z } from 'zod'

/** Unexpected keys named in one issue; the rest are counted. */
export const MAX_KEYS_NAMED = 20
/** Issues rendered; the rest are counted. */
export const MAX_ISSUES_SHOWN = 20

/** `z.prettifyError(error)`, bounded as the module says. Pure; never throws beyond zod's own. */
export function argumentProblems(error: z.ZodError): string {
  const issues = error.issues.slice(0, MAX_ISSUES_SHOWN).map((issue) => {
    if (issue.code !== 'unrecognized_keys' || issue.keys.length <= MAX_KEYS_NAMED) return issue
    const more = issue.keys.length - MAX_KEYS_NAMED
    return { ...issue, keys: issue.keys.slice(0, MAX_KEYS_NAMED), message: `Unrecognized keys: ${issue.keys.slice(0, MAX_KEYS_NAMED).map((key) => JSON.stringify(key)).join(', ')} and ${more} more` }
  })
  const rest = error.issues.length - issues.length
  return z.prettifyError({ issues } as unknown as z.ZodError) + (rest > 0 ? `\n(and ${rest} more problems)` : '')
}
