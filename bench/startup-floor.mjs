/**
 * The floor of `ptc run`'s design (issue 12, start-up): a Node process that starts a
 * `node --no-node-snapshot` child (isolated-vm's flag, as the isolate worker has), which loads
 * isolated-vm, runs `return 1` in a fresh isolate and sends the value back; the parent prints it
 * and exits. Nothing of the product's own: no host, no pipeline, no compile, no journal. Plain
 * JavaScript, so neither process strips types. `startup.bench.ts` times it as a whole process.
 *
 * `node bench/startup-floor.mjs` prints `1`; with the argument `child` it is the child.
 */
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

if (process.argv[2] === 'child') {
  const ivm = createRequire(import.meta.url)('isolated-vm')
  const isolate = new ivm.Isolate({ memoryLimit: 128 })
  const context = await isolate.createContext()
  const script = await isolate.compileScript('(async () => { return 1 })().then(JSON.stringify)')
  process.stdout.write(await script.run(context, { promise: true }))
  isolate.dispose()
} else {
  const child = spawn(process.execPath, ['--no-node-snapshot', fileURLToPath(import.meta.url), 'child'], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
  child.on('exit', (code) => {
    if (code !== 0) process.exit(1)
    process.stdout.write(`${JSON.stringify(JSON.parse(out))}\n`)
  })
}
