/**
 * One run as the peer harness's `isolated-vm-raw` adapter makes it (`../shared/bench-peers`,
 * issue 12): a new isolated-vm isolate, one host `Reference` called with `apply` per tool call,
 * JSON strings both ways, the isolate disposed after the run. Shared by `rawRunner`
 * (`call-path-fixtures.ts`) and the raw worker process (`raw-worker-child.ts`).
 */
import ivm from 'isolated-vm'

/**
 * Runs `code` (the body of an async function) with `tools.<name>` for each of `names`, each call
 * answered by `hostCall` with the result's JSON text; resolves to the JSON of what the script
 * returned (`undefined` for nothing).
 * @throws Error when the script throws or a call's `hostCall` rejects, as isolated-vm reports it.
 */
export async function runRawIsolate(code: string, names: readonly string[], hostCall: (name: string, argsJson: string) => Promise<string>): Promise<string | undefined> {
  const prelude = `const tools = {${names.map((name) => `${JSON.stringify(name)}: (a) => __hostCall.apply(undefined, [${JSON.stringify(name)}, JSON.stringify(a === undefined ? null : a)], { arguments: { copy: true }, result: { promise: true, copy: true } }).then(JSON.parse)`).join(', ')}};\n`
  const isolate = new ivm.Isolate({ memoryLimit: 128 })
  const reference = new ivm.Reference(hostCall)
  try {
    const context = await isolate.createContext()
    await context.global.set('__hostCall', reference)
    const compiled = await isolate.compileScript(`${prelude}(async () => {\n${code}\n})().then((v) => v === undefined ? undefined : JSON.stringify(v))`)
    return (await compiled.run(context, { promise: true, timeout: 30_000 })) as string | undefined
  } finally {
    reference.release()
    isolate.dispose()
  }
}
