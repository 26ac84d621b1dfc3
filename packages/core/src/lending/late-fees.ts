import { headroom } from './accrual.js'
import { addDays, divideHalfUp } from './day-count.js'
import type { LateFee } from './servicing-terms.js'

/** Whether the terms charge any late fee at all. */
export const chargesLateFees = (fee: LateFee): boolean => fee.flat > 0 || fee.bps > 0

/** The day an installment due on `dueDate` is charged its late fee if it still owes: the first after the grace period. */
export const lateFeeDate = (fee: LateFee, dueDate: string): string => addDays(dueDate, fee.graceDays + 1)

/**
 * The late fee on an installment that owes `unpaid` that day: `flat` plus `bps` of `unpaid`,
 * rounded half up; none if it owes nothing; no more than what brings `owed` to `MAX_OWED`.
 */
export const lateFeeOn = (fee: LateFee, unpaid: number, owed: number): number =>
  unpaid <= 0 ? 0 : Math.min(fee.flat + Number(divideHalfUp(BigInt(unpaid) * BigInt(fee.bps), 10_000n)), headroom(owed))
