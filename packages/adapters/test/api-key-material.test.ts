import { createHash } from 'node:crypto'
import { expect } from 'chai'
import { keyChecksum, nodeApiKeyMaterial, randomBase62, toBase62 } from '../src/crypto/api-key-material.js'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const KEY_FORMAT = /^lgk_(live|test)_[0-9A-Za-z]{16}_[0-9A-Za-z]{38}$/

/** CRC32 (IEEE 802.3, reflected, polynomial 0xEDB88320), table-driven; independent of node:zlib. */
const CRC_TABLE: readonly number[] = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

const referenceCrc32 = (text: string): number => {
  let crc = 0xffffffff
  for (const byte of Buffer.from(text, 'utf8')) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

/** Base62, most significant digit first, left-padded with '0' to 6 characters; independent of toBase62. */
const referenceBase62 = (value: number): string => {
  const digits: string[] = []
  let rest = BigInt(value)
  do {
    digits.unshift(ALPHABET[Number(rest % 62n)]!)
    rest /= 62n
  } while (rest > 0n)
  return digits.join('').padStart(6, '0')
}

const referenceChecksum = (body: string): string => referenceBase62(referenceCrc32(body))

/** `text` with the character at `index` replaced by a different base62 character. */
const changeAt = (text: string, index: number, shift = 1): string => {
  const next = ALPHABET[(ALPHABET.indexOf(text[index]!) + shift) % ALPHABET.length]!
  return text.slice(0, index) + next + text.slice(index + 1)
}

const material = nodeApiKeyMaterial()

describe('nodeApiKeyMaterial', () => {
  describe('generate', () => {
    for (const environment of ['live', 'test'] as const) {
      it(`produces a ${environment} key in the pinned format with its prefix, id segment and SHA-256 hash`, () => {
        const key = material.generate(environment)
        expect(key.plaintext).to.match(KEY_FORMAT)
        const [, env, idSegment] = key.plaintext.split('_')
        expect({ env, idSegment }).to.deep.equal({ env: environment, idSegment: key.idSegment })
        expect(key.prefix).to.equal(`lgk_${environment}_${key.idSegment}`)
        expect(key.plaintext.startsWith(`${key.prefix}_`)).to.equal(true)
        expect(key.hash).to.equal(createHash('sha256').update(key.plaintext, 'utf8').digest('hex'))
        expect(key.hash).to.match(/^[0-9a-f]{64}$/)
        expect(material.hasValidChecksum(key.plaintext)).to.equal(true)
      })
    }

    it('ends every key with the CRC32 checksum of everything before it', () => {
      for (let i = 0; i < 20; i++) {
        const { plaintext } = material.generate(i % 2 === 0 ? 'live' : 'test')
        expect(plaintext.slice(-6)).to.equal(referenceChecksum(plaintext.slice(0, -6)))
      }
    })

    it('never repeats an id or a secret over 200 keys', () => {
      const keys = Array.from({ length: 200 }, (_, i) => material.generate(i % 2 === 0 ? 'live' : 'test'))
      expect(new Set(keys.map((k) => k.idSegment)).size).to.equal(200)
      expect(new Set(keys.map((k) => k.plaintext.split('_')[3])).size).to.equal(200)
    })
  })

  describe('hasValidChecksum', () => {
    const key = material.generate('live').plaintext
    const randomStart = 'lgk_live_'.length + 16 + 1
    const checksumStart = key.length - 6

    it('accepts a freshly generated key', () => {
      expect(material.hasValidChecksum(key)).to.equal(true)
    })

    it('rejects the key with any single character of its random part changed', () => {
      for (let i = randomStart; i < checksumStart; i++) {
        for (const shift of [1, 31, 61]) {
          const changed = changeAt(key, i, shift)
          expect(material.hasValidChecksum(changed), changed).to.equal(false)
        }
      }
    })

    it('rejects the key with any character of its checksum changed', () => {
      for (let i = checksumStart; i < key.length; i++) {
        const changed = changeAt(key, i)
        expect(material.hasValidChecksum(changed), changed).to.equal(false)
      }
    })

    it('rejects a truncated key', () => {
      for (const truncated of [key.slice(0, -1), key.slice(0, -6), key.slice(0, randomStart + 10), key.slice(0, 1)]) {
        expect(material.hasValidChecksum(truncated), truncated).to.equal(false)
      }
    })

    it('rejects strings that are not keys, and the empty string', () => {
      for (const text of ['', 'lgk_', 'hello world', 'Bearer ' + key, `${key}x`, ` ${key}`]) {
        expect(material.hasValidChecksum(text), text).to.equal(false)
      }
    })

    it('rejects a key whose environment word was changed', () => {
      for (const text of [key.replace('lgk_live_', 'lgk_prod_'), key.replace('lgk_live_', 'lgk_test_'), key.replace('lgk_live_', 'lgk_LIVE_')]) {
        expect(material.hasValidChecksum(text), text).to.equal(false)
      }
    })
  })

  describe('matches', () => {
    const key = material.generate('test')

    it('is true for the key and its own hash', () => {
      expect(material.matches(key.plaintext, key.hash)).to.equal(true)
    })

    it('is false for a different key', () => {
      const other = material.generate('test')
      expect(material.matches(other.plaintext, key.hash)).to.equal(false)
      expect(material.matches(key.plaintext, other.hash)).to.equal(false)
    })

    it('is false for a stored hash of the wrong length or not hex', () => {
      for (const hash of ['', 'abc', key.hash.slice(0, 62), `${key.hash}00`, 'z'.repeat(64), `g${key.hash.slice(1)}`]) {
        expect(material.matches(key.plaintext, hash), hash).to.equal(false)
      }
    })
  })
})

describe('keyChecksum', () => {
  it('is CRC32 (IEEE) of the UTF-8 body in 6 base62 digits, as an independent implementation computes it', () => {
    const bodies = [
      '',
      '123456789',
      'lgk_live_abcdefghijklmnop_0123456789ABCDEFGHIJKLMNOPQRSTUV',
      'lgk_test_0000000000000000_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz',
      'préfixe €',
      material.generate('live').plaintext.slice(0, -6),
      material.generate('test').plaintext.slice(0, -6),
    ]
    for (const body of bodies) {
      expect(keyChecksum(body), body).to.equal(referenceChecksum(body))
    }
  })

  it('matches the reference CRC32 check value of "123456789"', () => {
    expect(referenceCrc32('123456789')).to.equal(0xcbf43926)
  })

  it('gives the fixed vector computed with Python zlib', () => {
    // zlib.crc32(b'lgk_live_abcdefghijklmnop_0123456789ABCDEFGHIJKLMNOPQRSTUV') == 3289937199 == '3aeExD' in base62
    expect(keyChecksum('lgk_live_abcdefghijklmnop_0123456789ABCDEFGHIJKLMNOPQRSTUV')).to.equal('3aeExD')
  })
})

describe('toBase62', () => {
  it('writes the most significant digit first, left-padded with 0', () => {
    expect([toBase62(0, 6), toBase62(61, 1), toBase62(62, 2), toBase62(4294967295, 6)]).to.deep.equal(['000000', 'z', '10', '4gfFC3'])
  })

  it('does not cut a value wider than the requested width', () => {
    expect(toBase62(62 * 62, 2)).to.equal('100')
  })
})

describe('randomBase62', () => {
  it('returns exactly the requested number of characters', () => {
    expect([0, 1, 16, 32, 1000].map((n) => randomBase62(n).length)).to.deep.equal([0, 1, 16, 32, 1000])
  })

  it('uses only base62 characters and, over 62 × 500 characters, every one of them', () => {
    const sample = randomBase62(62 * 500)
    expect(sample).to.match(/^[0-9A-Za-z]+$/)
    expect([...new Set(sample)].sort().join('')).to.equal([...ALPHABET].sort().join(''))
  })
})
