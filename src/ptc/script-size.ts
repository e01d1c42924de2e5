/**
 * The size limit of a script (`PtcConfig.maxScriptBytes`, S9.1), checked before the script goes
 * anywhere: even sending a huge script to a checker costs the host. `ptc.run` and `ptc.check`
 * (`ptc check`) refuse the same scripts.
 */

/** Default `maxScriptBytes`: 512 KiB. */
export const DEFAULT_MAX_SCRIPT_BYTES = 512 * 1024

/**
 * `"The script is N bytes, over the M-byte limit (maxScriptBytes)"` when `code`'s UTF-8 is longer
 * than `maxScriptBytes` (default {@link DEFAULT_MAX_SCRIPT_BYTES}), else `undefined`.
 */
export function scriptTooLong(code: string, maxScriptBytes = DEFAULT_MAX_SCRIPT_BYTES): string | undefined {
  const scriptBytes = Buffer.byteLength(code, 'utf8')
  return scriptBytes > maxScriptBytes ? `The script is ${scriptBytes} bytes, over the ${maxScriptBytes}-byte limit (maxScriptBytes)` : undefined
}
