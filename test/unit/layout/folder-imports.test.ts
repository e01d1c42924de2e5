import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// STYLE "layout shows the architecture": data flows one way between the folders of src/
// (cli/server → host → ptc → pipeline → tools, workspace and errors at the bottom). The scan
// uses TypeScript's own pre-processor, so static, type-only, re-export and dynamic imports all
// count: a type import is a dependency too.
const REPO = path.resolve(import.meta.dirname, '../../..')
const SRC = path.join(REPO, 'src')

/**
 * The part a repository file belongs to: its folder of src/, or the file itself for a file at the
 * top of src/ (the `index.ts` entry, leaf modules such as `package-version.ts`), `runtime`, `typegen`.
 */
function partOf(file: string): string | undefined {
  const relative = path.relative(REPO, file).split(path.sep)
  if (relative[0] === 'src') return relative[1]
  if (relative[0] === 'runtime' || relative[0] === 'typegen') return relative[0]
  return undefined
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(dir, name))
}

/** Folder → folder → one file edge that shows it (`from → to`). */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>()
  for (const file of sourceFiles(SRC)) {
    const from = partOf(file)!
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue
      const target = path.resolve(path.dirname(file), fileName)
      const to = partOf(target)
      if (to === undefined || to === from) continue
      if (!graph.has(from)) graph.set(from, new Map())
      const edges = graph.get(from)!
      if (!edges.has(to)) edges.set(to, `${path.relative(REPO, file)} → ${path.relative(REPO, target)}`)
    }
  }
  return graph
}

/**
 * The cycles a depth-first walk meets (one per back edge: empty exactly when the graph has no
 * cycle), each as its edges with the file that shows each one.
 */
function cycles(graph: Map<string, Map<string, string>>): string[][] {
  const found: string[][] = []
  const done = new Set<string>()
  const stack: string[] = []
  const walk = (node: string) => {
    stack.push(node)
    for (const next of graph.get(node)?.keys() ?? []) {
      const at = stack.indexOf(next)
      if (at >= 0) {
        const loop = [...stack.slice(at), next]
        found.push(loop.slice(0, -1).map((from, index) => `${from} → ${loop[index + 1]} (${graph.get(from)!.get(loop[index + 1]!)})`))
      } else if (!done.has(next)) walk(next)
    }
    stack.pop()
    done.add(node)
  }
  for (const node of graph.keys()) if (!done.has(node)) walk(node)
  return found
}

describe('the folders of src/ depend one way', () => {
  const graph = folderGraph()

  it('no folder of src/ imports a folder that imports it back, directly or through others', () => {
    expect(graph.size).toBeGreaterThan(5)
    expect(cycles(graph)).toEqual([])
  })

  it('errors and workspace sit at the bottom: errors imports no folder, workspace only errors and tool types', () => {
    expect([...(graph.get('errors')?.keys() ?? [])]).toEqual([])
    expect([...(graph.get('workspace')?.keys() ?? [])].filter((to) => to !== 'errors' && to !== 'tools')).toEqual([])
    expect([...(graph.get('tools')?.keys() ?? [])].filter((to) => to !== 'errors')).toEqual([])
  })

  it('the scan sees a cycle when there is one (the check itself works)', () => {
    const looped = new Map([
      ['a', new Map([['b', 'a/x.ts → b/y.ts']])],
      ['b', new Map([['c', 'b/y.ts → c/z.ts']])],
      ['c', new Map([['a', 'c/z.ts → a/x.ts']])],
    ])
    expect(cycles(looped)).toHaveLength(1)
    expect(cycles(looped)[0]).toHaveLength(3)
  })
})
