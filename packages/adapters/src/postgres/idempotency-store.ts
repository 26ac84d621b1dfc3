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
  type Claim = { scope: string; key: string; fingerprint: string; now: Date; retentionCutoff: Date; leaseCutoff: Date }
  const insertClaim = (claim: Claim) =>
    db
      .insertInto('idempotency_keys')
      .values({ scope: claim.scope, key: claim.key, fingerprint: claim.fingerprint, claimed_at: claim.now, completed_at: null, status_code: null, response_body: null })
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
              eb('idempotency_keys.claimed_at', '<', claim.retentionCutoff),
              and([
                eb('idempotency_keys.completed_at', 'is', null),
                eb('idempotency_keys.claimed_at', '<', claim.leaseCutoff),
                eb('idempotency_keys.fingerprint', '=', claim.fingerprint),
              ]),
            ]),
          ),
      )
      .returning('scope')
      .execute()
  const readClaim = ({ scope, key }: { scope: string; key: string }) =>
    db
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'status_code', 'response_body', 'completed_at'])
      .where('scope', '=', scope)
      .where('key', '=', key)
      .execute()
  type Completion = { scope: string; key: string; status: number; body: string; now: Date }
  const completeClaim = ({ scope, key, status, body, now }: Completion) =>
    db
      .updateTable('idempotency_keys')
      .set({ status_code: status, response_body: body, completed_at: now })
      .where('scope', '=', scope)
      .where('key', '=', key)
      .execute()
  const releaseClaim = ({ scope, key }: { scope: string; key: string }) =>
    db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key).where('completed_at', 'is', null).execute()

  const claimOnce = async (scope: string, key: string, fingerprint: string, now: Date): Promise<IdempotencyClaim | undefined> => {
    const retentionCutoff = new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS)
    const leaseCutoff = new Date(now.getTime() - IDEMPOTENCY_LEASE_MS)
    const claimed = await insertClaim({ scope, key, fingerprint, now, retentionCutoff, leaseCutoff })
    if (claimed.length > 0) return { _tag: 'Claimed' }
    const [row] = await readClaim({ scope, key })
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
        await completeClaim({ scope, key, status: response.status, body: response.body, now })
      }),

    release: ({ scope, key }) =>
      query(async () => {
        await releaseClaim({ scope, key })
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

