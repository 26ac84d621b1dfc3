import { expect } from 'chai'
import fc from 'fast-check'
import { instantText, instantTextOrNull, utcDate } from '../src/domain/foundations/instant.js'

describe('instantText', () => {
  it('writes every representable instant exactly as toISOString does', () => {
    // fast-check's dates span the whole range of Date: expanded years, year 0, negative years.
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (at) => {
        expect(instantText(at)).to.equal(at.toISOString())
      }),
      { numRuns: 20_000 },
    )
  })

  it('writes instants of the years the API meets exactly as toISOString does', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }), (ms) => {
        const at = new Date(ms)
        expect(instantText(at)).to.equal(at.toISOString())
      }),
      { numRuns: 20_000 },
    )
  })

  it('pads every field, and keeps the edges of the four-digit years', () => {
    for (const text of [
      '2026-01-02T03:04:05.006Z',
      '2026-12-31T23:59:59.999Z',
      '2024-02-29T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z',
      '0999-09-09T09:09:09.090Z',
      '9999-12-31T23:59:59.999Z',
      '+010000-01-01T00:00:00.000Z',
      '-000001-12-31T23:59:59.999Z',
    ]) {
      expect(instantText(new Date(text))).to.equal(text)
    }
  })

  it('refuses an invalid date as toISOString does', () => {
    expect(() => instantText(new Date(Number.NaN))).to.throw(RangeError)
  })

  it('writes null for no instant', () => {
    expect(instantTextOrNull(null)).to.equal(null)
    expect(instantTextOrNull(undefined)).to.equal(null)
    expect(instantTextOrNull(new Date('2026-11-25T05:00:00Z'))).to.equal('2026-11-25T05:00:00.000Z')
  })
})

describe('utcDate', () => {
  it('is the UTC calendar date of an instant, whatever its time of day', () => {
    expect(utcDate(new Date('2026-11-25T00:00:00.000Z'))).to.equal('2026-11-25')
    expect(utcDate(new Date('2026-11-25T23:59:59.999Z'))).to.equal('2026-11-25')
    expect(utcDate(new Date('2026-11-25T23:30:00.000-05:00'))).to.equal('2026-11-26')
  })
})
