import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { expect } from 'chai'
import { keyChecksum, nodeApiKeyMaterial, randomBase62, toBase62 } from '../src/crypto/api-key-material.js'
import { secretsEqual } from '../src/crypto/secrets.js'

const material = nodeApiKeyMaterial()

/** CRC32 (IEEE) computed by Python's zlib: an implementation independent of node:zlib. */
const pythonCrc32 = (text: string): number =>
  Number(execFileSync('python3', ['-c', 'import sys,zlib;print(zlib.crc32(sys.argv[1].encode("utf-8")))', text]).toString().trim())

describe('nodeApiKeyMaterial', () => {
  it('generates keys in the pinned format whose hash is the SHA-256 of the whole key', () => {
    for (const environment of ['live', 'test'] as const) {
      const key = material.generate(environment)
      expect(key.plaintext).to.match(new RegExp(`^lgk_${environment}_[0-9A-Za-z]{16}_[0-9A-Za-z]{38}$`))
      expect(key.prefix).to.equal(`lgk_${environment}_${key.idSegment}`)
      expect(key.plaintext.startsWith(`${key.prefix}_`)).to.equal(true)
      expect(key.hash).to.equal(createHash('sha256').update(key.plaintext).digest('hex'))
      expect(material.hasValidChecksum(key.plaintext)).to.equal(true)
      expect(material.matches(key.plaintext, key.hash)).to.equal(true)
    }
  })

  it('computes the checksum as CRC32 of the key body in 6 base62 digits, as an independent CRC32 does', () => {
    for (const body of ['lgk_live_abcdefghijklmnop_0123456789ABCDEFGHIJKLMNOPQRSTUV', material.generate('test').plaintext.slice(0, -6)]) {
      expect(keyChecksum(body)).to.equal(toBase62(pythonCrc32(body), 6))
    }
    const key = material.generate('live')
    expect(key.plaintext.slice(-6)).to.equal(toBase62(pythonCrc32(key.plaintext.slice(0, -6)), 6))
  })

  it('writes base62 most significant digit first, zero-padded', () => {
    expect(toBase62(0, 6)).to.equal('000000')
    expect(toBase62(61, 1)).to.equal('z')
    expect(toBase62(62, 2)).to.equal('10')
    expect(toBase62(4294967295, 6)).to.equal('4gfFC3')
  })

  it('rejects keys whose checksum does not match, and anything not in the key format', () => {
    const key = material.generate('live').plaintext
    const flip = (s: string, i: number): string => s.slice(0, i) + (s[i] === 'a' ? 'b' : 'a') + s.slice(i + 1)
    for (const bad of [flip(key, key.length - 10), flip(key, key.length - 1), key.slice(0, -1), key.replace('lgk_live_', 'lgk_prod_'), '', 'lgk_']) {
      expect(material.hasValidChecksum(bad), bad).to.equal(false)
    }
  })

  it('does not match another key, nor a malformed stored hash', () => {
    const a = material.generate('live')
    const b = material.generate('live')
    expect(material.matches(a.plaintext, b.hash)).to.equal(false)
    expect(material.matches(a.plaintext, 'abc')).to.equal(false)
    expect(material.matches(a.plaintext, 'z'.repeat(64))).to.equal(false)
    expect(material.matches(a.plaintext, `${a.hash}0`)).to.equal(false)
    expect(material.matches(a.plaintext, `${a.hash}zz`)).to.equal(false)
    expect(material.matches(a.plaintext, a.hash.toUpperCase())).to.equal(false)
  })

  it('draws every base62 character and nothing else, and never repeats a key', () => {
    const sample = randomBase62(62 * 400)
    expect(sample).to.match(/^[0-9A-Za-z]+$/)
    expect(new Set(sample).size).to.equal(62)
    const keys = Array.from({ length: 200 }, () => material.generate('live'))
    expect(new Set(keys.map((k) => k.idSegment)).size).to.equal(200)
    expect(new Set(keys.map((k) => k.plaintext)).size).to.equal(200)
  })
})

describe('secretsEqual', () => {
  it('compares whole secrets, of any length', () => {
    expect(secretsEqual('mint-secret', 'mint-secret')).to.equal(true)
    expect(secretsEqual('mint-secret', 'mint-secreT')).to.equal(false)
    expect(secretsEqual('mint', 'mint-secret')).to.equal(false)
    expect(secretsEqual('', 'mint-secret')).to.equal(false)
  })
})
