import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { loanChargedOffEvent, OPERATOR_CONTEXT, type AuditContext, type CheckedRequest } from '../../domain/audit/audit-event.js'
import { actsAlone, checkerRequired, type CheckerRequired } from '../../domain/operators/operator-request.js'
import { boundedString, decode, strictObject } from '../../domain/foundations/codecs.js'
import { invalidState, notFound, type InvalidRequest, type InvalidState, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import type { Loan } from '../../domain/loans/loan.js'
import { chargeOffEntries } from '../../lending/index.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { Change, LoanRepository, LockedLoan, PaymentReads } from '../../ports/loan-repository.js'
import { loanEvent } from '../../views/events.js'
import { loadFor, post, postingDate, type LoadedLoan } from './posting.js'

/** The fields of a charge-off: optionally a `reason` (1 to 500 characters), kept in the audit event. */
export const ChargeOffInput = strictObject('ChargeOffInput', {}, { reason: boundedString('Reason', 1, 500) })
const ChargeOffCommand = commandOf(['loanId'], ChargeOffInput)

/** What a charge-off needs. */
export type ChargeOffDeps = { readonly loans: Pick<LoanRepository, 'change'>; readonly ids: IdGenerator; readonly clock: Clock }

/** Who charges off and why, and when. */
export type ChargeOffOrder = {
  readonly context: AuditContext
  readonly reason: string | null
  readonly ids: IdGenerator
  readonly now: Date
  /** The maker-checker request a checker approved, when it is one (decision 152). */
  readonly checked?: CheckedRequest
}

/** Posts what is owed to today, then a `CHARGE_OFF` entry, a zero snapshot, the loan `CHARGED_OFF` and its audit event. */
export const planChargeOff = (locked: O.Option<LoadedLoan>, order: ChargeOffOrder): E.Either<NotFound | InvalidState, Change<Loan>> => {
  if (O.isNone(locked)) return E.left(notFound('loan'))
  const loaded = locked.value
  if (loaded.loan.status !== 'ACTIVE') return E.left(invalidState('loan', loaded.loan.status, 'charge off'))
  const { now } = order
  const ids = (): string => order.ids.next()
  const date = postingDate(loaded.loan, now, loaded.latest)
  const { posting, change } = post(loaded, { type: 'TIME' }, date, { ids, now })
  const { transaction, balance } = chargeOffEntries(loaded.loan.id, change.derived.outstanding, date, ids, now)
  const loan: Loan = {
    ...loaded.loan,
    status: 'CHARGED_OFF',
    chargedOffOn: date,
    checkpoint: change.checkpoint,
    ...(posting.oldestUnpaidDueDate === undefined ? {} : { oldestUnpaidDueDate: posting.oldestUnpaidDueDate }),
  }
  const audit = loanChargedOffEvent(ids(), order.context, loan, change.derived.outstanding, transaction.id, order.reason, now, order.checked ?? null)
  return E.right({
    posting: {
      ...posting,
      transactions: [...posting.transactions, transaction],
      balance,
      loanStatus: 'CHARGED_OFF',
      chargedOffOn: date,
      audit,
      events: [...posting.events, loanEvent(ids(), 'loan.charged_off', loan, date, now, { status: loaded.loan.status })],
    },
    result: loan,
  })
}

/** A charge-off decided under the loan's lock: what is owed posted to the day, then `planChargeOff`. */
export const decideChargeOff = (found: O.Option<LockedLoan>, reads: PaymentReads, order: ChargeOffOrder): TE.TaskEither<NotFound | InvalidState | StoreUnavailable, Change<Loan>> =>
  pipe(
    found,
    O.traverse(TE.ApplicativeSeq)((locked) => loadFor(locked, reads, { type: 'TIME' }, postingDate(locked.loan, order.now, locked.latest))),
    TE.chainEitherKW((loaded) => planChargeOff(loaded, order)),
  )

/**
 * Charges off an active loan under its lock: docs/servicing.md "Delinquency". A named operator may
 * not act alone (`CheckerRequired`): they ask with `askOperatorRequest`, and another approves.
 */
export const chargeOffLoan =
  (deps: ChargeOffDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | NotFound | InvalidState | CheckerRequired | StoreUnavailable, Loan> =>
    pipe(
      actsAlone(context) ? TE.right(command) : TE.left(checkerRequired('loan_charge_off')),
      TE.chainEitherKW(decode(ChargeOffCommand)),
      TE.chainW(({ loanId, reason }) =>
        deps.loans.change({ loanId }, (found, reads) => decideChargeOff(found, reads, { context, reason: reason ?? null, ids: deps.ids, now: deps.clock.now() })),
      ),
    )
