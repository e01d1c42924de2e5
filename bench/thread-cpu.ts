/**
 * CPU time by thread of a process, from Linux's /proc/<pid>/task/<tid>/stat (utime + stime, in
 * ms at the kernel's 10 ms clock tick, so only sums over many calls mean anything). For
 * `call-path.bench.ts`: where a call's CPU goes between the host's and the worker's threads.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** CPU ms of a process's threads: its main thread, V8's helper threads (GC, compiling), and the rest (isolated-vm's isolate threads, libuv's pool). */
export interface ThreadCpu {
  main: number
  v8: number
  other: number
}

/** The CPU each thread group of process `pid` has used so far; zeros when /proc cannot be read. */
export function threadCpu(pid: number): ThreadCpu {
  const cpu: ThreadCpu = { main: 0, v8: 0, other: 0 }
  let tasks: string[]
  try {
    tasks = readdirSync(`/proc/${pid}/task`)
  } catch {
    return cpu
  }
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const ms = (Number(fields[11]) + Number(fields[12])) * 10
      if (Number(task) === pid) cpu.main += ms
      else if (name.startsWith('V8Worker')) cpu.v8 += ms
      else cpu.other += ms
    } catch {
      // The thread ended while we looked.
    }
  }
  return cpu
}

/** `after − before`, group by group. */
export function cpuSince(before: ThreadCpu, after: ThreadCpu): ThreadCpu {
  return { main: after.main - before.main, v8: after.v8 - before.v8, other: after.other - before.other }
}
