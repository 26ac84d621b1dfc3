import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { AuditContext } from '../../domain/audit/audit-event.js'
import type { BankingCalendar } from '../../domain/ach/banking-days.js'
import { blocksMethod, EXTENDED_RETURN_DAYS, hasExtendedWindow, returnCategoryOf } from '../../domain/ach/return-codes.js'
import type { InboundFileId, PaymentId } from '../../domain/foundations/ids.js'
import type { NotFound, StoreUnavailable } from '../../domain/foundations/errors.js'
import { addDays } from '../../lending/index.js'
import type { AchInbound, AchReturnRecord, InboundReturn, ReturnOutcome } from '../../ports/ach-inbound.js'
import type { AchEntry, AchOriginations } from '../../ports/ach-originations.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanRepository } from '../../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import { changeOfPayment, loadFromBooking } from '../servicing/posting.js'
import { planReturn, type AppliedReturn, type ReturnOrder } from '../servicing/reverse-payment.js'
import { RETURN_WINDOW_BANKING_DAYS } from './settlement.js'

/** Returns (docs/ach.md "Returns and notices of change"): matched to our entries by trace number and applied once. */

/** What applying returns needs. */
export type ReturnDeps = {
  readonly loans: Pick<LoanRepository, 'change' | 'payments'>
  readonly originations: Pick<AchOriginations, 'entryByTrace' | 'markReturned'>
  readonly inbound: Pick<AchInbound, 'recordReturn'>
  readonly paymentMethods: Pick<PaymentMethodRepository, 'block'>
  readonly calendar: BankingCalendar
  readonly ids: IdGenerator
  readonly clock: Clock
}

/**
 * Whether a return with `code` received on `receivedOn` is late for a debit effective on
 * `effectiveOn`: after the second banking day after it, or for the extended (unauthorized
 * consumer) codes after the banking day that follows its 60th calendar day.
 */
export const isLateReturn = (calendar: BankingCalendar, code: string, effectiveOn: string, receivedOn: string): boolean =>
  receivedOn > (hasExtendedWindow(code) ? calendar.nextBankingDay(addDays(effectiveOn, EXTENDED_RETURN_DAYS)) : calendar.addBankingDays(effectiveOn, RETURN_WINDOW_BANKING_DAYS))

/** What a file's ingestion acts with: the file, who ingests it, the day (New York) and the instant. */
export type Ingestion = { readonly fileId: InboundFileId; readonly context: AuditContext; readonly receivedOn: string; readonly now: Date }

/** Whether `recorded` is the record of `item`: the same record of the same file (written by this run, or by an earlier run of the file). */
export const sameItem = (recorded: { readonly inboundFileId: InboundFileId; readonly record: number }, item: { readonly inboundFileId: InboundFileId; readonly record: number }): boolean =>
  recorded.inboundFileId === item.inboundFileId && recorded.record === item.record

/**
 * The entry a return matched (none: unmatched), what applying it did, and the code the return
 * that undid its payment carries: this one, or an earlier one's (`already_returned`); null when
 * its payment was not returned (never sent, or reversed by an operator).
 */
type Matched = { readonly entry: O.Option<AchEntry>; readonly outcome: ReturnOutcome | 'already_returned'; readonly appliedCode: string | null }

/**
 * The return of entry `entry`'s payment, applied under its loan's lock (`planReturn`); an entry
 * never sent is not applied. With the code the payment is returned with: this one, or the one an
 * earlier return applied (`already_returned`).
 */
const applyToEntry = (deps: ReturnDeps, entry: AchEntry, code: string, ingestion: Ingestion): TE.TaskEither<NotFound | StoreUnavailable, Matched> => {
  if (entry.status === 'claimed' || entry.status === 'dropped') return TE.right({ entry: O.some(entry), outcome: 'not_sent', appliedCode: null })
  return pipe(
    returnBankDebit({ ...deps, clock: { now: () => ingestion.now } })(entry.paymentId, { returnCode: code, inboundFileId: ingestion.fileId, context: ingestion.context }),
    TE.map((applied): Matched => ({ entry: O.some(entry), outcome: applied.outcome, appliedCode: applied.payment.returnCode ?? null })),
  )
}

/**
 * Returns bank debit `paymentId` as its bank did, with `returnCode`, from inbound file
 * `inboundFileId` (`planReturn`), in one transaction under its loan's lock: replayed from booking
 * without it, its fee charged. What applying it did is answered; a payment returned before is left.
 */
