/** The lending engine: pure rules, no ports, no I/O. Use cases and entities import it from here. */

export { DAY_COUNTS, type DayCount, addDays, calendarDays } from './day-count.js'
export { type Installment, amortize } from './amortization.js'
export { type Allocation, type Buckets, DELINQUENCY_BUCKETS, type DelinquencyBucket, type DerivedLoan, type InstallmentPayments, type LoanChange, type LoanEvent, type PayoffQuote, type ScheduledInstallment, type ServicedInstallment, type ServicingCheckpoint, type SettledPayment, chargeOffEntries, delinquencyBucketOf, derivedOn, postChange, replay, resumes, sameFigures, snapshotOf, statusChange } from './loan-servicing.js'
export { disclosureFigures, formatAprThousandths } from './apr.js'
