/**
 * `OutputRing`: the bounded output buffer of one background job (SPEC S10). It keeps the newest
 * `capacityBytes` bytes of everything written, counts every byte ever written and every byte
 * dropped, and reads by cursor in total-bytes coordinates, so a chatty job cannot exhaust memory
 * and a reader still learns how much it missed.
 */

/** Default ring capacity of one job: 1 MiB. */
export const DEFAULT_RING_BYTES = 1024 * 1024

/** One read from the ring: `bytes` decode to whole UTF-8 characters. */
export interface RingSlice {
  /** UTF-8 text from `offset` to `nextOffset`. */
  readonly text: string
  /** Total-bytes offset where `text` starts (≥ the asked cursor; larger when bytes were dropped). */
  readonly offset: number
  /** Total-bytes offset just after `text`: the cursor for the next read. */
  readonly nextOffset: number
  /** Bytes between the asked cursor and `offset` that were already dropped. */
  readonly missedBytes: number
}

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80

/**
 * A byte ring over UTF-8 text. Old bytes are dropped whole characters at a time, so every kept
 * byte range starts on a character boundary and decodes cleanly.
 */
export class OutputRing {
  /** Most bytes kept at once. */
  readonly capacityBytes: number
  /** Bytes ever written. */
  totalBytes = 0
  /** Bytes dropped from the front (= the offset of the oldest kept byte). */
  droppedBytes = 0
  private chunks: Buffer[] = []
  private head = 0
  private keptBytes = 0

  /** @throws RangeError unless `capacityBytes` is a positive whole number. */
  constructor(capacityBytes: number = DEFAULT_RING_BYTES) {
    if (!Number.isSafeInteger(capacityBytes) || capacityBytes <= 0) {
      throw new RangeError(`OutputRing capacity must be a positive whole number of bytes, got ${capacityBytes}`)
    }
    this.capacityBytes = capacityBytes
  }

  /** Append `text` (UTF-8 encoded); drops the oldest bytes beyond the capacity. */
  write(text: string): void {
    if (text === '') return
    let bytes = Buffer.from(text, 'utf8')
    this.totalBytes += bytes.length
    if (bytes.length > this.capacityBytes) {
      // Keep only the tail; copy it so the big buffer is not retained through a view.
      const cut = bytes.length - this.capacityBytes
      this.droppedBytes += this.keptBytes + cut
      this.chunks = []
      this.head = 0
      this.keptBytes = 0
      bytes = Buffer.from(bytes.subarray(cut))
    }
    this.chunks.push(bytes)
    this.keptBytes += bytes.length
    this.trim()
  }

  /**
   * The kept output from `sinceOffset` (default 0) to the end, at most `maxBytes` of it (default
   * all), cut back to a whole character. A cursor before the oldest kept byte starts at the oldest
   * kept byte and reports the gap in `missedBytes`; a cursor past the end reads nothing.
   * Non-integer or negative cursors are treated as 0.
   */
  read(sinceOffset = 0, maxBytes = Infinity): RingSlice {
    const asked = Number.isSafeInteger(sinceOffset) && sinceOffset > 0 ? sinceOffset : 0
    const start = Math.min(Math.max(asked, this.droppedBytes), this.totalBytes)
    const missedBytes = Math.max(0, Math.min(this.droppedBytes, this.totalBytes) - Math.min(asked, this.totalBytes))
    const limit = maxBytes >= 0 ? Math.floor(maxBytes) : 0
    let bytes = this.slice(start - this.droppedBytes, Math.min(this.totalBytes, start + limit) - this.droppedBytes)
    // A cursor the caller made up may land inside a character: skip to the next boundary.
    let lead = 0
    while (lead < bytes.length && lead < 3 && isContinuation(bytes[lead]!)) lead++
    let end = bytes.length
    if (start + end < this.totalBytes) {
      // Cut at maxBytes: do not split the last character.
      let back = end
      while (back > lead && isContinuation(bytes[back - 1]!)) back--
      if (back > lead) {
        const first = bytes[back - 1]!
        const width = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1
        if (end - (back - 1) < width) end = back - 1
      }
    }
    bytes = bytes.subarray(lead, end)
    return { text: bytes.toString('utf8'), offset: start + lead, nextOffset: start + lead + bytes.length, missedBytes: missedBytes + lead }
  }

  /** Kept bytes between ring-relative positions `from` and `to`. */
  private slice(from: number, to: number): Buffer {
    if (to <= from) return Buffer.alloc(0)
    const parts: Buffer[] = []
    let position = 0
    for (let index = this.head; index < this.chunks.length && position < to; index++) {
      const chunk = this.chunks[index]!
      const chunkEnd = position + chunk.length
      if (chunkEnd > from) parts.push(chunk.subarray(Math.max(0, from - position), Math.min(chunk.length, to - position)))
      position = chunkEnd
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  }

  /** Drop whole characters from the front until the kept bytes fit. */
  private trim(): void {
    let excess = this.keptBytes - this.capacityBytes
    while (excess > 0) {
      const first = this.chunks[this.head]!
      if (first.length <= excess) {
        this.head++
        excess -= first.length
        this.drop(first.length)
      } else {
        this.chunks[this.head] = Buffer.from(first.subarray(excess))
        this.drop(excess)
        excess = 0
      }
    }
    // Never keep half a character at the front.
    while (this.head < this.chunks.length) {
      const first = this.chunks[this.head]!
      let skip = 0
      while (skip < first.length && isContinuation(first[skip]!)) skip++
      if (skip === 0) break
      this.drop(skip)
      if (skip === first.length) this.head++
      else this.chunks[this.head] = first.subarray(skip)
    }
    if (this.head > 64 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head)
      this.head = 0
    }
  }

  private drop(bytes: number): void {
    this.keptBytes -= bytes
    this.droppedBytes += bytes
  }
}
