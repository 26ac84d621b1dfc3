/**
 * CRC32 (IEEE) and base62 written here independently of the service's implementation, so tests
 * can check key checksums against an oracle that does not share its code.
 */
export const crc32 = (bytes: Uint8Array): number => {
  let crc = 0xffffffff
  for (const byte of bytes) {
    crc ^= byte
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const base62 = (value: number, width: number): string => {
  let out = ''
  let rest = value
  do {
    out = BASE62[rest % 62] + out
    rest = Math.floor(rest / 62)
  } while (rest > 0)
  return out.padStart(width, '0')
}
