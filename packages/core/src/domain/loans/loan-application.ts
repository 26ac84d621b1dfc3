import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { boundedString, integerIn, merged, mergePatch, strictObject } from '../foundations/codecs.js'
import { invalidRequest, invalidState, type InvalidRequest, type InvalidState } from '../foundations/errors.js'
import { MAX_TERM_MONTHS, type LoanProduct } from './loan-product.js'
import { CurrencyCode, PositiveMinorUnits } from '../foundations/money.js'
import { type ApplicationId, type ClientId, type LoanId, PartyId, ProductId } from '../foundations/ids.js'

/** An application's statuses: docs/applications.md "State machine" (`ALLOWED_FROM` below). */
export const APPLICATION_STATUSES = ['DRAFT', 'SUBMITTED', 'APPROVED', 'DECLINED', 'WITHDRAWN'] as const
/** One of `APPLICATION_STATUSES`. */
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number]

/** An operator's decision on a submitted application: who, when, and optionally why. */
export type ApplicationDecision = {
  readonly decision: 'APPROVED' | 'DECLINED'
  readonly reason: string | null
  readonly decidedBy: string
  readonly decidedAt: Date
}

/** A party's application for a loan; rate and fee are copied from the product until submission, then frozen. */
export type LoanApplication = {
  readonly id: ApplicationId
  readonly partyId: PartyId
  /** For audit; access is by party. */
  readonly clientId: ClientId
  readonly productId: ProductId
  readonly amount: number
  readonly currency: string
  readonly termMonths: number
  readonly purpose: string | null
  readonly interestRateBps: number
  readonly originationFeeBps: number
  readonly status: ApplicationStatus
  readonly submittedAt: Date | null
  readonly decision: ApplicationDecision | null
  readonly loanId: LoanId | null
  /** Optimistic locking: bumped by every save; a save of an older version is refused. */
  readonly version: number
  readonly createdAt: Date
  readonly updatedAt: Date
}

export type ApplicationAction = 'edit' | 'submit' | 'withdraw' | 'approve' | 'decline'

const ALLOWED_FROM: Readonly<Record<ApplicationAction, readonly ApplicationStatus[]>> = {
  edit: ['DRAFT'],
  submit: ['DRAFT'],
  withdraw: ['DRAFT', 'SUBMITTED'],
  approve: ['SUBMITTED'],
  decline: ['SUBMITTED'],
}

const LEADS_TO: Readonly<Record<Exclude<ApplicationAction, 'edit'>, ApplicationStatus>> = {
  submit: 'SUBMITTED',
  withdraw: 'WITHDRAWN',
  approve: 'APPROVED',
  decline: 'DECLINED',
}

/** The status after `action`, or `InvalidState` when the application's status forbids it. */
export const applicationTransition = (status: ApplicationStatus, action: ApplicationAction): E.Either<InvalidState, ApplicationStatus> =>
  ALLOWED_FROM[action].includes(status)
    ? E.right(action === 'edit' ? status : LEADS_TO[action])
    : E.left(invalidState('loan_application', status, action))

const TermMonths = integerIn('TermMonths', 1, MAX_TERM_MONTHS)
const terms = { product_id: ProductId, amount: PositiveMinorUnits, currency: CurrencyCode, term_months: TermMonths }
const Purpose = boundedString('Purpose', 1, 500)

/** A new application; `party_id`, if given, must be the caller's party. */
export const LoanApplicationInput = strictObject('LoanApplicationInput', terms, { purpose: Purpose, party_id: PartyId })
/** A decoded `LoanApplicationInput`. */
export type LoanApplicationInput = t.TypeOf<typeof LoanApplicationInput>

/** A merge patch (RFC 7396) of a draft's terms: `null` clears `purpose`; the terms cannot be emptied. */
export const LoanApplicationPatch = mergePatch('LoanApplicationPatch', terms, { purpose: Purpose })
/** A decoded `LoanApplicationPatch`. */
export type LoanApplicationPatch = t.TypeOf<typeof LoanApplicationPatch>

/** The terms of an application, checked against its product as the product is now. */
export const fitsProduct = (
  a: Pick<LoanApplication, 'amount' | 'currency' | 'termMonths'>,
  p: LoanProduct,
): E.Either<InvalidRequest, LoanProduct> => {
  if (!p.active) return E.left(invalidRequest(`product_id ${p.id} is not an active loan product.`, 'product_id'))
  if (a.currency !== p.currency) return E.left(invalidRequest(`currency must be ${p.currency}, the currency of the product.`, 'currency'))
  if (a.amount < p.minAmount || a.amount > p.maxAmount) {
    return E.left(invalidRequest(`amount must be from ${p.minAmount} to ${p.maxAmount} (${p.currency} minor units) for this product.`, 'amount'))
  }
  if (a.termMonths < p.minTermMonths || a.termMonths > p.maxTermMonths) {
    return E.left(invalidRequest(`term_months must be from ${p.minTermMonths} to ${p.maxTermMonths} for this product.`, 'term_months'))
  }
  return E.right(p)
}

/** The application priced by `product` (its current rate and fee). */
export const pricedBy = (a: LoanApplication, product: LoanProduct): LoanApplication => ({
  ...a,
  productId: product.id,
  interestRateBps: product.interestRateBps,
  originationFeeBps: product.originationFeeBps,
})

/** A new draft priced by `product`; the use case checks the terms (`fitsProduct`) first. */
export const newLoanApplication = (
  input: LoanApplicationInput,
  owner: { readonly partyId: PartyId; readonly clientId: ClientId },
  product: LoanProduct,
  id: ApplicationId,
  now: Date,
): LoanApplication => ({
  id,
  partyId: owner.partyId,
  clientId: owner.clientId,
  productId: product.id,
  amount: input.amount,
  currency: input.currency,
  termMonths: input.term_months,
  purpose: input.purpose ?? null,
  interestRateBps: product.interestRateBps,
  originationFeeBps: product.originationFeeBps,
  status: 'DRAFT',
  submittedAt: null,
  decision: null,
  loanId: null,
  version: 0,
  createdAt: now,
  updatedAt: now,
})

/** The draft with the patch applied; pricing is refreshed separately (`pricedBy`). */
export const patchLoanApplication = (a: LoanApplication, patch: LoanApplicationPatch, now: Date): LoanApplication => ({
  ...a,
  productId: merged(patch.product_id, a.productId),
  amount: merged(patch.amount, a.amount),
  currency: merged(patch.currency, a.currency),
  termMonths: merged(patch.term_months, a.termMonths),
  purpose: merged(patch.purpose, a.purpose),
  updatedAt: now,
})
