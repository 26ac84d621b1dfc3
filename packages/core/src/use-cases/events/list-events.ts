import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { boundedString, Instant, oneOf } from '../../domain/foundations/codecs.js'
import { invalidRequest, type InvalidRequest, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { decodeFilteredPageRequest, isSequenceId, pageBy, queryFilters, type Page } from '../../domain/foundations/pagination.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { EVENT_TYPES, type LoggedEvent } from '../../domain/events/event.js'
import type { EventLog } from '../../ports/event-log.js'

/**
 * The filters of `listEvents`, each optional: a `type` (`EVENT_TYPES`), a `resource_id` (the id
 * of what `data` shows), and written `since` (inclusive) and `until` (exclusive), instants in UTC.
 */
export const EventFilters = queryFilters('EventFilter', {
  type: oneOf('EventType', EVENT_TYPES),
  resource_id: boundedString('ResourceId', 1, 100),
  since: Instant,
  until: Instant,
})

/** An event's place in the log's order: when it was written, then `seq` zero-padded. */
export const eventPosition = (e: LoggedEvent) => ({ createdAt: e.occurredAt, id: String(e.seq).padStart(19, '0') })

/**
 * The events the caller sees (docs/events.md: those of the parties its API client onboarded and
 * those of its own party), oldest first, a page at a time, optionally narrowed by the filters.
 */
export const listEvents =
  (deps: { readonly eventLog: Pick<EventLog, 'list'> }) =>
  (caller: Caller, command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<LoggedEvent>> =>
    pipe(
      TE.fromEither(decodeFilteredPageRequest(EventFilters, command, [], isSequenceId)),
      TE.filterOrElseW(
        ({ filter }) => filter.since === undefined || filter.until === undefined || filter.since < filter.until,
        () => invalidRequest('since must be before until.', 'until'),
      ),
      TE.chainW(({ filter, page }) =>
        pipe(
          deps.eventLog.list(
            { clientId: caller.clientId, partyId: caller.partyId },
            {
              ...(filter.type === undefined ? {} : { type: filter.type }),
              ...(filter.resource_id === undefined ? {} : { resourceId: filter.resource_id }),
              ...(filter.since === undefined ? {} : { from: filter.since }),
              ...(filter.until === undefined ? {} : { to: filter.until }),
            },
            page,
          ),
          TE.map((rows) => pageBy(rows, page.limit, eventPosition)),
        ),
      ),
    )

