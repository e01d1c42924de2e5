/**
 * The model-facing spill (SPEC S9.7): only the outer `run_code` result and logs pass through
 * output caps; text over its cap is written whole to a file in the spill folder and the model
 * gets a preview plus the path. Files are written atomically (temp file + rename), so a reader
 * never sees half a file.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Keep the first `maxChars` characters of `text`, with a note of how many were cut. Pure. */
export function capText(text: string, maxChars: number): { text: string; cut: number } {
  if (text.length <= maxChars) return { text, cut: 0 }
  return { text: text.slice(0, maxChars), cut: text.length - maxChars }
}

/**
 * Write `text` to `<dir>/<fileName>` atomically and return the path. `fileName` is reduced to
 * `[A-Za-z0-9._-]` so a call id cannot steer the write outside `dir`.
 * @throws the file system's error when the folder cannot be created or written.
 */
export function writeSpill(dir: string, fileName: string, text: string): string {
  mkdirSync(dir, { recursive: true })
  const safe = fileName.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_')
  const path = join(dir, safe)
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, text)
  renameSync(temp, path)
  return path
}
