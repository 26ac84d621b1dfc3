import {
  concurrentUpdate,
  type Address,
  type ApplicantProfile,
  type ConcurrentUpdate,
  type OnboardingSession,
  type OnboardingSessionRepository,
  type Party,
  type StoreUnavailable,
} from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, type Expression, type RawBuilder, type Selectable, type Transaction } from 'kysely'
import { jsonArrayFrom } from 'kysely/helpers/postgres'
import type { Database, OnboardingSessionsTable } from './schema.js'
import { addressFields, toAddress } from './address-rows.js'
import { insertAuditEvent } from './audit-log.js'
import { inPage } from './paging.js'
import { precompiled, precompiledOn, statementNameOf } from './precompiled.js'
import { attempt, asStoreUnavailable, asWriteError, query } from './store-errors.js'
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

const addressColumns = (sessionId: string, a: Address) => ({ ...addressFields(a), session_id: sessionId })
const partyAddressColumns = (partyId: string, a: Address) => ({ ...addressFields(a), party_id: partyId })

/** A session's row as inserted (not its addresses): every column. */
const sessionRow = (session: OnboardingSession) => ({
  id: session.id,
  client_id: session.clientId,
  created_at: session.createdAt,
  version: session.version,
  ...contentColumns(session),
})
type SessionRow = ReturnType<typeof sessionRow>

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

/**
 * Every column of a session, by name (`SESSION_COLUMNS`): the partner's read runs as a prepared
 * statement, whose result must not change when a migration adds a column (decision 51). The read
 * selects `SESSION_VALUES` as they are and each of `SESSION_TIMESTAMPS` through `epochMs`; the
 * insert names `SESSION_COLUMNS`. `toSession` takes the whole row type, so a column missing from
 * the read fails to compile, and `columnsAgree` checks the three against each other.
 */
const SESSION_VALUES = [
  's.id',
  's.client_id',
  's.type',
  's.country_of_incorporation',
  's.entry_channel',
  's.locale',
  's.status',
  's.current_step',
  's.phone',
  's.email',
  's.profile',
  's.version',
  's.party_id',
  's.review_decision',
  's.reviewed_by',
  's.review_reason',
] as const
const SESSION_TIMESTAMPS = ['s.phone_verified_at', 's.email_verified_at', 's.submitted_at', 's.decided_at', 's.created_at', 's.updated_at'] as const
const SESSION_COLUMNS = [...SESSION_VALUES, ...SESSION_TIMESTAMPS] as const

type Unqualified<C> = C extends `s.${infer Column}` ? Column : never
type NamedColumn = Unqualified<(typeof SESSION_COLUMNS)[number]>
type ReadColumn = Exclude<keyof SessionJson, 'addresses'>
/**
 * `SESSION_COLUMNS`, the row the insert writes and the columns the read returns are one set of
 * names: a column added to one and not the others fails to compile.
 */
const columnsAgree: [
  Exclude<keyof SessionRow, NamedColumn>,
  Exclude<NamedColumn, keyof SessionRow>,
  Exclude<ReadColumn, NamedColumn>,
  Exclude<NamedColumn, ReadColumn>,
] extends [never, never, never, never]
  ? true
  : never = true
void columnsAgree

/** An address's columns other than its timestamps and its session (`toAddress` reads these). */
const ADDRESS_VALUES = ['a.id', 'a.type', 'a.line1', 'a.line2', 'a.city', 'a.region', 'a.postal_code', 'a.country'] as const

/**
 * A timestamp as milliseconds since the epoch, the precision of the domain's dates (every
 * timestamp the service writes is a whole millisecond, which `round` keeps exactly): in the
 * session's JSON a number, which `new Date(ms)` reads in about a quarter of the time it takes to
 * parse ISO 8601 text, about 1.4 µs less a session read (decision 63). `date_part` rather than
 * `extract`: its `float8` costs PostgreSQL what writing the timestamp as text did, where
 * `extract`'s `numeric` costs half as much again.
 */
