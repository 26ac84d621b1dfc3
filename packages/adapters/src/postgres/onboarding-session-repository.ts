import { insertEvents } from './event-log.js'
import { concurrentUpdate, type Address, type ApplicantProfile, type ConcurrentUpdate, type OnboardingSession, type OnboardingSessionRepository, type Party, type StoreUnavailable, type PartyId, type SessionId } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Kysely, Selectable, Transaction } from 'kysely'
import { jsonArrayFrom } from 'kysely/helpers/postgres'
import type { Database, OnboardingSessionsTable } from './schema.js'
import { addressFields, toAddress } from './address-rows.js'
import { insertAuditEvent } from './audit-log.js'
import { inPage } from './paging.js'
import { attempt, asStoreUnavailable, asWriteError, query } from './store-errors.js'
import { inTransaction } from './transactions.js'
import { insertWebhookEvent } from './webhook-event-repository.js'

/** How the applicant profile is kept in the `profile` jsonb column. */
type ProfileJson = Omit<ApplicantProfile, 'updatedAt'> & { readonly updatedAt: string }

const profileToJson = (profile: ApplicantProfile | null): string | null =>
  profile === null ? null : JSON.stringify({ ...profile, updatedAt: profile.updatedAt.toISOString() } satisfies ProfileJson)

const profileFromJson = (value: unknown): ApplicantProfile | null => {
  if (value === null || value === undefined) return null
  const json = (typeof value === 'string' ? JSON.parse(value) : value) as ProfileJson
  return { ...json, updatedAt: new Date(json.updatedAt) }
}


