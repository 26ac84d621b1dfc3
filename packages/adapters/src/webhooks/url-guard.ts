import { lookup } from 'node:dns/promises'
import { invalidRequest, type WebhookUrlGuard } from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import ipaddr from 'ipaddr.js'

export type UrlGuardOptions = {
  readonly allowHttp: boolean
  readonly allowPrivateNetworks: boolean
  /** Every address the host resolves to; defaults to the system resolver. */
  readonly resolve?: (host: string) => Promise<readonly string[]>
}

const systemResolve = async (host: string): Promise<readonly string[]> => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)

/**
 * IPv4-compatible IPv6 (`::/96`, deprecated by RFC 4291): `::127.0.0.1` reaches 127.0.0.1 on
 * stacks that still route it, and ipaddr.js names no range for it (it would pass as unicast).
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96')

/**
 * Whether an address is public unicast. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as the
 * IPv4 address it carries; IPv4-compatible IPv6 (`::/96`), loopback, private, link-local,
 * unique-local, multicast, reserved, unspecified, carrier-grade NAT, documentation, NAT64,
 * 6to4 and Teredo ranges are all refused.
 */
export const isPublicAddress = (address: string): boolean => {
  if (!ipaddr.isValid(address)) return false
  const written = ipaddr.parse(address)
  if (written.kind() === 'ipv6' && written.match(IPV4_COMPATIBLE)) return false
  return ipaddr.process(address).range() === 'unicast'
}

const refuse = (field: string, reason: string) => TE.left(invalidRequest(`${field} ${reason}`, field))

/**
 * CONTRACT.md "Webhooks": https only and never a loopback, private or link-local target unless
 * WEBHOOK_ALLOW_HTTP / WEBHOOK_ALLOW_PRIVATE_NETWORKS say otherwise. Every address the host
 * resolves to must pass. (The delivery worker connects to an address checked the same way.)
 */
export const webhookUrlGuard = (options: UrlGuardOptions): WebhookUrlGuard => {
  const resolve = options.resolve ?? systemResolve
  return {
    check: (raw, field) => {
      let url: URL
      try {
        url = new URL(raw)
      } catch {
        return refuse(field, 'must be an absolute URL')
      }
      if (url.protocol !== 'https:' && !(options.allowHttp && url.protocol === 'http:')) return refuse(field, 'must use https')
      if (url.username !== '' || url.password !== '') return refuse(field, 'must not contain credentials')
      if (options.allowPrivateNetworks) return TE.right(undefined)
      const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
      return pipe(
        TE.tryCatch(
          async () => (ipaddr.isValid(host) ? [host] : await resolve(host)),
          () => invalidRequest(`${field} host could not be resolved`, field),
        ),
        TE.chainW((addresses) =>
          addresses.length === 0
            ? refuse(field, 'host could not be resolved')
            : addresses.every(isPublicAddress)
              ? TE.right(undefined)
              : refuse(field, 'must not point to a loopback, private, link-local or reserved address'),
        ),
      )
    },
  }
}
