import { alreadyExists, storeUnavailable, type AlreadyExists, type StoreUnavailable } from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'

const UNIQUE_VIOLATION = '23505'

const codeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : undefined

/** An error PostgreSQL (or the embedded engine) raised: it carries a SQLSTATE and a severity. */
type DatabaseError = Error & {
  readonly code: string
  readonly severity: string
  readonly routine?: string
  readonly constraint?: string
  readonly table?: string
  readonly column?: string
  readonly schema?: string
  readonly dataType?: string
}

const isDatabaseError = (error: unknown): error is DatabaseError => {
  if (!(error instanceof Error)) return false
  const { code, severity } = error as Partial<DatabaseError>
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string'
}

/**
 * SQLSTATEs of a value the database refused for what it is (class 22, the data exceptions a
 * request's value can cause): too long, out of range, a bad date, text it cannot hold, text
 * that is not of the column's type. The codecs refuse all of these first; this is the net.
 */
const REFUSED_VALUE = new Set(['22001', '22003', '22007', '22008', '22021', '22P02', '22P05'])

/**
 * SQLSTATEs of a statement that lost to another at the same moment: a unique violation, a
 * foreign key violation (a write naming a record that a wipe of the test world deleted
 * meanwhile, decision 132; every other write names records it has just read), a serialization
 * failure, a deadlock.
 */
const LOST_RACE = new Set([UNIQUE_VIOLATION, '23503', '40001', '40P01'])

/**
 * What a store failure's `cause` says about the request (`StoreUnavailable.cause`, for the HTTP
 * layer's answer): `refused_value`, a value the store cannot hold (the request's fault: 4xx);
 * `lost_race`, a statement beaten by a concurrent one that nothing more specific caught (retry:
 * 409); `failure`, anything else (an outage or a bug: 500).
 */
/** Whether `error` is PostgreSQL's `lock_not_available` (55P03): a statement gave up waiting for a lock at its `lock_timeout`. */
export const isLockNotAvailable = (error: unknown): boolean => isDatabaseError(error) && error.code === '55P03'

export const storeFailureKind = (cause: unknown): 'refused_value' | 'lost_race' | 'failure' => {
  if (!isDatabaseError(cause)) return 'failure'
  if (REFUSED_VALUE.has(cause.code)) return 'refused_value'
  return LOST_RACE.has(cause.code) ? 'lost_race' : 'failure'
}

/**
 * A database error as it may be logged: its SQLSTATE, severity and routine, the names of the
 * constraint, table, column and type involved, and its message up to its first quote;
 * never its detail, context, hint, query text or stack, which can carry the statement's
 * parameters and rows (PostgreSQL's CONTEXT shows a portal's parameter values; a unique
 * violation's DETAIL shows the key). Undefined for an error that is not the database's.
 */
export const loggableDatabaseError = (error: unknown): Record<string, string> | undefined => {
  if (!isDatabaseError(error)) return undefined
  const named = { routine: error.routine, constraint: error.constraint, table: error.table, column: error.column, schema: error.schema, data_type: error.dataType }
  return {
    type: 'DatabaseError',
    code: error.code,
    severity: error.severity,
    // PostgreSQL quotes values without escaping the quotes inside them: everything from the
    // first quote on is dropped (a constraint or type named there is in its own field).
    message: error.message.replace(/["'].*$/s, '"…"'),
    ...Object.fromEntries(Object.entries(named).filter((entry): entry is [string, string] => typeof entry[1] === 'string')),
  }
}

/** Any database failure, as the one tag the domain knows. The error itself goes to the logs only. */
export const asStoreUnavailable = (error: unknown): StoreUnavailable => storeUnavailable(error)

/** A unique violation as `AlreadyExists(entity)`; anything else as `StoreUnavailable`. */
export const asWriteError =
  (entity: string) =>
  (error: unknown): AlreadyExists | StoreUnavailable =>
    codeOf(error) === UNIQUE_VIOLATION ? alreadyExists(entity) : storeUnavailable(error)

/** Runs a statement, turning any failure (a rejection, or a throw before the promise) into `onError`'s Left. */
export const attempt = <E, A>(run: () => Promise<A>, onError: (error: unknown) => E): TE.TaskEither<E, A> => TE.tryCatch(run, onError)

/** Runs a query, turning any failure into `StoreUnavailable`. */
export const query = <A>(run: () => Promise<A>): TE.TaskEither<StoreUnavailable, A> => attempt(run, asStoreUnavailable)
