/**
 * When a run's step may hold its isolate worker (issue 12). A worker that runs a run's first step
 * or a sequential step on its main thread (`IsolateRunRequest.stepHere`) saves the hand-overs to
 * isolated-vm's thread and back (a call from code in about half the time, a cold run 0.3 ms
 * sooner), but until the step ends it reads nothing from its channel: a new run sent to it, or a
 * cancel, waits for the step (at most the run's wall-clock or CPU budget left). So the host lets a
 * step hold a worker only while another worker of the group stands ready and idle, where a new
 * run can go at once; the group's routing keeps new runs away from a worker that may be held
 * (`IsolateSupervisorGroup`). A cancel of a held run is answered within `HELD_CANCEL_MS`, and its
 * worker is replaced if the step still holds it `graceMs` later (`cancelWhileHeld`). A lone worker (`isolateWorkers: 1`, or a group
 * before its second worker started) never lets a step hold it.
 */

/** What the permission reads of each member of a group. */
export interface StepMember {
  readonly active: number
  readonly supervisor: { readonly workerState: string; readonly mayBeBlocked: boolean }
}

/** Whether a new run can start on `member`'s worker at once: it is ready and no step may be holding it. */
export function readyAndFree(member: StepMember): boolean {
  return member.supervisor.workerState === 'ready' && !member.supervisor.mayBeBlocked
}

/**
 * Whether `members[index]`'s worker may let its single run's next step run on its main thread:
 * another member's worker is ready, serves no run and is not itself possibly held.
 */
export function mayHoldWorker(members: readonly StepMember[], index: number): boolean {
  for (let other = 0; other < members.length; other++) {
    if (other !== index && members[other]!.active === 0 && readyAndFree(members[other]!)) return true
  }
  return false
}

/** Routing weight of a member: its runs in flight, and a possibly held worker after every other. */
export function routingLoad(member: StepMember): number {
  return member.active + (member.supervisor.mayBeBlocked ? 1e9 : 0)
}
