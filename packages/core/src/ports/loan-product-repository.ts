import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { AlreadyExists, StoreUnavailable } from '../domain/foundations/errors.js'
import type { LoanProduct } from '../domain/loans/loan-product.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { ProductId } from '../domain/foundations/ids.js'

/** The loan product catalogue. Each write stores its `audit` event in the same transaction. */
export type LoanProductRepository = {
  /** Stores a new product; `AlreadyExists` if its id is taken. */
  readonly insert: (product: LoanProduct, audit: AuditEvent) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
  /** Overwrites the product with the same id (operators' edits; last write wins). */
  readonly update: (product: LoanProduct, audit: AuditEvent) => TE.TaskEither<StoreUnavailable, void>
  /** The product `id`, active or not. */
  readonly findById: (id: ProductId) => TE.TaskEither<StoreUnavailable, O.Option<LoanProduct>>
  /**
   * One page in `(createdAt, id)` order, only active (or only inactive) products when `active`
   * is given: at most `page.limit + 1` rows (the extra one tells there is a next page).
   */
  readonly list: (active: boolean | undefined, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly LoanProduct[]>
}
