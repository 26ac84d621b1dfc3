import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { testDataWipedEvent, type AuditContext } from '../../domain/audit/audit-event.js'
import { decode, EmptyInput } from '../../domain/foundations/codecs.js'
import type { InvalidRequest, InvalidState, StoreUnavailable } from '../../domain/foundations/errors.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import type { Caller } from '../../domain/keys/api-key.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { TestData, WipedTestData } from '../../ports/test-data.js'

const WipeCommand = commandOf([], EmptyInput)

/** What wiping needs: the test world's records, and what the audit event takes. */
export type WipeTestDataDeps = {
  readonly testData: TestData
  readonly ids: IdGenerator
  readonly clock: Clock
}

/**
 * Deletes every test-world record of the caller's API client (decision 132) and audits the wipe
 * as the caller's, with its counts. Only the test world has `testData`; the HTTP edge takes this
 * from test keys with `keys:manage`.
 */
export const wipeTestData =
  (deps: WipeTestDataDeps) =>
  (caller: Caller, command: unknown, context: AuditContext): TE.TaskEither<InvalidRequest | InvalidState | StoreUnavailable, WipedTestData> =>
    pipe(
      TE.fromEither(decode(WipeCommand)(command)),
      TE.chainW(() => deps.testData.wipe(caller.clientId, (wiped) => testDataWipedEvent(deps.ids.next(), context, caller.clientId, wiped, deps.clock.now()))),
    )
