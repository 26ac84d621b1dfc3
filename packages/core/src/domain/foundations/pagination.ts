import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { decode, isUuid, jsonSchemaOf, stringMatching, strictObject, withSchema } from './codecs.js'
import { invalidRequest, type InvalidRequest } from './errors.js'
import { instantText } from './instant.js'
import { commandOf, type PathParameterName } from './path-parameters.js'

/** Cursor pagination (CONTRACT.md "Lists"): `(created_at, id)` ascending; the cursor is validated, never trusted. */

const DEFAULT_PAGE_LIMIT = 20
const MAX_PAGE_LIMIT = 100

/** A row's place in `(createdAt, id)` order. */
export type Position = { readonly createdAt: Date; readonly id: string }

/** At most `limit` items (1 to 100, default 20) strictly after `after`. */
export type PageRequest = { readonly limit: number; readonly after: O.Option<Position> }

/** `nextCursor` is null on the last page. */
export type Page<A> = { readonly items: readonly A[]; readonly nextCursor: string | null }

/** The body of every list route. */
export type ListEnvelope<V> = { readonly data: readonly V[]; readonly next_cursor: string | null }

/** A page as a list body, each item through `view`. */
export const envelope =
  <A, V>(view: (a: A) => V) =>
  (page: Page<A>): ListEnvelope<V> => ({ data: page.items.map(view), next_cursor: page.nextCursor })

const toBase64Url = (text: string): string =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

const fromBase64Url = (text: string): string =>
  new TextDecoder('utf-8', { fatal: true }).decode(
    Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (ch) => ch.charCodeAt(0)),
  )

export const encodeCursor = (position: Position): string =>
  toBase64Url(JSON.stringify([instantText(position.createdAt), position.id]))

const CURSOR_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** `isId` says what a row id of the list looks like: a forged cursor is refused here, never reaching SQL. */
export const decodeCursor = (cursor: string, isId: (id: string) => boolean = isUuid): E.Either<InvalidRequest, Position> => {
  const bad = invalidRequest('cursor is not a cursor returned by this list', 'cursor')
  try {
    const parsed: unknown = JSON.parse(fromBase64Url(cursor))
    if (!Array.isArray(parsed) || parsed.length !== 2) return E.left(bad)
    const [at, id] = parsed as unknown[]
    if (typeof at !== 'string' || typeof id !== 'string' || !isId(id)) return E.left(bad)
    // Only encodeCursor's form, years 0001-9999: others round-trip here but fail in SQL.
    if (!CURSOR_INSTANT.test(at) || at.startsWith('0000')) return E.left(bad)
    const createdAt = new Date(at)
    return Number.isNaN(createdAt.getTime()) || instantText(createdAt) !== at ? E.left(bad) : E.right({ createdAt, id })
  } catch {
    return E.left(bad)
  }
}

const LIMIT_TEXT = /^(100|[1-9][0-9]?)$/

/** 1 to 100, or its decimal text as a query string carries it. */
const PageLimit = withSchema(new t.Type<number, number, unknown>(
  'Limit',
  (u): u is number => typeof u === 'number' && Number.isInteger(u) && u >= 1 && u <= MAX_PAGE_LIMIT,
  (u, c) => {
    if (typeof u === 'number' && Number.isInteger(u) && u >= 1 && u <= MAX_PAGE_LIMIT) return t.success(u)
    return typeof u === 'string' && LIMIT_TEXT.test(u) ? t.success(Number(u)) : t.failure(u, c, `must be an integer from 1 to ${MAX_PAGE_LIMIT}`)
  },
  t.identity,
), { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT, description: 'How many records a page holds' })

const cursorText = stringMatching('Cursor', /^[A-Za-z0-9_-]{1,512}$/, 'is not a cursor returned by this list')

const Cursor = withSchema(cursorText, { ...jsonSchemaOf(cursorText), description: 'The `next_cursor` of the previous page; left out, the first page' })

/** The page fields of a list command: `limit` (default 20) and `cursor`. */
export const PageQuery = strictObject(
  'PageQuery',
  {},
  {
    limit: PageLimit,
    cursor: Cursor,
  },
)

/** Decodes a list command's page after its identifiers `ids`; any other field is refused by name. */
export const decodePageRequest = (command: unknown, ids: readonly PathParameterName[] = [], isId: (id: string) => boolean = isUuid): E.Either<InvalidRequest, PageRequest> =>
  pipe(
    decode(commandOf(ids, PageQuery))(command),
    E.chain(({ limit, cursor }) =>
      pipe(
        cursor === undefined ? E.right(O.none) : pipe(decodeCursor(cursor, isId), E.map(O.some)),
        E.map((after): PageRequest => ({ limit: limit ?? DEFAULT_PAGE_LIMIT, after })),
      ),
    ),
  )

/** A list's query decoded: its filter, `limit` (default 20) and the cursor as sent, which the list's order reads. */
export type FilteredQuery<F> = { readonly filter: F; readonly limit: number; readonly cursor: string | undefined }

