import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { namedOperatorActor, OPERATOR_CONTEXT, operatorRequestCreatedEvent, operatorRequestRejectedEvent, type AuditContext } from '../../domain/audit/audit-event.js'
import { decode } from '../../domain/foundations/codecs.js'
import { alreadyExists, invalidState, notFound, type AlreadyExists, type InvalidRequest, type InvalidState, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { newId, type LoanId } from '../../domain/foundations/ids.js'
import { decodeFilteredPageRequest, pageOf, queryFilters, type Page } from '../../domain/foundations/pagination.js'
import { commandOf, pathParameters } from '../../domain/foundations/path-parameters.js'
import type { Loan } from '../../domain/loans/loan.js'
import type { Payment } from '../../domain/loans/payment.js'
import { requirePermission, type InsufficientRole, type Operator } from '../../domain/operators/operator.js'
import {
  OPERATOR_REQUEST_STATES,
  OperatorRequestInput,
  RejectRequestInput,
  requestSubjectOf,
  operatorRequired,
  sameOperator,
  ApproveRequestInput,
  previewOutdated,
  previewVersion,
  type PreviewOutdated,
  type OperatorRequest,
  type OperatorRequired,
  type OperatorRequestSubject,
  type SameOperator,
} from '../../domain/operators/operator-request.js'
import { oneOf } from '../../domain/foundations/codecs.js'
import type { BalanceSnapshot } from '../../lending/index.js'
import type { Clock } from '../../ports/clock.js'
import type { TestClockRepository } from '../../ports/test-clock-repository.js'
import type { World } from '../../core-deps.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { Change, ChangeReads, LockedLoan, LoanRepository } from '../../ports/loan-repository.js'
import { decideChargeOff } from './charge-off-loan.js'
import { nothing } from './posting.js'
import { partyClock } from '../testing/party-clock.js'
import { decideReversal } from './reverse-payment.js'

/**
 * Maker-checker (decision 152, docs/console.md "Maker-checker"): one named operator asks for a
 * payment reversal or a charge-off, sees what it would do first, and another operator holding
 * `service_loans` approves it, which carries it out, or rejects it. Every step runs under the
 * loan's lock, so a request is decided once and its action done in the same transaction.
 */

/** What the requests need. */
export type OperatorRequestDeps = {
  readonly loans: Pick<LoanRepository, 'change' | 'dryRun' | 'payments' | 'find' | 'findRequest' | 'listRequests'>
  readonly ids: IdGenerator
  readonly clock: Clock
  /** The world's parties' test clocks: an action is dated on its loan's party's today (decision 131). */
  readonly world: World
  readonly testClocks: Pick<TestClockRepository, 'findForParty'>
}

/** Who acts: a named operator (of a console session), and the request's id for the audit log. */
export type ActingOperator = { readonly operator: Pick<Operator, 'id' | 'role'>; readonly requestId: string | null }

const contextOf = (by: ActingOperator): AuditContext => ({ actor: namedOperatorActor(by.operator), requestId: by.requestId })

/** Why asking, previewing or deciding is refused. */
export type OperatorRequestError = InvalidRequest | NotFound | InvalidState | AlreadyExists | OperatorRequired | InsufficientRole | SameOperator | PreviewOutdated | StoreUnavailable

/**
 * The named operator who may ask or decide, once the command is decoded: none (the internal
 * token, automation) is `OperatorRequired`; a role without `service_loans` is `InsufficientRole`.
 */
const mayAskOrDecide = (by: ActingOperator | null): E.Either<OperatorRequired | InsufficientRole, ActingOperator> =>
  by === null ? E.left(operatorRequired) : pipe(requirePermission('service_loans')(by.operator), E.map(() => by))

/** What an action made: the payment reversed, or the loan charged off. */
export type ActionOutcome = { readonly kind: 'payment_reversal'; readonly payment: Payment } | { readonly kind: 'loan_charge_off'; readonly loan: Loan }

/** What an action would change, as the loan stands now: its balance, status and ledger entries. */
export type ActionPreview = {
  readonly subject: OperatorRequestSubject
  readonly loan: Loan
  readonly before: BalanceSnapshot
  /** The snapshot the action would write; `before` when it writes none. */
  readonly after: BalanceSnapshot
  readonly change: Change<ActionOutcome>
  /** What the preview was of (`previewVersion`): a checker approves with it. */
  readonly version: string
}

/** How an action is ordered: who, why, and (approving) the request it carries out. */
type ActionOrder = { readonly context: AuditContext; readonly reason: string; readonly ids: IdGenerator; readonly now: Date; readonly checked?: OperatorRequest }

/** A loan an action is of, and its party's now: real time, or in the test world its party's test clock's. */
type LoanAt = { readonly loanId: LoanId; readonly now: Date }

const loanAt = (deps: OperatorRequestDeps, loanId: LoanId): TE.TaskEither<NotFound | StoreUnavailable, LoanAt> =>
  pipe(
    deps.loans.find(loanId),
    TE.chainW(TE.fromOption(() => notFound('loan'))),
    TE.chainW((loan) => pipe(partyClock(deps)(loan.partyId), TE.map((clock) => ({ loanId, now: clock.now() })))),
  )

/** The loan an action is of (a payment's loan, or the loan itself), at its party's now. */
const loanOfSubject = (deps: OperatorRequestDeps, subject: OperatorRequestSubject): TE.TaskEither<NotFound | StoreUnavailable, LoanAt> =>
  subject.kind === 'loan_charge_off'
    ? loanAt(deps, subject.loanId)
    : pipe(
        deps.loans.payments.paymentById(subject.paymentId),
        TE.chainW(TE.fromOption(() => notFound('payment'))),
        TE.chainW((p) => loanAt(deps, p.loanId)),
      )

/** The action decided on the loan under its lock, as `reverseLoanPayment` or `chargeOffLoan` decides it. */
const planned = (subject: OperatorRequestSubject, found: O.Option<LockedLoan>, reads: ChangeReads, order: ActionOrder): TE.TaskEither<NotFound | InvalidState | StoreUnavailable, Change<ActionOutcome>> =>
  subject.kind === 'payment_reversal'
    ? pipe(
        reads.paymentById(subject.paymentId),
        TE.chainW((current) => decideReversal(found, current, reads, order)),
        TE.map(({ posting, result }): Change<ActionOutcome> => ({ posting, result: { kind: 'payment_reversal', payment: result } })),
      )
    : pipe(
        decideChargeOff(found, reads, order),
        TE.map(({ posting, result }): Change<ActionOutcome> => ({ posting, result: { kind: 'loan_charge_off', loan: result } })),
      )

/** The version of a plan: the snapshot it starts from, and the day it posts on. */
const versionOf = (locked: LockedLoan, change: Change<ActionOutcome>): string => previewVersion(locked.latest.id, (change.posting.balance ?? locked.latest).asOf)

/** The preview of `change` on `locked`. */
const previewOf = (subject: OperatorRequestSubject, locked: LockedLoan, change: Change<ActionOutcome>): ActionPreview => ({
  subject,
  loan: locked.loan,
  before: locked.latest,
  after: change.posting.balance ?? locked.latest,
  change,
  version: versionOf(locked, change),
})

/** What the action would do now, planned under the loan's lock and written nowhere. */
const dryRunOf = (deps: OperatorRequestDeps, subject: OperatorRequestSubject, order: Omit<ActionOrder, 'now'>): TE.TaskEither<NotFound | InvalidState | StoreUnavailable, ActionPreview> =>
  pipe(
    loanOfSubject(deps, subject),
    TE.chainW(({ loanId, now }) =>
      deps.loans.dryRun({ loanId }, (found, reads) =>
        pipe(
          planned(subject, found, reads, { ...order, now }),
          TE.chainW((change) => (O.isNone(found) ? TE.left(notFound('loan')) : TE.right({ posting: change.posting, result: previewOf(subject, found.value, change) }))),
        ),
      ),
    ),
    TE.map(({ result }) => result),
  )

/** The request `operatorRequestId` of the loan, as it stands under the loan's lock. */
const lockedRequest = (reads: ChangeReads, request: OperatorRequest): TE.TaskEither<NotFound | StoreUnavailable, OperatorRequest> =>
  pipe(
    reads.requests(request.loanId),
    TE.chainW((all) => TE.fromOption(() => notFound('operator_request'))(O.fromNullable(all.find((r) => r.id === request.id)))),
  )

const pending = (request: OperatorRequest, action: string): E.Either<InvalidState, OperatorRequest> =>
  request.state === 'PENDING' ? E.right(request) : E.left(invalidState('operator_request', request.state, action))

const subjectOfRequest = (r: OperatorRequest): OperatorRequestSubject =>
  r.kind === 'payment_reversal' ? { kind: r.kind, paymentId: r.paymentId! } : { kind: r.kind, loanId: r.loanId }

/** What the action of the command (an `OperatorRequestInput`) would do now, before anyone asks: nothing is written. */
export const previewOperatorAction =
  (deps: OperatorRequestDeps) =>
  (command: unknown): TE.TaskEither<OperatorRequestError, ActionPreview> =>
    pipe(
      TE.fromEither(decode(OperatorRequestInput)(command)),
      TE.chainEitherKW((input) => pipe(requestSubjectOf(input), E.map((subject) => ({ subject, reason: input.reason })))),
      TE.chainW(({ subject, reason }) => dryRunOf(deps, subject, { context: OPERATOR_CONTEXT, reason, ids: deps.ids })),
    )

/**
 * A named operator holding `service_loans` asks for a payment reversal or a charge-off: refused at
 * once when the action could not be done now, or when the same is already pending; otherwise the
 * request is `PENDING`, with its `operator_request.created` audit event, and nothing else changes.
 */
export const askOperatorRequest =
  (deps: OperatorRequestDeps) =>
  (command: unknown, by: ActingOperator | null): TE.TaskEither<OperatorRequestError, OperatorRequest> =>
    pipe(
      TE.fromEither(decode(OperatorRequestInput)(command)),
      TE.chainEitherKW((input) => pipe(requestSubjectOf(input), E.map((subject) => ({ subject, reason: input.reason })))),
      TE.bindW('maker', () => TE.fromEither(mayAskOrDecide(by))),
      TE.chainW(({ subject, reason, maker }) =>
        pipe(
          loanOfSubject(deps, subject),
          TE.chainW(({ loanId, now: partyNow }) =>
            deps.loans.change({ loanId }, (found, reads) => {
              // People act in real time; the action is planned on the party's today.
              const now = deps.clock.now()
              const order = { context: contextOf(maker), reason, ids: deps.ids, now: partyNow }
              return pipe(
                // What could not be done now is refused now, not when a checker approves it.
                planned(subject, found, reads, order),
                TE.chainW(() => reads.requests(loanId)),
                TE.chainW((requests): TE.TaskEither<AlreadyExists | NotFound, Change<OperatorRequest>> => {
                  const locked = O.toUndefined(found)
                  if (locked === undefined) return TE.left(notFound('loan'))
                  const same = requests.find((r) => r.state === 'PENDING' && r.kind === subject.kind && (subject.kind === 'loan_charge_off' || r.paymentId === subject.paymentId))
                  if (same !== undefined) return TE.left(alreadyExists(`pending ${subject.kind} request of this ${subject.kind === 'loan_charge_off' ? 'loan' : 'payment'}`))
                  const request: OperatorRequest = {
                    id: newId(deps.ids),
                    kind: subject.kind,
                    loanId,
                    paymentId: subject.kind === 'payment_reversal' ? subject.paymentId : null,
                    reason,
                    state: 'PENDING',
                    requestedBy: maker.operator.id,
                    createdAt: now,
                    decidedBy: null,
                    decidedAt: null,
                    rejectionReason: null,
                  }
                  const audit = operatorRequestCreatedEvent(deps.ids.next(), order.context, request, locked.loan)
                  return TE.right({ posting: { ...nothing(locked), request, audit }, result: request })
                }),
              )
            }),
          ),
        ),
      ),
    )

const RequestParams = pathParameters('operatorRequestId')
const RejectCommand = commandOf(['operatorRequestId'], RejectRequestInput)
const ApproveCommand = commandOf(['operatorRequestId'], ApproveRequestInput)

/** The request named by the command, whichever loan's. */
const findRequest = (deps: Pick<OperatorRequestDeps, 'loans'>, command: unknown): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, OperatorRequest> =>
  pipe(
    TE.fromEither(decode(RequestParams)(command)),
    TE.chainW(({ operatorRequestId }) => deps.loans.findRequest(operatorRequestId)),
    TE.chainW(TE.fromOption(() => notFound('operator_request'))),
  )

/** What approving the pending request would do now (nothing is written): what a checker reads before deciding. */
export const previewOperatorRequest =
  (deps: OperatorRequestDeps) =>
  (command: unknown): TE.TaskEither<OperatorRequestError, ActionPreview> =>
    pipe(
      findRequest(deps, command),
      TE.chainEitherKW((r) => pending(r, 'preview')),
      TE.chainW((r) => dryRunOf(deps, subjectOfRequest(r), { context: OPERATOR_CONTEXT, reason: r.reason, ids: deps.ids })),
    )

/** An approved request and what its action made. */
export type ApprovedRequest = { readonly request: OperatorRequest; readonly outcome: ActionOutcome }

/**
 * Another operator holding `service_loans` approves a pending request with the `preview_version`
 * of the preview they read: under the loan's lock, in one transaction, the action is carried out
 * as `reverseLoanPayment` or `chargeOffLoan` would (its audit event names the checker as actor,
 * and the request and its maker) and the request becomes `APPROVED`. The maker is refused
 * (`SameOperator`); a loan that moved since the preview is refused (`PreviewOutdated`: what they
 * saw is not what would happen); an action no longer possible is refused as the action would be.
 * Refused, the request stays pending.
 */
export const approveOperatorRequest =
  (deps: OperatorRequestDeps) =>
  (command: unknown, by: ActingOperator | null): TE.TaskEither<OperatorRequestError, ApprovedRequest> =>
    pipe(
      TE.fromEither(decode(ApproveCommand)(command)),
      TE.bindTo('approval'),
      TE.bindW('checker', () => TE.fromEither(mayAskOrDecide(by))),
      TE.bindW('found', () => findRequest(deps, command)),
      TE.bindW('at', ({ found }) => loanAt(deps, found.loanId)),
      TE.chainW(({ approval, checker, found, at }) =>
        deps.loans.change({ loanId: found.loanId }, (loan, reads) =>
          pipe(
            lockedRequest(reads, found),
            TE.chainEitherKW((r) => pending(r, 'approve')),
            TE.chainEitherKW((r): E.Either<SameOperator, OperatorRequest> => (r.requestedBy === checker.operator.id ? E.left(sameOperator) : E.right(r))),
            TE.chainW((r) => {
              const now = deps.clock.now()
              const approved: OperatorRequest = { ...r, state: 'APPROVED', decidedBy: checker.operator.id, decidedAt: now }
              return pipe(
                planned(subjectOfRequest(r), loan, reads, { context: contextOf(checker), reason: r.reason, ids: deps.ids, now: at.now, checked: r }),
                TE.chainW((change): TE.TaskEither<PreviewOutdated, Change<ActionOutcome>> => {
                  // `planned` succeeded, so the loan is there.
                  const current = O.isSome(loan) ? versionOf(loan.value, change) : ''
                  return current === approval.preview_version ? TE.right(change) : TE.left(previewOutdated(current))
                }),
                TE.map((change) => ({ posting: { ...change.posting, request: approved }, result: { request: approved, outcome: change.result } })),
              )
            }),
          ),
        ),
      ),
    )

/**
 * A pending request is rejected with a `reason` by an operator holding `service_loans`, its maker
 * (withdrawing it) or another: nothing is done, and `operator_request.rejected` is audited.
 */
export const rejectOperatorRequest =
  (deps: OperatorRequestDeps) =>
  (command: unknown, operator: ActingOperator | null): TE.TaskEither<OperatorRequestError, OperatorRequest> =>
    pipe(
      TE.fromEither(decode(RejectCommand)(command)),
      TE.bindTo('rejection'),
      TE.bindW('by', () => TE.fromEither(mayAskOrDecide(operator))),
      TE.bindW('found', () => findRequest(deps, command)),
      TE.chainW(({ rejection, by, found }) =>
        deps.loans.change({ loanId: found.loanId }, (loan, reads) =>
          pipe(
            lockedRequest(reads, found),
            TE.chainEitherKW((r) => pending(r, 'reject')),
            TE.chainW((r): TE.TaskEither<NotFound, Change<OperatorRequest>> => {
              const locked = O.toUndefined(loan)
              if (locked === undefined) return TE.left(notFound('loan'))
              const now = deps.clock.now()
              const rejected: OperatorRequest = { ...r, state: 'REJECTED', decidedBy: by.operator.id, decidedAt: now, rejectionReason: rejection.reason }
              const audit = operatorRequestRejectedEvent(deps.ids.next(), contextOf(by), rejected, locked.loan, now)
              return TE.right({ posting: { ...nothing(locked), request: rejected, audit }, result: rejected })
            }),
          ),
        ),
      ),
    )

/** The request `operatorRequestId`, whichever loan's. */
export const getOperatorRequest =
  (deps: Pick<OperatorRequestDeps, 'loans'>) =>
  (command: unknown): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, OperatorRequest> =>
    findRequest(deps, command)

/** The filter of `listOperatorRequests`: optionally one `state` (`PENDING` for the checkers' inbox). */
export const OperatorRequestFilters = queryFilters('OperatorRequestFilter', { state: oneOf('OperatorRequestState', OPERATOR_REQUEST_STATES) })

/** Every loan's requests, oldest first, a page at a time, optionally of one `state`. */
export const listOperatorRequests =
  (deps: Pick<OperatorRequestDeps, 'loans'>) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<OperatorRequest>> =>
    pipe(
      TE.fromEither(decodeFilteredPageRequest(OperatorRequestFilters, command)),
      TE.chainW(({ filter, page }) => pipe(deps.loans.listRequests(filter.state === undefined ? {} : { state: filter.state }, page), TE.map((rows) => pageOf(rows, page.limit)))),
    )
