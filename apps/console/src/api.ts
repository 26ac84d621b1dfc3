import { HttpError } from 'react-admin'
import { consoleWorld } from './world.js'

/**
 * The console's one way to the API: its own origin's `/internal` routes, relative to the page
 * (so the console works behind a gateway's path prefix), with the session's cookie, the world the
 * operator chose (`Lendgate-Mode: test` while "Test data" is on) and, on a request that changes
 * something, the session's CSRF token. A refusal becomes react-admin's
 * `HttpError` carrying the server's `detail`, which the console shows as it is.
 */

/** The CSRF token of the signed-in session: the sign-in's or the session read's answer. */
let csrfToken: string | undefined

/** Keeps the session's CSRF token for the requests that change something. */
export const rememberCsrfToken = (token: string | undefined): void => {
  csrfToken = token
}

/** `path` (`internal/…`) resolved against the page's address: `/console/` is beside `/internal/`. */
const urlOf = (path: string): string => new URL(`../${path}`, document.baseURI).href

/** A JSON answer of the API. */
export type Json = Record<string, unknown>

/** Sends one request and answers its JSON body; a refusal throws `HttpError(detail, status, body)`. */
export const api = async <T = Json>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> => {
  const headers: Record<string, string> = { Accept: 'application/json', ...consoleWorld.headers() }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  if (method !== 'GET' && csrfToken !== undefined) headers['X-CSRF-Token'] = csrfToken
  const response = await fetch(urlOf(path), {
    method,
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  // A gateway in front of the API may answer with a page of its own: its status still counts.
  let json: unknown
  try {
    json = text === '' ? undefined : JSON.parse(text)
  } catch {
    json = undefined
  }
  if (!response.ok) {
    const problem = (json ?? {}) as { readonly error?: string; readonly detail?: string }
    throw new HttpError(problem.detail ?? `${response.status} ${response.statusText}`, response.status, json)
  }
  return json as T
}

/** `path` with `query`'s defined values as its query string. */
export const withQuery = (path: string, query: Readonly<Record<string, string | number | undefined>>): string => {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value))
  const text = params.toString()
  return text === '' ? path : `${path}?${text}`
}
