/**
 * isolated-vm requires Node's `--no-node-snapshot` (its README; laverdet/isolated-vm#420). When
 * `ptc` was started without it (`node bin/ptc.js …` in an MCP client configuration, say), a
 * command that loads isolates re-runs this process once with the flag. Help and usage errors never
 * get here, so they cost one Node start.
 */
import { spawn } from 'node:child_process'
import { constants } from 'node:os'

/** True when this process can load isolated-vm. */
export function hasNoNodeSnapshot(): boolean {
  return process.execArgv.includes('--no-node-snapshot')
}

/**
 * Re-run this process's script and arguments with `--no-node-snapshot`, with the same stdio.
 * Resolves to the child's exit code. A signal that kills the child is re-raised on this process.
 */
export function relaunchWithNoNodeSnapshot(): Promise<number> {
  const child = spawn(process.execPath, ['--no-node-snapshot', ...process.execArgv, process.argv[1]!, ...process.argv.slice(2)], { stdio: 'inherit' })
  // A terminal's Ctrl-C reaches the whole process group, the child included: only keep this
  // process alive for it. Signals sent to this process alone are passed on.
  const ignore = () => {}
  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  process.on('SIGINT', ignore)
  process.on('SIGTERM', forward)
  process.on('SIGHUP', forward)
  return new Promise((resolve) => {
    child.on('error', (error) => {
      process.stderr.write(`ptc: cannot re-run node with --no-node-snapshot: ${error.message}\n`)
      resolve(70)
    })
    child.on('exit', (code, signal) => {
      process.off('SIGINT', ignore)
      process.off('SIGTERM', forward)
      process.off('SIGHUP', forward)
      if (signal) {
        process.kill(process.pid, signal)
        resolve(128 + (constants.signals[signal] ?? 0))
      } else {
        resolve(code ?? 1)
      }
    })
  })
}
