import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { AlreadyExists, StoreUnavailable } from '../domain/foundations/errors.js'
import type { LoanProduct } from '../domain/loans/loan-product.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { ProductId } from '../domain/foundations/ids.js'

/** The product catalogue; each write stores its `audit` event in its transaction. */
export type LoanProductRepository = {
  /** `AlreadyExists` if the id is taken. */
  readonly insert: (product: LoanProduct, audit: AuditEvent) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
  /** Last write wins. */
  readonly update: (product: LoanProduct, audit: AuditEvent) => TE.TaskEither<StoreUnavailable, void>
  /** Active or not. */
  readonly findById: (id: ProductId) => TE.TaskEither<StoreUnavailable, O.Option<LoanProduct>>
  /** Only active or inactive ones when `active` is given. */
  readonly list: (active: boolean | undefined, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly LoanProduct[]>
}