export const returnBankDebit =
  (deps: Pick<ReturnDeps, 'loans' | 'ids' | 'clock'>) =>
  (paymentId: PaymentId, order: Pick<ReturnOrder, 'returnCode' | 'inboundFileId' | 'context'>): TE.TaskEither<NotFound | StoreUnavailable, AppliedReturn> =>
    changeOfPayment(deps.loans, paymentId, (found, current, reads) =>
      pipe(
        found,
        // A return undoes a payment as a reversal does: replayed from booking (a loan written off is not replayed).
        O.traverse(TE.ApplicativeSeq)((locked) => (locked.loan.status === 'CHARGED_OFF' ? TE.right({ ...locked, payments: null, returned: null }) : loadFromBooking(locked, reads))),
        TE.chainEitherKW((loaded) => planReturn(loaded, current, { ...order, ids: deps.ids, now: deps.clock.now() })),
      ),
    )

/**
 * What follows a bank debit's return outside its loan's transaction: its entry `returned` when its
 * payment was returned (`returnedWith`, its code), and its method blocked when `blockedBy` forbids
 * another debit (`blocksMethod`). Both can be repeated. Without `originations` (a world with no
 * ACH rails has no entries), only the method is blocked.
 */
export const afterBankReturn = (
  deps: { readonly originations: Pick<AchOriginations, 'markReturned'> | undefined; readonly paymentMethods: Pick<PaymentMethodRepository, 'block'> },
  debit: Pick<AchEntry, 'paymentId' | 'paymentMethodId'>,
  codes: { readonly returnedWith: string | null; readonly blockedBy: string | null },
  at: Date,
): TE.TaskEither<StoreUnavailable, void> =>
  pipe(
    codes.returnedWith === null || deps.originations === undefined ? TE.right(undefined) : deps.originations.markReturned(debit.paymentId),
    TE.chain(() => (codes.blockedBy !== null && blocksMethod(codes.blockedBy) ? deps.paymentMethods.block(debit.paymentMethodId, at) : TE.right(undefined))),
  )

/**
 * Applies the return `item` and records it. Matched by its original trace number to one of our
 * entries, its payment is returned (`planReturn`: once, whatever runs, by the payment's status
 * under its loan's lock); then the return is recorded, once per trace number. This return recorded
 * before (a run of its file stopped, or ran at the same time) is answered as recorded; another
 * return of the entry recorded first (of another file, or another record of this one) makes it a
 * `duplicate` that changes nothing more. For this one, the entry is
 * then `returned` and the method blocked when the code that undid the payment (or, on a payment an
 * operator had reversed, this one) forbids another debit (`blocksMethod`): both repeatable.
 * Unmatched, a return is recorded all the same.
 */
export const ingestReturn =
  (deps: ReturnDeps, ingestion: Ingestion) =>
  (item: InboundReturn): TE.TaskEither<NotFound | StoreUnavailable, AchReturnRecord> =>
    pipe(
      deps.originations.entryByTrace(item.originalTrace),
      TE.chainW(
        O.match(
          (): TE.TaskEither<NotFound | StoreUnavailable, Matched> => TE.right({ entry: O.none, outcome: 'unmatched', appliedCode: null }),
          (entry) => applyToEntry(deps, entry, item.returnCode, ingestion),
        ),
      ),
      TE.chainW(({ entry, outcome, appliedCode }) => {
        const matched = O.toNullable(entry)
        const record: AchReturnRecord = {
          id: deps.ids.next(),
          inboundFileId: ingestion.fileId,
          record: item.record,
          originalTrace: item.originalTrace,
          returnCode: item.returnCode,
          category: returnCategoryOf(item.returnCode),
          amount: item.amount,
          paymentId: matched?.paymentId ?? null,
          clientId: matched?.clientId ?? null,
          receivedOn: ingestion.receivedOn,
          // Returned before this record was written: by a run of this file that stopped.
          outcome: outcome === 'already_returned' ? 'applied' : outcome,
          late: matched?.submittedOn == null ? false : isLateReturn(deps.calendar, item.returnCode, matched.submittedOn, ingestion.receivedOn),
        }
        return pipe(
          deps.inbound.recordReturn(record),
          TE.chain((recorded) => {
            // Another return of the entry (another file's, or another record of this one) came first.
            if (!sameItem(recorded, record)) return TE.right<StoreUnavailable, AchReturnRecord>({ ...record, outcome: 'duplicate' })
            if (matched === null) return TE.right(recorded)
            const blockedBy = appliedCode ?? (outcome === 'already_reversed' ? item.returnCode : null)
            return pipe(
              afterBankReturn(deps, matched, { returnedWith: appliedCode, blockedBy }, ingestion.now),
              TE.map(() => recorded),
            )
          }),
        )
      }),
    )

