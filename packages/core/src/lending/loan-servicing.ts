/** The servicing engine in one import (docs/servicing.md). */

export { type Bucket, type Buckets, ZERO, ledgerSums, total } from './buckets.js'
export { type Allocation, type AppliedPayment, type InstallmentPayments } from './apply-payment.js'
export { DELINQUENCY_BUCKETS, DELINQUENCY_DAYS, type DelinquencyBucket, daysPastDueSince, delinquencyBucketOf } from './delinquency.js'
export { type DerivedLoan, type PayoffQuote, type ScheduledInstallment, type ServicedInstallment, unpaidOf } from './derived-loan.js'
export { allocated, chargeOffEntries, paymentEntry, sameFigures, snapshotOf, writtenOffReversal } from './ledger-entries.js'
export { type LoanChange, type LoanEvent, type PostedPayment, postChange, resumes, statusChange } from './posting.js'
export { type ServicingCheckpoint, type Working } from './replay-state.js'
export { type ReplayInputs, type SettledPayment, deriveLoan, derivedOn, replay } from './replay.js'
export { type ReturnFee } from './return-fees.js'
