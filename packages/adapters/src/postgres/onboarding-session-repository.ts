import type { OnboardingSession, OnboardingSessionRepository } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Kysely, Selectable } from 'kysely'
import type { Database, OnboardingSessionsTable } from './schema.js'
import { asWriteError, query } from './store-errors.js'

const toSession = (row: Selectable<OnboardingSessionsTable>): OnboardingSession => ({
  id: row.id,
  clientId: row.client_id,
  type: row.type as OnboardingSession['type'],
  countryOfIncorporation: row.country_of_incorporation,
  entryChannel: row.entry_channel as OnboardingSession['entryChannel'],
  locale: row.locale,
  status: row.status as OnboardingSession['status'],
  currentStep: row.current_step as OnboardingSession['currentStep'],
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

export const postgresOnboardingSessionRepository = (db: Kysely<Database>): OnboardingSessionRepository => ({
  insert: (session) =>
    TE.tryCatch(async () => {
      await db
        .insertInto('onboarding_sessions')
        .values({
          id: session.id,
          client_id: session.clientId,
          type: session.type,
          country_of_incorporation: session.countryOfIncorporation,
          entry_channel: session.entryChannel,
          locale: session.locale,
          status: session.status,
          current_step: session.currentStep,
          created_at: session.createdAt,
          updated_at: session.updatedAt,
        })
        .execute()
    }, asWriteError('onboarding_session')),

  findForClient: (clientId, id) =>
    query(async () =>
      O.map(toSession)(
        O.fromNullable(
          await db.selectFrom('onboarding_sessions').selectAll().where('id', '=', id).where('client_id', '=', clientId).executeTakeFirst(),
        ),
      ),
    ),
})
