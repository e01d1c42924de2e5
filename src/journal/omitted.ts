/**
 * The placeholder a journal record holds instead of a field too big for it (S11.3: a record is
 * at most 1 MiB): `{"$omitted": "<N> bytes"}`, N the byte size of that field's JSON. Readers
 * (`ptc replay`) must never hand a placeholder to a tool's presenters or `output.render` as if
 * it were the field (S11.5): they show what was left out instead. Pure.
 */

/** Largest journal line, in bytes of JSON (1 MiB); a bigger record gets placeholders for its largest fields. */
export const MAX_RECORD_BYTES = 1024 * 1024

/** The placeholder for a field whose JSON is `bytes` bytes long. */
export function omittedPlaceholder(bytes: number): { $omitted: string } {
  return { $omitted: `${bytes} bytes` }
}

/** Whether `value` is a placeholder as {@link omittedPlaceholder} makes it. Never throws. */
export function isOmitted(value: unknown): value is { $omitted: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const keys = Object.keys(value)
  return keys.length === 1 && keys[0] === '$omitted' && typeof (value as { $omitted: unknown }).$omitted === 'string'
}

/**
 * The fields of a journal record that hold a placeholder, in record order, each with what the
 * placeholder says was left out (`'2448922 bytes'`); empty when none. Never throws.
 */
export function omittedFields(record: Record<string, unknown> | undefined): { field: string; size: string }[] {
  const fields: { field: string; size: string }[] = []
  for (const [field, value] of Object.entries(record ?? {})) if (isOmitted(value)) fields.push({ field, size: value.$omitted })
  return fields
}