/** The fields `filter` declares decoded by it, `limit` and `cursor` after the identifiers `ids`; any other field is refused by name. */
export const decodeFilteredQuery = <F>(
  filter: t.Type<F, F, unknown> & { readonly filterKeys: readonly string[] },
  command: unknown,
  ids: readonly PathParameterName[] = [],
): E.Either<InvalidRequest, FilteredQuery<F>> => {
  const record = (typeof command === 'object' && command !== null ? command : {}) as Record<string, unknown>
  const own = Object.fromEntries(Object.entries(record).filter(([k]) => filter.filterKeys.includes(k)))
  const rest = Object.fromEntries(Object.entries(record).filter(([k]) => !filter.filterKeys.includes(k)))
  return pipe(
    decode(commandOf(ids, t.UnknownRecord))(rest),
    E.chain(() => decode(filter)(own)),
    E.chain((f) => pipe(decode(commandOf(ids, PageQuery))(rest), E.map(({ limit, cursor }) => ({ filter: f, limit: limit ?? DEFAULT_PAGE_LIMIT, cursor })))),
  )
}

/** Like `decodePageRequest`, with the fields `filter` declares decoded by it. */
export const decodeFilteredPageRequest = <F>(
  filter: t.Type<F, F, unknown> & { readonly filterKeys: readonly string[] },
  command: unknown,
  ids: readonly PathParameterName[] = [],
  isId: (id: string) => boolean = isUuid,
): E.Either<InvalidRequest, { readonly filter: F; readonly page: PageRequest }> =>
  pipe(
    decodeFilteredQuery(filter, command, ids),
    E.chain(({ filter: f, limit, cursor }) =>
      pipe(
        cursor === undefined ? E.right(O.none) : pipe(decodeCursor(cursor, isId), E.map(O.some)),
        E.map((after) => ({ filter: f, page: { limit, after } })),
      ),
    ),
  )

/**
 * The cursor of a list in an order other than `(created_at, id)`: the order's name, the last
 * row's key in it (a string, a number or null) and its id.
 */
export const encodeKeyedCursor = (order: string, key: string | number | null, id: string): string => toBase64Url(JSON.stringify([order, key, id]))

/**
 * The key and id of a cursor `encodeKeyedCursor` made for `order`: `keyOf` reads the key (none
 * when it is not one of the order's) and `isId` checks the id. A cursor of another order, of the
 * default order, or forged is refused here, never reaching SQL.
 */
export const decodeKeyedCursor = <K>(
  cursor: string,
  order: string,
  keyOf: (key: unknown) => O.Option<K>,
  isId: (id: string) => boolean = isUuid,
): E.Either<InvalidRequest, { readonly key: K; readonly id: string }> => {
  const bad = invalidRequest('cursor is not a cursor returned by this list in this sort', 'cursor')
  try {
    const parsed: unknown = JSON.parse(fromBase64Url(cursor))
    if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== order) return E.left(bad)
    const [, raw, id] = parsed as unknown[]
    const key = keyOf(raw)
    // Lower case only, as ids are written: a list in memory orders them as text.
    return typeof id === 'string' && id === id.toLowerCase() && isId(id) && O.isSome(key) ? E.right({ key: key.value, id }) : E.left(bad)
  } catch {
    return E.left(bad)
  }
}

export const queryFilters = <P extends Record<string, t.Mixed>>(name: string, fields: P) =>
  Object.assign(strictObject(name, {}, fields), { filterKeys: Object.keys(fields) })

/** A page from up to `limit + 1` rows in list order: the extra row only tells there is a next page. */
export const pageOf = <A extends Position>(rows: readonly A[], limit: number): Page<A> => pageBy(rows, limit, (row) => row)

export const pageBy = <A>(rows: readonly A[], limit: number, positionOf: (row: A) => Position): Page<A> => pageWith(rows, limit, (row) => encodeCursor(positionOf(row)))

/** A page from up to `limit + 1` rows in list order, its next cursor `cursorAt` its last item (a list in another order's cursor). */
export const pageWith = <A>(rows: readonly A[], limit: number, cursorAt: (row: A) => string): Page<A> => {
  const items = rows.slice(0, limit)
  const last = items[items.length - 1]
  return { items, nextCursor: rows.length > limit && last !== undefined ? cursorAt(last) : null }
}

/** The position of a row ordered by `(createdAt, sequence)`: the sequence zero-padded so ids compare as numbers. */
export const sequencePosition = (row: { readonly createdAt: Date; readonly sequence: number }): Position => ({
  createdAt: row.createdAt,
  id: String(row.sequence).padStart(19, '0'),
})

export const isSequenceId = (id: string): boolean => /^\d{19}$/.test(id)

export const isAfter = (row: Position, position: Position): boolean =>
  row.createdAt.getTime() > position.createdAt.getTime() ||
  (row.createdAt.getTime() === position.createdAt.getTime() && row.id > position.id)

