import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { storeUnavailable, type StoreUnavailable } from '../domain/foundations/errors.js'
import type { LoanId, PartyId } from '../domain/foundations/ids.js'
import type { Payment } from '../domain/loans/payment.js'
import type { PaymentMethod } from '../domain/loans/payment-method.js'
import { ACH_FILE_ID_MODIFIERS, type AchDebitRow, type AchEntry, type AchEntryStatus, type AchFile, type AchFileStatus, type AchOriginations } from '../ports/ach-originations.js'

/** The last trace number a world's counter gives: 7 digits. */
const LAST_TRACE = 9_999_999

const TRACE = /^[0-9]{15}$/

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Whose loan a payment's is, and which parties are on a test clock: what a claim's scope reads (`AchFile.partyId`). */
export type ClaimParties = {
  /** The party whose loan `loanId` is; undefined when the loan is not known. */
  readonly partyOfLoan: (loanId: LoanId) => PartyId | undefined
  /** Whether party `partyId` is on a test clock. */
  readonly onClock: (partyId: PartyId) => boolean
}

/** A world without test clocks: every payment is the world's files'. */
const NO_CLOCKS: ClaimParties = { partyOfLoan: () => undefined, onClock: () => false }

/**
 * Same semantics as the PostgreSQL origination records, for use-case tests and embedders running
 * one process: `payments` reads the world's payments (`InMemoryLoanRepository.allPayments`),
 * `methods` its payment methods and their sealed numbers (`inMemoryPaymentMethodRepository`), and
 * `counter` is the world's trace counter (`next`: the number the next claim takes first), and
 * `parties` tells a claim whose each payment is (without it, no party is on a test clock and no
 * payment is a party's: a party's file claims nothing). Every call runs to its end before the next starts,
 * so concurrent claims take turns as they do on the counter's row lock. A claim that would take a
 * number past 9999999, or write a trace that is not 15 digits, fails (`StoreUnavailable`) and
 * claims nothing.
 */
