import { bankingCalendar, type AchDebit, type PaymentId } from '@lendgate/core'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { nachaFileFormat, nachaInboundFormat } from '../src/ach/nacha-format.js'
import { SANDBOX_BANK_RULES, sandboxBank, type SentFile } from '../src/ach/sandbox-bank.js'
import { SANDBOX_AMOUNT_TRIGGERS } from '../src/payments/sandbox.js'

/**
 * The sandbox bank: a file we sent, as the origination job writes it (`nachaFileFormat`), answered
 * per the rules on the banking days they name, in files the ingestion's own reader
 * (`nachaInboundFormat`) reads.
 */

const format = nachaFileFormat({
  odfiRoutingNumber: '121042882',
  odfiName: 'WELLS FARGO BANK',
  companyIdentification: '1234567890',
  companyName: 'LENDGATE CAPITAL',
  destinationRoutingNumber: '121042882',
  destinationName: 'WELLS FARGO BANK',
})
const calendar = bankingCalendar()
const bank = sandboxBank({ calendar })

let trace = 0
const debit = (accountNumber: string, amount: number): AchDebit => {
  trace += 1
  return {
    paymentId: `00000000-0000-4000-8000-${String(trace).padStart(12, '0')}` as PaymentId,
    traceNumber: `12104288${String(trace).padStart(7, '0')}`,
    secCode: 'CCD',
    routingNumber: '011000015',
    accountNumber,
    accountType: 'checking',
    amount,
    name: `BORROWER ${trace}`,
  }
}

/** A file effective Wednesday 25 November 2026: Thanksgiving (the 26th) is closed, so E+1 is Friday the 27th and E+2 Monday the 30th. */
const sent = (debits: readonly AchDebit[]): SentFile => {
  const formatted = format.format({ effectiveEntryDate: '2026-11-25', creationDate: '2026-11-24', creationTime: '1530', fileIdModifier: 'A', debits })
  if (E.isLeft(formatted)) expect.fail(formatted.left.reason)
  return { name: formatted.right.name, text: Buffer.from(formatted.right.bytes).toString('latin1') }
}

const right = <A>(either: E.Either<unknown, A>): A => (E.isRight(either) ? either.right : expect.fail(JSON.stringify(either.left)))

/** The returns and notices of a bank file, as the ingestion reads them. */
const readBack = (text: string) => {
  const read = right(nachaInboundFormat.read(Buffer.from(text, 'latin1')))
  return { returns: read.returns.map((r) => [r.originalTrace, r.returnCode, r.amount]), notices: read.notices.map((n) => [n.originalTrace, n.changeCode, n.correction]), others: read.others }
}

