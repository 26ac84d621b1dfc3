import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { paymentMethodCorrectedEvent, type CorrectedAccount } from '../../domain/audit/audit-event.js'
import { storeUnavailable, type StoreUnavailable } from '../../domain/foundations/errors.js'
import type { PaymentMethod } from '../../domain/loans/payment-method.js'
import type { AccountSeal, BankAccountNumbers } from '../../ports/account-seal.js'
import type { AccountCorrection, AchInbound, AchNoticeRecord, InboundNotice, NoticeOutcome } from '../../ports/ach-inbound.js'
import type { AchEntry, AchOriginations } from '../../ports/ach-originations.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanRepository } from '../../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import { sameItem, type Ingestion } from './returns.js'

/**
 * Notices of change (docs/ach.md "Returns and notices of change"): the borrower's bank says the
 * account a debit of ours named has other numbers or another type; the payment method is corrected
 * (its sealed numbers, `last4`, `account_type`), with an audit event, once per notice.
 */

/** What applying notices of change needs: the seal that opens and seals account numbers among them. */
export type NoticeDeps = {
  readonly loans: Pick<LoanRepository, 'findById' | 'payments'>
  readonly originations: Pick<AchOriginations, 'entryByTrace'>
  readonly inbound: Pick<AchInbound, 'recordNotice'>
  readonly paymentMethods: Pick<PaymentMethodRepository, 'findForLoan' | 'sealedAccount' | 'correct'>
  readonly accountSeal: AccountSeal
  readonly ids: IdGenerator
}

/** Whether two kept account numbers (or none) are the same. */
const sameNumbers = O.getEq({ equals: (a: BankAccountNumbers, b: BankAccountNumbers) => a.routingNumber === b.routingNumber && a.accountNumber === b.accountNumber })

/** The method a notice's entry debited, its account's numbers as kept (none when none were), sealed and opened. */
type Account = { readonly method: PaymentMethod; readonly sealed: O.Option<string>; readonly numbers: O.Option<BankAccountNumbers> }

/** A correction as it would leave the account: its numbers (none: unchanged and unknown) and type. */
type Corrected = { readonly numbers: O.Option<BankAccountNumbers>; readonly accountType: 'checking' | 'savings' | null }

/**
 * What `correction` makes of `account`, or why it cannot be applied: a corrected account number
 * must be one a partner could add, and a number corrected alone needs the other one kept (an
 * account added before numbers were sealed has none).
 */
const correctedAccount = (account: Account, correction: AccountCorrection): E.Either<string, Corrected> => {
  // What a partner may add (docs/servicing.md "Payment methods"): the bank's data may hold letters or be short.
  if (correction.accountNumber !== undefined && !/^\d{4,17}$/.test(correction.accountNumber)) return E.left('the corrected account number is not 4 to 17 digits, as a bank account added here must be')
  const accountType = correction.accountType ?? account.method.accountType
  if (correction.routingNumber === undefined && correction.accountNumber === undefined) return E.right({ numbers: account.numbers, accountType })
  const routingNumber = correction.routingNumber ?? O.toUndefined(account.numbers)?.routingNumber
  const accountNumber = correction.accountNumber ?? O.toUndefined(account.numbers)?.accountNumber
  return routingNumber === undefined || accountNumber === undefined
    ? E.left("the account's numbers are not kept (it was added before they were sealed): add it again")
    : E.right({ numbers: O.some({ routingNumber, accountNumber }), accountType })
}

/** Whether `corrected` is what `account` already is: a notice applied before (by a run that stopped) is not applied twice. */
const unchanged = (account: Account, corrected: Corrected): boolean =>
  corrected.accountType === account.method.accountType && sameNumbers.equals(account.numbers, corrected.numbers)

/** What an audit event says of an account: its last four digits, routing number and type. */
const described = (method: PaymentMethod, numbers: O.Option<BankAccountNumbers>, accountType: 'checking' | 'savings' | null): CorrectedAccount => ({
  last4: O.isSome(numbers) ? numbers.value.accountNumber.slice(-4) : method.last4,
  routingNumber: O.toNullable(O.map((n: BankAccountNumbers) => n.routingNumber)(numbers)),
  accountType,
})

/**
 * Numbers kept that do not open: sealed under another key than this one (a CLI given another key
 * than the server's), or altered. The ingestion stops before it decides anything on them: deciding
 * they were never kept would refuse the notice for good, and sealing a correction over them would
 * leave numbers the server cannot open.
 */
const unopened = (methodId: string): StoreUnavailable =>
  storeUnavailable(new Error(`the account numbers of payment method ${methodId} do not open with this sealing key: it is not the one the server seals with (WEBHOOK_SECRET_KEY)`))

/** The method entry `entry` debited, with its numbers opened; none when the method is gone. */
const accountOf = (deps: NoticeDeps, entry: AchEntry): TE.TaskEither<StoreUnavailable, O.Option<Account>> =>
  pipe(
    deps.loans.payments.paymentById(entry.paymentId),
    TE.chain(
      O.match(
        () => TE.right(O.none),
        (payment) => deps.paymentMethods.findForLoan(payment.loanId, entry.paymentMethodId),
      ),
    ),
    TE.chain(
      O.match(
        () => TE.right(O.none),
        (method) =>
          pipe(
            deps.paymentMethods.sealedAccount(method.id),
            TE.chainEitherK((sealed) => {
              const numbers = O.chain((s: string) => deps.accountSeal.open(method.id, s))(sealed)
              return O.isSome(sealed) && O.isNone(numbers) ? E.left(unopened(method.id)) : E.right(O.some({ method, sealed, numbers }))
            }),
          ),
      ),
    ),
  )

