import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { CollateralItem } from '../domain/loans/collateral.js'
import type { LoanDocument } from '../domain/loans/loan-document.js'
import { autopayKey, type AutopayDue, type LoanAutopay } from '../domain/loans/autopay.js'
import { daysPastDue, loanSummary, type BookedLoan, type Loan, type LoanSummary } from '../domain/loans/loan.js'
import { timeOf } from '../domain/loans/book-time.js'
import { compareLoansIn, isAfterIn } from '../domain/loans/loan-order.js'
import { dateIn } from '../domain/loans/servicing-terms.js'
import { delinquencyBucketOf, type ServicedInstallment } from '../lending/index.js'
import { sequencePosition } from '../domain/foundations/pagination.js'
import { isPosted, type Payment } from '../domain/loans/payment.js'
import type { ChangeReads, Change, DelinquencyCount, LockedLoan, LoanFilter, LoanKey, LoanRepository, PaymentReads, PostedBalance, PostedTransaction, Posting } from '../ports/loan-repository.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { OperatorRequest } from '../domain/operators/operator-request.js'
import { inMemoryAuditLog, type InMemoryAuditLog } from './in-memory-audit-log.js'
import { inMemoryEventLog, type InMemoryEventLog } from './in-memory-event-log.js'
import { inMemoryPage } from './in-memory-paging.js'
import type { ApplicationId, LoanId, PartyId } from '../domain/foundations/ids.js'

/** The bucket of `loan` on its today at the instant `now`. */
const bucketAt = (loan: LoanSummary, now: Date) => delinquencyBucketOf(daysPastDue(loan, dateIn(loan.timeZone, now)))

/** Whether `filter` lists `loan` (the rules of `LoanFilter`). */
const listedBy =
  (filter: LoanFilter) =>
  (loan: LoanSummary): boolean =>
    filter.of === 'party'
      ? loan.partyId === filter.partyId && (filter.delinquency === undefined || bucketAt(loan, filter.now) === filter.delinquency)
      : (filter.partyId === undefined || loan.partyId === filter.partyId) &&
        (filter.status === undefined || loan.status === filter.status) &&
        (filter.delinquency === undefined || (loan.status === 'ACTIVE' && bucketAt(loan, timeOf(filter.time, loan.partyId)) === filter.delinquency))

type Stored = {
  loan: Loan
  installments: readonly ServicedInstallment[]
  transactions: PostedTransaction[]
  balances: PostedBalance[]
  documents: LoanDocument[]
  collateral: CollateralItem[]
  autopay: LoanAutopay | null
}

/** A `LoanRepository` in memory that also shows every loan and lets a test book one directly. */
export type InMemoryLoanRepository = LoanRepository & {
  /** Every loan as booked and serviced since: schedule, ledger and latest balance. */
  readonly all: () => readonly BookedLoan[]
  /** Every payment of every loan, as last written: what the origination records claim from (`inMemoryAchOriginations`). */
  readonly allPayments: () => readonly Payment[]
  /** Stores a booked loan (what LoanApplicationRepository.saveApproved writes). */
  readonly book: (booked: BookedLoan) => void
  /** Deletes the loans of parties `partyIds` or applications `applicationIds`, with their payments (a wipe of the test world); what went. */
  readonly forget: (partyIds: ReadonlySet<PartyId>, applicationIds: ReadonlySet<ApplicationId>) => { readonly loanIds: ReadonlySet<LoanId>; readonly payments: number }
}

/**
 * Loans in memory. `change` runs one at a time per repository, like the row lock it stands for.
 * `onTestClock` tells which parties a test clock moves (their loans are left out of `activeLoanIds`).
 */
