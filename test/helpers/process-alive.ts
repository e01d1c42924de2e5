import { readdirSync, readFileSync } from 'node:fs'

/** Whether a process with `pid` still exists (signal 0; Linux and macOS). For tests that check a worker process was ended. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Whether process `pid` still runs: it exists and is not a zombie (exited, not yet reaped), read
 * from /proc on Linux ({@link isAlive} elsewhere). A process whose parent exited first is reaped by
 * init, which may take a second or more after it ended; `isAlive` finds it until then.
 */
export function isRunning(pid: number): boolean {
  if (process.platform !== 'linux') return isAlive(pid)
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch (error) {
    // Gone; or /proc cannot say, and then the signal check does (never a silent "ended").
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? false : isAlive(pid)
  }
}

/**
 * Pids of the live child processes of `parent` (default this process) whose command line contains
 * `marker` (for example `isolate-worker-entry`), read from /proc (Linux). A zombie (exited, not
 * yet reaped) is not live.
 */
export function childPids(marker: string, parent = process.pid): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const [state, parentPid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(parentPid) !== parent || state === 'Z') continue
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return pids
}

/**
 * Whether a live process (not a zombie) is in process group `pgid`, read from /proc (Linux). A
 * process whose parent exited first is reaped by init, which may take a second or more: `kill(-pgid,
 * 0)` still finds it until then, although it no longer runs.
 */
export function groupAlive(pgid: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(group) === pgid && state !== 'Z') return true
    } catch {
      // The process ended while we looked.
    }
  }
  return false
}
