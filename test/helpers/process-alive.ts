/** Whether a process with `pid` still exists (signal 0; Linux and macOS). For tests that check a worker process was ended. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
