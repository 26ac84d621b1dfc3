import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Address } from '../domain/onboarding/address.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { alreadyExists, concurrentUpdate, type AlreadyExists } from '../domain/foundations/errors.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { OnboardingSession } from '../domain/onboarding/onboarding-session.js'
import type { Party } from '../domain/onboarding/party.js'
import type { PartyRepository } from '../ports/party-repository.js'
import type { WebhookEvent } from '../domain/webhooks/webhook-event.js'
import type { WebhookEventRepository } from '../ports/webhook-event-repository.js'
import type { OnboardingSessionRepository } from '../ports/onboarding-session-repository.js'
import { inMemoryAuditLog, type InMemoryAuditLog } from './in-memory-audit-log.js'
import { inMemoryEventLog, type InMemoryEventLog } from './in-memory-event-log.js'
import { inMemoryPage } from './in-memory-paging.js'
import type { ClientId, PartyId, SessionId } from '../domain/foundations/ids.js'

/** Sessions in memory with the parties and outbox approval fills; the PostgreSQL repositories' semantics. */
export const inMemoryOnboardingSessionRepository = (
  parties: Map<string, Party> = new Map(),
  audit: InMemoryAuditLog = inMemoryAuditLog(),
  eventLog: InMemoryEventLog = inMemoryEventLog(),
): OnboardingSessionRepository & {
  /** Every session, as stored. */
  readonly all: () => readonly OnboardingSession[]
  readonly audit: InMemoryAuditLog
  readonly parties: PartyRepository
  readonly events: WebhookEventRepository & {
    /** Every event queued, in order. */
    readonly all: () => readonly WebhookEvent[]
  }
  /** Deletes client `clientId`'s sessions, the parties they made and their events (a wipe of the test world); what went. */
  readonly forgetClient: (clientId: ClientId) => { readonly sessionIds: ReadonlySet<SessionId>; readonly partyIds: ReadonlySet<PartyId>; readonly events: number }
} => {
  const sessions = new Map<string, OnboardingSession>()
  const events: WebhookEvent[] = []
  const save = (session: OnboardingSession, event: AuditEvent | null) => {
    const stored = sessions.get(session.id)
    if (stored === undefined || stored.version !== session.version) return TE.left(concurrentUpdate('onboarding_session'))
    const saved = { ...session, version: session.version + 1 }
    sessions.set(session.id, saved)
    if (event !== null) audit.append(event)
    return TE.right(saved)
  }
  /** Adds or replaces an address, refusing a second registered one like the unique index. */
  const writeAddress = (partyId: PartyId, address: Address, replace: boolean) =>
    TE.fromEither(
      ((): E.Either<AlreadyExists, void> => {
        const party = parties.get(partyId)
        const exists = party?.addresses.some((a) => a.id === address.id) ?? false
        if (party === undefined || exists !== replace) return E.right(undefined)
        if (address.type === 'registered' && party.addresses.some((a) => a.type === 'registered' && a.id !== address.id)) {
          return E.left(alreadyExists('registered_address'))
        }
        const addresses = [...party.addresses.filter((a) => a.id !== address.id), address].sort(
          (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
        )
        parties.set(partyId, { ...party, addresses })
        return E.right(undefined)
      })(),
    )
  return {
    audit,
    parties: {
      findById: (id) => TE.right(O.fromNullable(parties.get(id))),
      addAddress: (partyId, address) => writeAddress(partyId, address, false),
      updateAddress: (partyId, address) => writeAddress(partyId, address, true),
    },
    events: {
      all: () => events,
      listForSession: (sessionId, page) =>
        TE.right(
          inMemoryPage(
            events.filter((e) => e.sessionId === sessionId),
            page,
          ),
        ),
      listDeliveries: (sessionId, page) =>
        TE.right(
          inMemoryPage(
            events.filter((e) => e.sessionId === sessionId),
            page,
          ).map((e) => ({ ...e, attemptLog: [] })),
        ),
      retryNow: (sessionId, eventId, at) =>
        TE.fromIO(() => {
          const i = events.findIndex((e) => e.id === eventId && e.sessionId === sessionId)
          if (i < 0) return O.none
          events[i] = { ...events[i]!, status: 'pending', nextAttemptAt: at }
          return O.some(events[i]!)
        }),
      hurryPending: (sessionId, at) =>
        TE.fromIO(() => {
          events.forEach((e, i) => {
            if (e.sessionId === sessionId && e.status === 'pending' && e.nextAttemptAt > at) events[i] = { ...e, nextAttemptAt: at }
          })
        }),
    },
    saveApproved: (session, party, ready, auditEvent) =>
      TE.map((saved: OnboardingSession) => {
        parties.set(party.id, party)
        eventLog.append([ready.logged])
        events.push(ready.queued)
        return saved
      })(save(session, auditEvent)),
    findById: (id) => TE.right(O.fromNullable(sessions.get(id))),
    list: (status, page) =>
      TE.right(
        inMemoryPage(
          [...sessions.values()].filter((s) => status === undefined || s.status === status),
          page,
        ),
      ),
    all: () => [...sessions.values()],
    forgetClient: (clientId) => {
      const sessionIds = new Set([...sessions.values()].filter((s) => s.clientId === clientId).map((s) => s.id))
      const partyIds = new Set([...parties.values()].filter((p) => p.clientId === clientId).map((p) => p.id))
      const kept = events.filter((e) => !sessionIds.has(e.sessionId))
      const gone = events.length - kept.length
      events.splice(0, events.length, ...kept)
      for (const id of sessionIds) sessions.delete(id)
      for (const id of partyIds) parties.delete(id)
      return { sessionIds, partyIds, events: gone }
    },
    insert: (session) => {
      if (sessions.has(session.id)) return TE.left(alreadyExists('onboarding_session'))
      sessions.set(session.id, session)
      return TE.right(undefined)
    },
    save,
    findForClient: (clientId, id) =>
      TE.fromIO(() => O.filter((s: OnboardingSession) => s.clientId === clientId)(O.fromNullable(sessions.get(id)))),
  }
}
