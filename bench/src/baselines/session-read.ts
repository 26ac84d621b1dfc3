import type pg from 'pg'

/**
 * The baselines' own read of the API's authenticated GET: one onboarding session of one client
 * by primary key, with its addresses as a JSON array, in one statement. The same work as the
 * API's repository, written here so that the benchmark depends on no module of the API.
 */
const SESSION_READ = `
  select s.*, coalesce((select json_agg(a order by a.created_at, a.id) from onboarding_addresses a where a.session_id = s.id), '[]') as addresses
  from onboarding_sessions s
  where s.id = $1 and s.client_id = $2`

/** The session `sessionId` of `clientId`, or undefined. */
export const readSession = async (pool: pg.Pool, sessionId: string, clientId: string): Promise<unknown> => (await pool.query(SESSION_READ, [sessionId, clientId])).rows[0]
