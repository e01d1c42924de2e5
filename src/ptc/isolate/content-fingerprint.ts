/**
 * A fast, non-cryptographic fingerprint of file contents for the runtime bundle cache
 * (`runtime-bundle-cache.ts`; issue 12: the isolate worker ready fast). `node:crypto` costs an
 * isolate worker 10-25 ms of its start to load (Node without its start-up snapshot), and the
 * cache only has to notice an edited file or a damaged entry in the user's own cache folder,
 * not resist forgery: two 32-bit FNV-1a hashes with different offset bases
 * (http://www.isthe.com/chongo/tech/comp/fnv/) and the byte length are enough for that.
 */

const FNV_PRIME = 0x01000193
const OFFSET_A = 0x811c9dc5
/** A second offset basis, so the two lanes differ from the first byte on. */
const OFFSET_B = 0x050c5d1f

/**
 * Fingerprint of `data` (a string is taken as its UTF-8 bytes): `<length hex>-<16 hex digits>`.
 * Equal contents give equal fingerprints in every process; any change of one byte changes both
 * lanes. Not for security: collisions can be constructed.
 */
export function contentFingerprint(data: string | Uint8Array): string {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  let a = OFFSET_A
  let b = OFFSET_B
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!
    a = Math.imul(a ^ byte, FNV_PRIME)
    b = Math.imul(b ^ byte ^ 0x5a, FNV_PRIME)
  }
  const hex = (lane: number) => (lane >>> 0).toString(16).padStart(8, '0')
  return `${bytes.length.toString(16)}-${hex(a)}${hex(b)}`
}
