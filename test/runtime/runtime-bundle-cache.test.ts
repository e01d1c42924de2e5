/**
 * The runtime bundle built from the sources is kept between processes (issue 12: the isolate
 * worker ready fast), and used only while it is intact and its inputs unchanged.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildIsolateRuntimeSource, RUNTIME_DIR } from '../../src/ptc/isolate/isolate-runtime-source.ts'
import { KEPT_RUNTIME_ENTRIES, readCachedRuntime, writeCachedRuntime } from '../../src/ptc/isolate/runtime-bundle-cache.ts'

const folder = mkdtempSync(join(tmpdir(), 'ptc-runtime-cache-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe('runtime bundle cache (issue 12)', () => {
  it('S9.1 the bundle one process built is what the next one reads, inputs included', async () => {
    const built = await buildIsolateRuntimeSource()
    writeCachedRuntime(folder, RUNTIME_DIR, 'options', built)
    expect(readCachedRuntime(folder, RUNTIME_DIR, 'options')).toEqual({ code: built.code, inputs: built.inputs })
  })

  it('S9.1 the runtime bundle is ASCII, so V8 keeps its source as one-byte text in the snapshot every isolate starts from (issue 12)', async () => {
    const built = await buildIsolateRuntimeSource()
    expect(built.code).toMatch(/^[\x00-\x7f]*$/)
    expect(built.code).toContain('\\u2026') // The runtime's messages still end in an ellipsis.
  })

  it('an edited input file, other bundling options, a tampered or truncated entry, or another runtime folder are not used', () => {
    const runtime = mkdtempSync(join(folder, 'runtime-'))
    const input = join(runtime, 'index.ts')
    writeFileSync(input, 'export const a = 1\n')
    writeCachedRuntime(folder, runtime, 'options', { code: 'return 1', inputs: [input] })
    expect(readCachedRuntime(folder, runtime, 'options')).toEqual({ code: 'return 1', inputs: [input] })
    expect(readCachedRuntime(folder, runtime, 'other options')).toBeUndefined()
    expect(readCachedRuntime(folder, `${runtime}-other`, 'options')).toBeUndefined()
    writeFileSync(input, 'export const a = 2\n')
    expect(readCachedRuntime(folder, runtime, 'options')).toBeUndefined()
    writeFileSync(input, 'export const a = 1\n')
    const entry = readdirSync(folder).find((name) => name.startsWith('runtime-') && name.endsWith('.json') && readFileSync(join(folder, name), 'utf8').includes(runtime))!
    const text = readFileSync(join(folder, entry), 'utf8')
    writeFileSync(join(folder, entry), text.replace('return 1', 'return 2'))
    expect(readCachedRuntime(folder, runtime, 'options')).toBeUndefined()
    writeFileSync(join(folder, entry), text.slice(0, text.length / 2))
    expect(readCachedRuntime(folder, runtime, 'options')).toBeUndefined()
  })

  it(`S9.1 a cache folder keeps the ${KEPT_RUNTIME_ENTRIES} entries written last, one per checkout, and nothing else is touched`, () => {
    const own = mkdtempSync(join(tmpdir(), 'ptc-runtime-prune-'))
    try {
      writeFileSync(join(own, 'checker-0123456789abcdef.json'), '{}')
      const checkouts = Array.from({ length: KEPT_RUNTIME_ENTRIES + 3 }, (_, index) => {
        const runtime = mkdtempSync(join(own, `checkout-${index}-`))
        writeFileSync(join(runtime, 'index.ts'), `export const a = ${index}\n`)
        const when = new Date(Date.UTC(2026, 11, 1, 0, index))
        writeCachedRuntime(own, runtime, 'options', { code: `return ${index}`, inputs: [join(runtime, 'index.ts')] })
        // Written a minute apart, oldest first (the file system's clock may not tell them apart).
        const entry = readdirSync(own).find((name) => name.startsWith('runtime-') && readFileSync(join(own, name), 'utf8').includes(runtime))!
        utimesSync(join(own, entry), when, when)
        return runtime
      })
      writeCachedRuntime(own, checkouts.at(-1)!, 'options', { code: 'return -1', inputs: [join(checkouts.at(-1)!, 'index.ts')] })
      expect(readdirSync(own).filter((name) => name.startsWith('runtime-'))).toHaveLength(KEPT_RUNTIME_ENTRIES)
      expect(checkouts.map((runtime) => readCachedRuntime(own, runtime, 'options') !== undefined)).toEqual(checkouts.map((_, index) => index > 2))
      expect(readdirSync(own)).toContain('checker-0123456789abcdef.json')
    } finally {
      rmSync(own, { recursive: true, force: true })
    }
  })
})
