import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { alreadyExists } from '../domain/errors.js'
import type { LoanProduct } from '../domain/loan-product.js'
import type { LoanProductRepository } from '../ports/loan-product-repository.js'
import { inMemoryPage } from './in-memory-paging.js'

export const inMemoryLoanProductRepository = (seed: readonly LoanProduct[] = []): LoanProductRepository & { readonly all: () => readonly LoanProduct[] } => {
  const products = new Map(seed.map((p) => [p.id, p]))
  return {
    all: () => [...products.values()],
    insert: (product) => {
      if (products.has(product.id)) return TE.left(alreadyExists('loan_product'))
      products.set(product.id, product)
      return TE.right(undefined)
    },
    update: (product) =>
      TE.fromIO(() => {
        if (products.has(product.id)) products.set(product.id, product)
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