export const inMemoryAchOriginations = (
  payments: () => readonly Payment[],
  methods: { readonly all: () => readonly PaymentMethod[]; readonly sealedNumbers: (id: string) => string | undefined },
  counter: { next: number } = { next: 1 },
  parties: ClaimParties = NO_CLOCKS,
): AchOriginations & {
  /** Every entry, as last written. */
  readonly entries: () => readonly AchEntry[]
} => {
  const files = new Map<string, AchFile>()
  const entries = new Map<string, AchEntry>()

  const moveFile = (id: string, from: AchFileStatus, to: Partial<AchFile> & { readonly status: AchFileStatus }) =>
    TE.fromIO(() => {
      const file = files.get(id)
      if (file?.status === from) files.set(id, { ...file, ...to })
    })
  const moveEntry = (paymentId: string, from: AchEntryStatus, to: Partial<AchEntry> & { readonly status: AchEntryStatus }) =>
    TE.fromIO(() => {
      const entry = entries.get(paymentId)
      if (entry?.status === from) entries.set(paymentId, { ...entry, ...to })
    })
  const ofFile = (fileId: string, status: AchEntryStatus): AchEntry[] =>
    [...entries.values()].filter((e) => e.fileId === fileId && e.status === status).sort((a, b) => byString(a.traceNumber, b.traceNumber))

  /** The claim of `limit` payments into file `fileId`, made at once: all or nothing. */
  const claim = (fileId: string, tracePrefix: string, limit: number): E.Either<StoreUnavailable, number> => {
    const file = files.get(fileId)
    if (file?.status !== 'claiming' || limit <= 0) return E.right(0)
    const inScope = (p: Payment): boolean => {
      const party = parties.partyOfLoan(p.loanId)
      return file.partyId === null ? party === undefined || !parties.onClock(party) : party === file.partyId
    }
    const due = payments()
      .filter((p) => p.status === 'PENDING' && p.createdAt.getTime() <= file.cutoffAt.getTime() && !entries.has(p.id) && inScope(p))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || byString(a.id, b.id))
      .slice(0, limit)
    if (counter.next + due.length - 1 > LAST_TRACE) return E.left(storeUnavailable(new Error(`the trace counter has ${LAST_TRACE - counter.next + 1} numbers left, not ${due.length}`)))
    const claimed = due.map((p, i): AchEntry => ({
      paymentId: p.id,
      fileId,
      paymentMethodId: p.paymentMethodId,
      clientId: p.clientId,
      traceNumber: `${tracePrefix}${String(counter.next + i).padStart(7, '0')}`,
      status: 'claimed',
      amount: null,
      submittedOn: null,
    }))
    if (claimed.some((e) => !TRACE.test(e.traceNumber))) return E.left(storeUnavailable(new Error(`not a 15-digit trace number: prefix ${tracePrefix}`)))
    counter.next += claimed.length
    for (const entry of claimed) entries.set(entry.paymentId, entry)
    return E.right(claimed.length)
  }

  return {
    entries: () => [...entries.values()],
    openFile: (file) => async () => {
      const there = [...files.values()].find((f) => f.runKey === file.runKey)
      if (there !== undefined) return E.right(there)
      if (files.has(file.id)) return E.left(storeUnavailable(new Error(`another run's file has the id ${file.id}`)))
      const opened: AchFile = { ...file, status: 'claiming', fileIdModifier: null, name: null, sha256: null, entryCount: null, debitTotal: null, entryHash: null, writtenAt: null }
      files.set(opened.id, opened)
      return E.right(opened)
    },
    findFile: (id) => TE.right(O.fromNullable(files.get(id))),
    fileOfRun: (runKey) => TE.right(O.fromNullable([...files.values()].find((f) => f.runKey === runKey))),
    claim: (fileId, tracePrefix, limit) => async () => claim(fileId, tracePrefix, limit),
    startPosting: (fileId) => moveFile(fileId, 'claiming', { status: 'posting' }),
    claimedEntries: (fileId, limit) => TE.fromIO(() => ofFile(fileId, 'claimed').slice(0, Math.max(limit, 0))),
    markSent: (paymentId, amount, submittedOn) => moveEntry(paymentId, 'claimed', { status: 'sent', amount, submittedOn }),
    markDropped: (paymentId) => moveEntry(paymentId, 'claimed', { status: 'dropped' }),
    release: (paymentId) =>
      TE.fromIO(() => {
        const pending = payments().some((p) => p.id === paymentId && p.status === 'PENDING')
        if (pending && entries.get(paymentId)?.status === 'claimed') entries.delete(paymentId)
      }),
    debitsOf: (fileId) =>
      TE.fromIO(() =>
        [...ofFile(fileId, 'sent'), ...ofFile(fileId, 'settled'), ...ofFile(fileId, 'returned')]
          .sort((a, b) => byString(a.traceNumber, b.traceNumber))
          .map((entry): AchDebitRow => {
            const method = methods.all().find((m) => m.id === entry.paymentMethodId)
            return { ...entry, accountHolderName: method?.accountHolderName ?? null, accountType: method?.accountType ?? null, sealedAccount: methods.sealedNumbers(entry.paymentMethodId) ?? null }
          }),
      ),
    unfinishedBefore: (runKey, partyId) =>
      TE.fromIO(() =>
        O.fromNullable([...files.values()].filter((f) => f.partyId === partyId && f.runKey < runKey && f.status !== 'written' && f.status !== 'empty').sort((a, b) => byString(a.runKey, b.runKey))[0]),
      ),
    takeModifier: (fileId) =>
      TE.fromIO(() => {
        const file = files.get(fileId)
        if (file === undefined) return O.none
        if (file.fileIdModifier !== null) return O.some(file.fileIdModifier)
        const taken = new Set([...files.values()].filter((f) => f.creationDate === file.creationDate && f.partyId === file.partyId).map((f) => f.fileIdModifier))
        const free = [...ACH_FILE_ID_MODIFIERS].find((modifier) => !taken.has(modifier))
        if (free === undefined) return O.none
        files.set(fileId, { ...file, fileIdModifier: free })
        return O.some(free)
      }),
    recordBuilt: (fileId, built) => moveFile(fileId, 'posting', { status: 'built', ...built }),
    recordEmpty: (fileId) => moveFile(fileId, 'posting', { status: 'empty' }),
    recordWritten: (fileId, at) => moveFile(fileId, 'built', { status: 'written', writtenAt: at }),
    unsettled: (submittedOnOrBefore, after, limit, partyId) =>
      TE.fromIO(() =>
        [...entries.values()]
          .filter((e): e is AchEntry & { readonly submittedOn: string } => e.status === 'sent' && e.submittedOn !== null && e.submittedOn <= submittedOnOrBefore)
          .filter((e) => files.get(e.fileId)?.status === 'written' && files.get(e.fileId)?.partyId === partyId)
          .filter((e) => O.isNone(after) || e.submittedOn > after.value.submittedOn || (e.submittedOn === after.value.submittedOn && e.paymentId > after.value.paymentId))
          .sort((a, b) => byString(a.submittedOn, b.submittedOn) || byString(a.paymentId, b.paymentId))
          .slice(0, Math.max(limit, 0)),
      ),
    markSettled: (paymentId) => moveEntry(paymentId, 'sent', { status: 'settled' }),
    entryByTrace: (traceNumber) => TE.fromIO(() => O.fromNullable([...entries.values()].find((e) => e.traceNumber === traceNumber))),
    markReturned: (paymentId) =>
      TE.fromIO(() => {
        const entry = entries.get(paymentId)
        if (entry?.status === 'sent' || entry?.status === 'settled') entries.set(paymentId, { ...entry, status: 'returned' })
      }),
  }
}