export const epochMs = <T extends Date | null>(timestamp: Expression<T>): RawBuilder<Exclude<T, Date> | number> =>
  sql<Exclude<T, Date> | number>`round(date_part('epoch', ${timestamp}) * 1000)::int8`

/**
 * A session with its addresses in one round trip: the addresses come back as a JSON array
 * (oldest first).
 */
const sessionsWithAddresses = (db: Kysely<Database>) =>
  db
    .selectFrom('onboarding_sessions as s')
    .select(SESSION_VALUES)
    .select((eb) => [
      epochMs(eb.ref('s.phone_verified_at')).as('phone_verified_at'),
      epochMs(eb.ref('s.email_verified_at')).as('email_verified_at'),
      epochMs(eb.ref('s.submitted_at')).as('submitted_at'),
      epochMs(eb.ref('s.decided_at')).as('decided_at'),
      epochMs(eb.ref('s.created_at')).as('created_at'),
      epochMs(eb.ref('s.updated_at')).as('updated_at'),
      jsonArrayFrom(
        eb
          .selectFrom('onboarding_addresses as a')
          .select(ADDRESS_VALUES)
          .select((inner) => [epochMs(inner.ref('a.created_at')).as('created_at'), epochMs(inner.ref('a.updated_at')).as('updated_at')])
          .whereRef('a.session_id', '=', 's.id')
          .orderBy('a.created_at')
          .orderBy('a.id'),
      ).as('addresses'),
    ])

/**
 * Each session of `sessions` as one JSON value, `to_json` of its row (decision 55): `pg` parses
 * one `json` column with `JSON.parse` where it parsed 23 columns, each through its own type
 * parser after a 23-field row description on every run, which was a sixth of an authenticated
 * read's CPU (docs/benchmarks-history.md, "Ninth pass"). The timestamps come back as numbers
 * (`epochMs`).
 */
const asJson = (db: Kysely<Database>, sessions: ReturnType<typeof sessionsWithAddresses>) =>
  db.selectFrom(sessions.as('s')).select((eb) => eb.fn.toJson('s').as('session'))

type SessionJson = Awaited<ReturnType<ReturnType<typeof asJson>['executeTakeFirstOrThrow']>>['session']

const dateOrNull = (ms: number | null): Date | null => (ms === null ? null : new Date(ms))

/**
 * A session read as JSON, its timestamps read back as dates (a timestamp column left as a number
 * fails to compile). The row is copied once, with its dates: `addresses` rides along unread by `toSession`.
 */
const toSessionWithAddresses = ({ session: row }: { readonly session: SessionJson }): OnboardingSession =>
  toSession(
    {
      ...row,
      phone_verified_at: dateOrNull(row.phone_verified_at),
      email_verified_at: dateOrNull(row.email_verified_at),
      submitted_at: dateOrNull(row.submitted_at),
      decided_at: dateOrNull(row.decided_at),
      created_at: new Date(row.created_at),
      updated_at: new Date(row.updated_at),
    },
    row.addresses.map((a) => toAddress({ ...a, created_at: new Date(a.created_at), updated_at: new Date(a.updated_at) })),
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
 * step) is that one statement, atomic by itself, without the transaction's two more round trips
 * (decision 57).
 */
const writeSession = async (
  db: Kysely<Database>,
  session: OnboardingSession,
  row: (on: Kysely<Database>) => Promise<unknown>,
  first?: (trx: Transaction<Database>) => Promise<void>,
): Promise<void> => {
  if (first === undefined && session.addresses.length === 0) {
    await row(db)
    return
  }
  await db.transaction().execute(async (trx) => {
    await first?.(trx)
    await row(trx)
    await writeAddresses(trx, session)
  })
}

/**
 * Saves the session if its stored version is still `session.version`, after what `first`
 * writes (`writeSession`); a version conflict writes nothing.
 */
