import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { PartyScope } from '../../domain/keys/api-key.js'
import { decode } from '../../domain/foundations/codecs.js'
import { notFound, type InvalidRequest, type NotFound, type PartyMismatch, type StoreUnavailable } from '../../domain/foundations/errors.js'
import type { Loan } from '../../domain/loans/loan.js'
import { derivedOn, type DerivedLoan, type ReplayInputs } from '../../lending/index.js'
import { loanToday, readReplayInputs, replayInputsOf } from './posting.js'
import { pathParameters } from '../../domain/foundations/path-parameters.js'
import { requireCommandParty } from '../api-keys/authorize.js'
import { decodePageRequest, pageOf, type Page, type PageRequest, type Position } from '../../domain/foundations/pagination.js'
import type { Clock } from '../../ports/clock.js'
import type { LoanRepository, OfPartyLoan, ServicingRecord } from '../../ports/loan-repository.js'
import type { LoanId, PartyId } from '../../domain/foundations/ids.js'

/** Reading one of a party's loans: the party check, one read that is also the ownership check, pages. */

/** Why a read of one of the party's loans fails: another party's loan is `NotFound` `loan`. */
export type LoanReadError = InvalidRequest | PartyMismatch | NotFound | StoreUnavailable

const LoanParams = pathParameters('loanId')

/** The page a list of a party's loan asks for, once `partyId` is the caller's; `isId` checks the cursor's row id. */
export const loanPage = (caller: PartyScope, command: unknown, isId?: (id: string) => boolean): E.Either<InvalidRequest | PartyMismatch, PageRequest> =>
  pipe(
    requireCommandParty(caller, command),
    E.chainW(() => decodePageRequest(command, ['partyId', 'loanId'], isId)),
  )

/** What `read` (an `OfPartyLoan` read) finds of the caller's loan; none, unknown or another party's, is NotFound `loan`. */
export const readOfOwnLoan =
  <A>(read: (partyId: PartyId, loanId: LoanId) => OfPartyLoan<A>) =>
  (caller: PartyScope, command: unknown): TE.TaskEither<LoanReadError, A> =>
    pipe(
      TE.fromEither(requireCommandParty(caller, command)),
      TE.chainEitherKW(() => decode(LoanParams)(command)),
      TE.chainW(({ loanId }) => read(caller.partyId, loanId)),
      TE.chainW(TE.fromOption(() => notFound('loan'))),
    )

/** The caller's party's loan named by the command (`partyId`, `loanId`). */
export const loadOwnLoan = (loans: Pick<LoanRepository, 'findForParty'>): ((caller: PartyScope, command: unknown) => TE.TaskEither<LoanReadError, Loan>) =>
  readOfOwnLoan((partyId, loanId) => loans.findForParty(partyId, loanId))

/** What a loan read needs: the repository's reads `K` (all of them by default). */
export type Loans<K extends keyof LoanRepository = keyof LoanRepository> = { readonly loans: Pick<LoanRepository, K> }

/** A loan's record with the loan's currency, which the record does not store. */
export type InCurrency<A> = A & { readonly currency: string }

/** The caller's loan with its local today, derived as of `asOf(today)`, a charged-off loan at most to its charge-off day. */
export const derivedOwnLoan =
  (deps: Loans<'servicing' | 'payments'> & { readonly clock: Clock }) =>
  (
    caller: PartyScope,
    command: unknown,
    asOf: (today: string) => string = (today) => today,
  ): TE.TaskEither<LoanReadError, { readonly record: ServicingRecord; readonly today: string; readonly derived: DerivedLoan }> =>
    pipe(
      readOfOwnLoan((partyId, loanId) => deps.loans.servicing(partyId, loanId))(caller, command),
      TE.chainW((record) => {
        const today = loanToday(record.loan, deps.clock.now())
        const wanted = asOf(today)
        const { chargedOffOn, checkpoint } = record.loan
        const date = chargedOffOn !== null && chargedOffOn < wanted ? chargedOffOn : wanted
        // From the latest posting's checkpoint; a loan without one (or a date before it) from booking.
        const inputs: TE.TaskEither<StoreUnavailable, ReplayInputs | null> =
          checkpoint !== null && date >= checkpoint.date ? TE.right(null) : pipe(readReplayInputs(deps.loans.payments, record.loan.id), TE.map(replayInputsOf))
        return pipe(
          inputs,
          TE.map((replayed) => ({ record, today, derived: derivedOn(record.loan, replayed, date) })),
        )
      }),
    )

/** A list of the caller's loan's records, oldest first, a page at a time (`read` gives `limit + 1` rows). */
export const listOfOwnLoan =
  <A extends Position>(read: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<readonly A[]>) =>
  (caller: PartyScope, command: unknown): TE.TaskEither<LoanReadError, Page<A>> =>
    pipe(
      TE.fromEither(loanPage(caller, command)),
      TE.chainW((page) =>
        pipe(
          readOfOwnLoan((partyId, loanId) => read(partyId, loanId, page))(caller, command),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )
