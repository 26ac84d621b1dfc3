import { expect } from 'chai'
import type { LoanId } from '../../src/domain/foundations/ids.js'
import { installmentStatus } from '../../src/lending/derived-loan.js'
import type { LoanInstallment } from '../../src/lending/loan-records.js'
import { deriveLoan } from '../../src/lending/replay.js'
import { paid, servicedLoan } from './fixtures.js'

const due: LoanInstallment = {
  loanId: 'loan-1' as LoanId,
  number: 1,
  dueDate: '2026-02-15',
  principalDue: 100,
  interestDue: 10,
  feesDue: 0,
  principalPaid: 0,
  interestPaid: 0,
  feesPaid: 0,
  interestAccrued: false,
}
const settledUp = { ...due, principalPaid: 100, interestPaid: 10 }

describe('a loan as derived for a date', () => {
  it('gives each installment its status (docs/servicing.md "Schedule")', () => {
    expect([
      installmentStatus(due, '2026-02-01', false),
      installmentStatus(due, '2026-02-15', false),
      installmentStatus({ ...due, principalPaid: 1 }, '2026-02-01', false),
      installmentStatus(due, '2026-02-16', false),
      installmentStatus({ ...settledUp, interestAccrued: true }, '2026-02-01', false),
      installmentStatus(settledUp, '2026-02-01', false),
      installmentStatus(settledUp, '2026-02-01', true),
    ]).to.deep.equal(['UPCOMING', 'DUE', 'PARTIALLY_PAID', 'LATE', 'PAID', 'PARTIALLY_PAID', 'PAID'])
  })

  it('projects an open installment to its due date and counts only what has accrued in the payoff', () => {
    const derived = deriveLoan(servicedLoan(), [], '2026-02-05')
    expect([derived.installments[0]!.interestDue, derived.outstanding.interest, derived.nextDueAmount, derived.payoff]).to.deep.equal([12_000, 8_400, 106_619, 1_208_400])
  })

  it('tells what is past due, since when, and what is due next', () => {
    const derived = deriveLoan(servicedLoan(), [paid(50_000, '2026-02-20')], '2026-03-01')
    expect([derived.pastDueAmount, derived.daysPastDue, derived.nextDueDate]).to.deep.equal([106_619 - 50_000, 14, '2026-03-15'])
  })
})
