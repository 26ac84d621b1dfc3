import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { decode, strictObject } from '../src/domain/foundations/codecs.js'
import { invalidRequest } from '../src/domain/foundations/errors.js'
import { grants, isValidScope, Scopes } from '../src/domain/keys/scopes.js'

const UNKNOWN_SCOPE = 'is not a known scope (known: partner:api, keys:manage, *, or <namespace>:*)'

/** Scopes as a request field, so failures name it the way a mint request does. */
const Body = strictObject('Body', { scopes: Scopes }, {})

describe('isValidScope', () => {
  it('accepts the known scopes, * and <namespace>:* for a namespace with known scopes', () => {
    for (const scope of ['partner:api', 'keys:manage', '*', 'partner:*', 'keys:*']) {
      expect(isValidScope(scope), scope).to.equal(true)
    }
  })

  it('refuses unknown scopes, unknown namespaces and near misses', () => {
    for (const scope of ['', 'admin', 'partner', 'partner:', 'partner:read', 'PARTNER:API', 'billing:*', ':*', '**', 'partner:api ', 'keys:manage:*']) {
      expect(isValidScope(scope), JSON.stringify(scope)).to.equal(false)
    }
  })
})

describe('grants', () => {
  it('grants everything with *', () => {
    expect(grants(['*'], 'partner:api')).to.equal(true)
    expect(grants(['*'], 'keys:manage')).to.equal(true)
  })

  it('grants every scope of a namespace with <namespace>:*, and nothing outside it', () => {
    expect(grants(['partner:*'], 'partner:api')).to.equal(true)
    expect(grants(['partner:*'], 'keys:manage')).to.equal(false)
    expect(grants(['keys:*'], 'keys:manage')).to.equal(true)
    expect(grants(['keys:*'], 'partner:api')).to.equal(false)
  })

  it('grants an exact scope, and only that one', () => {
    expect(grants(['partner:api'], 'partner:api')).to.equal(true)
    expect(grants(['partner:api'], 'keys:manage')).to.equal(false)
    expect(grants(['keys:manage'], 'keys:manage')).to.equal(true)
  })

  it('grants nothing for no scopes or unrelated scopes', () => {
    expect(grants([], 'partner:api')).to.equal(false)
    for (const held of [['billing:read'], ['billing:*'], ['partner'], ['partner:apix'], ['part:*'], ['partner:api:*']]) {
      expect(grants(held, 'partner:api'), held.join(',')).to.equal(false)
    }
  })

  it('grants when any one of several held scopes does', () => {
    expect(grants(['billing:read', 'keys:*'], 'keys:manage')).to.equal(true)
  })
})

describe('Scopes', () => {
  it('removes duplicates and keeps the first-seen order', () => {
    expect(decode(Scopes)(['keys:manage', 'partner:api', 'keys:manage', 'partner:api'])).to.deep.equal(
      E.right(['keys:manage', 'partner:api']),
    )
  })

  it('accepts wildcards', () => {
    expect(decode(Scopes)(['*', 'partner:*'])).to.deep.equal(E.right(['*', 'partner:*']))
  })

  describe('when there are no scopes', () => {
    it('refuses them, naming the field', () => {
      expect(decode(Body)({ scopes: [] })).to.deep.equal(
        E.left({ _tag: 'InvalidRequest', detail: 'scopes must have between 1 and 20 items', param: 'scopes' }),
      )
    })
  })

  describe('when there are more than 20', () => {
    it('refuses them, counting before duplicates are removed', () => {
      expect(decode(Body)({ scopes: Array.from({ length: 21 }, () => 'partner:api') })).to.deep.equal(
        E.left(invalidRequest('scopes must have between 1 and 20 items', 'scopes')),
      )
      expect(decode(Body)({ scopes: Array.from({ length: 20 }, () => 'partner:api') })).to.deep.equal(E.right({ scopes: ['partner:api'] }))
    })
  })

  describe('when a scope is unknown', () => {
    it('refuses it with a detail naming the field and the item', () => {
      expect(decode(Body)({ scopes: ['partner:api', 'admin'] })).to.deep.equal(
        E.left({ _tag: 'InvalidRequest', detail: `scopes.1 ${UNKNOWN_SCOPE}`, param: 'scopes.1' }),
      )
    })

    it('refuses a non-string item the same way', () => {
      expect(decode(Body)({ scopes: [42] })).to.deep.equal(E.left(invalidRequest(`scopes.0 ${UNKNOWN_SCOPE}`, 'scopes.0')))
    })
  })

  describe('when scopes is not an array', () => {
    it('refuses it, naming the field', () => {
      expect(decode(Body)({ scopes: 'partner:api' })).to.deep.equal(E.left(invalidRequest('scopes must be an array', 'scopes')))
    })
  })
})
