import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'

/**
 * Seals a list's cursors to what they were issued for (docs/decisions.md): a cursor is
 * answered with a MAC of the cursor and `boundTo` (the list, the caller and the filters), and
 * only a cursor whose MAC matches, for the same `boundTo`, is opened again. A cursor from
 * another list or caller, or an edited one, opens to nothing.
 */
export type CursorSeal = {
  /** The cursor as handed out: `cursor` followed by its MAC. */
  readonly seal: (cursor: string, boundTo: string) => string
  /** The cursor inside `sealed`, or undefined when it was not sealed for `boundTo` with this key. */
  readonly open: (sealed: string, boundTo: string) => string | undefined
}

/** The MAC's length in the cursor: 16 bytes of HMAC-SHA-256, base64url. */
const MAC_CHARS = 22

/**
 * Cursor seals under a key derived (HKDF-SHA-256, its own label) from `secret`, so the secret
 * can also serve elsewhere. Instances given the same secret open each other's cursors.
 */
export const cursorSeal = (secret: Uint8Array): CursorSeal => {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'lendgate list cursors v1', 32))
  const macOf = (cursor: string, boundTo: string): string =>
    createHmac('sha256', key).update(boundTo).update('\n').update(cursor).digest().subarray(0, 16).toString('base64url')
  return {
    seal: (cursor, boundTo) => `${cursor}${macOf(cursor, boundTo)}`,
    open: (sealed, boundTo) => {
      if (sealed.length <= MAC_CHARS) return undefined
      const cursor = sealed.slice(0, -MAC_CHARS)
      const given = Buffer.from(sealed.slice(-MAC_CHARS))
      const expected = Buffer.from(macOf(cursor, boundTo))
      return given.length === expected.length && timingSafeEqual(given, expected) ? cursor : undefined
    },
  }
}
