import type { DataProvider, GetListParams, GetListResult, RaRecord } from 'react-admin'
import { api, withQuery } from './api.js'

/** One page of an API list: its records and the cursor of the next page, null on the last. */
export type Listing = { readonly data: readonly Record<string, unknown>[]; readonly next_cursor: string | null }

/** Where a console resource is listed, and which field is its records' id. */
type ListRoute = { readonly path: string; readonly id: string }

/** The console's resources, each on an internal list route of the operator OpenAPI document. */
export const LIST_ROUTES = {
  'onboarding-sessions': { path: 'internal/onboarding-sessions', id: 'session_id' },
  applications: { path: 'internal/applications', id: 'application_id' },
} as const satisfies Readonly<Record<string, ListRoute>>

const routeOf = (resource: string): ListRoute => {
  const route = (LIST_ROUTES as Readonly<Record<string, ListRoute | undefined>>)[resource]
  if (route === undefined) throw new Error(`the console has no list of ${resource}`)
  return route
}

/**
 * The data provider over the API's cursor pagination. React-admin asks for page N; the API pages
 * by cursor, so each list (a resource, its filters, its page size) keeps the cursor of every page
 * it has reached, and answers with partial pagination (`pageInfo`: whether a next page exists),
 * never a total it cannot know. A page past those reached is walked to from the last one known;
 * one past the end is empty.
 * Only lists: each action is its own request (`api`), answered by the server before the page
 * changes (no optimistic update, no undo).
 */
export const cursorDataProvider = (fetchPage: (path: string) => Promise<Listing> = (path) => api<Listing>('GET', path)): Pick<DataProvider, 'getList'> => {
  const cursors = new Map<string, (string | undefined)[]>()
  const pageOf = (route: ListRoute, filter: Readonly<Record<string, unknown>>, perPage: number, cursor: string | undefined): Promise<Listing> =>
    fetchPage(withQuery(route.path, { ...(filter as Record<string, string | undefined>), limit: perPage, cursor }))
  return {
    getList: async <R extends RaRecord>(resource: string, params: GetListParams): Promise<GetListResult<R>> => {
      const route = routeOf(resource)
      const page = params.pagination?.page ?? 1
      const perPage = params.pagination?.perPage ?? 25
      const filter = params.filter ?? {}
      const key = JSON.stringify([resource, perPage, filter])
      const known = cursors.get(key) ?? [undefined]
      let reached = Math.min(page, known.length)
      let listing = await pageOf(route, filter, perPage, known[reached - 1])
      while (reached < page && listing.next_cursor !== null) {
        known[reached] = listing.next_cursor
        reached += 1
        listing = await pageOf(route, filter, perPage, listing.next_cursor)
      }
      if (listing.next_cursor !== null) known[reached] = listing.next_cursor
      cursors.set(key, known)
      // A page past the last (a list that shrank since it was paged) is empty, never the last page under another number.
      if (reached < page) return { data: [], pageInfo: { hasPreviousPage: true, hasNextPage: false } }
      return {
        data: listing.data.map((record) => ({ ...record, id: record[route.id] }) as unknown as R),
        pageInfo: { hasPreviousPage: reached > 1, hasNextPage: listing.next_cursor !== null },
      }
    },
  }
}
