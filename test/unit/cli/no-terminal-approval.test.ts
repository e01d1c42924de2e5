import { describe, expect, it } from 'vitest'
import { noTerminalResponder } from '../../../src/cli/no-terminal-approval.ts'
import { ApprovalNotObtainedError } from '../../../src/errors/ptc-error.ts'
import type { ApprovalRequest } from '../../../src/tools/types.ts'

const request = {} as ApprovalRequest

describe("ptc run's responder when stdin is not a terminal (S8.2)", () => {
  it('S8.2 nobody else answers: no answer, not a refusal, saying stdin is not a terminal and what to do', async () => {
    const error = await Promise.resolve(noTerminalResponder(request, () => 'unavailable')).catch((thrown: unknown) => thrown)
    expect(ApprovalNotObtainedError.isInstance(error)).toBe(true)
    expect((error as ApprovalNotObtainedError).message).toMatch(/standard input is not a terminal/)
    expect((error as ApprovalNotObtainedError).details).toEqual({ advice: expect.stringMatching(/at a terminal.*--preset that allows/) })
  })

  it("S8.1 another responder's answer (a --tools module's) stands", async () => {
    expect(await noTerminalResponder(request, () => 'allowed-once')).toBe('allowed-once')
    expect(await noTerminalResponder(request, () => 'denied')).toBe('denied')
  })
})
