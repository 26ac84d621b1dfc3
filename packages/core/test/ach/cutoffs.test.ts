import { expect } from 'chai'
import { bankingCalendar } from '../../src/domain/ach/banking-days.js'
import { ACH_TIME_ZONE, cutoffOf, cutoffRunKey, cutoffSchedule, instantIn, timeIn } from '../../src/domain/ach/cutoffs.js'

/** Cut-offs in New York time on banking days (docs/ach.md "Origination job"). */

describe('instantIn and timeIn (New York wall clock)', () => {
  it('reads a wall-clock time in winter (UTC−5) and in summer (UTC−4)', () => {
    expect(instantIn(ACH_TIME_ZONE, '2026-01-15', '15:30').toISOString()).to.equal('2026-01-15T20:30:00.000Z')
    expect(instantIn(ACH_TIME_ZONE, '2026-07-15', '15:30').toISOString()).to.equal('2026-07-15T19:30:00.000Z')
    expect(timeIn(ACH_TIME_ZONE, new Date('2026-01-15T20:30:59.999Z'))).to.equal('15:30')
    expect(timeIn(ACH_TIME_ZONE, new Date('2026-07-15T03:59:00.000Z'))).to.equal('23:59')
  })

  it('reads the days the clocks change: 8 March and 1 November 2026', () => {
    // 02:30 does not exist on 8 March: read with the offset before the change (EST), so 07:30Z, which the clocks show as 03:30 EDT.
    expect(instantIn(ACH_TIME_ZONE, '2026-03-08', '02:30').toISOString()).to.equal('2026-03-08T07:30:00.000Z')
    expect(instantIn(ACH_TIME_ZONE, '2026-03-08', '15:30').toISOString()).to.equal('2026-03-08T19:30:00.000Z')
    expect(instantIn(ACH_TIME_ZONE, '2026-11-01', '15:30').toISOString()).to.equal('2026-11-01T20:30:00.000Z')
    // 01:30 shows twice on 1 November: the first, in summer time.
    expect(instantIn(ACH_TIME_ZONE, '2026-11-01', '01:30').toISOString()).to.equal('2026-11-01T05:30:00.000Z')
    // Every quarter hour of both days reads back as itself (but the hour that does not exist).
    for (const date of ['2026-03-08', '2026-11-01']) {
      for (let minutes = 0; minutes < 24 * 60; minutes += 15) {
        const time = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
        if (date === '2026-03-08' && time >= '02:00' && time < '03:00') continue
        expect(timeIn(ACH_TIME_ZONE, instantIn(ACH_TIME_ZONE, date, time)), `${date} ${time}`).to.equal(time)
      }
    }
  })
})

describe('cutoffSchedule', () => {
  // 4 July 2026 is a Saturday: the Reserve Banks close nothing for it (Friday 3 July is a banking day). Monday 6 July is an extra closure here.
  const calendar = bankingCalendar(['2026-07-06'])
  const schedule = cutoffSchedule(calendar, ['15:30', '10:00', '15:30'])

  it('answers the latest cut-off at or before now, on banking days only', () => {
    const at = (iso: string) => schedule.latest(new Date(iso))
    // Thursday 15 January 2026: before the first cut-off, the previous banking day's last.
    expect(at('2026-01-15T14:59:59.999Z')).to.deep.equal({ date: '2026-01-14', time: '15:30' })
    expect(at('2026-01-15T15:00:00.000Z')).to.deep.equal({ date: '2026-01-15', time: '10:00' })
    expect(at('2026-01-15T20:30:00.000Z')).to.deep.equal({ date: '2026-01-15', time: '15:30' })
    // Monday 19 January (Martin Luther King Jr. Day) and the weekend before it: Friday's last.
    expect(at('2026-01-17T18:00:00.000Z')).to.deep.equal({ date: '2026-01-16', time: '15:30' })
    expect(at('2026-01-19T21:00:00.000Z')).to.deep.equal({ date: '2026-01-16', time: '15:30' })
    // An extra closure (Monday 6 July) counts as a holiday.
    expect(at('2026-07-06T21:00:00.000Z')).to.deep.equal({ date: '2026-07-03', time: '15:30' })
  })

  it('answers the cut-off after one, over weekends and closures, and each instant in New York time', () => {
    expect(schedule.after({ date: '2026-01-15', time: '10:00' })).to.deep.equal({ date: '2026-01-15', time: '15:30' })
    expect(schedule.after({ date: '2026-01-16', time: '15:30' })).to.deep.equal({ date: '2026-01-20', time: '10:00' })
    expect(schedule.after({ date: '2026-07-03', time: '15:30' })).to.deep.equal({ date: '2026-07-07', time: '10:00' })
    // An operator's run on a Saturday: the next is Monday's first.
    expect(schedule.after({ date: '2026-03-07', time: '09:00' })).to.deep.equal({ date: '2026-03-09', time: '10:00' })
    expect(schedule.instant({ date: '2026-01-20', time: '10:00' }).toISOString()).to.equal('2026-01-20T15:00:00.000Z')
  })

  it('names runs by their cut-off, ordered as text, and reads them back', () => {
    const runs = [{ date: '2026-01-15', time: '10:00' }, { date: '2026-01-15', time: '15:30' }, { date: '2026-01-20', time: '10:00' }].map(cutoffRunKey)
    expect(runs).to.deep.equal(['2026-01-15T10:00', '2026-01-15T15:30', '2026-01-20T10:00'])
    expect([...runs].sort()).to.deep.equal(runs)
    expect(runs.map(cutoffOf)).to.deep.equal([
      { date: '2026-01-15', time: '10:00' },
      { date: '2026-01-15', time: '15:30' },
      { date: '2026-01-20', time: '10:00' },
    ])
    for (const bad of ['2026-01-15', '2026-01-15T1530', '2026-01-15T15:30:00', 'T15:30']) expect(cutoffOf(bad), bad).to.equal(undefined)
  })

  it('refuses no times, or a time that is not HH:MM', () => {
    expect(() => cutoffSchedule(calendar, [])).to.throw(/not times of day/)
    expect(() => cutoffSchedule(calendar, ['24:00'])).to.throw(/not times of day/)
  })
})
