import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { JourneyFailure, JourneyReport } from './journey.js'

/** An error's fields for the log; a `cause` (an exception) is reduced to its message, never its stack. */
const loggable = (error: unknown): unknown => {
  if (error instanceof Error) return `${error.name}: ${error.message}`
  if (typeof error !== 'object' || error === null) return error
  return Object.fromEntries(Object.entries(error).map(([field, value]) => [field, value instanceof Error ? `${value.name}: ${value.message}` : value]))
}

/** A failure as one line of JSON: the step and its error. Errors carry no secrets (a key's plaintext is never in one). */
export const describeFailure = (failure: JourneyFailure): string => JSON.stringify({ step: failure.step, error: loggable(failure.error) })

/**
 * Runs the journey and says how it went: the report as JSON on stdout and 0, or the failed
 * step and its error on stderr and 1 (the process's exit code).
 */
export const runAndReport = async (journey: TE.TaskEither<JourneyFailure, JourneyReport>): Promise<number> => {
  const result = await journey()
  if (E.isLeft(result)) {
    console.error(`The journey failed: ${describeFailure(result.left)}`)
    return 1
  }
  console.log(JSON.stringify(result.right, null, 2))
  return 0
}
