/**
 * Names and ids of the recursive types `normalize-schema.ts` marks (SPEC S9.1): a type's alias
 * name from its `$defs` key, and a hash of the document its id carries, so equal ids are equal
 * types across documents.
 */

/** A name for the alias from the pointer's last segment (`#/$defs/Category` → `Category`); `''` for the root and for zod's generated `__schema0`. */
export function nameOfPointer(pointer: string): string {
  const last = pointer.slice(pointer.lastIndexOf('/') + 1)
  let name: string
  try {
    name = decodeURIComponent(last).replaceAll('~1', '/').replaceAll('~0', '~')
  } catch {
    return ''
  }
  return /^[A-Za-z][A-Za-z0-9_]*$/.test(name) ? name : ''
}

/** A short hash of the whole JSON document `root`; `'?'` when it cannot be serialized. */
export function documentHash(root: unknown): string {
  try {
    return fnv1a(JSON.stringify(root) ?? '')
  } catch {
    return '?'
  }
}

/** 32-bit FNV-1a of `text`, in base 36. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0).toString(36)
}
