import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { pipe } from 'fp-ts/lib/function.js'
import { CalendarDate } from '../foundations/codecs.js'
import type { InvalidRequest } from '../foundations/errors.js'
import { decodeCursor, decodeKeyedCursor, encodeCursor, encodeKeyedCursor, isAfter, pageWith, type Page, type PageRequest } from '../foundations/pagination.js'
import type { LoanSummary } from './loan.js'

/**
 * The orders an operator's loan list sorts by (docs/console.md "Sorting"), each a key and then
 * the loan's id, each served by an index:
 * - `created_at`: oldest first, the order of every list (and its cursor);
 * - `oldest_unpaid_due_date`: the oldest unpaid installment first (a loan that owes nothing, none,
 *   last): in the live world, where every loan lives on the service's calendar, the longest past
 *   due first; a party on a test clock counts its days from its own today;
 * - `-principal`: largest principal first, ties by id from the last.
 */
export const LOAN_SORTS = ['created_at', 'oldest_unpaid_due_date', '-principal'] as const
/** One of `LOAN_SORTS`. */
export type LoanSort = (typeof LOAN_SORTS)[number]

/** A loan's place in `oldest_unpaid_due_date` order. */
export type UnpaidPosition = { readonly oldestUnpaidDueDate: string | null; readonly id: string }
/** A loan's place in `-principal` order. */
export type PrincipalPosition = { readonly principal: number; readonly id: string }

/** At most `limit` loans in `sort` order strictly after `after`. */
export type LoanPage =
  | ({ readonly sort: 'created_at' } & PageRequest)
  | { readonly sort: 'oldest_unpaid_due_date'; readonly limit: number; readonly after: O.Option<UnpaidPosition> }
  | { readonly sort: '-principal'; readonly limit: number; readonly after: O.Option<PrincipalPosition> }

/** `page` in the lists' own order, oldest first. */
export const oldestFirst = (page: PageRequest): LoanPage => ({ sort: 'created_at', ...page })

const unpaidKey = (key: unknown): O.Option<string | null> => (key === null || CalendarDate.is(key) ? O.some(key) : O.none)
const principalKey = (key: unknown): O.Option<number> => (typeof key === 'number' && Number.isSafeInteger(key) && key >= 0 ? O.some(key) : O.none)

/** A page of `limit` loans in `sort` order after `cursor` (a cursor of that order, or none for the first page). */
export const decodeLoanPage = (sort: LoanSort, limit: number, cursor: string | undefined): E.Either<InvalidRequest, LoanPage> => {
  if (cursor === undefined) return E.right({ sort, limit, after: O.none })
  switch (sort) {
    case 'created_at':
      return pipe(decodeCursor(cursor), E.map((after) => ({ sort, limit, after: O.some(after) })))
    case 'oldest_unpaid_due_date':
      return pipe(decodeKeyedCursor(cursor, sort, unpaidKey), E.map(({ key, id }) => ({ sort, limit, after: O.some({ oldestUnpaidDueDate: key, id }) })))
    case '-principal':
      return pipe(decodeKeyedCursor(cursor, sort, principalKey), E.map(({ key, id }) => ({ sort, limit, after: O.some({ principal: key, id }) })))
  }
}

/** The cursor of a page of `sort` that ends at `loan`. */
const cursorAt = (sort: LoanSort, loan: LoanSummary): string => {
  switch (sort) {
    case 'created_at':
      return encodeCursor(loan)
    case 'oldest_unpaid_due_date':
      return encodeKeyedCursor(sort, loan.oldestUnpaidDueDate, loan.id)
    case '-principal':
      return encodeKeyedCursor(sort, loan.principal, loan.id)
  }
}

/** A page from up to `limit + 1` rows in `page`'s order, its cursor in that order. */
export const loanPageOf = <A>(rows: readonly A[], page: LoanPage, loanOf: (row: A) => LoanSummary): Page<A> => pageWith(rows, page.limit, (row) => cursorAt(page.sort, loanOf(row)))

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
/** A due date as the order compares it: none after every date. */
const unpaidText = (date: string | null): string => date ?? '9999-12-31~'

/** What the orders compare of a loan. */
export type OrderedLoan = { readonly createdAt: Date; readonly id: string; readonly oldestUnpaidDueDate: string | null; readonly principal: number }

/** How `sort` orders two loans (what the SQL of the PostgreSQL adapter orders by). */
export const compareLoansIn =
  (sort: LoanSort) =>
  (a: OrderedLoan, b: OrderedLoan): number => {
    switch (sort) {
      case 'created_at':
        return a.createdAt.getTime() - b.createdAt.getTime() || byText(a.id, b.id)
      case 'oldest_unpaid_due_date':
        return byText(unpaidText(a.oldestUnpaidDueDate), unpaidText(b.oldestUnpaidDueDate)) || byText(a.id, b.id)
      case '-principal':
        return b.principal - a.principal || byText(b.id, a.id)
    }
  }

/** Whether `loan` comes after `page.after` in the page's order (every loan does on a first page). */
export const isAfterIn =
  (page: LoanPage) =>
  (loan: LoanSummary): boolean => {
    switch (page.sort) {
      case 'created_at':
        return O.isNone(page.after) || isAfter(loan, page.after.value)
      case 'oldest_unpaid_due_date':
      case '-principal':
        return O.isNone(page.after) || compareLoansIn(page.sort)(loan, { ...loan, ...page.after.value }) > 0
    }
  }
