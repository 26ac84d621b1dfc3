import { headroom } from './accrual.js'
import { addDays, divideHalfUp } from './day-count.js'
import type { LateFee } from './servicing-terms.js'

export const chargesLateFees = (fee: LateFee): boolean => fee.flat > 0 || fee.bps > 0

/** The first day after the grace period. */
export const lateFeeDate = (fee: LateFee, dueDate: string): string => addDays(dueDate, fee.graceDays + 1)

/** `flat` plus `bps` of `unpaid` (rounded half up), none on nothing owed, at most what brings `charged` to `MAX_OWED`. */
export const lateFeeOn = (fee: LateFee, unpaid: number, charged: number): number =>
  unpaid <= 0 ? 0 : Math.min(fee.flat + Number(divideHalfUp(BigInt(unpaid) * BigInt(fee.bps), 10_000n)), headroom(charged))
