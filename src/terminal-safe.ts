/**
 * Text that goes to a terminal must not be able to drive it (OSC 52 clipboard writes, screen
 * clears, cursor moves): control characters other than newline and tab, DEL and the C1 range
 * (`\u0080`–`\u009f`, where `\u009b` is a CSI on some terminals) are shown as `\xNN`. Nor may it
 * reorder what the terminal shows: the bidirectional embeddings, overrides and isolates
 * (`\u202a`–`\u202e`, `\u2066`–`\u2069`, "Trojan Source", CVE-2021-42574) are shown as `\uNNNN`.
 * CRLF becomes LF. Pure.
 */
export function terminalSafe(value: string): string {
  return value
    .replace(/\r\n/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(/[\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16)}`)
}
