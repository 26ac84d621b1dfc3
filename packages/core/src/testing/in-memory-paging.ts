import * as O from 'fp-ts/lib/Option.js'
import { isAfter, type PageRequest, type Position } from '../domain/foundations/pagination.js'

const byPosition = (a: Position, b: Position): number =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * What a repository's list answers, in memory: the rows strictly after the page's cursor, in
 * `(createdAt, id)` order (or the order `positionOf` gives), at most `limit + 1` of them.
 */
export const inMemoryPage = <A>(rows: readonly A[], page: PageRequest, positionOf: (row: A) => Position = (row) => row as Position): A[] =>
  rows
    .filter((row) => O.isNone(page.after) || isAfter(positionOf(row), page.after.value))
    .sort((a, b) => byPosition(positionOf(a), positionOf(b)))
    .slice(0, page.limit + 1)
