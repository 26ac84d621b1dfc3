import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type * as t from 'io-ts'
import { pipe } from 'fp-ts/lib/function.js'
import type { AuditContext } from '../../domain/audit/audit-event.js'
import { decode, oneOf, strictObject } from '../../domain/foundations/codecs.js'
import { notFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import type { Payment } from '../../domain/loans/payment.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { ApproveApplicationInput, approveLoanApplication, DeclineApplicationInput, declineLoanApplication, type DecisionDeps } from '../applications/decisioning.js'
import { getLoanApplication } from '../applications/applications.js'
import { loadOwnSession } from '../onboarding/load-own-session.js'
import { ApproveSessionInput, approveOnboardingSession, RejectSessionInput, rejectOnboardingSession, type ReviewDeps } from '../onboarding/review.js'
import { loadOwnLoan } from '../servicing/loan-reads.js'
import { reverseLoanPayment, type ReversalDeps } from '../servicing/reverse-payment.js'
import { afterBankReturn, returnBankDebit } from '../ach/returns.js'
import type { AchOriginations } from '../../ports/ach-originations.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import type { LoanApplicationRepository } from '../../ports/loan-application-repository.js'
import type { LoanRepository } from '../../ports/loan-repository.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'

/**
 * The test helpers (decision 130): what an operator or the bank would do, asked for by the partner
 * in the test world, on its own records only (another client's session, another party's
 * application or payment is not found). Each runs the operator's use case itself, so a
 * simulated decision is the real one, audited as the calling key's. The HTTP edge takes them
 * from test keys only.
 */

/** `command` decoded as the operator's `input` decodes it, before anything is looked up: a bad body is 400 whoever's record it names. */
const checked = <A>(id: 'sessionId' | 'applicationId', input: t.Decoder<unknown, A>, command: unknown) => TE.fromEither(decode(commandOf([id], input))(command))

/** Approves the caller's own submitted session, as a reviewer would. */
export const simulateOnboardingApproval =
  (deps: ReviewDeps & { readonly sessions: Pick<OnboardingSessionRepository, 'findForClient'> }) => (caller: Caller, command: unknown, context: AuditContext) =>
    pipe(
      checked('sessionId', ApproveSessionInput, command),
      TE.chainW(() => loadOwnSession(deps.sessions)(caller, command)),
      TE.chainW(() => approveOnboardingSession(deps)(command, context)),
    )

/** Rejects the caller's own submitted session (`reason` optional), as a reviewer would. */
export const simulateOnboardingRejection =
  (deps: ReviewDeps & { readonly sessions: Pick<OnboardingSessionRepository, 'findForClient'> }) => (caller: Caller, command: unknown, context: AuditContext) =>
    pipe(
      checked('sessionId', RejectSessionInput, command),
      TE.chainW(() => loadOwnSession(deps.sessions)(caller, command)),
      TE.chainW(() => rejectOnboardingSession(deps)(command, context)),
    )

/** Approves the caller's party's submitted application, booking its loan, as a credit officer would. */
export const simulateApplicationApproval =
  (deps: DecisionDeps & { readonly applications: Pick<LoanApplicationRepository, 'findForParty'> }) => (caller: Caller, command: unknown, context: AuditContext) =>
    pipe(
      checked('applicationId', ApproveApplicationInput, command),
      TE.chainW(() => getLoanApplication(deps)(caller, command)),
      TE.chainW(() => approveLoanApplication(deps)(command, context)),
    )

/** Declines the caller's party's submitted application (`reason` optional), as a credit officer would. */
export const simulateApplicationDecline =
  (deps: DecisionDeps & { readonly applications: Pick<LoanApplicationRepository, 'findForParty'> }) => (caller: Caller, command: unknown, context: AuditContext) =>
    pipe(
      checked('applicationId', DeclineApplicationInput, command),
      TE.chainW(() => getLoanApplication(deps)(caller, command)),
      TE.chainW(() => declineLoanApplication(deps)(command, context)),
    )

/** The ACH returns a test-mode payment can be given (NACHA return codes), and what each means. */
export const RETURN_CODES = {
  R01: 'insufficient funds',
  R02: 'account closed',
  R03: 'no account or unable to locate account',
  R04: 'invalid account number',
  R10: 'customer advises not authorized',
  R29: 'corporate customer advises not authorized',
} as const

/** A NACHA return code of `RETURN_CODES`. */
export type ReturnCode = keyof typeof RETURN_CODES

/** The body of a test-mode payment return: the NACHA `return_code` the bank gives it (default R01). */
export const ReturnPaymentInput = strictObject('ReturnPaymentInput', {}, { return_code: oneOf('ReturnCode', Object.keys(RETURN_CODES) as [ReturnCode, ...ReturnCode[]]) })

const ReturnPaymentCommand = commandOf(['partyId', 'loanId', 'paymentId'], ReturnPaymentInput)

/** What a test-mode return acts with: the reversal's, and for a bank debit sent on the ACH rails, the world's entries and payment methods. */
export type SimulatedReturnDeps = ReversalDeps & {
  readonly loans: Pick<LoanRepository, 'findForParty'>
  readonly paymentMethods: Pick<PaymentMethodRepository, 'block'>
  /** The world's ACH entries: a returned debit's entry is marked `returned`. Undefined where the world has no rails (no debit was ever sent). */
  readonly achEntries: Pick<AchOriginations, 'markReturned'> | undefined
}

/** What follows the return of `returned` outside its loan's transaction, as the ingestion of a return file does it (`afterBankReturn`). */
const afterReturn = (deps: SimulatedReturnDeps, returned: Payment): TE.TaskEither<StoreUnavailable, void> => {
  const code = returned.returnCode ?? null
  return afterBankReturn({ originations: deps.achEntries, paymentMethods: deps.paymentMethods }, { paymentId: returned.id, paymentMethodId: returned.paymentMethodId }, { returnedWith: code, blockedBy: code }, deps.clock.now())
}

/**
 * Returns a payment of the caller's party's loan as the borrower's bank would, with `return_code`
 * (default R01). A bank debit sent on the ACH rails (`SUBMITTED` or `SETTLED`) is returned as a
 * return file would return it (`returnBankDebit`: `RETURNED` with the code, `payment.returned`,
 * the returned-payment fee; then its entry `returned`, and its method blocked when the code
 * forbids another debit). Any other payment is reversed (`reverseLoanPayment`), its reason the
 * code and its meaning; a `RETURNED` one is refused so, after what followed its return is done
 * again (a request that failed half-way is finished by its retry).
 */
export const simulatePaymentReturn =
  (deps: SimulatedReturnDeps) => (caller: Caller, command: unknown, context: AuditContext) =>
    pipe(
      TE.fromEither(decode(ReturnPaymentCommand)(command)),
      TE.chainFirstW(() => loadOwnLoan(deps.loans)(caller, command)),
      TE.bindTo('cmd'),
      TE.bindW('payment', ({ cmd }) => deps.loans.payments.paymentById(cmd.paymentId)),
      TE.chainW(({ cmd, payment }) => {
        if (O.isNone(payment) || payment.value.loanId !== cmd.loanId) return TE.left(notFound('payment'))
        const code = cmd.return_code ?? 'R01'
        const current = payment.value
        const reverse = () => reverseLoanPayment(deps)({ paymentId: cmd.paymentId, reason: `${code} ${RETURN_CODES[code]} (test-mode return)` }, context)
        if (current.status === 'RETURNED') return pipe(afterReturn(deps, current), TE.chainW(reverse))
        if (current.status !== 'SUBMITTED' && current.status !== 'SETTLED') return reverse()
        return pipe(
          returnBankDebit(deps)(current.id, { returnCode: code, inboundFileId: null, context }),
          TE.chainFirstW((applied) => afterReturn(deps, applied.payment)),
          TE.map((applied) => applied.payment),
        )
      }),
    )
