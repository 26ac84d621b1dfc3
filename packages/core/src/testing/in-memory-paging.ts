import * as O from 'fp-ts/lib/Option.js'
import { isAfter, type PageRequest, type Position } from '../domain/foundations/pagination.js'

const byPosition = (a: Position, b: Position): number =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** Rows strictly after the cursor, in list order, at most `limit + 1`. */
export const inMemoryPage = <A>(rows: readonly A[], page: PageRequest, positionOf: (row: A) => Position = (row) => row as Position): A[] =>
  rows
    .filter((row) => O.isNone(page.after) || isAfter(positionOf(row), page.after.value))
    .sort((a, b) => byPosition(positionOf(a), positionOf(b)))
    .slice(0, page.limit + 1)
