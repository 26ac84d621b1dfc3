import * as E from 'fp-ts/lib/Either.js'
import type { AuditContext } from '../audit/audit-event.js'
import type * as t from 'io-ts'
import { boundedString, oneOf, strictObject, stringMatching } from '../foundations/codecs.js'
import { invalidRequest, type InvalidRequest } from '../foundations/errors.js'
import { LoanId, PaymentId, type OperatorId, type OperatorRequestId } from '../foundations/ids.js'

/**
 * Maker-checker (decision 152): a payment reversal or a charge-off by a person is asked by one
 * named operator and carried out only when another, holding `service_loans`, approves it. The
 * request is a record of its loan, asked, decided and carried out under the loan's lock; the
 * internal token (automation) acts directly.
 */

/** What can be asked: `payment_reversal` (of one payment) and `loan_charge_off`. */
export const OPERATOR_REQUEST_KINDS = ['payment_reversal', 'loan_charge_off'] as const
/** One of `OPERATOR_REQUEST_KINDS`. */
export type OperatorRequestKind = (typeof OPERATOR_REQUEST_KINDS)[number]

/** `PENDING` until decided: `APPROVED` (carried out, in the same transaction) or `REJECTED` (nothing done). */
export const OPERATOR_REQUEST_STATES = ['PENDING', 'APPROVED', 'REJECTED'] as const
/** One of `OPERATOR_REQUEST_STATES`. */
export type OperatorRequestState = (typeof OPERATOR_REQUEST_STATES)[number]

/** A request for a second operator's approval. */
export type OperatorRequest = {
  readonly id: OperatorRequestId
  readonly kind: OperatorRequestKind
  readonly loanId: LoanId
  /** The payment to reverse (`payment_reversal`); null for a charge-off. */
  readonly paymentId: PaymentId | null
  /** Why the maker asks: kept in the action's audit event. */
  readonly reason: string
  readonly state: OperatorRequestState
  readonly requestedBy: OperatorId
  /** When it was asked. */
  readonly createdAt: Date
  readonly decidedBy: OperatorId | null
  readonly decidedAt: Date | null
  /** Why it was rejected; null until then, and for an approval. */
  readonly rejectionReason: string | null
}

const Reason = boundedString('Reason', 1, 500)

/**
 * What a maker asks: a `kind` with a `reason`, and what it is of: `payment_id` for a
 * `payment_reversal`, `loan_id` for a `loan_charge_off` (the other is refused).
 */
export const OperatorRequestInput = strictObject('OperatorRequestInput', { kind: oneOf('OperatorRequestKind', OPERATOR_REQUEST_KINDS), reason: Reason }, { payment_id: PaymentId, loan_id: LoanId })

/** What a request is of, once its input names exactly what its kind needs. */
export type OperatorRequestSubject = { readonly kind: 'payment_reversal'; readonly paymentId: PaymentId } | { readonly kind: 'loan_charge_off'; readonly loanId: LoanId }

/** The subject of `input`, or the field it lacks or should not have. */
export const requestSubjectOf = (input: t.TypeOf<typeof OperatorRequestInput>): E.Either<InvalidRequest, OperatorRequestSubject> => {
  if (input.kind === 'payment_reversal') {
    if (input.loan_id !== undefined) return E.left(invalidRequest('loan_id is not a field of a payment_reversal: the payment names its loan.', 'loan_id'))
    return input.payment_id === undefined ? E.left(invalidRequest('payment_id is required for a payment_reversal.', 'payment_id')) : E.right({ kind: input.kind, paymentId: input.payment_id })
  }
  if (input.payment_id !== undefined) return E.left(invalidRequest('payment_id is not a field of a loan_charge_off.', 'payment_id'))
  return input.loan_id === undefined ? E.left(invalidRequest('loan_id is required for a loan_charge_off.', 'loan_id')) : E.right({ kind: input.kind, loanId: input.loan_id })
}

/** The fields of a rejection: a `reason`. */
export const RejectRequestInput = strictObject('RejectRequestInput', { reason: Reason }, {})

/**
 * Whether `context`'s actor may reverse a payment or charge off a loan alone: automation (the
 * internal token, the CLI) may; a named operator may not, and asks for a checker.
 */
export const actsAlone = (context: AuditContext): boolean => !(context.actor.type === 'operator' && 'id' in context.actor)

/** A person tried to act alone where a second operator must approve: 403 `checker_required`. */
export type CheckerRequired = { readonly _tag: 'CheckerRequired'; readonly kind: OperatorRequestKind }
/** `CheckerRequired` of a `kind`. */
export const checkerRequired = (kind: OperatorRequestKind): CheckerRequired => ({ _tag: 'CheckerRequired', kind })

/** A maker-checker request asked or decided without a named operator (the internal token): 403 `operator_session_required`. */
export type OperatorRequired = { readonly _tag: 'OperatorRequired' }
/** The one `OperatorRequired`. */
export const operatorRequired: OperatorRequired = { _tag: 'OperatorRequired' }

/** The maker tried to approve their own request: 403 `checker_must_differ`. */
export type SameOperator = { readonly _tag: 'SameOperator' }
/** The one `SameOperator`. */
export const sameOperator: SameOperator = { _tag: 'SameOperator' }

/**
 * What a preview was of: the loan's latest balance snapshot and the day the action would post. The
 * same two plan the same action, so a checker approving with the version they previewed gets
 * exactly what they saw, or `PreviewOutdated`.
 */
export const previewVersion = (latestSnapshotId: string, postingDay: string): string => `${latestSnapshotId}.${postingDay}`

const PreviewVersion = stringMatching('PreviewVersion', /^[0-9A-Za-z_-]{1,64}\.\d{4}-\d{2}-\d{2}$/, 'must be the preview_version of a preview of this request')

/** What a checker approves: the `preview_version` of the preview they read. */
export const ApproveRequestInput = strictObject('ApproveRequestInput', { preview_version: PreviewVersion }, {})

/** The loan moved since the checker's preview (a payment, a day's interest): 409 `preview_outdated`, with the version a preview would show now. */
export type PreviewOutdated = { readonly _tag: 'PreviewOutdated'; readonly current: string }
/** `PreviewOutdated`, a preview now being `current`. */
export const previewOutdated = (current: string): PreviewOutdated => ({ _tag: 'PreviewOutdated', current })
