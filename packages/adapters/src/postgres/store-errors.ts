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

/** Runs a query, turning any thrown error into `StoreUnavailable`. */
export const query = <A>(run: () => Promise<A>): TE.TaskEither<StoreUnavailable, A> => TE.tryCatch(run, asStoreUnavailable)
