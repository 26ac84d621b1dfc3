import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/errors.js'
import type { BookedLoan } from '../domain/loan.js'

/**
 * Booked loans (written by LoanApplicationRepository.saveApproved). Servicing (issue 6)
 * extends this port.
 */
export type LoanRepository = {
  /** The loan with its schedule (by number), ledger (oldest first) and latest balance snapshot. */
  readonly findById: (id: string) => TE.TaskEither<StoreUnavailable, O.Option<BookedLoan>>
}
