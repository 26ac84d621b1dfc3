import ipaddr from 'ipaddr.js'

/**
 * The client address a per-address limit counts under, from a peer or forwarded address: an IPv4
 * address as it is (an IPv4-mapped IPv6 address as its IPv4 form), an IPv6 address by its /64
 * prefix, the smallest block a site is given, so that one client cannot take a fresh allowance
 * from each of its 2^64 addresses.
 */
export const clientAddress = (ip: string): string => {
  if (!ipaddr.isValid(ip)) return ip
  const address = ipaddr.process(ip)
  if (address.kind() === 'ipv4') return address.toString()
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4)
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`
}
