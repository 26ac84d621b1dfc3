import { expect } from 'chai'
import { randomSecret, secretsEqual } from '../src/crypto/secrets.js'

describe('secretsEqual', () => {
  it('is true for equal secrets', () => {
    expect(secretsEqual('s3cr3t-token', 's3cr3t-token')).to.equal(true)
  })

  it('is false for different secrets of the same length', () => {
    expect(secretsEqual('s3cr3t-token', 's3cr3t-tokeN')).to.equal(false)
  })

  it('is false for secrets of different lengths, including a prefix of the other', () => {
    expect([secretsEqual('s3cr3t', 's3cr3t-token'), secretsEqual('s3cr3t-token', 's3cr3t')]).to.deep.equal([false, false])
  })

  it('is true for two empty strings and false for empty against non-empty', () => {
    expect([secretsEqual('', ''), secretsEqual('', 'x'), secretsEqual('x', '')]).to.deep.equal([true, false, false])
  })
})

describe('randomSecret', () => {
  it('is base64url of the requested number of bytes', () => {
    for (const bytes of [1, 2, 3, 16, 32, 48]) {
      const secret = randomSecret(bytes)
      expect(secret, secret).to.match(/^[A-Za-z0-9_-]*$/)
      expect(Buffer.from(secret, 'base64url').length).to.equal(bytes)
      expect(Buffer.from(secret, 'base64url').toString('base64url')).to.equal(secret)
    }
  })

  it('defaults to 32 bytes', () => {
    expect(Buffer.from(randomSecret(), 'base64url').length).to.equal(32)
  })

  it('differs between two calls', () => {
    expect(randomSecret()).to.not.equal(randomSecret())
  })
})
