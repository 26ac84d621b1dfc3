import type { DataProvider, GetListParams, GetListResult, GetOneParams, GetOneResult, RaRecord } from 'react-admin'
import { api, withQuery, type Json } from './api.js'

/** One page of an API list: its records and the cursor of the next page, null on the last. */
export type Listing = { readonly data: readonly Record<string, unknown>[]; readonly next_cursor: string | null }

/**
 * Where a console resource is read, and which field is its records' id, or which fields when a
 * record is named by several (a webhook delivery: its endpoint and its event). A `:name` segment of
 * the path is filled in from the list's filter (a loan's schedule: `loan_id`) or, for one record,
 * from its id (`:id`, or each field of a composite id by its name); the rest of the filter is the query.
 */
type Route = { readonly path: string; readonly id: string | readonly string[] }

/**
 * What joins the fields of a composite id into react-admin's one id (`{endpoint}~{event}`): a
 * character none of the API's ids holds (uuids, `evt_…`), and one a URL keeps as it is.
 */
export const ID_SEPARATOR = '~'

/** The react-admin id of an API record: its id field, or its id fields joined by `ID_SEPARATOR`. */
export const recordIdOf = (id: Route['id'], record: Readonly<Record<string, unknown>>): unknown =>
  typeof id === 'string' ? record[id] : id.map((field) => String(record[field] ?? '')).join(ID_SEPARATOR)

/**
 * The path params of one record's id: `{ id }`, or each field of a composite id by its name. A
 * composite id with another number of parts is an error, never a request to another record.
 */
export const idParams = (id: Route['id'], value: unknown): Record<string, unknown> => {
  if (typeof id === 'string') return { id: value }
  const parts = String(value).split(ID_SEPARATOR)
  if (parts.length !== id.length) throw new Error(`${String(value)} is not an id of ${id.join(ID_SEPARATOR)}`)
  return Object.fromEntries(id.map((field, i) => [field, parts[i]]))
}

/** The console's lists, each on an internal list route of the operator OpenAPI document. */
export const LIST_ROUTES = {
  'onboarding-sessions': { path: 'internal/onboarding-sessions', id: 'session_id' },
  applications: { path: 'internal/applications', id: 'application_id' },
  loans: { path: 'internal/loans', id: 'loan_id' },
  'session-documents': { path: 'internal/onboarding-sessions/:session_id/documents', id: 'document_id' },
  'loan-schedule': { path: 'internal/loans/:loan_id/schedule', id: 'installment_number' },
  'loan-transactions': { path: 'internal/loans/:loan_id/transactions', id: 'transaction_id' },
  'loan-payments': { path: 'internal/loans/:loan_id/payments', id: 'payment_id' },
  'loan-balances': { path: 'internal/loans/:loan_id/balances', id: 'balance_id' },
  'operator-requests': { path: 'internal/operator-requests', id: 'operator_request_id' },
  'webhook-deliveries': { path: 'internal/webhook-deliveries', id: ['webhook_endpoint_id', 'event_id'] },
} as const satisfies Readonly<Record<string, Route>>

/**
 * The console's records read one at a time (a page of their own), by id. A record of the whole
 * book (its delinquency, as of when it was read) is one per world: its path names no id, so it is
 * read there whatever id it is asked with, and the console asks with `BOOK`.
 */
export const RECORD_ROUTES = {
  'onboarding-sessions': { path: 'internal/onboarding-sessions/:id', id: 'session_id' },
  applications: { path: 'internal/applications/:id', id: 'application_id' },
  'schedule-previews': { path: 'internal/applications/:id/schedule-preview', id: 'application_id' },
  loans: { path: 'internal/loans/:id', id: 'loan_id' },
  'operator-requests': { path: 'internal/operator-requests/:id', id: 'operator_request_id' },
  'webhook-deliveries': { path: 'internal/webhook-endpoints/:webhook_endpoint_id/deliveries/:event_id', id: ['webhook_endpoint_id', 'event_id'] },
  'portfolio-delinquency': { path: 'internal/portfolio/delinquency', id: 'as_of' },
} as const satisfies Readonly<Record<string, Route>>

/** The id the console reads a record of the whole book by (`useGetOne('portfolio-delinquency', { id: BOOK })`). */
export const BOOK = 'book'

const routeIn = (routes: Readonly<Record<string, Route>>, resource: string, what: string): Route => {
  const route = routes[resource]
  if (route === undefined) throw new Error(`the console has no ${what} of ${resource}`)
  return route
}

/**
 * `template` with each `:name` segment replaced by `params[name]` (escaped), and the params it did
 * not use, which are the query. A segment whose param is missing or empty is an error, never a
 * request to a shorter path.
 */
export const fillPath = (template: string, params: Readonly<Record<string, unknown>>): { readonly path: string; readonly rest: Record<string, unknown> } => {
  const rest: Record<string, unknown> = { ...params }
  const path = template
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment
      const name = segment.slice(1)
      const value = params[name]
      if (value === undefined || value === null || value === '') throw new Error(`${template} needs ${name}`)
      delete rest[name]
      return encodeURIComponent(String(value))
    })
    .join('/')
  return { path, rest }
}

/**
 * The data provider over the API's cursor pagination. React-admin asks for page N; the API pages
 * by cursor, so each list (a resource, its filters, its page size) keeps the cursor of every page
 * it has reached, and answers with partial pagination (`pageInfo`: whether a next page exists),
 * never a total it cannot know. A page past those reached is walked to from the last one known;
 * one past the end is empty.
 * Only reads: each action is its own request (`api`), answered by the server before the page
 * changes (no optimistic update, no undo). One provider serves one world: the console makes a new
 * one, with no cursors, when the operator switches (a cursor of one world means nothing in the other).
 */
export const cursorDataProvider = (
  fetchPage: (path: string) => Promise<Listing> = (path) => api<Listing>('GET', path),
  fetchRecord: (path: string) => Promise<Json> = (path) => api<Json>('GET', path),
): Pick<DataProvider, 'getList' | 'getOne'> => {
  const cursors = new Map<string, (string | undefined)[]>()
  const pageOf = (route: Route, filter: Readonly<Record<string, unknown>>, perPage: number, cursor: string | undefined): Promise<Listing> => {
    const { path, rest } = fillPath(route.path, filter)
    return fetchPage(withQuery(path, { ...(rest as Record<string, string | undefined>), limit: perPage, cursor }))
  }
  return {
    getList: async <R extends RaRecord>(resource: string, params: GetListParams): Promise<GetListResult<R>> => {
      const route = routeIn(LIST_ROUTES, resource, 'list')
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
        data: listing.data.map((record) => ({ ...record, id: recordIdOf(route.id, record) }) as unknown as R),
        pageInfo: { hasPreviousPage: reached > 1, hasNextPage: listing.next_cursor !== null },
      }
    },
    getOne: async <R extends RaRecord>(resource: string, params: GetOneParams<R>): Promise<GetOneResult<R>> => {
      const route = routeIn(RECORD_ROUTES, resource, 'page')
      const record = await fetchRecord(fillPath(route.path, idParams(route.id, params.id)).path)
      return { data: { ...record, id: params.id } as unknown as R }
    },
  }
}
