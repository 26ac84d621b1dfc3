import { hash, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * Compares a presented secret with the configured one in constant time. Both are hashed first
 * so the comparison does not reveal the configured secret's length either.
 */
export const secretsEqual = (presented: string, configured: string): boolean =>
  timingSafeEqual(hash('sha256', presented, 'buffer'), hash('sha256', configured, 'buffer'))

/** A random secret of `bytes` bytes, base64url. */
export const randomSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url')