const toSession = (row: Selectable<OnboardingSessionsTable>, addresses: readonly Address[]): OnboardingSession => ({
  id: row.id,
  clientId: row.client_id,
  type: row.type as OnboardingSession['type'],
  countryOfIncorporation: row.country_of_incorporation,
  entryChannel: row.entry_channel as OnboardingSession['entryChannel'],
  locale: row.locale,
  status: row.status as OnboardingSession['status'],
  currentStep: row.current_step as OnboardingSession['currentStep'],
  phone: row.phone === null ? null : { value: row.phone, verifiedAt: row.phone_verified_at },
  email: row.email === null ? null : { value: row.email, verifiedAt: row.email_verified_at },
  profile: profileFromJson(row.profile),
  addresses,
  submittedAt: row.submitted_at,
  review:
    row.review_decision === null || row.reviewed_by === null || row.decided_at === null
      ? null
      : { decision: row.review_decision, reviewedBy: row.reviewed_by, reason: row.review_reason, decidedAt: row.decided_at },
  partyId: row.party_id,
  version: row.version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const contentColumns = (session: OnboardingSession) => ({
  type: session.type,
  country_of_incorporation: session.countryOfIncorporation,
  entry_channel: session.entryChannel,
  locale: session.locale,
  status: session.status,
  current_step: session.currentStep,
  phone: session.phone?.value ?? null,
  phone_verified_at: session.phone?.verifiedAt ?? null,
  email: session.email?.value ?? null,
  email_verified_at: session.email?.verifiedAt ?? null,
  profile: profileToJson(session.profile),
  submitted_at: session.submittedAt,
  party_id: session.partyId,
  review_decision: session.review?.decision ?? null,
  reviewed_by: session.review?.reviewedBy ?? null,
  review_reason: session.review?.reason ?? null,
  decided_at: session.review?.decidedAt ?? null,
  updated_at: session.updatedAt,
})

const addressColumns = (sessionId: SessionId, a: Address) => ({ ...addressFields(a), session_id: sessionId })
const partyAddressColumns = (partyId: PartyId, a: Address) => ({ ...addressFields(a), party_id: partyId })

/** A session's row as inserted (not its addresses): every column. */
const sessionRow = (session: OnboardingSession) => ({
  id: session.id,
  client_id: session.clientId,
  created_at: session.createdAt,
  version: session.version,
  ...contentColumns(session),
})

/** Upserts the session's addresses (addresses are never deleted from a session). */
const writeAddresses = async (trx: Transaction<Database>, session: OnboardingSession): Promise<void> => {
  if (session.addresses.length === 0) return
  await trx
    .insertInto('onboarding_addresses')
    .values(session.addresses.map((a) => addressColumns(session.id, a)))
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        type: eb.ref('excluded.type'),
        line1: eb.ref('excluded.line1'),
        line2: eb.ref('excluded.line2'),
        city: eb.ref('excluded.city'),
        region: eb.ref('excluded.region'),
        postal_code: eb.ref('excluded.postal_code'),
        country: eb.ref('excluded.country'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute()
}

/** An address's columns other than its session (`toAddress` reads these). */
const ADDRESS_COLUMNS = ['a.id', 'a.type', 'a.line1', 'a.line2', 'a.city', 'a.region', 'a.postal_code', 'a.country', 'a.created_at', 'a.updated_at'] as const

/**
 * Sessions with their addresses in one round trip: the addresses come back as a JSON array
 * (oldest first).
 */
const sessionsWithAddresses = (db: Kysely<Database>) =>
  db
    .selectFrom('onboarding_sessions as s')
    .selectAll('s')
    .select((eb) => [
      jsonArrayFrom(eb.selectFrom('onboarding_addresses as a').select(ADDRESS_COLUMNS).whereRef('a.session_id', '=', 's.id').orderBy('a.created_at').orderBy('a.id')).as(
        'addresses',
      ),
    ])

type SessionWithAddresses = Awaited<ReturnType<ReturnType<typeof sessionsWithAddresses>['executeTakeFirstOrThrow']>>

/** A session read with its addresses. In the addresses' JSON the timestamps arrive as text. */
const toSessionWithAddresses = ({ addresses, ...row }: SessionWithAddresses): OnboardingSession =>
  toSession(
    row,
    addresses.map((a) => toAddress({ ...a, created_at: new Date(a.created_at), updated_at: new Date(a.updated_at) })),
  )

const partyColumns = (p: Party) => ({
  id: p.id,
  session_id: p.sessionId,
  client_id: p.clientId,
  type: p.type,
  legal_name: p.legalName,
  trading_name: p.tradingName,
  legal_form: p.legalForm,
  registration_number: p.registrationNumber,
  incorporation_date: p.incorporationDate,
  industry_code: p.industryCode,
  website: p.website,
  tax_id: p.taxId,
  country_of_incorporation: p.countryOfIncorporation,
  email: p.email,
  phone: p.phone,
  created_at: p.createdAt,
})

/**
 * Writes a session: whatever `first` writes (rows the session will reference, such as its
 * party), then the session's own row (`row`), then its addresses, in one transaction. A write of
 * the row alone (no `first`, no addresses: a new session, a partner's edit before the addresses
 * step) is that one statement, atomic by itself (decision 57). A Left from `row` (the row was
 * not written) writes nothing and is returned as it is.
 */
const writeSession = async <L>(
  db: Kysely<Database>,
  session: OnboardingSession,
  row: (on: Kysely<Database>) => Promise<E.Either<L, void>>,
  first?: (trx: Transaction<Database>) => Promise<void>,
): Promise<E.Either<L, void>> => {
  if (first === undefined && session.addresses.length === 0) return row(db)
  return inTransaction(db, async (trx) => {
    await first?.(trx)
    const written = await row(trx)
    if (E.isRight(written)) await writeAddresses(trx, session)
    return written
  })
}

/**
 * Saves the session if its stored version is still `session.version`, after what `first`
 * writes (`writeSession`); a version conflict is `ConcurrentUpdate` and writes nothing.
 */
const saveWith = (
  db: Kysely<Database>,
  session: OnboardingSession,
  first?: (trx: Transaction<Database>) => Promise<void>,
): TE.TaskEither<ConcurrentUpdate | StoreUnavailable, OnboardingSession> =>
  pipe(
    attempt(
      () =>
        writeSession(
          db,
          session,
          async (on) => {
            const updated = await on
              .updateTable('onboarding_sessions')
              .set({ ...contentColumns(session), version: session.version + 1 })
              .where('id', '=', session.id)
              .where('version', '=', session.version)
              .executeTakeFirst()
            return updated.numUpdatedRows === 0n ? E.left(concurrentUpdate('onboarding_session')) : E.right(undefined)
          },
          first,
        ),
      asStoreUnavailable,
    ),
    TE.chainEitherKW((written) => written),
    TE.map(() => ({ ...session, version: session.version + 1 })),
  )

export const postgresOnboardingSessionRepository = (db: Kysely<Database>): OnboardingSessionRepository => {
  return {
    insert: (session) =>
      pipe(
        attempt(
          () =>
            writeSession(db, session, async (on) => {
              await on.insertInto('onboarding_sessions').values(sessionRow(session)).execute()
              return E.right(undefined)
            }),
          asWriteError('onboarding_session'),
        ),
        TE.chainEitherKW((written) => written),
      ),

    findForClient: (clientId, id) =>
      query(async () => {
        const row = await sessionsWithAddresses(db).where('s.id', '=', id).where('s.client_id', '=', clientId).executeTakeFirst()
        return row === undefined ? O.none : O.some(toSessionWithAddresses(row))
      }),

    save: (session, audit) => saveWith(db, session, audit === null ? undefined : (trx) => insertAuditEvent(trx, audit)),

    saveApproved: (session, party, ready, audit) =>
      saveWith(db, session, async (trx) => {
        await insertAuditEvent(trx, audit)
        // The outbox write: the event exists if and only if the approval does.
        await insertWebhookEvent(trx, ready.queued)
        await trx.insertInto('parties').values(partyColumns(party)).execute()
        if (party.addresses.length > 0) {
          await trx
            .insertInto('party_addresses')
            .values(party.addresses.map((a) => partyAddressColumns(party.id, a)))
            .execute()
        }
        await insertEvents(trx, [ready.logged])
      }),

    findById: (id) =>
      query(async () => {
        const row = await sessionsWithAddresses(db).where('s.id', '=', id).executeTakeFirst()
        return row === undefined ? O.none : O.some(toSessionWithAddresses(row))
      }),

    list: (status, page) =>
      query(async () => {
        let q = sessionsWithAddresses(db)
        if (status !== undefined) q = q.where('s.status', '=', status)
        return (await inPage(q, page).execute()).map(toSessionWithAddresses)
      }),
  }
}
