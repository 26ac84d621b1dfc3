import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS, type IdempotencyClaim, type IdempotencyStore } from '@lendgate/core'
import type { Kysely } from 'kysely'
import type { Database } from './schema.js'
import { query } from './store-errors.js'

/**
 * Idempotency keys in PostgreSQL. A claim is one `INSERT … ON CONFLICT DO UPDATE … WHERE`:
 * the primary key makes concurrent first claims exclusive, and the `WHERE` lets a claim replace
 * a row only when that row has expired or is an abandoned claim of the same request.
 */
export const postgresIdempotencyStore = (db: Kysely<Database>): IdempotencyStore => {
  const claimOnce = async (scope: string, key: string, fingerprint: string, now: Date): Promise<IdempotencyClaim | undefined> => {
    const retentionCutoff = new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS)
    const leaseCutoff = new Date(now.getTime() - IDEMPOTENCY_LEASE_MS)
    const claimed = await db
      .insertInto('idempotency_keys')
      .values({ scope, key, fingerprint, claimed_at: now, completed_at: null, status_code: null, response_body: null })
      .onConflict((oc) =>
        oc
          .columns(['scope', 'key'])
          .doUpdateSet({
            fingerprint: (eb) => eb.ref('excluded.fingerprint'),
            claimed_at: (eb) => eb.ref('excluded.claimed_at'),
            completed_at: null,
            status_code: null,
            response_body: null,
          })
          .where(({ eb, or, and }) =>
            or([
              eb('idempotency_keys.claimed_at', '<', retentionCutoff),
              and([
                eb('idempotency_keys.completed_at', 'is', null),
                eb('idempotency_keys.claimed_at', '<', leaseCutoff),
                eb('idempotency_keys.fingerprint', '=', fingerprint),
              ]),
            ]),
          ),
      )
      .returning('scope')
      .executeTakeFirst()
    if (claimed !== undefined) return { _tag: 'Claimed' }
    const row = await db
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'status_code', 'response_body', 'completed_at'])
      .where('scope', '=', scope)
      .where('key', '=', key)
      .executeTakeFirst()
    // Released between our insert and this read: try again.
    if (row === undefined) return undefined
    if (row.fingerprint !== fingerprint) return { _tag: 'Mismatch' }
    if (row.completed_at !== null && row.status_code !== null && row.response_body !== null) {
      return { _tag: 'Replay', response: { status: row.status_code, body: row.response_body } }
    }
    return { _tag: 'InProgress' }
  }

  return {
    claim: ({ scope, key }, fingerprint, now) =>
      query(async () => {
        for (let attempt = 0; attempt < 3; attempt += 1) {
          const outcome = await claimOnce(scope, key, fingerprint, now)
          if (outcome !== undefined) return outcome
        }
        return { _tag: 'InProgress' } as const
      }),

    complete: ({ scope, key }, response, now) =>
      query(async () => {
        await db
          .updateTable('idempotency_keys')
          .set({ status_code: response.status, response_body: response.body, completed_at: now })
          .where('scope', '=', scope)
          .where('key', '=', key)
          .execute()
      }),

    release: ({ scope, key }) =>
      query(async () => {
        await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key).where('completed_at', 'is', null).execute()
      }),

    purgeExpired: (now) =>
      query(async () => {
        const result = await db
          .deleteFrom('idempotency_keys')
          .where('claimed_at', '<', new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS))
          .executeTakeFirst()
        return Number(result.numDeletedRows)
      }),
  }
}

