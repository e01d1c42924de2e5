// A script of the kind a model writes in PTC mode: fan out many reads in parallel, aggregate in
// code, and return a small JSON summary instead of pulling every file into the model's context.
//
//   ptc run examples/scripts/summarize-sources.ts --workspace .
const { paths } = await tools.glob({ pattern: 'src/**/*.ts' })

// One read per file, all in flight at once; read_file is parallel-safe, so they overlap.
const files = await Promise.all(
  paths.map(async (path) => {
    const file = await tools.read_file({ path, limit: 100_000 })
    const exported = file.text.split('\n').filter((line) => /^export (async )?(function|class|const|interface|type) /.test(line))
    return { path, lines: file.totalLines, exports: exported.length }
  }),
)

// Group by the SPEC part (the folder under src/).
const byPart: Record<string, { files: number; lines: number }> = {}
for (const file of files) {
  const segments = file.path.split('/')
  const part = segments.length > 2 ? segments[1]! : '(top level)'
  const entry = (byPart[part] ??= { files: 0, lines: 0 })
  entry.files += 1
  entry.lines += file.lines
}

const todos = await tools.search({ pattern: '\\b(TODO|FIXME|XXX)\\b', path: 'src' })
console.log(`read ${files.length} files`)

return {
  files: files.length,
  lines: files.reduce((sum, file) => sum + file.lines, 0),
  largest: [...files].sort((a, b) => b.lines - a.lines).slice(0, 5).map(({ path, lines }) => ({ path, lines })),
  byPart,
  todos: todos.files.map((file) => ({ path: file.path, count: file.matches.length })),
}
