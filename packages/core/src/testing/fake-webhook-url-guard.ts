import * as TE from 'fp-ts/lib/TaskEither.js'
import { invalidRequest } from '../domain/foundations/errors.js'
import type { WebhookUrlGuard } from '../ports/webhook-url-guard.js'

/** What the fake guard lets through. */
export type FakeWebhookUrlGuardOptions = {
  /** Accept `http://` too (WEBHOOK_ALLOW_HTTP). */
  readonly allowHttp?: boolean
  /** Hosts refused as if private; every other host is public. */
  readonly privateHosts?: readonly string[]
}

const ABSOLUTE_URL = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)/i

const refuse = (field: string, reason: string) => TE.left(invalidRequest(`${field} ${reason}`, field))

const hostOf = (authority: string): string => {
  const host = authority.slice(authority.lastIndexOf('@') + 1)
  return host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, '')
}

/** A `WebhookUrlGuard` without DNS: the adapter's URL rules, hosts judged by name only (`privateHosts`). */
export const fakeWebhookUrlGuard = (options: FakeWebhookUrlGuardOptions = {}): WebhookUrlGuard => ({
  check: (url, field) => {
    const parts = ABSOLUTE_URL.exec(url)
    if (parts === null || parts[2] === '') return refuse(field, 'must be an absolute URL')
    const scheme = parts[1]!.toLowerCase()
    if (scheme !== 'https' && !(options.allowHttp === true && scheme === 'http')) return refuse(field, 'must use https')
    const authority = parts[2]!
    if (authority.includes('@')) return refuse(field, 'must not contain credentials')
    if (options.privateHosts?.includes(hostOf(authority).toLowerCase()) === true) {
      return refuse(field, 'must not point to a loopback, private, link-local or reserved address')
    }
    return TE.right(undefined)
  },
})
