import type { AuthProvider } from 'react-admin'
import { api, rememberCsrfToken } from './api.js'

/** A console session as the API answers it (`OperatorSession` in the operator OpenAPI document). */
export type OperatorSession = {
  readonly session_id: string
  readonly operator: { readonly operator_id: string; readonly email: string; readonly role: OperatorRole }
  readonly expires_at: string
  readonly csrf_token: string
}

export type OperatorRole = 'reviewer' | 'credit' | 'servicing' | 'admin'

/** The signed-in operator, once the sign-in or a session read has said who it is. */
let current: OperatorSession | undefined

const keep = (session: OperatorSession | undefined): void => {
  current = session
  rememberCsrfToken(session?.csrf_token)
}

/** The session, read from the server when this page has not signed in itself (a reload). */
const session = async (): Promise<OperatorSession> => {
  if (current === undefined) keep(await api<OperatorSession>('GET', 'internal/operator-sessions/current'))
  if (current === undefined) throw new Error('no console session')
  return current
}

/**
 * Signing in, out and who is signed in, on the API's console sessions (decision 149): the cookie
 * is the browser's, never this script's; the CSRF token is kept in memory only.
 */
export const authProvider: AuthProvider = {
  login: async ({ username, password }: { readonly username: string; readonly password: string }) => {
    keep(await api<OperatorSession>('POST', 'internal/operator-sessions', { email: username, password }))
  },
  logout: async () => {
    try {
      if (current !== undefined) await api('DELETE', 'internal/operator-sessions/current')
    } catch (error) {
      // Signed out already (401): nothing left to end. Anything else leaves the session live, so
      // the operator is told rather than shown a sign-in page a reload would walk past.
      if ((error as { readonly status?: number }).status !== 401) throw error
    }
    keep(undefined)
  },
  checkAuth: async () => {
    await session()
  },
  checkError: async (error: { readonly status?: number }) => {
    // A refused action (403, 409) is shown where it happened; only a session that ended signs out.
    if (error.status === 401) {
      keep(undefined)
      throw error
    }
  },
  getIdentity: async () => {
    const { operator } = await session()
    return { id: operator.operator_id, fullName: `${operator.email} (${operator.role})` }
  },
  getPermissions: async () => (await session()).operator.role,
}
