import {
  amortize, daysPastDueSince, disclosureFigures, INSTALLMENT_STATUSES, LOAN_STATUSES, replay, snapshotOf, TRANSACTION_TYPES,
  type BalanceSnapshot, type Installment, type InstallmentStatus, type LedgerTransaction, type Loan, type LoanDisclosure, type LoanInstallment,
  type LoanStatus, type TransactionType,
} from '../../lending/index.js'
import type { LoanApplication } from './loan-application.js'
import { openingStatement, type LoanDocument } from './loan-document.js'
import { basisPointsOf } from '../foundations/money.js'
import * as E from 'fp-ts/lib/Either.js'
import { newId, type LoanId } from '../foundations/ids.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import { dateIn, DEFAULT_SERVICING_TERMS, type ServicingTerms } from './servicing-terms.js'

export {
  INSTALLMENT_STATUSES, LOAN_STATUSES, TRANSACTION_TYPES, type BalanceSnapshot, type InstallmentStatus, type LedgerTransaction, type Loan, type LoanDisclosure,
  type LoanInstallment, type LoanStatus, type TransactionType,
}

// Booking a loan (docs/applications.md "Decisioning"); the same `amortize` answers the schedule preview.

/** A loan as a list shows it: without its servicing checkpoint, with the level payment in force. */
export type LoanSummary = Omit<Loan, 'checkpoint'> & { readonly levelPayment: number }

/** The level payment in force: the checkpoint's (recast by a prepayment), else the booked `paymentAmount`. */
export const levelPaymentOf = (loan: Loan | LoanSummary): number => ('levelPayment' in loan ? loan.levelPayment : (loan.checkpoint?.level ?? loan.paymentAmount))

/** `loan` as a list shows it, without its checkpoint. */
export const loanSummary = (loan: Loan): LoanSummary => {
  const { checkpoint: _checkpoint, ...summary } = loan
  return { ...summary, levelPayment: levelPaymentOf(loan) }
}

/** The disclosure of a schedule advancing `amountFinanced` on `startDate`; null if Appendix J finds no rate. */
export const disclosureOf = (schedule: readonly Installment[], amountFinanced: number, startDate: string): LoanDisclosure | null => {
  const figures = disclosureFigures({
    amountFinanced: BigInt(amountFinanced),
    advanceDate: startDate,
    payments: schedule.map((i) => ({ amount: BigInt(i.payment), dueDate: i.dueDate })),
  })
  if (E.isLeft(figures)) return null
  const { financeCharge, totalOfPayments, aprThousandths } = figures.right
  return { amountFinanced, financeCharge: Number(financeCharge), totalOfPayments: Number(totalOfPayments), aprThousandths }
}


/** Everything approval writes, in one transaction. */
export type BookedLoan = {
  readonly loan: Loan
  readonly installments: readonly LoanInstallment[]
  readonly transactions: readonly LedgerTransaction[]
  readonly balance: BalanceSnapshot
  /** The opening statement's metadata. */
  readonly documents: readonly LoanDocument[]
}

/** The schedule `application` would have if booked on `startDate`. */
export const scheduleOf = (a: Pick<LoanApplication, 'amount' | 'interestRateBps' | 'termMonths'>, startDate: string, terms: ServicingTerms): readonly Installment[] =>
  amortize({ principal: a.amount, annualRateBps: a.interestRateBps, termMonths: a.termMonths, startDate, dayCount: terms.dayCount })

/** Books the application as a loan starting on `now`'s date in `terms.timeZone`: docs/applications.md "Decisioning". */
export const bookLoan = (application: LoanApplication, idGenerator: IdGenerator, now: Date, terms: ServicingTerms = DEFAULT_SERVICING_TERMS): BookedLoan => {
  const ids = (): string => idGenerator.next()
  const startDate = dateIn(terms.timeZone, now)
  const schedule = scheduleOf(application, startDate, terms)
  const first = schedule[0]
  const last = schedule[schedule.length - 1]
  if (first === undefined || last === undefined) throw new Error('bookLoan: a loan has at least one installment')
  const loanId = newId<LoanId>(idGenerator)
  const fee = basisPointsOf(application.amount, application.originationFeeBps)
  const booked: Loan = {
    id: loanId,
    partyId: application.partyId,
    applicationId: application.id,
    productId: application.productId,
    status: 'ACTIVE',
    currency: application.currency,
    principal: application.amount,
    interestRateBps: application.interestRateBps,
    termMonths: application.termMonths,
    paymentAmount: first.payment,
    originationFee: fee,
    disbursedAmount: application.amount - fee,
    startDate,
    firstDueDate: first.dueDate,
    maturityDate: last.dueDate,
    dayCount: terms.dayCount,
    prepayment: terms.prepayment,
    lateFee: terms.lateFee,
    timeZone: terms.timeZone,
    ...(terms.allocationOrder === undefined ? {} : { allocationOrder: terms.allocationOrder }),
    ...((terms.returnedPaymentFee ?? 0) === 0 ? {} : { returnedPaymentFee: terms.returnedPaymentFee }),
    oldestUnpaidDueDate: first.dueDate,
    chargedOffOn: null,
    checkpoint: null,
    disclosure: disclosureOf(schedule, application.amount - fee, startDate),
    createdAt: now,
  }
  // The schedule and the first snapshot as the servicing rules derive them on the start date.
  const { derived, checkpoint } = replay(booked, null, [], startDate)
  const loan: Loan = { ...booked, checkpoint }
  const entry = (type: TransactionType, amount: number, principal: number, fees: number): LedgerTransaction => ({
    id: ids(),
    loanId,
    type,
    effectiveDate: startDate,
    amount,
    principal,
    interest: 0,
    fees,
    paymentId: null,
    reversesId: null,
    createdAt: now,
  })
  const transactions = [
    entry('DISBURSEMENT', loan.principal, loan.principal, 0),
    ...(fee > 0 ? [entry('ORIGINATION_FEE', fee, 0, fee), entry('FEE_WITHHELD', fee, 0, -fee)] : []),
  ]
  const installments = derived.installments.map(({ status: _status, ...i }): LoanInstallment => i)
  const balance = snapshotOf(derived, loanId, transactions[transactions.length - 1]!.id, ids(), now)
  return { loan, installments, transactions, balance, documents: [openingStatement(loanId, startDate, newId(idGenerator), now)] }
}

/** Days `loan` is past due on `today`: since its oldest unpaid installment fell due (0 if none has). */
export const daysPastDue = (loan: Pick<Loan, 'oldestUnpaidDueDate' | 'chargedOffOn'>, today: string): number => {
  const asOf = loan.chargedOffOn !== null && loan.chargedOffOn < today ? loan.chargedOffOn : today
  return daysPastDueSince(loan.oldestUnpaidDueDate, asOf)
}
