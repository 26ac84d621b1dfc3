import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { alreadyExists } from '../domain/foundations/errors.js'
import type { LoanProduct } from '../domain/loans/loan-product.js'
import type { LoanProductRepository } from '../ports/loan-product-repository.js'
import { inMemoryAuditLog, type InMemoryAuditLog } from './in-memory-audit-log.js'
import { inMemoryPage } from './in-memory-paging.js'

/** The product catalogue in memory, starting with `seed`; writes append their audit events to `audit`. */
export const inMemoryLoanProductRepository = (
  seed: readonly LoanProduct[] = [],
  audit: InMemoryAuditLog = inMemoryAuditLog(),
): LoanProductRepository & {
  /** Every product stored. */
  readonly all: () => readonly LoanProduct[]
  readonly audit: InMemoryAuditLog
} => {
  const products = new Map(seed.map((p) => [p.id, p]))
  return {
    all: () => [...products.values()],
    audit,
    insert: (product, event) => {
      if (products.has(product.id)) return TE.left(alreadyExists('loan_product'))
      products.set(product.id, product)
      audit.append(event)
      return TE.right(undefined)
    },
    update: (product, event) =>
      TE.fromIO(() => {
        if (!products.has(product.id)) return
        products.set(product.id, product)
        audit.append(event)
      }),
    findById: (id) => TE.right(O.fromNullable(products.get(id))),
    list: (active, page) =>
      TE.right(
        inMemoryPage(
          [...products.values()].filter((p) => active === undefined || p.active === active),
          page,
        ),
      ),
  }
}
