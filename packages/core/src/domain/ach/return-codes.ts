/**
 * What a return's reason code means for the lender (docs/ach.md "Returns and notices of change",
 * "Risk counters"): its category in Nacha's return-rate thresholds, whether its window is the
 * extended one of unauthorized consumer debits, and whether the account may be debited again.
 */

/** Nacha's return-rate categories: each has its own threshold (0.5 %, 3 %, 15 % of all returns). */
export type ReturnCategory = 'unauthorized' | 'administrative' | 'other'

/** Unauthorized returns (Nacha's 0.5 % threshold): the receiver says the debit was not authorized. */
const UNAUTHORIZED: ReadonlySet<string> = new Set(['R05', 'R07', 'R10', 'R11', 'R29', 'R51'])
/** Administrative returns (Nacha's 3 % threshold): the account is closed, not there, or not valid. */
const ADMINISTRATIVE: ReadonlySet<string> = new Set(['R02', 'R03', 'R04'])

/**
 * Codes that may come up to 60 days after the effective entry date (consumer debits, unauthorized):
 * a return with one of them is never `late` within that window, even on a settled payment. R29 is
 * corporate (CCD) and keeps the two-banking-day window.
 */
const EXTENDED: ReadonlySet<string> = new Set(['R05', 'R07', 'R10', 'R11', 'R51'])

/** Days after the effective entry date an extended return may come: the 60 calendar days, plus the banking day it opens on. */
export const EXTENDED_RETURN_DAYS = 60

/**
 * Codes after which the account must not be debited again without a new authorization: the
 * account is gone (R02, R03, R04), the receiver revoked or never gave the authorization (the
 * unauthorized codes), payments were stopped (R08) or the account is frozen (R16).
 */
const BLOCKING: ReadonlySet<string> = new Set([...ADMINISTRATIVE, ...UNAUTHORIZED, 'R08', 'R16'])

/** The category of return code `code` (`R01`, …): `other` for every code neither unauthorized nor administrative. */
export const returnCategoryOf = (code: string): ReturnCategory => (UNAUTHORIZED.has(code) ? 'unauthorized' : ADMINISTRATIVE.has(code) ? 'administrative' : 'other')

/** Whether return code `code` has the extended 60-day window. */
export const hasExtendedWindow = (code: string): boolean => EXTENDED.has(code)

/** Whether, after a return with `code`, the payment method is blocked: no further debit of it is sent. */
export const blocksMethod = (code: string): boolean => BLOCKING.has(code)

/** The window Nacha's return rates are measured over: the last 60 days. */
export const RETURN_RATE_WINDOW_DAYS = 60

/** The return-rate categories a lender watches: the two of `ReturnCategory` with a threshold of their own, and every return. */
export const RATE_CATEGORIES = ['unauthorized', 'administrative', 'overall'] as const
/** One of `RATE_CATEGORIES`. */
export type RateCategory = (typeof RATE_CATEGORIES)[number]

/** Nacha's thresholds (a ratio of returns to debit entries, over the window): past them the ODFI must act. */
export const RETURN_RATE_THRESHOLDS: Readonly<Record<RateCategory, number>> = { unauthorized: 0.005, administrative: 0.03, overall: 0.15 }
