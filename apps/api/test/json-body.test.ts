import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { MAX_JSON_DEPTH, parseJsonBody } from '../src/http/json-body.js'

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`
const refusal = (text: string) => {
  const parsed = parseJsonBody(text)
  if (E.isRight(parsed)) throw new Error(`accepted: ${text.slice(0, 80)}`)
  return parsed.left
}

describe('parseJsonBody (issue 35)', () => {
  it('parses objects and arrays, and reads an empty or blank body as {}', () => {
    expect(parseJsonBody('{"a":[1,-2,{"b":"c"}],"d":null,"e":true}')).to.deep.equal(E.right({ a: [1, -2, { b: 'c' }], d: null, e: true }))
    expect(parseJsonBody('[]')).to.deep.equal(E.right([]))
    expect(parseJsonBody('')).to.deep.equal(E.right({}))
    expect(parseJsonBody(' \n')).to.deep.equal(E.right({}))
  })

  it(`accepts ${MAX_JSON_DEPTH} levels of nesting and refuses ${MAX_JSON_DEPTH + 1}, arrays and objects alike`, () => {
    expect(E.isRight(parseJsonBody(nested(MAX_JSON_DEPTH)))).to.equal(true)
    expect(refusal(nested(MAX_JSON_DEPTH + 1)).detail).to.equal('The request body nests arrays and objects more than 32 levels deep.')
    const objects = (depth: number): string => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`
    expect(E.isRight(parseJsonBody(objects(MAX_JSON_DEPTH)))).to.equal(true)
    expect(E.isLeft(parseJsonBody(objects(MAX_JSON_DEPTH + 1)))).to.equal(true)
  })

  it('counts only brackets outside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '['.repeat(100), b: 'say \\"[[[[\\" and \\\\', c: '1.5e3' })
    expect(parseJsonBody(text)).to.deep.equal(E.right(JSON.parse(text)))
  })

  it('refuses a body nested half a million deep without parsing it, wherever a non-integer stands', () => {
    expect(refusal('['.repeat(500_000)).detail).to.match(/more than 32 levels deep/)
    // A number with a fraction before the nesting must not lead to parsing what follows it.
    expect(refusal(`{"a":1.5,"b":${'['.repeat(500_000)}`).detail).to.match(/more than 32 levels deep/)
    expect(refusal(`{"b":1.5,"1":${'['.repeat(500_000)}${']'.repeat(500_000)}}`).detail).to.match(/more than 32 levels deep/)
  })

  it('refuses every number that is not an integer literal, naming its field', () => {
    for (const literal of ['1.0', '1e2', '1E2', '100.0000000000000001', '-0.5', '2e-1', '1.5E+3']) {
      const problem = refusal(`{"items":[{"amount":${literal}}],"n":1}`)
      expect(problem.param, literal).to.equal('items.0.amount')
      expect(problem.detail, literal).to.equal(`items.0.amount must be an integer literal, amounts in minor units (no fraction or exponent): found ${literal}.`)
    }
    expect(refusal('[7, 1.5]').param).to.equal('1')
    // A body that is not JSON either: the number is named, its field cannot be.
    expect(refusal('{"a":1.5,').detail).to.equal('Numbers in a request body must be an integer literal, amounts in minor units (no fraction or exponent): found 1.5.')
    expect(parseJsonBody('{"a":-12,"b":0,"c":123456789012}')).to.deep.equal(E.right({ a: -12, b: 0, c: 123456789012 }))
  })

  it('refuses what is not JSON, a top level that is not an object or array, and __proto__ keys', () => {
    for (const text of ['{"a":', '"text"', '12', 'null', '{"__proto__":{"admin":true}}', '{"a":{"__proto__":{}}}', "{'a':1}"]) {
      expect(refusal(text).detail, text).to.equal('The request body is not valid JSON (an object or array is expected).')
    }
  })
})
