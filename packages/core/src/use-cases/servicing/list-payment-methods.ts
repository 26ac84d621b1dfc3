import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Caller } from '../../domain/keys/api-key.js'
import type { PaymentMethod } from '../../domain/loans/payment-method.js'
import type { Page } from '../../domain/foundations/pagination.js'
import { listOfOwnLoan, type LoanReadError } from './loan-reads.js'
import type { PaymentMethodDeps } from './payment-method-deps.js'

/** The payment methods of the loan `loanId` of the party `partyId`, oldest first, a page at a time. */
export const listPaymentMethodsForPartyLoan = (
  deps: Pick<PaymentMethodDeps, 'paymentMethods'>,
): ((caller: Caller, command: unknown) => TE.TaskEither<LoanReadError, Page<PaymentMethod>>) => listOfOwnLoan((partyId, loanId, page) => deps.paymentMethods.listForPartyLoan(partyId, loanId, page))
