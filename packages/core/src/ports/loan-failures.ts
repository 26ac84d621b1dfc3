import type { LoanId } from '../domain/foundations/ids.js'

/** One loan a job could not service: the job, the loan and why (an engine's message: figures and ids, no secrets). */
export type LoanFailure = { readonly job: string; readonly loanId: LoanId; readonly reason: string }

/** Told of each loan a job skips because servicing it failed; the job goes on with the others. */
export type LoanFailures = {
  /** Told once per skipped loan, with why. */
  readonly loanFailed: (failure: LoanFailure) => void
}
