import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { NOT_AUDITED } from '../../domain/audit/audit-event.js'
import { CalendarDate, decode, EmptyInput, oneOf, strictObject } from '../../domain/foundations/codecs.js'
import {
  invalidRequest,
  notFound,
  partyMismatch,
  type AlreadyExists,
  type ConcurrentUpdate,
  type InvalidRequest,
  type InvalidState,
  type NotFound,
  type PartyMismatch,
  type StoreUnavailable,
} from '../../domain/foundations/errors.js'
import {
  APPLICATION_STATUSES,
  applicationTransition,
  fitsProduct,
  LoanApplicationInput,
  LoanApplicationPatch,
  newLoanApplication,
  patchLoanApplication,
  pricedBy,
  type LoanApplication,
} from '../../domain/loans/loan-application.js'
import type { LoanProduct } from '../../domain/loans/loan-product.js'
import { schedulePreview, type SchedulePreview } from '../../views/loan-applications.js'
import { dateIn, DEFAULT_SERVICING_TERMS } from '../../domain/loans/servicing-terms.js'
import { utcDate } from '../../domain/foundations/instant.js'
import { decodeFilteredPageRequest, pageOf, queryFilters, type Page } from '../../domain/foundations/pagination.js'
import { commandOf, pathParameters } from '../../domain/foundations/path-parameters.js'
import { requireCommandParty } from '../api-keys/authorize.js'
import type { Clock } from '../../ports/clock.js'
import type { TestClockRepository } from '../../ports/test-clock-repository.js'
import type { World } from '../../core-deps.js'
import { partyClock } from '../testing/party-clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanApplicationRepository } from '../../ports/loan-application-repository.js'
import type { LoanProductRepository } from '../../ports/loan-product-repository.js'
import type { PartyRepository } from '../../ports/party-repository.js'
import { loadCallerParty } from '../parties/parties.js'
import { newId } from '../../domain/foundations/ids.js'
import { applicationEvent } from '../../views/events.js'

// Applications of the key's party (spec §4.4, docs/applications.md "Applications"); another party's is `NotFound`.

/** Why an application use case cannot load its application: `applicationId` not a UUID, missing or another party's. */
export type LoadApplicationError = InvalidRequest | NotFound | StoreUnavailable

const ApplicationParams = pathParameters('applicationId')
const ApplicationCommand = commandOf(['applicationId'], EmptyInput)
const UpdateApplicationCommand = commandOf(['applicationId'], LoanApplicationPatch)