/** What a notice comes to before it is recorded: its outcome and why, and the method it names. */
type Decided = { readonly outcome: Exclude<NoticeOutcome, 'duplicate'>; readonly detail: string | null; readonly account: O.Option<Account> }

/** Decides `item`: unmatched, unsupported (with why), the method blocked, or applied. */
const decide = (deps: NoticeDeps, item: InboundNotice, entry: O.Option<AchEntry>): TE.TaskEither<StoreUnavailable, Decided> => {
  if (O.isNone(entry)) return TE.right({ outcome: 'unmatched', detail: null, account: O.none })
  return pipe(
    accountOf(deps, entry.value),
    TE.map((found): Decided => {
      if (O.isNone(found)) return { outcome: 'unmatched', detail: 'the payment method of the entry is gone', account: O.none }
      const account = found.value
      if (account.method.status === 'blocked') return { outcome: 'method_blocked', detail: null, account: found }
      if (E.isLeft(item.correction)) return { outcome: 'unsupported', detail: item.correction.left, account: found }
      const corrected = correctedAccount(account, item.correction.right)
      return E.isLeft(corrected) ? { outcome: 'unsupported', detail: corrected.left, account: found } : { outcome: 'applied', detail: null, account: found }
    }),
  )
}

/**
 * Corrects the account of `item`'s method as its bank said, with its `payment_method.corrected`
 * audit event, unless it already is so; the method and its numbers read again first.
 */
const correct = (deps: NoticeDeps, ingestion: Ingestion, item: InboundNotice, entry: AchEntry): TE.TaskEither<StoreUnavailable, void> =>
  pipe(
    accountOf(deps, entry),
    TE.chain((found) => {
      if (O.isNone(found) || E.isLeft(item.correction)) return TE.right(undefined)
      const account = found.value
      const corrected = correctedAccount(account, item.correction.right)
      if (E.isLeft(corrected) || unchanged(account, corrected.right)) return TE.right(undefined)
      const { numbers, accountType } = corrected.right
      const after = described(account.method, numbers, accountType)
      const method: PaymentMethod = { ...account.method, last4: after.last4, accountType, updatedAt: ingestion.now }
      return pipe(
        deps.loans.findById(method.loanId),
        TE.chain((loan) => {
          const concerning = { apiClientId: entry.clientId, partyId: O.isSome(loan) ? loan.value.loan.partyId : null }
          const change = { changeCode: item.changeCode, inboundFileId: ingestion.fileId, originalTrace: item.originalTrace, before: described(account.method, account.numbers, account.method.accountType), after }
          const audit = paymentMethodCorrectedEvent(deps.ids.next(), ingestion.context, method, concerning, change, ingestion.now)
          const sealed = O.isSome(numbers) && !sameNumbers.equals(numbers, account.numbers) ? deps.accountSeal.seal(method.id, numbers.value) : null
          // Written only if the account is still as decided: a run of the file at the same time corrects it once.
          return deps.paymentMethods.correct(method, sealed, audit, { last4: account.method.last4, accountType: account.method.accountType, sealed: O.toNullable(account.sealed) })
        }),
        TE.map(() => undefined),
      )
    }),
  )

/**
 * Applies the notice of change `item` and records it. Matched by its original trace number to one
 * of our entries, the correction it carries is decided on that entry's method: `applied`, or
 * `unsupported` with why (a change code we do not apply, corrected data that does not read, a
 * number corrected alone on an account whose numbers are not kept), `method_blocked`, `unmatched`.
 * It is recorded first, once per trace number: one another notice recorded (of another file, or
 * another record of this one) is a `duplicate` that changes nothing; this one recorded before (a
 * run of the file stopped, or ran at the same time) is answered as recorded, and applied unless the
 * account already is so. Nothing of the corrected data is kept
 * but in the vault.
 */
export const ingestNotice =
  (deps: NoticeDeps, ingestion: Ingestion) =>
  (item: InboundNotice): TE.TaskEither<StoreUnavailable, AchNoticeRecord> =>
    pipe(
      deps.originations.entryByTrace(item.originalTrace),
      TE.chain((entry) =>
        pipe(
          decide(deps, item, entry),
          TE.chain((decided) => {
            const record: AchNoticeRecord = {
              id: deps.ids.next(),
              inboundFileId: ingestion.fileId,
              record: item.record,
              originalTrace: item.originalTrace,
              changeCode: item.changeCode,
              paymentMethodId: O.toNullable(O.map((a: Account) => a.method.id)(decided.account)),
              receivedOn: ingestion.receivedOn,
              outcome: decided.outcome,
              detail: decided.detail,
            }
            return pipe(
              deps.inbound.recordNotice(record),
              TE.chain((recorded) => {
                // Another notice of the entry (another file's, or another record of this one) came first.
                if (!sameItem(recorded, record)) return TE.right<StoreUnavailable, AchNoticeRecord>({ ...record, outcome: 'duplicate' })
                if (recorded.outcome !== 'applied' || O.isNone(entry)) return TE.right(recorded)
                return pipe(
                  correct(deps, ingestion, item, entry.value),
                  TE.map(() => recorded),
                )
              }),
            )
          }),
        ),
      ),
    )
