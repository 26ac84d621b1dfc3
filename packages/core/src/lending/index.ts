/** The lending engine: pure rules, no ports, no I/O. Use cases and entities import it from here. */

export { DAY_COUNTS, type DayCount, addDays, calendarDays } from './day-count.js'
export { type Installment, amortize } from './amortization.js'
export { DEFAULT_SERVICING_TERMS, type LateFee, PREPAYMENT_MODES, type PrepaymentMode, type ServicingTerms } from './servicing-terms.js'
export {
  type BalanceSnapshot, INSTALLMENT_STATUSES, type InstallmentStatus, type LedgerTransaction, LOAN_STATUSES, type Loan, type LoanDisclosure, type LoanInstallment,
  type LoanStatus, TRANSACTION_TYPES, type TransactionType,
} from './loan-records.js'
export {
  type Allocation, type Buckets, DELINQUENCY_BUCKETS, type DelinquencyBucket, type DerivedLoan, type InstallmentPayments, type LoanChange, type LoanEvent,
  type PayoffQuote, type ReplayInputs, type ReturnFee, type ScheduledInstallment, type ServicedInstallment, type ServicingCheckpoint, type SettledPayment, chargeOffEntries, daysPastDueSince, delinquencyBucketOf,
  allocated, derivedOn, postChange, replay, resumes, sameFigures, snapshotOf, statusChange, total, unpaidOf, writtenOffReversal,
} from './loan-servicing.js'
export { disclosureFigures, formatAprThousandths } from './apr.js'
