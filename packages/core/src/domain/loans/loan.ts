import { amortize, calendarDays, disclosureFigures, replay, snapshotOf, type Installment, type ServicingCheckpoint } from '../../lending/index.js'
import type { LoanApplication } from './loan-application.js'
import { openingStatement, type LoanDocument } from './loan-document.js'
import { basisPointsOf } from '../foundations/money.js'
import * as E from 'fp-ts/lib/Either.js'
import { newId, type ApplicationId, type LoanId, type PartyId, type PaymentId, type ProductId } from '../foundations/ids.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import { dateIn, DEFAULT_SERVICING_TERMS, type DayCount, type LateFee, type PrepaymentMode, type ServicingTerms } from './servicing-terms.js'

/**
 * A booked loan and what booking writes with it: the full schedule, the ledger's opening
 * entries and the first balance snapshot (docs/applications.md "Decisioning"). Pure: the same
 * `amortize` answers the schedule preview and the booking.
 */

/**
 * A loan's statuses: `ACTIVE` when booked; `PAID_OFF` while nothing is owed (a reversed payoff
 * makes it `ACTIVE` again); `CHARGED_OFF` is written off by an operator (`chargeOffLoan`), and no
 * change moves it after.
 */
export const LOAN_STATUSES = ['ACTIVE', 'PAID_OFF', 'CHARGED_OFF'] as const
/** One of `LOAN_STATUSES`. */
export type LoanStatus = (typeof LOAN_STATUSES)[number]

/**
 * A booked loan (docs/applications.md "Decisioning"): the terms frozen at approval and the dates of
 * its schedule. Amounts are minor units of `currency`; dates are `YYYY-MM-DD`.
 */
export type Loan = {
  readonly id: LoanId
  readonly partyId: PartyId
  readonly applicationId: ApplicationId
  readonly productId: ProductId
  readonly status: LoanStatus
  readonly currency: string
  readonly principal: number
  readonly interestRateBps: number
  readonly termMonths: number
  /** The level installment (the last one may differ by the rounding it absorbs). */
  readonly paymentAmount: number
  /** The origination fee, withheld from the disbursement. */
  readonly originationFee: number
  /** What the borrower receives: principal − origination fee (the fee is withheld). */
  readonly disbursedAmount: number
  /** The date of booking in its business time zone; the first installment is due one month later. */
  readonly startDate: string
  readonly firstDueDate: string
  readonly maturityDate: string
  /** The servicing rules frozen at booking, from the product. */
  readonly dayCount: DayCount
  readonly prepayment: PrepaymentMode
  readonly lateFee: LateFee
  /** The business time zone (IANA) its dates are calendar dates in. */
  readonly timeZone: string
  /**
   * The due date of its oldest installment not yet paid, as of its latest posting (null once
   * nothing is owed): how many days past due it is on any later date, until the next posting.
   */
  readonly oldestUnpaidDueDate: string | null
  /** The date it was charged off, if it was. */
  readonly chargedOffOn: string | null
  /**
   * Where the servicing replay stood at its latest posting (loan-servicing.ts `replay`): changes
   * and reads resume from it instead of replaying every payment; null for a loan booked before
   * checkpoints were kept (it is replayed from booking until its next posting).
   */
  readonly checkpoint: ServicingCheckpoint | null
  /** The Truth in Lending figures of the schedule as booked; null for loans booked before they were kept. */
  readonly disclosure: LoanDisclosure | null
  readonly createdAt: Date
}

/**
 * A loan as a list shows it: everything but its servicing checkpoint, which only servicing
 * resumes from, and the level payment in force (`levelPaymentOf`).
 */
export type LoanSummary = Omit<Loan, 'checkpoint'> & { readonly levelPayment: number }

/**
 * The level payment in force: the checkpoint's (a prepayment that reduces the installment recasts
 * it), the booked `paymentAmount` for a loan without one.
 */
export const levelPaymentOf = (loan: Loan | LoanSummary): number => ('levelPayment' in loan ? loan.levelPayment : (loan.checkpoint?.level ?? loan.paymentAmount))

/** `loan` as a list shows it, without its checkpoint. */
export const loanSummary = (loan: Loan): LoanSummary => {
  const { checkpoint: _checkpoint, ...summary } = loan
  return { ...summary, levelPayment: levelPaymentOf(loan) }
}

