import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { boundedString, CalendarDate, decode, isUuid, oneOf, strictObject, stringMatching, Uuid } from '../src/domain/foundations/codecs.js'

const Person = strictObject(
  'Person',
  { name: boundedString('Name', 1, 10) },
  { nickname: boundedString('Nickname', 1, 10), id: Uuid, role: oneOf('Role', ['owner', 'viewer']) },
)

const NOT_AN_OBJECT = { _tag: 'InvalidRequest', detail: 'The request body must be a JSON object' } as const

describe('strictObject', () => {
  it('decodes the known fields, trimming bounded strings', () => {
    expect(decode(Person)({ name: ' Ada ', nickname: 'ada', role: 'owner' })).to.deep.equal(
      E.right({ name: 'Ada', nickname: 'ada', role: 'owner' }),
    )
  })

  describe('when a field is not known', () => {
    it('refuses the body, naming the field', () => {
      expect(decode(Person)({ name: 'Ada', colour: 'blue' })).to.deep.equal(
        E.left({ _tag: 'InvalidRequest', detail: 'colour is not a known field', param: 'colour' }),
      )
    })

    it('reports the unknown field before a missing required one', () => {
      expect(decode(Person)({ nmae: 'Ada' })).to.deep.equal(
        E.left({ _tag: 'InvalidRequest', detail: 'nmae is not a known field', param: 'nmae' }),
      )
    })
  })

  describe('when a required field is missing', () => {
    it('says "<field> is required", whether absent, undefined or null', () => {
      for (const body of [{}, { name: undefined }, { name: null }, { nickname: 'ada' }]) {
        expect(decode(Person)(body), JSON.stringify(body)).to.deep.equal(
          E.left({ _tag: 'InvalidRequest', detail: 'name is required', param: 'name' }),
        )
      }
    })
  })

  describe('when an optional field is null', () => {
    it('treats it as absent', () => {
      expect(decode(Person)({ name: 'Ada', nickname: null, id: null, role: null })).to.deep.equal(E.right({ name: 'Ada' }))
    })
  })

  describe('when a field has the wrong form', () => {
    it('names the field and says what is expected', () => {
      expect(decode(Person)({ name: 'Ada', role: 'admin' })).to.deep.equal(
        E.left({ _tag: 'InvalidRequest', detail: 'role must be one of: owner, viewer', param: 'role' }),
      )
      expect(decode(Person)({ name: '   ' })).to.deep.equal(
        E.left({ _tag: 'InvalidRequest', detail: 'name must be between 1 and 10 characters', param: 'name' }),
      )
      expect(decode(Person)({ name: 7 })).to.deep.equal(
        E.left({ _tag: 'InvalidRequest', detail: 'name must be a string', param: 'name' }),
      )
    })
  })

  describe('when the body is not a JSON object', () => {
    it('refuses it without naming a field', () => {
      for (const body of ['{"name":"Ada"}', 42, true, null, undefined, [], [{ name: 'Ada' }]]) {
        expect(decode(Person)(body), JSON.stringify(body)).to.deep.equal(E.left(NOT_AN_OBJECT))
      }
    })
  })

  describe('when objects are nested', () => {
    const Outer = strictObject('Outer', { address: strictObject('Address', { city: boundedString('City', 1, 5) }, {}) }, {})

    it('names the failing field by its dotted path', () => {
      expect(decode(Outer)({ address: { city: 'Amsterdam' } })).to.deep.equal(
        E.left({ _tag: 'InvalidRequest', detail: 'address.city must be between 1 and 5 characters', param: 'address.city' }),
      )
      expect(decode(Outer)({ address: { city: 'Oslo', zip: '0150' } })).to.deep.equal(
        E.left({ _tag: 'InvalidRequest', detail: 'address.zip is not a known field', param: 'address.zip' }),
      )
    })
  })
})

