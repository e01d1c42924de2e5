/**
 * The warning for a process that makes isolates (SPEC S9.1) without `node --no-node-snapshot`,
 * which isolated-vm needs on Node >= 20 (its README; laverdet/isolated-vm#420): once per process.
 */

let shown = false

/** Emits the `PTC_NO_NODE_SNAPSHOT` warning once, when neither the process's flags nor NODE_OPTIONS have `--no-node-snapshot`. Never throws. */
export function warnWithoutNoNodeSnapshot(): void {
  if (shown) return
  shown = true
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]
  if (!flags.includes('--no-node-snapshot')) {
    process.emitWarning('isolated-vm on Node >= 20 needs `node --no-node-snapshot`; without it isolates may crash the process.', { code: 'PTC_NO_NODE_SNAPSHOT' })
  }
}
