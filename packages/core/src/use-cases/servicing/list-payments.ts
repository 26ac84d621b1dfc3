import * as TE from 'fp-ts/lib/TaskEither.js'
import type { PartyScope } from '../../domain/keys/api-key.js'
import type { Payment } from '../../domain/loans/payment.js'
import type { Page } from '../../domain/foundations/pagination.js'
import { listOfOwnLoan, type LoanReadError, type Loans } from './loan-reads.js'

/** The loan's payments whatever their status (`FAILED`, `REVERSED` too), oldest first, a page at a time. */
export const listPaymentsForPartyLoan = (deps: Loans<'listPayments'>): ((caller: PartyScope, command: unknown) => TE.TaskEither<LoanReadError, Page<Payment>>) =>
  listOfOwnLoan((partyId, loanId, page) => deps.loans.listPayments(partyId, loanId, page))