const saveWith = (db: Kysely<Database>, session: OnboardingSession, first?: (trx: Transaction<Database>) => Promise<void>) =>
  attempt(
    async () => {
      await writeSession(
        db,
        session,
        async (on) => {
          const updated = await on
            .updateTable('onboarding_sessions')
            .set({ ...contentColumns(session), version: session.version + 1 })
            .where('id', '=', session.id)
            .where('version', '=', session.version)
            .executeTakeFirst()
          if (updated.numUpdatedRows === 0n) throw concurrentUpdate('onboarding_session')
        },
        first,
      )
      return { ...session, version: session.version + 1 }
    },
    (error): ConcurrentUpdate | StoreUnavailable =>
      typeof error === 'object' && error !== null && (error as { _tag?: unknown })._tag === 'ConcurrentUpdate'
        ? concurrentUpdate('onboarding_session')
        : asStoreUnavailable(error),
  )

/** The partner's read of a session: one session of one client, with its addresses. */
const sessionOfClient = (db: Kysely<Database>, id: string, clientId: string) =>
  asJson(db, sessionsWithAddresses(db).where('s.id', '=', id).where('s.client_id', '=', clientId))

/**
 * The partner's session read (`$1` the session id, `$2` the client id) as the repository runs
 * it on a server: its SQL and its prepared statement's name. The benchmark's baseline and
 * reference servers run this statement (docs/benchmarks.md).
 */
export const sessionOfClientStatement = (): { readonly name: string; readonly text: string } => {
  const text = sessionOfClient(
    new Kysely<Database>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    }),
    '',
    '',
  ).compile().sql
  return { name: statementNameOf(text), text }
}

export const postgresOnboardingSessionRepository = (db: Kysely<Database>): OnboardingSessionRepository => {
  // The partner's read of a session is the hottest query of the service: compiled once.
  const sessionForClient = precompiled<{ id: string; clientId: string }, { session: SessionJson }>(db, (param) =>
    sessionOfClient(db, param('id'), param('clientId')),
  )
  const sessionById = precompiled<{ id: string }, { session: SessionJson }>(db, (param) => asJson(db, sessionsWithAddresses(db).where('s.id', '=', param('id'))))
  // A session's row, each column a named parameter: built and compiled once, and run by name
  // on the pool or inside the transaction of a session that comes with addresses (decision 56).
  const insertRow = precompiledOn<SessionRow, never>((param) =>
    db.insertInto('onboarding_sessions').values(
      Object.fromEntries(SESSION_COLUMNS.map((qualified) => {
        const column = qualified.slice('s.'.length) as keyof SessionRow
        return [column, param(column)]
      })) as SessionRow,
    ),
  )
  return {
    insert: (session) =>
      attempt(() => writeSession(db, session, (on) => insertRow(on, sessionRow(session))), asWriteError('onboarding_session')),

    findForClient: (clientId, id) =>
      query(async () => {
        const [row] = await sessionForClient({ id, clientId })
        return row === undefined ? O.none : O.some(toSessionWithAddresses(row))
      }),

    save: (session, audit) => saveWith(db, session, audit === null ? undefined : (trx) => insertAuditEvent(trx, audit)),

    saveApproved: (session, party, event, audit) =>
      saveWith(db, session, async (trx) => {
        await insertAuditEvent(trx, audit)
        // The outbox write: the event exists if and only if the approval does.
        await insertWebhookEvent(trx, event)
        await trx.insertInto('parties').values(partyColumns(party)).execute()
        if (party.addresses.length > 0) {
          await trx
            .insertInto('party_addresses')
            .values(party.addresses.map((a) => partyAddressColumns(party.id, a)))
            .execute()
        }
      }),

    findById: (id) =>
      query(async () => {
        const [row] = await sessionById({ id })
        return row === undefined ? O.none : O.some(toSessionWithAddresses(row))
      }),

    list: (status, page) =>
      query(async () => {
        let q = sessionsWithAddresses(db)
        if (status !== undefined) q = q.where('s.status', '=', status)
        // The page's order is kept outside too: a subquery's order does not carry to its reader.
        const sessions = await asJson(db, inPage(q, page)).orderBy('s.created_at').orderBy('s.id').execute()
        return sessions.map(toSessionWithAddresses)
      }),
  }
}
