import { alreadyExists, storeUnavailable, type AlreadyExists, type StoreUnavailable } from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'

const UNIQUE_VIOLATION = '23505'

const codeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : undefined

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
