/**
 * Describing what a script threw, and the `{ name, message }` JSON the runtime reports errors
 * with. Uses only captured built-ins (see `intrinsics.ts`); lossless JSON of values is in
 * `lossless-json.ts`.
 */
import { JSONStringify, ObjectCreate, StringCtor, StringPrototypeSlice } from './intrinsics.ts'

const MAX_MESSAGE_LENGTH = 2_000

/** A readable one-line description of any thrown value; never throws (getters may). */
export function describeThrown(thrown: unknown): { name: string; message: string } {
  let name = 'Error'
  let message = ''
  try {
    if ((typeof thrown === 'object' && thrown !== null) || typeof thrown === 'function') {
      const candidateName = (thrown as { name?: unknown }).name
      const candidateMessage = (thrown as { message?: unknown }).message
      if (typeof candidateName === 'string' && candidateName !== '') name = candidateName
      message = typeof candidateMessage === 'string' ? candidateMessage : StringCtor(thrown)
    } else {
      message = StringCtor(thrown)
    }
  } catch {
    message = message || 'a value that could not be described'
  }
  return { name: clip(name, 100), message: clip(message, MAX_MESSAGE_LENGTH) }
}

/** JSON of `{ name, message }`, built on a null-prototype object so no `toJSON` is inherited. */
export function errorJson(name: string, message: string): string {
  const record = ObjectCreate(null) as { name: string; message: string }
  record.name = name
  record.message = message
  return JSONStringify(record)
}

export function clip(text: string, max: number): string {
  return text.length > max ? StringPrototypeSlice(text, 0, max) + '…' : text
}
