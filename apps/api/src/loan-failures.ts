import type { LoanFailures } from '@lendgate/core'
import type { Logger } from 'pino'
import type { Metrics } from './metrics.js'

/** A job's skipped loans, logged (loan id and the engine's reason) and counted (`lendgate_job_loan_failures_total`). */
export const loggedLoanFailures = (log: Pick<Logger, 'error'>, metrics: Pick<Metrics, 'loanFailed'>): LoanFailures => ({
  loanFailed: ({ job, loanId, reason }) => {
    log.error({ job, loanId, reason }, 'a loan could not be serviced; the job goes on and tries it again on its next run')
    metrics.loanFailed(job)
  },
})
