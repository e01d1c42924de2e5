#!/usr/bin/env -S node --no-node-snapshot
// The `ptc` command. Node 24 runs the TypeScript sources directly (type stripping).
// isolated-vm requires `--no-node-snapshot` on Node >= 20; when started as `node bin/ptc.js`
// without it (an MCP client configuration, say), re-run this file once with the flag.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

if (!process.execArgv.includes('--no-node-snapshot')) {
  const child = spawn(process.execPath, ['--no-node-snapshot', ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  })
  // A terminal's Ctrl-C reaches the whole process group, the child included: only keep this
  // process alive for it. Signals sent to this process alone are passed on.
  process.on('SIGINT', () => {})
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => {
    if (signal) process.kill(process.pid, signal)
    else process.exitCode = code ?? 1
  })
} else {
  const { main } = await import('../src/cli/main.ts')
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code
    },
    (error) => {
      process.stderr.write(`ptc: internal error: ${error?.stack ?? error}\n`)
      process.exitCode = 70
    },
  )
}