export const inMemoryLoanRepository = (
  audit: InMemoryAuditLog = inMemoryAuditLog(),
  onTestClock: (partyId: PartyId) => boolean = () => false,
  eventLog: InMemoryEventLog = inMemoryEventLog(),
): InMemoryLoanRepository => {
  const loans = new Map<string, Stored>()
  const payments = new Map<string, Payment>()
  const requests = new Map<string, OperatorRequest>()
  let sequence = 0
  let lock: Promise<unknown> = Promise.resolve()

  const reads: PaymentReads = {
    paymentByKey: (clientId, key) => TE.right(O.fromNullable([...payments.values()].find((p) => p.clientId === clientId && p.idempotencyKey === key))),
    paymentById: (id) => TE.right(O.fromNullable(payments.get(id))),
    posted: (loanId) => TE.right(posted(loanId)),
    pending: (loanId) => TE.right(pendingOf(loanId)),
    returnedWithFee: (loanId) =>
      TE.right(
        [...payments.values()]
          .filter((p) => p.loanId === loanId && p.status === 'RETURNED' && (p.returnFee ?? 0) > 0)
          .sort((a, b) => (a.returnedOn ?? '').localeCompare(b.returnedOn ?? '') || a.createdAt.getTime() - b.createdAt.getTime()),
      ),
  }

  /** The loan's posted payments by effective date, those of one date in the order of their `PAYMENT` entries. */
  const posted = (loanId: LoanId): readonly Payment[] => {
    const ledger = loans.get(loanId)?.transactions ?? []
    const place = (p: Payment): number => ledger.findIndex((t) => t.id === p.transactionId)
    return [...payments.values()]
      .filter((p) => p.loanId === loanId && isPosted(p))
      .sort((a, b) => (a.effectiveDate < b.effectiveDate ? -1 : a.effectiveDate > b.effectiveDate ? 1 : place(a) - place(b)))
  }

  /** The loan's `PENDING` payments in the order taken: by `createdAt`, then id. */
  const pendingOf = (loanId: LoanId): readonly Payment[] =>
    [...payments.values()]
      .filter((p) => p.loanId === loanId && p.status === 'PENDING')
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

  /** Loan `loanId` if it is `partyId`'s. */
  const ofPartyNow = (partyId: PartyId, loanId: LoanId): O.Option<Stored> =>
    pipe(
      O.fromNullable(loans.get(loanId)),
      O.filter((s) => s.loan.partyId === partyId),
    )
  /** What `read` takes of loan `loanId` if it is `partyId`'s (`OfPartyLoan`). */
  const ofParty = <A>(partyId: PartyId, loanId: LoanId, read: (s: Stored) => A) => TE.right(pipe(ofPartyNow(partyId, loanId), O.map(read)))

  const booked = (s: Stored): BookedLoan => ({
    loan: s.loan,
    installments: s.installments,
    transactions: s.transactions.map(({ sequence: _s, ...t }) => t),
    balance: (({ sequence: _s, ...b }) => b)(s.balances[s.balances.length - 1]!),
    documents: s.documents,
  })

  const changeReads: ChangeReads = {
    ...reads,
    requests: (loanId) =>
      TE.right([...requests.values()].filter((r) => r.loanId === loanId).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))),
  }

  /** Loan `loanId` as a change finds it locked: none when missing, or not `partyId`'s when one is named. */
  const lockedState = ({ loanId, partyId }: LoanKey): O.Option<LockedLoan> => {
    const found = loans.get(loanId)
    const stored = partyId === undefined || found?.loan.partyId === partyId ? found : undefined
    const latest = stored?.balances.at(-1)
    return stored === undefined || latest === undefined
      ? O.none
      : O.some({
          loan: stored.loan,
          installments: stored.installments,
          latest: (({ sequence: _s, ...b }) => b)(latest),
          pendingAmount: pendingOf(loanId).reduce((sum, p) => sum + p.amount, 0),
        })
  }

  /** Writes `posting` of loan `loanId`, which a change found. */
  const writePosting = (loanId: LoanId, posting: Posting): void => {
    const stored = loans.get(loanId)
    if (stored === undefined) return
    stored.installments = posting.installments
    stored.transactions.push(...posting.transactions.map((t) => ({ ...t, sequence: (sequence += 1) })))
    if (posting.balance !== null) stored.balances.push({ ...posting.balance, sequence: (sequence += 1) })
    for (const payment of posting.payments) payments.set(payment.id, payment)
    if (posting.loanStatus !== undefined) stored.loan = { ...stored.loan, status: posting.loanStatus }
    if (posting.oldestUnpaidDueDate !== undefined) stored.loan = { ...stored.loan, oldestUnpaidDueDate: posting.oldestUnpaidDueDate }
    if (posting.chargedOffOn !== undefined) stored.loan = { ...stored.loan, chargedOffOn: posting.chargedOffOn }
    if (posting.checkpoint !== undefined) stored.loan = { ...stored.loan, checkpoint: posting.checkpoint }
    if (posting.request !== undefined) requests.set(posting.request.id, posting.request)
    if (posting.audit !== null) audit.append(posting.audit)
    eventLog.append(posting.events)
  }

  /** Runs `work` after every change before it, as the database's locks make them wait. */
  const locked = <A>(work: () => Promise<A>): Promise<A> => {
    const run = lock.then(work)
    lock = run.catch(() => undefined)
    return run
  }

  /** `change` (`write`) or `dryRun` (not): one at a time, as the database's lock makes them; answers what `decide` decided. */
  const underLock =
    <E, A>(key: LoanKey, decide: (loan: O.Option<LockedLoan>, reads: ChangeReads) => TE.TaskEither<E, Change<A>>, write: boolean): TE.TaskEither<E, Change<A>> =>
    () =>
      locked(async () => {
        const state = lockedState(key)
        const outcome = await decide(state, changeReads)()
        // Like the database: nothing is written for a loan not found.
        if (E.isRight(outcome) && write && O.isSome(state)) writePosting(key.loanId, outcome.right.posting)
        return outcome
      })

  /** `changeMany`: every loan decided first, all written only when none answered StoreUnavailable. */
  const changeMany =
    <Er extends { readonly _tag: string }, A>(
      loanIds: readonly LoanId[],
      decide: (loan: O.Option<LockedLoan>, reads: ChangeReads) => TE.TaskEither<Er | StoreUnavailable, Change<A>>,
    ): TE.TaskEither<StoreUnavailable, ReadonlyMap<LoanId, E.Either<Exclude<Er, StoreUnavailable>, A>>> =>
    () =>
      locked(async () => {
        const answers = new Map<LoanId, E.Either<Exclude<Er, StoreUnavailable>, A>>()
        const postings: [LoanId, Posting][] = []
        for (const loanId of new Set(loanIds)) {
          const state = lockedState({ loanId })
          const outcome = await decide(state, changeReads)()
          if (E.isLeft(outcome)) {
            if (outcome.left._tag === 'StoreUnavailable') return E.left(outcome.left as StoreUnavailable)
            answers.set(loanId, E.left(outcome.left as Exclude<Er, StoreUnavailable>))
            continue
          }
          if (O.isSome(state)) postings.push([loanId, outcome.right.posting])
          answers.set(loanId, E.right(outcome.right.result))
        }
        for (const [loanId, posting] of postings) writePosting(loanId, posting)
        return E.right(answers)
      })

  return {
    all: () => [...loans.values()].map(booked),
    allPayments: () => [...payments.values()],
    forget: (partyIds, applicationIds) => {
      const loanIds = new Set([...loans.values()].filter(({ loan }) => partyIds.has(loan.partyId) || applicationIds.has(loan.applicationId)).map(({ loan }) => loan.id))
      const gone = [...payments.values()].filter((p) => loanIds.has(p.loanId))
      for (const p of gone) payments.delete(p.id)
      for (const r of [...requests.values()].filter((r) => loanIds.has(r.loanId))) requests.delete(r.id)
      for (const id of loanIds) loans.delete(id)
      return { loanIds, payments: gone.length }
    },
    book: (b) => {
      loans.set(b.loan.id, {
        loan: b.loan,
        installments: b.installments,
        transactions: b.transactions.map((t) => ({ ...t, sequence: (sequence += 1) })),
        balances: [{ ...b.balance, sequence: (sequence += 1) }],
        documents: [...b.documents],
        collateral: [],
        autopay: null,
      })
    },
    findById: (id) => TE.right(pipe(O.fromNullable(loans.get(id)), O.map(booked))),
    find: (id) => TE.right(O.fromNullable(loans.get(id)?.loan)),
    findForParty: (partyId, id) => ofParty(partyId, id, (s) => s.loan),
    list: (filter, page) =>
      TE.right(
        [...loans.values()]
          .map((s) => loanSummary(s.loan))
          .filter((l) => listedBy(filter)(l) && isAfterIn(page)(l))
          .sort(compareLoansIn(page.sort))
          .slice(0, page.limit + 1),
      ),
    delinquencyCounts: (time) =>
      TE.fromIO(() => {
        const groups = new Map<string, DelinquencyCount>()
        for (const { loan, balances } of loans.values()) {
          if (loan.status !== 'ACTIVE') continue
          const days = daysPastDue(loan, dateIn(loan.timeZone, timeOf(time, loan.partyId)))
          const latest = balances.at(-1)!
          const group = groups.get(`${loan.currency} ${days}`) ?? { currency: loan.currency, daysPastDue: days, loans: 0, principalOutstanding: 0, pastDueAmount: 0 }
          groups.set(`${loan.currency} ${days}`, {
            ...group,
            loans: group.loans + 1,
            principalOutstanding: group.principalOutstanding + latest.principalOutstanding,
            pastDueAmount: group.pastDueAmount + latest.pastDueAmount,
          })
        }
        return [...groups.values()]
      }),
    servicing: (partyId, loanId) => ofParty(partyId, loanId, (s) => ({ loan: s.loan, latest: s.balances.at(-1)! })),
    listTransactions: (partyId, loanId, filter, page) =>
      ofParty(partyId, loanId, (s) => ({
        currency: s.loan.currency,
        transactions: inMemoryPage(
          s.transactions.filter(
            (t) =>
              (filter.type === undefined || t.type === filter.type) &&
              (filter.from === undefined || t.effectiveDate >= filter.from) &&
              (filter.to === undefined || t.effectiveDate <= filter.to),
          ),
          page,
          sequencePosition,
        ),
      })),
    listBalances: (partyId, loanId, page) => ofParty(partyId, loanId, (s) => ({ currency: s.loan.currency, balances: inMemoryPage(s.balances, page, sequencePosition) })),
    latestBalanceForParty: (partyId, loanId) => TE.right(pipe(ofPartyNow(partyId, loanId), O.chain((s) => O.fromNullable(s.balances.at(-1))))),
    change: (key, decide) => pipe(underLock(key, decide, true), TE.map(({ result }) => result)),
    dryRun: (key, decide) => underLock(key, decide, false),
    changeMany,
    findRequest: (id) => TE.right(O.fromNullable(requests.get(id))),
    listRequests: (filter, page) => TE.right(inMemoryPage([...requests.values()].filter((r) => filter.state === undefined || r.state === filter.state), page)),
    activeLoanIds: (afterId, limit) =>
      TE.right(
        [...loans.values()]
          .filter((s) => s.loan.status === 'ACTIVE' && !onTestClock(s.loan.partyId) && (afterId === null || s.loan.id > afterId))
          .map((s) => s.loan.id)
          .sort()
          .slice(0, limit),
      ),
    payments: reads,
    autopay: {
      of: (loanId) => TE.right(O.fromNullable(loans.get(loanId)?.autopay)),
      turnOn: (setting) =>
        TE.fromIO(() => {
          const stored = loans.get(setting.loanId)
          if (stored !== undefined && stored.autopay === null) stored.autopay = setting
          return stored?.autopay ?? setting
        }),
      turnOff: (loanId) =>
        TE.fromIO(() => {
          const stored = loans.get(loanId)
          if (stored !== undefined) stored.autopay = null
        }),
      due: (window, from, limit) =>
        TE.right(
          [...loans.values()]
            .flatMap(({ loan, installments, autopay }): AutopayDue[] =>
              autopay === null || loan.status !== 'ACTIVE' || (window.partyId === null ? onTestClock(loan.partyId) : loan.partyId !== window.partyId)
                ? []
                : installments
                    .filter((i) => i.dueDate > window.after && i.dueDate <= window.through && i.dueDate > dateIn(loan.timeZone, autopay.enabledAt))
                    .map((i) => ({ loanId: loan.id, partyId: loan.partyId, clientId: autopay.clientId, dueDate: i.dueDate })),
            )
            .filter((due) => [...payments.values()].every((p) => p.clientId !== due.clientId || p.idempotencyKey !== autopayKey(due.loanId, due.dueDate)))
            .filter((due) => from === null || due.loanId > from.loanId || (due.loanId === from.loanId && due.dueDate > from.dueDate))
            .sort((a, b) => (a.loanId < b.loanId ? -1 : a.loanId > b.loanId ? 1 : a.dueDate < b.dueDate ? -1 : a.dueDate > b.dueDate ? 1 : 0))
            .slice(0, limit),
        ),
    },
    listPayments: (partyId, loanId, page) =>
      ofParty(partyId, loanId, () => inMemoryPage([...payments.values()].filter((payment) => payment.loanId === loanId), page)),
    addCollateral: (item, event) =>
      TE.fromIO(() => {
        const stored = loans.get(item.loanId)
        if (stored === undefined) return
        stored.collateral.push(item)
        audit.append(event)
      }),
    listCollateral: (partyId, loanId, page) => ofParty(partyId, loanId, (s) => inMemoryPage(s.collateral, page)),
    addDocument: (document, event) =>
      TE.fromIO(() => {
        const stored = loans.get(document.loanId)
        if (stored === undefined) return
        stored.documents.push(document)
        audit.append(event)
      }),
    listDocuments: (partyId, loanId, page) => ofParty(partyId, loanId, (s) => inMemoryPage(s.documents, page)),
  }
}
