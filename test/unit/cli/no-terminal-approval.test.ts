import { describe, expect, it } from 'vitest'
import { noTerminalResponder, stdinScriptResponder } from '../../../src/cli/no-terminal-approval.ts'
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

  it('S8.2 ptc run -: nobody else answers: no answer, saying the script was read from stdin, to pass it as a file or choose a --preset', async () => {
    const error = await Promise.resolve(stdinScriptResponder(request, () => 'unavailable')).catch((thrown: unknown) => thrown)
    expect(ApprovalNotObtainedError.isInstance(error)).toBe(true)
    expect((error as ApprovalNotObtainedError).message).toBe('the script was read from standard input, so no approval prompt can be answered')
    expect((error as ApprovalNotObtainedError).details).toEqual({ advice: expect.stringMatching(/pass the script as a file.*--preset that allows/) })
    expect(await stdinScriptResponder(request, () => 'allowed-once')).toBe('allowed-once')
  })

  it("S8.1 another responder's answer (a --tools module's) stands", async () => {
    expect(await noTerminalResponder(request, () => 'allowed-once')).toBe('allowed-once')
    expect(await noTerminalResponder(request, () => 'denied')).toBe('denied')
  })
})
