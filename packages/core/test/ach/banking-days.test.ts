import { expect } from 'chai'
import fc from 'fast-check'
import { bankingCalendar, federalReserveClosures } from '../../src/domain/ach/banking-days.js'

/**
 * The closures of the Federal Reserve Banks, read off the Board's "K.8 Holidays Observed by the
 * Federal Reserve System 2026-2030" (federalreserve.gov/aboutthefed/k8.htm, updated 2025-12-31):
 * a holiday on a Saturday leaves the Banks open (July 4 2026, June 19 and December 25 2027,
 * January 1 and November 11 2028); one on a Sunday closes the Monday (July 5 2027, November 12 2029).
 */
const PUBLISHED: Readonly<Record<number, readonly string[]>> = {
  2026: ['01-01', '01-19', '02-16', '05-25', '06-19', '09-07', '10-12', '11-11', '11-26', '12-25'],
  2027: ['01-01', '01-18', '02-15', '05-31', '07-05', '09-06', '10-11', '11-11', '11-25'],
  2028: ['01-17', '02-21', '05-29', '06-19', '07-04', '09-04', '10-09', '11-23', '12-25'],
  2029: ['01-01', '01-15', '02-19', '05-28', '06-19', '07-04', '09-03', '10-08', '11-12', '11-22', '12-25'],
  2030: ['01-01', '01-21', '02-18', '05-27', '06-19', '07-04', '09-02', '10-14', '11-11', '11-28', '12-25'],
}

const day = (date: string): number => new Date(`${date}T00:00:00Z`).getUTCDay()

describe('federalReserveClosures', () => {
  for (const [year, dates] of Object.entries(PUBLISHED)) {
    it(`closes on the Federal Reserve's published days of ${year}`, () => {
      expect(federalReserveClosures(Number(year)).map((c) => c.date)).to.deep.equal(dates.map((d) => `${year}-${d}`))
    })
  }

  it('names each closure by its holiday, a Sunday one on its Monday', () => {
    expect(federalReserveClosures(2027).find((c) => c.date === '2027-07-05')).to.deep.equal({ date: '2027-07-05', name: 'Independence Day' })
    expect(federalReserveClosures(2029).find((c) => c.date === '2029-11-12')).to.deep.equal({ date: '2029-11-12', name: 'Veterans Day' })
  })

  it('keeps Juneteenth from 2021 only, the year it became a holiday (on a Saturday then: no closure; 2022 on the Monday)', () => {
    expect(federalReserveClosures(2020).map((c) => c.name)).to.not.include('Juneteenth National Independence Day')
    expect(federalReserveClosures(2021).map((c) => c.date)).to.not.include.members(['2021-06-18', '2021-06-19', '2021-06-21'])
    expect(federalReserveClosures(2022).find((c) => c.name === 'Juneteenth National Independence Day')).to.deep.equal({ date: '2022-06-20', name: 'Juneteenth National Independence Day' })
  })
})

describe('bankingCalendar', () => {
  const calendar = bankingCalendar()

  it('opens the Friday before a Saturday holiday: 3 July 2026 and 31 December 2027 are banking days', () => {
    expect(calendar.isBankingDay('2026-07-03')).to.equal(true)
    expect(calendar.isBankingDay('2027-12-31')).to.equal(true)
    expect(calendar.isBankingDay('2027-07-05')).to.equal(false)
  })

  it('moves past weekends and holidays: Thanksgiving, Christmas, a long weekend', () => {
    expect(calendar.nextBankingDay('2026-11-25')).to.equal('2026-11-27')
    expect(calendar.nextBankingDay('2026-12-24')).to.equal('2026-12-28')
    expect(calendar.addBankingDays('2026-12-23', 2)).to.equal('2026-12-28')
    expect(calendar.addBankingDays('2027-07-01', 2)).to.equal('2027-07-06')
    expect(calendar.addBankingDays('2026-11-27', 0)).to.equal('2026-11-27')
    expect(calendar.addBankingDays('2026-11-27', 2)).to.equal('2026-12-01')
  })

  it("closes an operator's extra closure too (the Reserve Banks closed on 9 January 2025)", () => {
    const mourning = bankingCalendar(['2025-01-09'])
    expect(calendar.isBankingDay('2025-01-09')).to.equal(true)
    expect(mourning.isBankingDay('2025-01-09')).to.equal(false)
    expect(mourning.nextBankingDay('2025-01-08')).to.equal('2025-01-10')
  })

  it('refuses to move by a negative or fractional number of days', () => {
    expect(() => calendar.addBankingDays('2026-11-27', -1)).to.throw('not a whole number')
    expect(() => calendar.addBankingDays('2026-11-27', 1.5)).to.throw('not a whole number')
  })

  it('steps as a plain count of open days does (the closures as given): n banking days later lands on one, with n − 1 between', () => {
    const dates = fc.integer({ min: 0, max: 365 * 10 }).map((k) => new Date(Date.UTC(2024, 0, 1 + k)).toISOString().slice(0, 10))
    const closed = new Set([2024, 2025, 2026, 2027, 2028, 2029, 2030, 2031, 2032, 2033, 2034, 2035].flatMap((y) => federalReserveClosures(y).map((c) => c.date)))
    const open = (date: string): boolean => day(date) !== 0 && day(date) !== 6 && !closed.has(date)
    fc.assert(
      fc.property(dates, fc.integer({ min: 1, max: 15 }), (from, n) => {
        const to = calendar.addBankingDays(from, n)
        expect(open(to), to).to.equal(true)
        let between = 0
        for (let d = new Date(`${from}T00:00:00Z`); ; ) {
          d = new Date(d.getTime() + 86_400_000)
          const text = d.toISOString().slice(0, 10)
          if (text === to) break
          if (open(text)) between += 1
        }
        expect(between).to.equal(n - 1)
      }),
    )
  })
})
