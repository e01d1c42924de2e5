// Which source modules does no test file name directly? Reads every test in parallel, then
// answers with a short list: the kind of question that would take dozens of model turns one
// call at a time.
//
//   ptc run examples/scripts/modules-without-direct-tests.ts --workspace .
const sources = (await tools.glob({ pattern: 'src/**/*.ts' })).paths
const tests = (await tools.glob({ pattern: 'test/**/*.test.ts' })).paths

const testTexts = await Promise.all(tests.map(async (path) => (await tools.read_file({ path, limit: 100_000 })).text))
const corpus = testTexts.join('\n')

const withoutDirectTests = sources.filter((path) => {
  const module = path.split('/').pop()!.replace(/\.ts$/, '')
  return !corpus.includes(`${module}.ts`) && !corpus.includes(`/${module}'`)
})

return { sources: sources.length, tests: tests.length, withoutDirectTests }
