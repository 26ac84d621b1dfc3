import { randomUUID } from 'node:crypto'
import type { MintedKeyView } from '@lendgate/core'
import { conformanceProblem } from './openapi-conformance.js'
import { rememberHeaderSecrets, rememberRequestSecrets, rememberResponseSecrets, rememberSetCookieSecrets } from './secret-scan.js'
import { MINT_SECRET } from './test-server.js'

export type Reply = {
  readonly status: number
  readonly headers: Headers
  /** Parsed JSON body, or undefined when the body is empty. */
  readonly body: any // eslint-disable-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary JSON
  readonly text: string
}

export type RequestOptions = {
  readonly method?: string
  readonly headers?: Record<string, string>
  /** Sent as JSON with Content-Type application/json unless `rawBody` is given. */
  readonly json?: unknown
  readonly rawBody?: string | Uint8Array
}

/**
 * One HTTP request over a real socket; never throws on an error status. Throws (failing the
 * test) when the service answers something its OpenAPI document does not describe.
 */
export const request = async (baseUrl: string, path: string, options: RequestOptions = {}): Promise<Reply> => {
  const headers: Record<string, string> = { ...(options.headers ?? {}) }
  let body: string | Uint8Array | undefined
  if (options.rawBody !== undefined) body = options.rawBody
  else if (options.json !== undefined) {
    body = JSON.stringify(options.json)
    headers['Content-Type'] ??= 'application/json'
  }
  rememberHeaderSecrets(headers)
  rememberRequestSecrets(options.json)
  const response = await fetch(`${baseUrl}${path}`, { method: options.method ?? 'GET', headers, ...(body === undefined ? {} : { body }) })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  rememberResponseSecrets(parsed)
  rememberSetCookieSecrets(response.headers)
  const method = options.method ?? 'GET'
  const problem = conformanceProblem(method, path, response.status, parsed, response.headers)
  if (problem !== undefined) throw new Error(`OpenAPI conformance: ${problem}`)
  return { status: response.status, headers: response.headers, body: parsed, text }
}

/** The mint response, as core defines it. */
export type MintedKey = MintedKeyView

/** Mints a key through the API (the mint route itself is under test elsewhere). */
export const mintKey = async (
  baseUrl: string,
  body: { party_id?: string; client_name?: string; environment?: string; scopes?: string[] } = {},
): Promise<MintedKey> => {
  const reply = await request(baseUrl, '/public/partner/api-keys', {
    method: 'POST',
    headers: { 'X-Partner-Mint-Key': MINT_SECRET },
    json: { party_id: randomUUID(), ...body },
  })
  if (reply.status !== 201) throw new Error(`mint failed: ${reply.status} ${reply.text}`)
  return reply.body as MintedKey
}

export const bearer = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` })

/** The listing record (CONTRACT.md "Keys") a freshly minted, never used key should have. */
export const listingOf = (key: MintedKey) => ({
  api_key_id: key.api_key_id,
  key_prefix: key.key_prefix,
  status: 'active',
  created_at: key.created_at,
  revoked_at: null,
  last_used_at: null,
  scopes: key.scopes,
  environment: key.environment,
  livemode: key.environment === 'live',
})
