import { expect } from 'chai'
import { addDays, addMonths, calendarDays, dayCounter, divideHalfUp, interestBetween } from '../../src/lending/day-count.js'

describe('day counts', () => {
  it('calendar days and dates across month and leap-year ends', () => {
    expect([calendarDays('2026-01-15', '2026-02-15'), calendarDays('2028-02-28', '2028-03-01'), calendarDays('2026-03-01', '2026-02-28')]).to.deep.equal([31, 2, -1])
    expect([addDays('2026-12-31', 1), addMonths('2026-01-31', 1), addMonths('2028-01-31', 1), addMonths('2026-11-30', 3)]).to.deep.equal(['2027-01-01', '2026-02-28', '2028-02-29', '2027-02-28'])
  })

  it('30/360 on the loan clock: 30 days a month between due dates, a part month its calendar days up to 30', () => {
    const thirty = dayCounter('THIRTY_360', '2026-01-31')
    expect([thirty.days('2026-01-31', '2026-02-28'), thirty.days('2026-02-28', '2026-03-31'), thirty.days('2026-01-31', '2026-02-10'), thirty.year]).to.deep.equal([30, 30, 10, 360])
  })

  it('Actual/365: calendar days of a 365-day year', () => {
    const actual = dayCounter('ACTUAL_365', '2026-01-15')
    expect([actual.days('2026-01-15', '2026-02-15'), actual.year]).to.deep.equal([31, 365])
  })

  it('interest over a stretch is exact and rounded half up once; none over no days or no principal', () => {
    const thirty = dayCounter('THIRTY_360', '2026-01-15')
    expect(interestBetween(thirty, 1_200_000, 1_200, '2026-01-15', '2026-02-15')).to.equal(12_000)
    expect(interestBetween(dayCounter('ACTUAL_365', '2026-01-15'), 1_200_000, 1_200, '2026-01-15', '2026-02-15')).to.equal(12_230)
    expect([interestBetween(thirty, 1, 10_000, '2026-01-15', '2026-07-15'), interestBetween(thirty, 1, 9_999, '2026-01-15', '2026-07-15')]).to.deep.equal([1, 0])
    expect([interestBetween(thirty, 1_000, 1_200, '2026-02-15', '2026-02-15'), interestBetween(thirty, 0, 1_200, '2026-01-15', '2026-02-15')]).to.deep.equal([0, 0])
    expect([divideHalfUp(5n, 2n), divideHalfUp(7n, 3n)]).to.deep.equal([3n, 2n])
  })
})
