import { describe, expect, it } from 'vitest'
import { highlight } from '../../../src/view/client/highlight.ts'

const kinds = (source: string) => highlight(source).filter((token) => token.kind !== 'plain').map((token) => [token.kind, token.text])

describe('script highlighter (S11.6 run timeline)', () => {
  it('tokens concatenate back to the script, whatever it holds', () => {
    for (const source of ['', 'const a = 1', '"unterminated', '/* open', '`a ${b} c`', 'a / b / c', 'x = /[/]/g.test(y)', '\\u0000\n\r\t<script>', 'return 1_000n + .5e3']) {
      expect(highlight(source).map((token) => token.text).join('')).toBe(source)
    }
  })

  it('tells keywords, strings, comments, numbers, regexes and calls apart', () => {
    expect(kinds("const x = await tools.read({ path: 'a' }) // go\nreturn /ab+/.test(x) ? 1.5 : 2")).toEqual([
      ['keyword', 'const'], ['name', 'x'], ['keyword', 'await'], ['name', 'tools'], ['call', 'read'], ['name', 'path'], ['string', "'a'"], ['comment', '// go'],
      ['keyword', 'return'], ['regex', '/ab+/'], ['call', 'test'], ['name', 'x'], ['number', '1.5'], ['number', '2'],
    ])
  })

  it('a division is not a regex', () => {
    expect(kinds('a / b / c').map(([kind]) => kind)).toEqual(['name', 'name', 'name'])
  })
})
