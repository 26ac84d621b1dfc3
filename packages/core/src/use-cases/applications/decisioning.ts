import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { applicationApprovedEvent, applicationDeclinedEvent, OPERATOR_CONTEXT, type AuditContext } from '../../domain/audit/audit-event.js'
import { boundedString, decode, strictObject } from '../../domain/foundations/codecs.js'
import { notFound, type ConcurrentUpdate, type InvalidRequest, type InvalidState, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { applicationTransition, type LoanApplication } from '../../domain/loans/loan-application.js'
import { bookLoan, type BookedLoan, type Loan } from '../../domain/loans/loan.js'
import type { LoanProduct } from '../../domain/loans/loan-product.js'
import type { AuditEvent } from '../../domain/audit/audit-event.js'
import type { EventDraft } from '../../domain/events/event.js'
import { applicationEvent, loanEvent } from '../../views/events.js'
import * as E from 'fp-ts/lib/Either.js'
import { decodeFilteredPageRequest, pageOf, type Page } from '../../domain/foundations/pagination.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanApplicationRepository } from '../../ports/loan-application-repository.js'
import type { LoanProductRepository } from '../../ports/loan-product-repository.js'
import { DEFAULT_SERVICING_TERMS } from '../../domain/loans/servicing-terms.js'
import * as O from 'fp-ts/lib/Option.js'
import { DEFAULT_REVIEWER } from '../onboarding/review.js'
import { ApplicationStatusFilter } from './applications.js'
import type { ApplicationId } from '../../domain/foundations/ids.js'

/** Internal credit decisions on submitted applications (CONTRACT.md, pinned routes). */

/** The fields of an approval: optional `decided_by` (`internal` when left out). */
export const ApproveApplicationInput = strictObject('ApproveApplicationInput', {}, { decided_by: boundedString('DecidedBy', 1, 100) })
/** The fields of a decline. */
export const DeclineApplicationInput = strictObject('DeclineApplicationInput', { reason: boundedString('Reason', 1, 500) }, { decided_by: boundedString('DecidedBy', 1, 100) })

const ApproveCommand = commandOf(['applicationId'], ApproveApplicationInput)
const DeclineCommand = commandOf(['applicationId'], DeclineApplicationInput)

/** What the decision use cases need. */
export type DecisionDeps = {
  readonly applications: Pick<LoanApplicationRepository, 'findById' | 'save' | 'saveApproved'>
  /** The application's product, whose servicing rules the loan keeps. */
  readonly products: Pick<LoanProductRepository, 'findById'>
  readonly ids: IdGenerator
  readonly clock: Clock
}
/** Why a decision fails; deciding twice is `InvalidState`. */
export type DecisionError = InvalidRequest | NotFound | StoreUnavailable | InvalidState | ConcurrentUpdate

const loadAny = (deps: Pick<DecisionDeps, 'applications'>, applicationId: ApplicationId) =>
  pipe(deps.applications.findById(applicationId), TE.chainW(TE.fromOption(() => notFound('loan_application'))))

type ApprovalOrder = { readonly decidedBy: string | undefined; readonly context: AuditContext; readonly ids: IdGenerator; readonly now: Date }

type Approval = { readonly approved: LoanApplication; readonly booked: BookedLoan; readonly audit: AuditEvent; readonly events: readonly EventDraft[] }

/** Approves a `SUBMITTED` application, booking its loan on its product's current terms (the defaults when it is gone). */
export const planApproval = (a: LoanApplication, product: O.Option<LoanProduct>, order: ApprovalOrder): E.Either<InvalidState, Approval> =>
  pipe(
    applicationTransition(a.status, 'approve'),
    E.map((status) => {
      const { now, ids } = order
      const booked = bookLoan(a, ids, now, O.isSome(product) ? product.value.servicing : DEFAULT_SERVICING_TERMS)
      const approved: LoanApplication = {
        ...a,
        status,
        loanId: booked.loan.id,
        decision: { decision: 'APPROVED', reason: null, decidedBy: order.decidedBy ?? DEFAULT_REVIEWER, decidedAt: now },
        updatedAt: now,
      }
      const events = [
        applicationEvent(ids.next(), 'application.decided', approved, a, now),
        loanEvent(ids.next(), 'loan.booked', booked.loan, booked.loan.startDate, now),
      ]
      return { approved, booked, audit: applicationApprovedEvent(ids.next(), order.context, approved, booked.loan, now), events }
    }),
  )

/** Approves any party's submitted application and books its loan, with its audit event, in one transaction. */
export const approveLoanApplication =
  (deps: DecisionDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<DecisionError, { readonly application: LoanApplication; readonly loan: Loan }> =>
    pipe(
      TE.fromEither(decode(ApproveCommand)(command)),
      TE.bindTo('cmd'),
      TE.bindW('application', ({ cmd }) => loadAny(deps, cmd.applicationId)),
      TE.bindW('product', ({ application }) => deps.products.findById(application.productId)),
      TE.chainEitherKW(({ cmd, application, product }) => planApproval(application, product, { decidedBy: cmd.decided_by, context, ids: deps.ids, now: deps.clock.now() })),
      TE.chainW(({ approved, booked, audit, events }) =>
        pipe(
          deps.applications.saveApproved(approved, booked, audit, events),
          TE.map((application) => ({ application, loan: booked.loan })),
        ),
      ),
    )

/** Declines a submitted application; the `loan_application.declined` audit event carries the reason. */
export const declineLoanApplication =
  (deps: DecisionDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<DecisionError, LoanApplication> =>
    pipe(
      TE.fromEither(decode(DeclineCommand)(command)),
      TE.chainW((cmd) =>
        pipe(
          loadAny(deps, cmd.applicationId),
          TE.chainW((a) =>
            pipe(
              TE.fromEither(applicationTransition(a.status, 'decline')),
              TE.chainW((status) => {
                const now = deps.clock.now()
                const declined: LoanApplication = {
                  ...a,
                  status,
                  decision: { decision: 'DECLINED', reason: cmd.reason, decidedBy: cmd.decided_by ?? DEFAULT_REVIEWER, decidedAt: now },
                  updatedAt: now,
                }
                return deps.applications.save(declined, applicationDeclinedEvent(deps.ids.next(), context, declined, now), [
                  applicationEvent(deps.ids.next(), 'application.decided', declined, a, now),
                ])
              }),
            ),
          ),
        ),
      ),
    )

/** Every party's applications, oldest first, a page at a time: the credit team's work list. */
export const listLoanApplicationsForReview =
  (deps: { readonly applications: Pick<LoanApplicationRepository, 'list'> }) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<LoanApplication>> =>
    pipe(
      TE.fromEither(decodeFilteredPageRequest(ApplicationStatusFilter, command)),
      TE.chainW(({ filter, page }) =>
        pipe(
          deps.applications.list({ of: 'book', ...(filter.status === undefined ? {} : { status: filter.status }) }, page),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )
