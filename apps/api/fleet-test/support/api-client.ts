import type { FleetProcess } from './fleet-process.js'

export type Reply = {
  readonly status: number
  readonly headers: Headers
  /** The parsed JSON body; undefined when it is empty or not JSON. */
  readonly body: any // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  readonly text: string
}

export type RequestOptions = {
  readonly headers?: Readonly<Record<string, string>>
  /** Sent as JSON, with `Content-Type: application/json`. */
  readonly json?: unknown
}

/** One API process of the fleet, over HTTP. */
export type ApiClient = {
  readonly name: string
  readonly process: FleetProcess
  /**
   * Sends one request and resolves with whatever status comes back; rejects only when no answer
   * arrives (the connection failed or was cut, or nothing came within 30 s).
   */
  readonly send: (method: string, path: string, options?: RequestOptions) => Promise<Reply>
  /** How many answers the process's current incarnation gave this client: at least what its request counter shows. */
  readonly served: () => number
}

const REQUEST_TIMEOUT_MS = 30_000

export const apiClient = (process: FleetProcess): ApiClient => {
  const servedBy = new Map<number, number>()
  return {
    name: process.name,
    process,
    send: async (method, path, options = {}) => {
      const incarnation = process.incarnation()
      const response = await fetch(`${process.url}${path}`, {
        method,
        headers: { ...options.headers, ...(options.json === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      })
      const text = await response.text()
      servedBy.set(incarnation, (servedBy.get(incarnation) ?? 0) + 1)
      let body: unknown
      try {
        body = text === '' ? undefined : JSON.parse(text)
      } catch {
        body = undefined
      }
      return { status: response.status, headers: response.headers, body, text }
    },
    served: () => servedBy.get(process.incarnation()) ?? 0,
  }
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` })