/**
 * A loan's cost as disclosure laws ask it to be shown (Regulation Z, 12 CFR 1026.18; the
 * commercial-financing laws of California and New York ask for the same figures): what the
 * borrower receives, what the credit costs, what is repaid, and the APR by Appendix J's actuarial
 * method. Money in minor units; the APR in thousandths of a percent (12.683% is 12683).
 */
export type LoanDisclosure = {
  /** The principal less the origination fee withheld (a prepaid finance charge). */
  readonly amountFinanced: number
  /** Total of payments − amount financed: the interest and the origination fee. */
  readonly financeCharge: number
  /** The sum of every scheduled payment. */
  readonly totalOfPayments: number
  readonly aprThousandths: number
}

/**
 * The disclosure of a schedule whose proceeds, `amountFinanced`, are advanced on `startDate`;
 * null if Appendix J finds no rate (a schedule that repays less than it advances).
 */
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

/** An installment's statuses, computed from its payments and the date. */
export const INSTALLMENT_STATUSES = ['UPCOMING', 'DUE', 'PAID', 'PARTIALLY_PAID', 'LATE'] as const
/** Computed by the replay for a date (loan-servicing.ts `deriveLoan`), never stored. */
export type InstallmentStatus = (typeof INSTALLMENT_STATUSES)[number]

/**
 * One installment of a loan's schedule: what is due and what has been paid. `interestDue` is the
 * interest accrued to it so far plus, while it is open, a projection to its due date; once it
 * closes (on its due date, or earlier when a payment pays it in full) `interestAccrued` is true
 * and `interestDue` is final (docs/servicing.md "Schedule").
 */
export type LoanInstallment = {
  readonly loanId: LoanId
  /** 1 for the first installment. */
  readonly number: number
  readonly dueDate: string
  readonly principalDue: number
  readonly interestDue: number
  readonly feesDue: number
  readonly principalPaid: number
  readonly interestPaid: number
  readonly feesPaid: number
  readonly interestAccrued: boolean
}

/** The kinds of ledger entry. */
export const TRANSACTION_TYPES = ['DISBURSEMENT', 'ORIGINATION_FEE', 'FEE_WITHHELD', 'INTEREST_ACCRUAL', 'LATE_FEE', 'PAYMENT', 'REVERSAL', 'REALLOCATION', 'CHARGE_OFF'] as const
/** One of `TRANSACTION_TYPES`. */
export type TransactionType = (typeof TRANSACTION_TYPES)[number]

/**
 * An append-only ledger entry. `amount` is its size (≥ 0); the bucket fields are the signed
 * changes it makes to what is outstanding, so the sum of a loan's entries per bucket is
 * what the borrower owes in that bucket.
 */
export type LedgerTransaction = {
  readonly id: string
  readonly loanId: LoanId
  readonly type: TransactionType
  /** The date it takes effect, `YYYY-MM-DD`. */
  readonly effectiveDate: string
  readonly amount: number
  readonly principal: number
  readonly interest: number
  readonly fees: number
  /** The payment a `PAYMENT` entry records, or that a `REVERSAL` undoes. */
  readonly paymentId: PaymentId | null
  /** The entry a `REVERSAL` reverses. */
  readonly reversesId: string | null
  readonly createdAt: Date
}

/** What is outstanding after a ledger change. */
export type BalanceSnapshot = {
  readonly id: string
  readonly loanId: LoanId
  /** The ledger entry after which the snapshot was taken. */
  readonly transactionId: string
  readonly asOf: string
  readonly principalOutstanding: number
  readonly interestOutstanding: number
  readonly feesOutstanding: number
  /** Everything owed: principal, interest and fees outstanding. */
  readonly payoffAmount: number
  /** What fell due before `asOf` and is still unpaid. */
  readonly pastDueAmount: number
  readonly nextDueDate: string | null
  readonly nextDueAmount: number | null
  readonly createdAt: Date
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

/**
 * Books the approved application as a loan starting on the date of `now` in the product's
 * business time zone (`terms.timeZone`): the schedule by
 * level-payment amortization, the opening ledger entries (disbursement, and the origination fee
 * charged and withheld), the first balance snapshot and the opening statement. Pure; `idGenerator`
 * gives each new record its id.
 */
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
  return loan.oldestUnpaidDueDate === null || loan.oldestUnpaidDueDate >= asOf ? 0 : calendarDays(loan.oldestUnpaidDueDate, asOf)
}