const loadOwnApplication =
  (applications: Pick<LoanApplicationRepository, 'findForParty'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadApplicationError, LoanApplication> =>
    pipe(
      TE.fromEither(decode(ApplicationParams)(command)),
      TE.chainW(({ applicationId }) => applications.findForParty(caller.partyId, applicationId)),
      TE.chainW(TE.fromOption(() => notFound('loan_application'))),
    )

const productFor =
  (products: Pick<LoanProductRepository, 'findById'>) =>
  (terms: Pick<LoanApplication, 'productId' | 'amount' | 'currency' | 'termMonths'>): TE.TaskEither<InvalidRequest | StoreUnavailable, LoanProduct> =>
    pipe(
      products.findById(terms.productId),
      TE.chainW(TE.fromOption(() => invalidRequest(`product_id ${terms.productId} is not an active loan product.`, 'product_id'))),
      TE.chainEitherKW((product) => fitsProduct(terms, product)),
    )

/** What `createLoanApplication` needs. */
export type CreateApplicationDeps = {
  readonly applications: Pick<LoanApplicationRepository, 'insert'>
  readonly products: Pick<LoanProductRepository, 'findById'>
  readonly parties: Pick<PartyRepository, 'findById'>
  readonly ids: IdGenerator
  readonly clock: Clock
}

/** A new `DRAFT` application, validated and priced by its product; not idempotent; `NotFound` for a non-borrower party. */
export const createLoanApplication =
  (deps: CreateApplicationDeps) =>
  (
    caller: Caller,
    command: unknown,
  ): TE.TaskEither<InvalidRequest | PartyMismatch | NotFound | AlreadyExists | StoreUnavailable, LoanApplication> =>
    pipe(
      TE.fromEither(decode(LoanApplicationInput)(command)),
      TE.filterOrElseW(
        (cmd) => cmd.party_id === undefined || cmd.party_id === caller.partyId.toLowerCase(),
        (): PartyMismatch => partyMismatch,
      ),
      TE.chainFirstW(() => loadCallerParty(deps.parties)(caller)),
      TE.chainW((cmd) =>
        pipe(
          productFor(deps.products)({ productId: cmd.product_id, amount: cmd.amount, currency: cmd.currency, termMonths: cmd.term_months }),
          TE.map((product) => newLoanApplication(cmd, { partyId: caller.partyId, clientId: caller.clientId }, product, newId(deps.ids), deps.clock.now())),
        ),
      ),
      TE.chainFirstW(deps.applications.insert),
    )

/** The key's party's application `applicationId`. */
export const getLoanApplication =
  (deps: { readonly applications: Pick<LoanApplicationRepository, 'findForParty'> }) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadApplicationError, LoanApplication> =>
    loadOwnApplication(deps.applications)(caller, command)

/** What the application changes need. */
export type ChangeApplicationDeps = {
  readonly applications: Pick<LoanApplicationRepository, 'findForParty' | 'save'>
  readonly products: Pick<LoanProductRepository, 'findById'>
  /** For the events a change writes. */
  readonly ids: IdGenerator
  readonly clock: Clock
}
/** Why an application change fails. */
export type ChangeApplicationError = LoadApplicationError | InvalidState | ConcurrentUpdate

/** Edits a draft by merge patch (`null` clears `purpose`), re-validated and re-priced by the product. */
export const updateLoanApplication =
  (deps: ChangeApplicationDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<ChangeApplicationError, LoanApplication> =>
    pipe(
      loadOwnApplication(deps.applications)(caller, command),
      TE.chainFirstEitherKW((a) => applicationTransition(a.status, 'edit')),
      TE.chainW((a) =>
        pipe(
          TE.fromEither(decode(UpdateApplicationCommand)(command)),
          TE.map((patch) => patchLoanApplication(a, patch, deps.clock.now())),
        ),
      ),
      TE.chainW((patched) => pipe(productFor(deps.products)(patched), TE.map((product) => pricedBy(patched, product)))),
      TE.chainW((application) => deps.applications.save(application, NOT_AUDITED, [])),
    )

const loadForAction = (
  deps: { readonly applications: Pick<LoanApplicationRepository, 'findForParty'> },
  caller: Caller,
  command: unknown,
): TE.TaskEither<LoadApplicationError, LoanApplication> =>
  pipe(
    TE.fromEither(decode(ApplicationCommand)(command)),
    TE.chainW(() => loadOwnApplication(deps.applications)(caller, command)),
  )

/** `DRAFT` → `SUBMITTED`, re-validated and re-priced by the product as it is now; the terms are frozen from here on. */
export const submitLoanApplication =
  (deps: ChangeApplicationDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<ChangeApplicationError, LoanApplication> =>
    pipe(
      loadForAction(deps, caller, command),
      TE.chainW((a) =>
        pipe(
          TE.fromEither(applicationTransition(a.status, 'submit')),
          TE.chainW((status) =>
            pipe(
              productFor(deps.products)(a),
              TE.chainW((product) => {
                const now = deps.clock.now()
                const submitted: LoanApplication = { ...pricedBy(a, product), status, submittedAt: now, updatedAt: now }
                return deps.applications.save(submitted, NOT_AUDITED, [applicationEvent(deps.ids.next(), 'application.submitted', submitted, a, now)])
              }),
            ),
          ),
        ),
      ),
    )

/** `DRAFT` or `SUBMITTED` → `WITHDRAWN`, final. */
export const withdrawLoanApplication =
  (deps: Omit<ChangeApplicationDeps, 'products'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<ChangeApplicationError, LoanApplication> =>
    pipe(
      loadForAction(deps, caller, command),
      TE.chainW((a) =>
        pipe(
          TE.fromEither(applicationTransition(a.status, 'withdraw')),
          TE.map((status): LoanApplication => ({ ...a, status, updatedAt: deps.clock.now() })),
        ),
      ),
      TE.chainW((application) => deps.applications.save(application, NOT_AUDITED, [])),
    )

/** The fields of a schedule preview: optional `start_date`. */
export const SchedulePreviewQuery = strictObject('SchedulePreviewQuery', {}, { start_date: CalendarDate })

/** What a schedule preview needs beside the application: the product's servicing terms and today. */
export type SchedulePreviewDeps = { readonly products: Pick<LoanProductRepository, 'findById'>; readonly clock: Clock }

/**
 * The preview of the application `load` finds: its product's servicing terms, booked on
 * `start_date` (by default the product's today on `clockOf`'s clock for the application).
 */
const previewOf =
  (deps: Pick<SchedulePreviewDeps, 'products'>, load: (command: unknown) => TE.TaskEither<LoadApplicationError, LoanApplication>, clockOf: (a: LoanApplication) => TE.TaskEither<StoreUnavailable, Clock>) =>
  (command: unknown): TE.TaskEither<LoadApplicationError, SchedulePreview> =>
    pipe(
      TE.fromEither(decode(commandOf(['applicationId'], SchedulePreviewQuery))(command)),
      TE.chainW(({ start_date }) =>
        pipe(
          load(command),
          TE.chainW((a) =>
            pipe(
              TE.Do,
              TE.apS('product', deps.products.findById(a.productId)),
              TE.apS('clock', clockOf(a)),
              TE.map(({ product, clock }) => {
                const terms = O.isSome(product) ? product.value.servicing : DEFAULT_SERVICING_TERMS
                return schedulePreview(a, start_date ?? dateIn(terms.timeZone, clock.now()), terms)
              }),
            ),
          ),
        ),
      ),
    )

/** The schedule and disclosures the application's loan would have if booked on `start_date`: docs/applications.md "Schedule preview". */
export const previewLoanApplicationSchedule =
  (deps: SchedulePreviewDeps & { readonly applications: Pick<LoanApplicationRepository, 'findForParty'> }) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadApplicationError, SchedulePreview> =>
    previewOf(deps, (c) => loadOwnApplication(deps.applications)(caller, c), () => TE.right(deps.clock))(command)

/** The application `applicationId`, whoever's it is (operators: docs/console.md). */
const loadAnyApplication =
  (applications: Pick<LoanApplicationRepository, 'findById'>) =>
  (command: unknown): TE.TaskEither<LoadApplicationError, LoanApplication> =>
    pipe(
      TE.fromEither(decode(ApplicationParams)(command)),
      TE.chainW(({ applicationId }) => applications.findById(applicationId)),
      TE.chainW(TE.fromOption(() => notFound('loan_application'))),
    )

/** Any party's application `applicationId`, for a credit officer deciding it. */
export const getLoanApplicationForReview = (deps: { readonly applications: Pick<LoanApplicationRepository, 'findById'> }): ((command: unknown) => TE.TaskEither<LoadApplicationError, LoanApplication>) =>
  loadAnyApplication(deps.applications)

/**
 * `previewLoanApplicationSchedule` of any party's application, for a credit officer deciding it:
 * by default booked on its party's today, which in the test world may be its test clock's.
 */
export const previewLoanApplicationScheduleForReview = (
  deps: SchedulePreviewDeps & { readonly applications: Pick<LoanApplicationRepository, 'findById'>; readonly world: World; readonly testClocks: Pick<TestClockRepository, 'findForParty'> },
): ((command: unknown) => TE.TaskEither<LoadApplicationError, SchedulePreview>) => previewOf(deps, loadAnyApplication(deps.applications), (a) => partyClock(deps)(a.partyId))

/** The filter of application lists. */
export const ApplicationStatusFilter = queryFilters('ApplicationFilter', { status: oneOf('ApplicationStatus', APPLICATION_STATUSES) })

/** The key's party's applications, oldest first, a page at a time. */
export const listPartyApplications =
  (deps: { readonly applications: Pick<LoanApplicationRepository, 'list'> }) =>
  (caller: Caller, command: unknown): TE.TaskEither<InvalidRequest | PartyMismatch | StoreUnavailable, Page<LoanApplication>> =>
    pipe(
      TE.fromEither(requireCommandParty(caller, command)),
      TE.chainEitherKW(() => decodeFilteredPageRequest(ApplicationStatusFilter, command, ['partyId'])),
      TE.chainW(({ filter, page }) =>
        pipe(
          deps.applications.list({ of: 'party', partyId: caller.partyId, ...(filter.status === undefined ? {} : { status: filter.status }) }, page),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )

