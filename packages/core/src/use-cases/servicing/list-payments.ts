import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Caller } from '../../domain/keys/api-key.js'
import type { Payment } from '../../domain/loans/payment.js'
import type { Page } from '../../domain/foundations/pagination.js'
import { listOfOwnLoan, type LoanReadError, type Loans } from './loan-reads.js'

/**
 * The payments of the loan `loanId` of the key's party `partyId`, oldest first, a page at a
 * time, whatever their status: a declined charge (`FAILED`, with its `failureCode`) and a
 * reversed payment (`REVERSED`) stay listed, each with how it was allocated.
 */
export const listPaymentsForPartyLoan = (deps: Loans<'listPayments'>): ((caller: Caller, command: unknown) => TE.TaskEither<LoanReadError, Page<Payment>>) =>
  listOfOwnLoan((partyId, loanId, page) => deps.loans.listPayments(partyId, loanId, page))
