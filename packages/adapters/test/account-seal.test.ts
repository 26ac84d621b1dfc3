import type { PaymentMethodId } from '@lendgate/core'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { aesGcmAccountSeal } from '../src/crypto/account-seal.js'
import { openAesGcm, sealAesGcm } from '../src/crypto/aes-gcm.js'

const KEY = new Uint8Array(32).fill(7)
const METHOD = '0b7e4c2a-9d15-4f3e-8a61-2c5d7e9f1a3b' as PaymentMethodId
const OTHER_METHOD = '5f3a1e9c-7b2d-4c8e-9a06-4d1b3f5e7c9a' as PaymentMethodId
const ACCOUNT = { routingNumber: '011000015', accountNumber: '000123456789' }

describe('aesGcmAccountSeal', () => {
  const seal = aesGcmAccountSeal(KEY)

  it('opens what it sealed for the same method, and a fresh IV makes each seal differ', () => {
    const once = seal.seal(METHOD, ACCOUNT)
    const twice = seal.seal(METHOD, ACCOUNT)
    expect(once).to.not.equal(twice)
    expect(seal.open(METHOD, once)).to.deep.equal(O.some(ACCOUNT))
    expect(seal.open(METHOD, twice)).to.deep.equal(O.some(ACCOUNT))
  })

  it('seals every account number, 4 to 17 digits, to the same length', () => {
    const lengths = new Set(['0123', '012345678', '01234567890123456'].map((accountNumber) => seal.seal(METHOD, { ...ACCOUNT, accountNumber }).length))
    expect([...lengths]).to.have.length(1)
    expect(seal.open(METHOD, seal.seal(METHOD, { ...ACCOUNT, accountNumber: '0123' }))).to.deep.equal(O.some({ ...ACCOUNT, accountNumber: '0123' }))
  })

  it('shows neither number in the sealed text', () => {
    const sealed = seal.seal(METHOD, ACCOUNT)
    expect(sealed).to.match(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    expect(sealed).to.not.include(ACCOUNT.accountNumber)
    expect(sealed).to.not.include(ACCOUNT.routingNumber)
    expect(sealed).to.not.include(Buffer.from(ACCOUNT.accountNumber).toString('base64url').slice(0, 8))
  })

  it('opens to nothing for another method, under another key, or once altered', () => {
    const sealed = seal.seal(METHOD, ACCOUNT)
    expect(seal.open(OTHER_METHOD, sealed)).to.deep.equal(O.none)
    expect(aesGcmAccountSeal(new Uint8Array(32).fill(8)).open(METHOD, sealed)).to.deep.equal(O.none)
    const [version, iv, tag, ciphertext] = sealed.split('.') as [string, string, string, string]
    const flipped = `${ciphertext[0] === 'A' ? 'B' : 'A'}${ciphertext.slice(1)}`
    for (const altered of [[version, iv, tag, flipped].join('.'), [version, iv, tag].join('.'), `v2.${iv}.${tag}.${ciphertext}`, `${sealed}.extra`, '']) {
      expect(seal.open(METHOD, altered), altered).to.deep.equal(O.none)
    }
  })

  it('is keyed apart from the webhook secrets: the master key itself does not open it', () => {
    const sealed = seal.seal(METHOD, ACCOUNT)
    expect(openAesGcm(KEY, sealed, METHOD)).to.deep.equal(O.none)
  })

  it('opens to nothing a sealed text that is not a routing and an account number', () => {
    // Sealed under the derived key by the same code path, but with content the seal never writes.
    const other = aesGcmAccountSeal(KEY)
    const forged = other.seal(METHOD, { routingNumber: '01100001', accountNumber: '000123456789' })
    expect(other.open(METHOD, forged)).to.deep.equal(O.none)
  })

  it('refuses a key that is not 32 bytes', () => {
    expect(() => aesGcmAccountSeal(new Uint8Array(16))).to.throw('32 bytes')
  })
})

describe('sealAesGcm / openAesGcm', () => {
  it('round-trips text, binds the additional data when given, and refuses another key', () => {
    const sealed = sealAesGcm(KEY, 'plain text é', 'bound-to')
    expect(openAesGcm(KEY, sealed, 'bound-to')).to.deep.equal(O.some('plain text é'))
    expect(openAesGcm(KEY, sealed)).to.deep.equal(O.none)
    expect(openAesGcm(KEY, sealed, 'bound-elsewhere')).to.deep.equal(O.none)
    expect(openAesGcm(new Uint8Array(32).fill(1), sealed, 'bound-to')).to.deep.equal(O.none)
    expect(openAesGcm(KEY, sealAesGcm(KEY, 'no aad'))).to.deep.equal(O.some('no aad'))
  })
})