describe('decode', () => {
  it('returns the decoded value on success', () => {
    expect(decode(t.number)(3)).to.deep.equal(E.right(3))
  })

  it('falls back to the codec name when the failure carries no message', () => {
    expect(decode(t.type({ count: t.number }))({ count: 'three' })).to.deep.equal(
      E.left({ _tag: 'InvalidRequest', detail: 'count must be a valid number', param: 'count' }),
    )
  })

  it('capitalises a top-level failure and sets no param', () => {
    expect(decode(t.number)('three')).to.deep.equal(E.left({ _tag: 'InvalidRequest', detail: 'Must be a valid number' }))
  })

  it('reports only the first failure', () => {
    expect(decode(Person)({ name: 'Ada', id: 'x', role: 'admin' })).to.deep.equal(
      E.left({ _tag: 'InvalidRequest', detail: 'id must be a UUID', param: 'id' }),
    )
  })
})

describe('Uuid', () => {
  const upper = '9D7C7A4E-0D6B-4C1E-9B8A-3F2E1D0C9B8A'

  it('decodes a UUID in any case to lower case', () => {
    expect(decode(Uuid)(upper)).to.deep.equal(E.right('9d7c7a4e-0d6b-4c1e-9b8a-3f2e1d0c9b8a'))
    expect(decode(Person)({ name: 'Ada', id: upper })).to.deep.equal(E.right({ name: 'Ada', id: '9d7c7a4e-0d6b-4c1e-9b8a-3f2e1d0c9b8a' }))
  })

  it('refuses anything that is not in canonical 8-4-4-4-12 form', () => {
    for (const value of ['', 'not-a-uuid', '9d7c7a4e0d6b4c1e9b8a3f2e1d0c9b8a', '{9d7c7a4e-0d6b-4c1e-9b8a-3f2e1d0c9b8a}', '9d7c7a4e-0d6b-4c1e-9b8a-3f2e1d0c9b8g', 42]) {
      expect(decode(Uuid)(value), String(value)).to.deep.equal(E.left({ _tag: 'InvalidRequest', detail: 'Must be a UUID' }))
    }
  })

  it('agrees with isUuid', () => {
    expect([upper, upper.toLowerCase(), 'not-a-uuid'].map(isUuid)).to.deep.equal([true, true, false])
  })
})

describe('CalendarDate', () => {
  it('accepts real dates from 0001-01-01 to 9999-12-31', () => {
    for (const date of ['0001-01-01', '2024-02-29', '2026-11-23', '9999-12-31']) expect(E.isRight(CalendarDate.decode(date)), date).to.equal(true)
  })

  it('refuses impossible dates, other forms and year 0000, which PostgreSQL has no date for', () => {
    for (const date of ['2026-02-30', '2025-02-29', '0000-01-01', '+10000-01-01', '2026-1-5', '2026-01-05T00:00:00Z', '', 20260105]) {
      expect(E.isLeft(CalendarDate.decode(date)), String(date)).to.equal(true)
    }
  })
})

describe('text a database cannot store', () => {
  const Website = stringMatching('Website', /^\S+$/, 'must be a URL')
  const Doc = strictObject('Doc', { name: boundedString('Name', 1, 20) }, { website: Website })
  const refusal = (param: string) => E.left({ _tag: 'InvalidRequest', detail: `${param} must not contain NUL characters or unpaired UTF-16 surrogates`, param })

  it('refuses a NUL or an unpaired surrogate in any string field, naming the field', () => {
    for (const bad of ['Ac\u0000me', '\u0000', 'Acme\ud800', '\udfffAcme', 'x\udfff\ud800']) {
      expect(decode(Doc)({ name: bad }), JSON.stringify(bad)).to.deep.equal(refusal('name'))
      expect(decode(Doc)({ name: 'Acme', website: `https://acme.example/${bad}` }), JSON.stringify(bad)).to.deep.equal(refusal('website'))
    }
  })

  it('takes paired surrogates, combining marks and other unusual text as it is', () => {
    for (const good of ['𝕏 Widgets', 'e\u0301', 'İstanbul', '\u202eAcme', 'Ac\u00a0me']) {
      expect(decode(Doc)({ name: good }), JSON.stringify(good)).to.deep.equal(E.right({ name: good.trim() }))
    }
  })
})
