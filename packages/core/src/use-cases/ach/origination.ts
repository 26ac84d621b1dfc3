import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import type { World } from '../../core-deps.js'
import type { BankingCalendar } from '../../domain/ach/banking-days.js'
import { cutoffOf, cutoffRunKey, instantIn, timeIn, ACH_TIME_ZONE, type Cutoff } from '../../domain/ach/cutoffs.js'
import { decode, EmptyInput } from '../../domain/foundations/codecs.js'
import { LoanId, type PartyId } from '../../domain/foundations/ids.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { dateIn } from '../../domain/loans/servicing-terms.js'
import type { JobLeases } from '../../ports/job-leases.js'
import { storeUnavailable, type InvalidRequest, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { isPosted } from '../../domain/loans/payment.js'
import type { AccountSeal } from '../../ports/account-seal.js'
import type { AchDebit, AchFileFormat, FormattedAchFile } from '../../ports/ach-file-format.js'
import type { AchFileSink } from '../../ports/ach-file-sink.js'
import type { AchDebitRow, AchEntry, AchFile, AchOriginations } from '../../ports/ach-originations.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanFailures } from '../../ports/loan-failures.js'
import type { LoanRepository } from '../../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import type { PaymentProcessor } from '../../ports/payment-processor.js'
import { runLeasedJob, worldJobName, type JobRunOutcome, type JobStep, type SteppedJob } from '../jobs/leased-job.js'
import { bankAccountOf } from './bank-account.js'
import { failureReason } from '../servicing/accrue-loans.js'
import { autopayRefusal, takeAutopayDebit } from '../servicing/autopay.js'
import { autopayWindow } from '../../domain/loans/autopay.js'
import { failPendingPayment, submitPendingPayment, type SubmissionDeps } from './submission.js'

/** The origination job (docs/ach.md "Origination job"): one bank file of debits per cut-off, recorded before it is written. */

/** What the origination job needs: the world's stores and processor (autopay debits are taken as payments), the bank's format and where its files go. */
export type OriginationDeps = SubmissionDeps & {
  readonly loans: Pick<LoanRepository, 'autopay'>
  readonly processor: Pick<PaymentProcessor, 'charge'>
  readonly originations: AchOriginations
  readonly paymentMethods: Pick<PaymentMethodRepository, 'sealedAccount' | 'defaultForLoan'>
  readonly accountSeal: Pick<AccountSeal, 'open'>
  readonly format: AchFileFormat
  readonly sink: AchFileSink
  readonly calendar: BankingCalendar
  readonly failures?: LoanFailures
}

const ORIGINATION_JOB = 'ach-origination'

/** The name of the origination job of `world`: its lease's key and its label in metrics. */
export const achOriginationJobName = (world: World): string => worldJobName(ORIGINATION_JOB, world)

/** How many payments a step claims into a file, how many it submits, and how many autopay debits it takes. */
const CLAIM_BATCH = 1_000
const POST_BATCH = 25
const AUTOPAY_BATCH = 25

/**
 * Where a run stands: the file it is working on (an earlier run's left unfinished, or its own),
 * none before it starts one; for its own file, the autopay debits taken before its claims: up to
 * the installment `autopay` names, or `done` (none taken yet without it).
 */
const AutopayProgress = t.type({ loanId: LoanId, dueDate: t.string })
/** The last installment a run's autopay step looked at. */
type AutopayProgress = t.TypeOf<typeof AutopayProgress>
const OriginationProgress = t.intersection([t.type({ fileId: t.union([t.string, t.null]) }), t.partial({ autopay: t.union([t.literal('done'), AutopayProgress]) })])
type OriginationProgress = t.TypeOf<typeof OriginationProgress>

const more = (fileId: string | null): JobStep<OriginationProgress> => ({ progress: { fileId }, done: false })

/** A failure of the job that is not the store's: it stops the run, to be looked at (the next attempt repeats the step). */
const halted = (reason: string): StoreUnavailable => storeUnavailable(new Error(reason))

/**
 * Sets `entry` from what its payment is now: `sent` when it was submitted (by this attempt or an
 * earlier one that stopped before recording it), `dropped` when it failed, and released (the
 * payment left for a later cut-off) only while it is still `PENDING`. The entry of a payment
 * that was posted is therefore never let go: it goes in this file.
 */
const reconcile = (deps: OriginationDeps, entry: AchEntry, effectiveDate: string): TE.TaskEither<StoreUnavailable, void> =>
  pipe(
    deps.loans.payments.paymentById(entry.paymentId),
    TE.chain(
      O.match(
        () => deps.originations.release(entry.paymentId),
        (payment) =>
          isPosted(payment)
            ? deps.originations.markSent(payment.id, payment.amount, effectiveDate)
            : payment.status === 'PENDING'
              ? deps.originations.release(payment.id)
              : deps.originations.markDropped(payment.id),
      ),
    ),
  )

/**
 * Submits the payment of `entry` in its file (effective `effectiveDate`), or fails it when its
 * account does not open, then records the entry from what the payment became (`reconcile`). A
 * store error on this payment alone (the store answers a read after it) is told to `failures`;
 * the entry is reconciled all the same, so a submission that committed before the error is sent.
 */
const submitEntry =
  (deps: OriginationDeps, effectiveDate: string) =>
  (entry: AchEntry): TE.TaskEither<StoreUnavailable, void> =>
  async () => {
    const account = await bankAccountOf(deps)(entry.paymentMethodId)()
    if (E.isLeft(account) && account.left._tag === 'StoreUnavailable') return account as E.Left<StoreUnavailable>
    const usable = E.isRight(account) && O.isSome(account.right)
    const outcome = usable ? await submitPendingPayment(deps)(entry.paymentId, effectiveDate)() : await failPendingPayment(deps)(entry.paymentId, 'payment_method_unusable')()
    if (E.isLeft(outcome) && outcome.left._tag === 'StoreUnavailable') {
      const probe = await deps.loans.payments.paymentById(entry.paymentId)()
      if (E.isLeft(probe)) return E.left(outcome.left)
      if (O.isSome(probe.right)) deps.failures?.loanFailed({ job: ORIGINATION_JOB, loanId: probe.right.value.loanId, reason: failureReason(outcome.left) })
    }
    return reconcile(deps, entry, effectiveDate)()
  }

/** The debit of a sent entry, its account opened; a row that no longer opens halts the file (its payment is already posted). */
const debitOf = (deps: OriginationDeps, row: AchDebitRow): E.Either<StoreUnavailable, AchDebit> => {
  const account = row.sealedAccount === null ? O.none : deps.accountSeal.open(row.paymentMethodId, row.sealedAccount)
  if (O.isNone(account) || row.amount === null) return E.left(halted(`the bank account of payment ${row.paymentId} no longer opens: its file cannot be built`))
  return E.right({
    paymentId: row.paymentId,
    traceNumber: row.traceNumber,
    secCode: 'CCD',
    routingNumber: account.value.routingNumber,
    accountNumber: account.value.accountNumber,
    accountType: row.accountType ?? 'checking',
    amount: row.amount,
    name: row.accountHolderName ?? '',
  })
}

/**
 * The file `file` as the format writes it from `rows`, its debits; the modifier must be taken. A
 * party's file is named after its party too (`{partyId}-{name}`): each party's files take the
 * modifiers of their own days.
 */
const formatted = (deps: OriginationDeps, file: AchFile, modifier: string, rows: readonly AchDebitRow[]): E.Either<StoreUnavailable, FormattedAchFile> =>
  pipe(
    E.sequenceArray(rows.map((row) => debitOf(deps, row))),
    E.chain((debits) =>
      pipe(
        deps.format.format({ effectiveEntryDate: file.effectiveEntryDate, creationDate: file.creationDate, creationTime: file.creationTime, fileIdModifier: modifier, debits }),
        E.mapLeft((refused) => halted(`file ${file.runKey} cannot be written: ${refused.reason}`)),
        E.map((built) => (file.partyId === null ? built : { ...built, name: `${file.partyId}-${built.name}` })),
      ),
    ),
  )

/** Builds a file whose entries are all submitted or dropped: records its figures (`built`), or `empty` when none was sent. */
const build = (deps: OriginationDeps, file: AchFile): TE.TaskEither<StoreUnavailable, void> =>
  pipe(
    deps.originations.debitsOf(file.id),
    TE.chain((rows) =>
      rows.length === 0
        ? deps.originations.recordEmpty(file.id)
        : pipe(
            deps.originations.takeModifier(file.id),
            TE.chainW(TE.fromOption(() => halted(`no file id modifier is left for ${file.creationDate}: 36 files were made that day`))),
            TE.chainEitherK((modifier) => formatted(deps, file, modifier, rows)),
            TE.chain(({ name, sha256, entryCount, debitTotal, entryHash }) => deps.originations.recordBuilt(file.id, { name, sha256, entryCount, debitTotal, entryHash })),
          ),
    ),
  )

/** Writes a built file: rebuilt from its rows, checked against the recorded hash, put in the sink, recorded `written`. */
const write = (deps: OriginationDeps, file: AchFile): TE.TaskEither<StoreUnavailable, void> =>
  pipe(
    deps.originations.debitsOf(file.id),
    TE.chainEitherK((rows) => formatted(deps, file, file.fileIdModifier ?? '', rows)),
    TE.filterOrElse(
      (built) => built.sha256 === file.sha256 && built.name === file.name,
      () => halted(`file ${file.name} rebuilt differs from what was recorded: its rows or the originator settings changed since it was built`),
    ),
    TE.chain((built) => pipe(deps.sink.put(built.name, built.bytes), TE.mapLeft((failure) => halted(failure._tag === 'FileNameTaken' ? `another file is already named ${failure.name}` : `the file could not be written: ${String(failure.cause)}`)))),
    TE.chain(() => deps.originations.recordWritten(file.id, deps.clock.now())),
  )

/**
 * One step on `file`: claim a batch, submit a batch, build, or write; `finished` once it is written
 * or empty. An earlier run's file claims and submits no more: each claimed entry is reconciled
 * (`reconcile`: what was posted goes in it, what is still `PENDING` goes back to the pool).
 */
const stepOn = (deps: OriginationDeps, file: AchFile, ownRun: boolean): TE.TaskEither<StoreUnavailable, { readonly finished: boolean }> => {
  const going = TE.map(() => ({ finished: false }))
  switch (file.status) {
    case 'claiming':
      if (!ownRun) return pipe(deps.originations.startPosting(file.id), going)
      return pipe(
        deps.originations.claim(file.id, deps.format.tracePrefix, CLAIM_BATCH),
        TE.chain((claimed) => (claimed < CLAIM_BATCH ? deps.originations.startPosting(file.id) : TE.right(undefined))),
        going,
      )
    case 'posting':
      return pipe(
        deps.originations.claimedEntries(file.id, POST_BATCH),
        TE.chain((entries) =>
          entries.length === 0
            ? build(deps, file)
            : pipe(
                entries,
                TE.traverseSeqArray((entry) => (ownRun ? submitEntry(deps, file.effectiveEntryDate)(entry) : reconcile(deps, entry, file.effectiveEntryDate))),
                TE.map(() => undefined),
              ),
        ),
        going,
      )
    case 'built':
      return pipe(write(deps, file), going)
    case 'written':
    case 'empty':
      return TE.right({ finished: true })
  }
}

/**
 * Takes a batch of the autopay debits of the cut-off of `file` (`takeAutopayDebit`) after the
 * installment `from`: those of the installments in its window (`autopayWindow`: due by its
 * effective entry date), of its party's loans or the world's. Taken at the cut-off's instant, so
 * its claims take them. A debit refused for its loan alone is told to `failures`, and the run goes
 * on; the store or the processor unavailable stops the step, to be repeated. Answers the last
 * installment looked at; `done` after the last.
 */
const takeAutopayBatch = (deps: OriginationDeps, file: AchFile, from: AutopayProgress | null): TE.TaskEither<StoreUnavailable, AutopayProgress | 'done'> => {
  const take = takeAutopayDebit({ ...deps, clock: { now: () => file.cutoffAt } })
  const window = autopayWindow(deps.calendar, file.creationDate, file.partyId)
  return pipe(
    deps.loans.autopay.due(window, from, AUTOPAY_BATCH),
    TE.chain((dues) =>
      pipe(
        dues,
        TE.traverseSeqArray((due) =>
          pipe(
            take(due),
            TE.orElseW((refused) => {
              if (refused._tag === 'StoreUnavailable') return TE.left(refused)
              if (refused._tag === 'ProcessorUnavailable') return TE.left(halted(`the processor is unavailable for autopay debits: ${String(refused.cause)}`))
              deps.failures?.loanFailed({ job: ORIGINATION_JOB, loanId: due.loanId, reason: `no autopay debit for the installment due ${due.dueDate}: ${autopayRefusal(refused)}` })
              return TE.right(O.none)
            }),
          ),
        ),
        TE.map(() => {
          const last = dues[dues.length - 1]
          return dues.length < AUTOPAY_BATCH || last === undefined ? 'done' : { loanId: last.loanId, dueDate: last.dueDate }
        }),
      ),
    ),
  )
}

/**
 * One step of the run of `fileKey` on `file`: its own file takes its autopay debits first (after
 * the installment `autopay` names, until `done`), then `stepOn`. The run is done once its own file
 * is finished; an earlier run's finished, it goes on to its own.
 */
const stepOnFile = (deps: OriginationDeps, file: AchFile, fileKey: string, autopay: OriginationProgress['autopay']): TE.TaskEither<StoreUnavailable, JobStep<OriginationProgress>> => {
  const ownRun = file.runKey === fileKey
  if (ownRun && file.status === 'claiming' && autopay !== 'done') {
    return pipe(
      takeAutopayBatch(deps, file, autopay ?? null),
      TE.map((next) => ({ progress: { fileId: file.id, autopay: next }, done: false })),
    )
  }
  const kept: OriginationProgress = { fileId: file.id, autopay: 'done' }
  return pipe(
    stepOn(deps, file, ownRun),
    TE.map(({ finished }) => (!finished ? { progress: kept, done: false } : ownRun ? { progress: kept, done: true } : more(null))),
  )
}

/** The cut-off of `runKey`, or a halt: the scheduler makes only valid keys. */
const cutoffOfRun = (runKey: string): E.Either<StoreUnavailable, Cutoff> => pipe(cutoffOf(runKey), E.fromNullable(halted(`${runKey} is not a cut-off (YYYY-MM-DDTHH:MM)`)))

/**
 * The origination job of `world` for run `runKey` (a cut-off, `YYYY-MM-DDTHH:MM` New York time):
 * first the files earlier runs left unfinished (each claimed entry reconciled with its payment:
 * what was posted stays in, what is still `PENDING` is released; then built and written); then
 * its own file. Claim the `PENDING` payments taken up to
 * the cut-off, submit each (`submitPendingPayment`, effective the next banking day, E), record the
 * file built from what was submitted, then write it (`AchFileSink`). Every step can be repeated:
 * a run resumed after a crash finishes the same file with the same bytes. With `partyId`, the
 * party's own cut-off on its test clock (`AchFile.partyId`): its file's run key is
 * `{runKey}/{partyId}`, it claims the party's payments only, and finishes the party's earlier files only.
 */
export const achOriginationJob =
  (deps: OriginationDeps, world: World = 'live', partyId: PartyId | null = null) =>
  (runKey: string): SteppedJob<OriginationProgress> => {
    const fileKey = partyId === null ? runKey : `${runKey}/${partyId}`
    return {
      name: achOriginationJobName(world),
      initial: { fileId: null },
      progress: OriginationProgress,
      step: ({ fileId, autopay }) =>
        pipe(
          TE.fromEither(cutoffOfRun(runKey)),
          TE.chain((cutoff) =>
            fileId === null
              ? pipe(
                  deps.originations.unfinishedBefore(fileKey, partyId),
                  TE.chain(
                    O.match(
                      () =>
                        pipe(
                          deps.originations.openFile({
                            id: deps.ids.next(),
                            runKey: fileKey,
                            partyId,
                            cutoffAt: instantIn(ACH_TIME_ZONE, cutoff.date, cutoff.time),
                            effectiveEntryDate: deps.calendar.nextBankingDay(cutoff.date),
                            creationDate: cutoff.date,
                            creationTime: cutoff.time.replace(':', ''),
                            createdAt: deps.clock.now(),
                          }),
                          TE.map((file) => more(file.id)),
                        ),
                      (earlier) => TE.right(more(earlier.id)),
                    ),
                  ),
                )
              : pipe(
                  deps.originations.findFile(fileId),
                  TE.chain(TE.fromOption(() => halted(`file ${fileId} of run ${fileKey} is gone`))),
                  TE.chain((file) => stepOnFile(deps, file, fileKey, autopay)),
                ),
          ),
        ),
      finish: () => TE.right(undefined),
    }
  }

/** What an operator's origination run did: its run key, how the run ended, and its file (none while another process still makes an earlier run's file). */
export type AchOriginationRun = { readonly runKey: string; readonly outcome: JobRunOutcome; readonly file: AchFile | null }

/** An operator's origination run takes no fields. */
const OriginationCommand = commandOf([], EmptyInput)

/**
 * Cuts a file now (an operator's run, `POST /internal/jobs/ach-origination`): the origination job
 * for a cut-off at the end of this minute, New York time, so every payment accepted until now is
 * in it; leased as the scheduler's runs are, so it never runs beside another process's run. Asked
 * again in the same minute, it answers that run's file; what was accepted since waits for the next.
 */
export const originateAchFileNow =
  (deps: OriginationDeps & { readonly leases: JobLeases; readonly holder: string; readonly leaseMs: number; readonly stopping: () => boolean }, world: World = 'live') =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, AchOriginationRun> => {
    const endOfMinute = new Date(Math.floor(deps.clock.now().getTime() / 60_000) * 60_000 + 60_000)
    const runKey = cutoffRunKey({ date: dateIn(ACH_TIME_ZONE, endOfMinute), time: timeIn(ACH_TIME_ZONE, endOfMinute) })
    return pipe(
      TE.fromEither(decode(OriginationCommand)(command)),
      TE.chainW(() => runLeasedJob(deps)(achOriginationJob(deps, world)(runKey), { runKey, holder: deps.holder, leaseMs: deps.leaseMs, stopping: deps.stopping })),
      TE.chainW((outcome) => pipe(deps.originations.fileOfRun(runKey), TE.map((file) => ({ runKey, outcome, file: O.toNullable(file) })))),
    )
  }
