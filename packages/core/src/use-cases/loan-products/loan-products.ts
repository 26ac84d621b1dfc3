import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { OPERATOR_CONTEXT, productCreatedEvent, productUpdatedEvent, type AuditContext } from '../../domain/audit/audit-event.js'
import { decode, oneOf } from '../../domain/foundations/codecs.js'
import { notFound, type AlreadyExists, type InvalidRequest, type NotFound, type PartyMismatch, type StoreUnavailable } from '../../domain/foundations/errors.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { requireCommandParty } from '../api-keys/authorize.js'
import { checkProduct, LoanProductInput, LoanProductPatch, newLoanProduct, patchLoanProduct, type LoanProduct } from '../../domain/loans/loan-product.js'
import { decodeFilteredPageRequest, decodePageRequest, pageOf, queryFilters, type Page } from '../../domain/foundations/pagination.js'
import { commandOf, pathParameters } from '../../domain/foundations/path-parameters.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanProductRepository } from '../../ports/loan-product-repository.js'
import { newId } from '../../domain/foundations/ids.js'


/** What the product listings need. */
export type ProductsDeps = { readonly products: Pick<LoanProductRepository, 'list'> }

/** Every active product, oldest first (spec §4.3: no per-party eligibility). */
export const listAvailableLoanProductsForParty =
  (deps: ProductsDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<InvalidRequest | PartyMismatch | StoreUnavailable, Page<LoanProduct>> =>
    pipe(
      TE.fromEither(requireCommandParty(caller, command)),
      TE.chainEitherKW(() => decodePageRequest(command, ['partyId'])),
      TE.chainW((page) => pipe(deps.products.list(true, page), TE.map((rows) => pageOf(rows, page.limit)))),
    )

/** Optionally `active`, as query text. */
export const ProductActiveFilter = queryFilters('ProductFilter', { active: oneOf('Active', ['true', 'false']) })

/** Every product, or only active or inactive ones, oldest first: the operators' view. */
export const listLoanProducts =
  (deps: ProductsDeps) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<LoanProduct>> =>
    pipe(
      TE.fromEither(decodeFilteredPageRequest(ProductActiveFilter, command)),
      TE.chainW(({ filter, page }) =>
        pipe(
          deps.products.list(filter.active === undefined ? undefined : filter.active === 'true', page),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )

/** What the product management use cases need. */
export type ManageProductsDeps = {
  readonly products: LoanProductRepository
  readonly ids: IdGenerator
  readonly clock: Clock
}

/** Adds a product whose every bookable loan amortizes (`checkProduct`), audited. Not idempotent. */
export const createLoanProduct =
  (deps: ManageProductsDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | AlreadyExists | StoreUnavailable, LoanProduct> =>
    pipe(
      TE.fromEither(decode(LoanProductInput)(command)),
      TE.map((cmd) => newLoanProduct(cmd, newId(deps.ids), deps.clock.now())),
      TE.chainEitherKW((product) => checkProduct(product)),
      TE.chainFirstW((product) => deps.products.insert(product, productCreatedEvent(deps.ids.next(), context, product))),
    )

const UpdateProductCommand = commandOf(['productId'], LoanProductPatch)

/** Merge-patches a product, audited field by field; submitted applications keep their terms. */
export const updateLoanProduct =
  (deps: ManageProductsDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, LoanProduct> =>
    pipe(
      TE.fromEither(decode(pathParameters('productId'))(command)),
      TE.chainW(({ productId }) => deps.products.findById(productId)),
      TE.chainW(TE.fromOption(() => notFound('loan_product'))),
      TE.chainW((product) =>
        pipe(
          TE.fromEither(decode(UpdateProductCommand)(command)),
          TE.chainEitherKW((patch) => checkProduct(patchLoanProduct(product, patch, deps.clock.now()), Object.keys(patch))),
          TE.chainFirstW((updated) => deps.products.update(updated, productUpdatedEvent(deps.ids.next(), context, product, updated))),
        ),
      ),
    )
