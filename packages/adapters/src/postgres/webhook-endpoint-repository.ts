import type { WebhookEndpoint, WebhookEndpointRepository } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import type { Kysely, Selectable } from 'kysely'
import type { Database, WebhookEndpointsTable } from './schema.js'
import { query } from './store-errors.js'

const toEndpoint = (row: Selectable<WebhookEndpointsTable>): WebhookEndpoint => ({
  sessionId: row.session_id,
  url: row.url,
  sealedSecret: row.sealed_secret,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

export const postgresWebhookEndpointRepository = (db: Kysely<Database>): WebhookEndpointRepository => ({
  upsert: (e) =>
    query(async () =>
      toEndpoint(
        await db
          .insertInto('webhook_endpoints')
          .values({ session_id: e.sessionId, url: e.url, sealed_secret: e.sealedSecret, created_at: e.createdAt, updated_at: e.updatedAt })
          .onConflict((oc) =>
            oc.column('session_id').doUpdateSet((eb) => ({
              url: eb.ref('excluded.url'),
              sealed_secret: eb.ref('excluded.sealed_secret'),
              updated_at: eb.ref('excluded.updated_at'),
            })),
          )
          .returningAll()
          .executeTakeFirstOrThrow(),
      ),
    ),
  findBySession: (sessionId) =>
    query(async () => O.map(toEndpoint)(O.fromNullable(await db.selectFrom('webhook_endpoints').selectAll().where('session_id', '=', sessionId).executeTakeFirst()))),
})