describe('the sandbox bank', () => {
  const settles = debit('000000590000', 10_000)
  const r01 = debit('000000590001', 10_001)
  const r02 = debit('000000590002', 10_002)
  const r03 = debit('000000590003', 10_003)
  const r10 = debit('000000590010', 10_010)
  const r29 = debit('000000590029', 10_029)
  const c01 = debit('000000590101', 10_101)
  const c05 = debit('000000590105', 10_105)
  const anyone = debit('123456789', 42_00)
  const byAmount = debit('000000590000', 5502)
  const file = sent([settles, r01, r02, r03, r10, r29, c01, c05, anyone, byAmount])

  it('decides each debit by the first rule naming its amount, then its account number; other debits settle', () => {
    const decided = right(bank.decide(file)).map((d) => [d.traceNumber, d.outcome.kind === 'settle' ? 'settle' : d.outcome.kind === 'return' ? d.outcome.returnCode : d.outcome.correction.changeCode, d.effectiveDate])
    expect(decided).to.deep.equal([
      [settles.traceNumber, 'settle', '2026-11-25'],
      [r01.traceNumber, 'R01', '2026-11-25'],
      [r02.traceNumber, 'R02', '2026-11-25'],
      [r03.traceNumber, 'R03', '2026-11-25'],
      [r10.traceNumber, 'R10', '2026-11-25'],
      [r29.traceNumber, 'R29', '2026-11-25'],
      [c01.traceNumber, 'C01', '2026-11-25'],
      [c05.traceNumber, 'C05', '2026-11-25'],
      [anyone.traceNumber, 'settle', '2026-11-25'],
      // 5502 wins over the settling account, as an amount trigger wins over the method on the sandbox processor.
      [byAmount.traceNumber, 'R02', '2026-11-25'],
    ])
  })

  it('sends nothing before the first answer is due', () => {
    expect(right(bank.answersBy(file, '2026-11-25'))).to.deep.equal([])
    expect(right(bank.answersBy(file, '2026-11-26'))).to.deep.equal([])
  })

  it('sends each banking day’s answers in one file, dated that day, over the calendar’s holidays', () => {
    const [friday, ...none] = right(bank.answersBy(file, '2026-11-29'))
    expect(none).to.deep.equal([])
    expect(friday).to.include({ name: '121042882-261124-A.20261127.returns.ach', sentOn: '2026-11-27' })
    expect(readBack(friday!.text)).to.deep.equal({ returns: [[r03.traceNumber, 'R03', 10_003]], notices: [], others: [] })
    expect(friday!.text.split('\n')[0]!.slice(23, 29)).to.equal('261127')

    const files = right(bank.answersBy(file, '2026-11-30'))
    expect(files.map((f) => f.sentOn)).to.deep.equal(['2026-11-27', '2026-11-30'])
    expect(files[0]!.text).to.equal(friday!.text)
    expect(readBack(files[1]!.text)).to.deep.equal({
      returns: [
        [r01.traceNumber, 'R01', 10_001],
        [r02.traceNumber, 'R02', 10_002],
        [r29.traceNumber, 'R29', 10_029],
        [byAmount.traceNumber, 'R02', 5502],
      ],
      notices: [
        [c01.traceNumber, 'C01', E.right({ accountNumber: '000000590000' })],
        [c05.traceNumber, 'C05', E.right({ accountType: 'savings' })],
      ],
      others: [],
    })
  })

  it('sends the late R10 ten banking days on, and answers the same bytes each time it is asked', () => {
    const before = right(bank.answersBy(file, '2026-12-09'))
    expect(before.map((f) => f.sentOn)).to.deep.equal(['2026-11-27', '2026-11-30'])
    const after = right(bank.answersBy(file, '2026-12-10'))
    expect(after.map((f) => f.sentOn)).to.deep.equal(['2026-11-27', '2026-11-30', '2026-12-10'])
    expect(readBack(after[2]!.text).returns).to.deep.equal([[r10.traceNumber, 'R10', 10_010]])
    expect(right(bank.answersBy(file, '2027-06-01'))).to.deep.equal(after)
  })

  it('sends nothing for a file whose debits all settle', () => {
    expect(right(bank.answersBy(sent([debit('000000590000', 1), debit('987654321', 2)]), '2027-01-01'))).to.deep.equal([])
  })

  it('takes a test’s own rules', () => {
    const own = sandboxBank({ calendar, rules: [{ accountNumber: '987654321', outcome: { kind: 'return', returnCode: 'R16', afterBankingDays: 0 } }] })
    const mine = debit('987654321', 3)
    const files = right(own.answersBy(sent([mine, debit('000000590001', 4)]), '2026-11-25'))
    expect(files.map((f) => [f.sentOn, readBack(f.text).returns])).to.deep.equal([['2026-11-25', [[mine.traceNumber, 'R16', 3]]]])
  })

  it('refuses a file it cannot read, naming the record and field', () => {
    const broken = { ...file, text: file.text.replace(/^1/, '2') }
    const refused = bank.answersBy(broken, '2026-12-31')
    expect(E.isLeft(refused) && refused.left).to.include({ record: 1 })
  })

  it('means by each amount what the sandbox processor means by it', () => {
    const amounts = SANDBOX_BANK_RULES.flatMap((rule) => ('amount' in rule && rule.outcome.kind === 'return' ? [[rule.amount, rule.outcome.returnCode]] : []))
    expect(amounts).to.deep.equal(SANDBOX_AMOUNT_TRIGGERS.map((trigger) => [trigger.amount, trigger.nachaReturn]))
  })
})
