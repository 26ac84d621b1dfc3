import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { OPERATOR_CONTEXT, productCreatedEvent, productUpdatedEvent, type AuditContext } from '../../domain/audit-event.js'
import { decode, oneOf } from '../../domain/codecs.js'
import { notFound, type AlreadyExists, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/errors.js'
import { checkRanges, LoanProductInput, LoanProductPatch, newLoanProduct, patchLoanProduct, type LoanProduct } from '../../domain/loan-product.js'
import { decodeFilteredPageRequest, decodePageRequest, pageOf, queryFilters, type Page } from '../../domain/pagination.js'
import { pathParameters } from '../../domain/path-parameters.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanProductRepository } from '../../ports/loan-product-repository.js'

/** The loan product catalogue: what partners may apply for, and how operators manage it. */

type ProductsDeps = { readonly products: Pick<LoanProductRepository, 'list'> }

/**
 * Every active product, oldest first (spec §4.3: no per-party eligibility). The caller's party
 * has already been checked against the path by the HTTP edge.
 */
export const listAvailableLoanProductsForParty =
  (deps: ProductsDeps) =>
  (query: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<LoanProduct>> =>
    pipe(
      TE.fromEither(decodePageRequest(query)),
      TE.chainW((page) => pipe(deps.products.list(true, page), TE.map((rows) => pageOf(rows, page.limit)))),
    )

export const ProductActiveFilter = queryFilters('ProductFilter', { active: oneOf('Active', ['true', 'false']) })

/** Every product, or only active / inactive ones (`?active=true|false`): the operators' view. */
export const listLoanProducts =
  (deps: ProductsDeps) =>
  (query: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<LoanProduct>> =>
    pipe(
      TE.fromEither(decodeFilteredPageRequest(ProductActiveFilter, query)),
      TE.chainW(({ filter, page }) =>
        pipe(
          deps.products.list(filter.active === undefined ? undefined : filter.active === 'true', page),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )

export type ManageProductsDeps = {
  readonly products: LoanProductRepository
  readonly ids: IdGenerator
  readonly clock: Clock
}

/** Adds a product to the catalogue, with its `loan_product.created` audit event. */
export const createLoanProduct =
  (deps: ManageProductsDeps) =>
  (input: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | AlreadyExists | StoreUnavailable, LoanProduct> =>
    pipe(
      TE.fromEither(decode(LoanProductInput)(input)),
      TE.map((cmd) => newLoanProduct(cmd, deps.ids.next(), deps.clock.now())),
      TE.chainEitherKW((product) => checkRanges(product)),
      TE.chainFirstW((product) => deps.products.insert(product, productCreatedEvent(deps.ids.next(), context, product))),
    )

const ProductParams = pathParameters('productId')

/**
 * Changes fields of a product by a merge patch (`LoanProductPatch`); applications already
 * submitted keep their terms. The `loan_product.updated` audit event records each field that
 * changed, before and after.
 */
export const updateLoanProduct =
  (deps: ManageProductsDeps) =>
  (params: unknown, input: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, LoanProduct> =>
    pipe(
      TE.fromEither(decode(ProductParams)(params)),
      TE.chainW(({ productId }) => deps.products.findById(productId)),
      TE.chainW(TE.fromOption(() => notFound('loan_product'))),
      TE.chainW((product) =>
        pipe(
          TE.fromEither(decode(LoanProductPatch)(input)),
          TE.chainEitherKW((patch) => checkRanges(patchLoanProduct(product, patch, deps.clock.now()), Object.keys(patch))),
          TE.chainFirstW((updated) => deps.products.update(updated, productUpdatedEvent(deps.ids.next(), context, product, updated))),
        ),
      ),
    )
