import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { RUNTIME_DIR, loadIsolateRuntimeSource } from '../../src/ptc/isolate/isolate-runtime-source.ts'

// STYLE "runtime/ … imports nothing at runtime from src/ (types only)": checked twice, on the
// source text and on what esbuild actually bundled.
describe('runtime/ is self-contained (S9.1)', () => {
  const files = readdirSync(RUNTIME_DIR).filter((file) => file.endsWith('.ts'))

  it('has only relative value imports inside runtime/ and type-only imports elsewhere', () => {
    expect(files.length).toBeGreaterThan(0)
    for (const file of files) {
      const source = readFileSync(path.join(RUNTIME_DIR, file), 'utf8')
      const imports = [...source.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?\sfrom\s+['"]([^'"]+)['"]/gm)]
      for (const [, , typeOnly, specifier] of imports) {
        if (typeOnly) continue
        expect(specifier, `${file} imports ${specifier} at run time`).toMatch(/^\.\/[\w-]+\.ts$/)
      }
      expect(source, `${file} uses a dynamic import or require`).not.toMatch(/\bimport\s*\(|\brequire\s*\(/)
    }
  })

  it('bundles only files under runtime/ into a script with no module syntax', async () => {
    const { code, inputs } = await loadIsolateRuntimeSource()
    for (const input of inputs) expect(input.startsWith(RUNTIME_DIR)).toBe(true)
    expect(code).not.toMatch(/\brequire\(|\bimport\s*\(|^\s*import\s/m)
    expect(code.startsWith('"use strict";')).toBe(true)
  })
})
