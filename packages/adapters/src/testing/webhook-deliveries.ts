import { createHash, randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { OpenDatabase } from '../postgres/database.js'

/**
 * Partners' webhook deliveries for the operators' list (the query-plan test): four endpoints of a
 * party other than those `except` (whose keys read their events), each sent every one of `events`
 * events with one attempt, one in 50 failed.
 * Answers an endpoint and an event it failed to get.
 */
export const seedWebhookDeliveries = async (database: OpenDatabase, except: readonly string[], events: number): Promise<{ readonly endpointId: string; readonly eventId: string }> => {
  const { rows } = await sql<{ id: string }>`select id from parties where id <> all(${[...except]}::uuid[]) order by id limit 1`.execute(database.db)
  const partyId = rows[0]?.id
  if (partyId === undefined) throw new Error('no party to own the webhook endpoints')
  const endpoints = [randomUUID(), randomUUID(), randomUUID(), randomUUID()]
  const clientId = randomUUID()
  await sql`
    insert into event_endpoints (id, client_id, party_id, url, enabled_events, status, sealed_secret, created_at, updated_at)
    select e, ${clientId}::uuid, ${partyId}::uuid, 'https://93.184.216.34/hooks/' || e, array['*'], 'enabled', 'sealed', now(), now() from unnest(${endpoints}::uuid[]) as e`.execute(database.db)
  await sql`
    insert into events (id, type, party_id, resource_id, data, created_at)
    select 'evt_' || md5(i::text), 'loan.booked', ${partyId}::uuid, ${partyId}, '{}', now() - make_interval(secs => ${events} - i) from generate_series(1, ${events}) as i`.execute(database.db)
  await sql`
    insert into event_deliveries (endpoint_id, event_id, status, attempts, next_attempt_at, created_at, last_error)
    select e, 'evt_' || md5(i::text), case when i % 50 = 0 then 'failed' else 'delivered' end, case when i % 50 = 0 then 8 else 1 end, now(), now() - make_interval(secs => ${events} - i),
      case when i % 50 = 0 then 'HTTP 503' end
    from generate_series(1, ${events}) as i cross join unnest(${endpoints}::uuid[]) as e order by i`.execute(database.db)
  await sql`
    insert into event_delivery_attempts (delivery_id, attempt_number, url, started_at, duration_ms, status_code)
    select d.id, 1, 'https://93.184.216.34/hooks', d.created_at, 120, case when d.status = 'failed' then 503 else 204 end from event_deliveries d`.execute(database.db)
  await sql`analyze event_endpoints, events, event_deliveries, event_delivery_attempts`.execute(database.db)
  return { endpointId: endpoints[0] as string, eventId: 'evt_' + createHash('md5').update(String(Math.floor(events / 50) * 50)).digest('hex') }
}

