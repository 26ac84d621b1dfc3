import { testId, type TestId } from '../test-ids.js'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'

export type Implementation<P> = { readonly name: string; readonly make: () => Promise<P> }

export const right = async <A>(task: TE.TaskEither<unknown, A>): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) throw new Error(`expected Right, got Left: ${JSON.stringify(result.left)}`)
  return result.right
}

/** Random, so tests sharing one database never collide. */
export const freshId = (): TestId => testId(globalThis.crypto.randomUUID())

/** Milliseconds, the precision the domain keeps. */
export const at = (iso: string): Date => new Date(iso)
