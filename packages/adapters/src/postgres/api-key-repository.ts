import type { ApiKey, ApiKeyRepository } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import { sql, type Kysely, type Selectable } from 'kysely'
import type { ApiKeysTable, Database } from './schema.js'
import { insertAuditEvent } from './audit-log.js'
import { inPage } from './paging.js'
import { query } from './store-errors.js'

const toApiKey = (row: Selectable<ApiKeysTable>): ApiKey => ({
  id: row.id,
  clientId: row.client_id,
  partyId: row.party_id,
  idSegment: row.id_segment,
  prefix: row.key_prefix,
  hash: row.key_hash,
  environment: row.environment,
  scopes: row.scopes,
  status: row.status,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  lastUsedAt: row.last_used_at,
})

/** The NOTIFY channel on which revocations are announced, with the key's id segment. */
export const KEY_REVOKED_CHANNEL = 'lendgate_key_revoked'

export const postgresApiKeyRepository = (db: Kysely<Database>): ApiKeyRepository => ({
  mint: ({ client, key }, audit) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        // ON CONFLICT waits for a racing insert of the same client to commit, then does nothing;
        // the select that follows sees whichever row won.
        await trx
          .insertInto('api_clients')
          .values({ id: client.id, party_id: client.partyId, name: client.name, created_at: client.createdAt })
          .onConflict((oc) => oc.columns(['party_id', 'name']).doNothing())
          .execute()
        const owner = await trx
          .selectFrom('api_clients')
          .selectAll()
          .where('party_id', '=', client.partyId)
          .where('name', '=', client.name)
          .executeTakeFirstOrThrow()
        const row = await trx
          .insertInto('api_keys')
          .values({
            id: key.id,
            client_id: owner.id,
            party_id: key.partyId,
            id_segment: key.idSegment,
            key_prefix: key.prefix,
            key_hash: key.hash,
            environment: key.environment,
            scopes: [...key.scopes],
            status: key.status,
            created_at: key.createdAt,
            revoked_at: key.revokedAt,
            last_used_at: key.lastUsedAt,
          })
          .returningAll()
          .executeTakeFirstOrThrow()
        const minted = {
          client: { id: owner.id, partyId: owner.party_id, name: owner.name, createdAt: owner.created_at },
          key: toApiKey(row),
        }
        await insertAuditEvent(trx, audit(minted))
        return minted
      }),
    ),

  findByIdSegment: (idSegment) =>
    query(async () =>
      O.map(toApiKey)(O.fromNullable(await db.selectFrom('api_keys').selectAll().where('id_segment', '=', idSegment).executeTakeFirst())),
    ),

  findForClient: (owner, keyId) =>
    query(async () =>
      O.map(toApiKey)(
        O.fromNullable(
          await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).where('client_id', '=', owner.clientId).where('environment', '=', owner.environment).executeTakeFirst(),
        ),
      ),
    ),

  listForClient: (owner, page) =>
    query(async () => {
      const q = db.selectFrom('api_keys').selectAll().where('client_id', '=', owner.clientId).where('environment', '=', owner.environment)
      const rows = await inPage(q, page).execute()
      return rows.map(toApiKey)
    }),

  // The revocation and its news go out together: NOTIFY is delivered at commit (key caches of
  // other instances evict the key when they hear it).
  revoke: (owner, keyId, at, audit) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        const revoked = await trx
          .updateTable('api_keys')
          .set({ status: 'revoked', revoked_at: at })
          .where('id', '=', keyId)
          .where('client_id', '=', owner.clientId)
          .where('environment', '=', owner.environment)
          .where('status', '=', 'active')
          .returning('id_segment')
          .executeTakeFirst()
        if (revoked !== undefined) await sql`select pg_notify(${KEY_REVOKED_CHANNEL}, ${revoked.id_segment})`.execute(trx)
        const row = await trx.selectFrom('api_keys').selectAll().where('id', '=', keyId).where('client_id', '=', owner.clientId).where('environment', '=', owner.environment).executeTakeFirst()
        const key = O.map(toApiKey)(O.fromNullable(row))
        // Only the call that revoked the key records it; a repeat changes nothing and records nothing.
        if (revoked !== undefined && O.isSome(key)) await insertAuditEvent(trx, audit(key.value))
        return key
      }),
    ),

  recordUsage: (usage) =>
    query(async () => {
      if (usage.size === 0) return
      const values = sql.join([...usage].map(([id, at]) => sql`(${id}::uuid, ${at}::timestamptz)`))
      await sql`
        update api_keys set last_used_at = greatest(coalesce(api_keys.last_used_at, v.at), v.at)
        from (values ${values}) as v(id, at)
        where api_keys.id = v.id`.execute(db)
    }),
})
