import { expect } from 'chai'
import {
  approvedWords,
  chargeable,
  changeOf,
  entryRows,
  kindName,
  operatorName,
  previewRows,
  previewSummary,
  requestBody,
  reversible,
  subjectName,
  type ActionPreview,
} from '../src/action-preview.js'

/** The figures of the operator OpenAPI document's example (examples.ts `reversalPreview`): a 500.00 USD payment reversed 14 days on. */
const REVERSAL: ActionPreview = {
  kind: 'payment_reversal',
  loan_id: '0b3f8a52-5c1e-4d2a-9f7e-2a6d1c4b8e90',
  payment_id: 'c1d2e3f4-0000-4000-8000-000000000001',
  preview_version: '0b8f7a5e-2c41-4d9a-9e63-7f1d2a8c4b50.2026-11-30',
  currency: 'USD',
  status_before: 'ACTIVE',
  status_after: 'ACTIVE',
  before: { as_of: '2026-11-30', principal_outstanding: 1_155_200, interest_outstanding: 5_391, fees_outstanding: 0, past_due_amount: 0, payoff_amount: 1_160_591 },
  after: { as_of: '2026-11-30', principal_outstanding: 1_200_000, interest_outstanding: 10_800, fees_outstanding: 0, past_due_amount: 0, payoff_amount: 1_210_800 },
  transactions: [
    { transaction_id: '7a1e5c93-2d4b-4f60-8e17-c3b9a0d4f625', type: 'REVERSAL', effective_date: '2026-11-30', amount: 50_000, currency: 'USD', principal: 44_800, interest: 5_200, fees: 0 },
    { transaction_id: '5f8d2b61-9c3e-4a07-b4d2-e6a1f0c7b938', type: 'INTEREST_ACCRUAL', effective_date: '2026-11-30', amount: 209, currency: 'USD', principal: 0, interest: 209, fees: 0 },
  ],
  payment: { payment_id: 'c1d2e3f4-0000-4000-8000-000000000001', amount: 50_000, effective_date: '2026-11-16' },
}

/** A charge-off of a loan that owes 12,000.00 USD of principal and 3.30 USD of interest. */
const CHARGE_OFF: ActionPreview = {
  ...REVERSAL,
  kind: 'loan_charge_off',
  payment_id: null,
  status_after: 'CHARGED_OFF',
  before: { as_of: '2026-12-01', principal_outstanding: 1_200_000, interest_outstanding: 330, fees_outstanding: 0, past_due_amount: 0, payoff_amount: 1_200_330 },
  after: { as_of: '2026-12-01', principal_outstanding: 0, interest_outstanding: 0, fees_outstanding: 0, past_due_amount: 0, payoff_amount: 0 },
  transactions: [{ transaction_id: 't1', type: 'CHARGE_OFF', effective_date: '2026-12-01', amount: 1_200_330, currency: 'USD', principal: -1_200_000, interest: -330, fees: 0 }],
  payment: null,
}

describe('the maker-checker preview', () => {
  it('shows a reversal before and after: status, principal, interest, fees, past due and payoff, each with its exact change', () => {
    expect(previewRows(REVERSAL)).to.deep.equal([
      { label: 'Status', before: 'ACTIVE', after: 'ACTIVE', change: 'No change' },
      { label: 'Principal outstanding', before: '11,552.00 USD', after: '12,000.00 USD', change: '+448.00 USD' },
      { label: 'Interest outstanding', before: '53.91 USD', after: '108.00 USD', change: '+54.09 USD' },
      { label: 'Fees outstanding', before: '0.00 USD', after: '0.00 USD', change: 'No change' },
      { label: 'Past due', before: '0.00 USD', after: '0.00 USD', change: 'No change' },
      { label: 'Payoff amount', before: '11,605.91 USD', after: '12,108.00 USD', change: '+502.09 USD' },
    ])
    expect(previewSummary(REVERSAL)).to.equal(
      'Reversing payment c1d2e3f4-0000-4000-8000-000000000001 of 500.00 USD (effective 2026-11-16) would take the payoff amount from 11,605.91 USD to 12,108.00 USD (+502.09 USD), ' +
        'the status from ACTIVE to ACTIVE, and post 2 ledger entries.',
    )
  })

  it('shows a charge-off taking the loan to CHARGED_OFF and what it owes to nothing, the decrease signed', () => {
    const rows = previewRows(CHARGE_OFF)
    expect(rows[0]).to.deep.equal({ label: 'Status', before: 'ACTIVE', after: 'CHARGED_OFF', change: 'ACTIVE → CHARGED_OFF' })
    expect(rows.find((r) => r.label === 'Payoff amount')).to.deep.equal({ label: 'Payoff amount', before: '12,003.30 USD', after: '0.00 USD', change: '-12,003.30 USD' })
    expect(previewSummary(CHARGE_OFF)).to.equal(
      `Charging off loan ${CHARGE_OFF.loan_id} would take the payoff amount from 12,003.30 USD to 0.00 USD (-12,003.30 USD), the status from ACTIVE to CHARGED_OFF, and post 1 ledger entry.`,
    )
  })

  it("lists the entries it would post in ledger order, money exact in each entry's currency", () => {
    expect(entryRows(REVERSAL).map(({ key: _key, ...row }) => row)).to.deep.equal([
      { type: 'REVERSAL', effectiveDate: '2026-11-30', amount: '500.00 USD', principal: '448.00 USD', interest: '52.00 USD', fees: '0.00 USD' },
      { type: 'INTEREST_ACCRUAL', effectiveDate: '2026-11-30', amount: '2.09 USD', principal: '0.00 USD', interest: '2.09 USD', fees: '0.00 USD' },
    ])
    const yen = { ...REVERSAL, currency: 'JPY', transactions: [{ ...REVERSAL.transactions[0]!, currency: 'JPY' }] }
    expect(entryRows(yen)[0]?.amount).to.equal('50,000 JPY')
    expect(new Set(entryRows({ ...REVERSAL, transactions: [REVERSAL.transactions[0]!, REVERSAL.transactions[0]!] }).map((e) => e.key)).size, 'keys stay distinct').to.equal(2)
  })

  it('signs a change exactly, and says so when there is none or an amount is not an integer', () => {
    expect([changeOf(100, 150, 'USD'), changeOf(150, 100, 'USD'), changeOf(7, 7, 'USD'), changeOf(0, 9_007_199_254_740_991, 'USD'), changeOf(1.5, 2, 'USD'), changeOf(null, 2, 'USD')]).to.deep.equal([
      '+0.50 USD',
      '-0.50 USD',
      'No change',
      '+90,071,992,547,409.91 USD',
      '—',
      '—',
    ])
    expect(changeOf(-9_007_199_254_740_991, 9_007_199_254_740_991, 'USD'), 'a difference past a safe integer').to.equal('—')
  })
})

describe('the maker-checker requests', () => {
  it('may be asked of a payment that came in, and of an active loan only', () => {
    expect(['PENDING', 'SUCCEEDED', 'SETTLED', 'FAILED', 'RETURNED', 'REVERSED'].filter((status) => reversible({ status }))).to.deep.equal(['SUCCEEDED', 'SETTLED'])
    expect(['PENDING', 'ACTIVE', 'PAID_OFF', 'CHARGED_OFF'].filter((status) => chargeable({ status }))).to.deep.equal(['ACTIVE'])
  })

  it('are asked with their subject and a trimmed reason, and named as an operator reads them', () => {
    expect(requestBody({ kind: 'payment_reversal', payment_id: 'p1' }, '  ACH return R01 by phone \n')).to.deep.equal({ kind: 'payment_reversal', payment_id: 'p1', reason: 'ACH return R01 by phone' })
    expect(requestBody({ kind: 'loan_charge_off', loan_id: 'l1' }, 'Ceased trading')).to.deep.equal({ kind: 'loan_charge_off', loan_id: 'l1', reason: 'Ceased trading' })
    expect([subjectName({ kind: 'payment_reversal', payment_id: 'p1' }), subjectName({ kind: 'loan_charge_off', loan_id: 'l1' })]).to.deep.equal(['payment p1', 'loan l1'])
    expect(['payment_reversal', 'loan_charge_off', 'loan_restructure', null].map(kindName)).to.deep.equal(['Payment reversal', 'Charge-off', 'loan_restructure', ''])
    expect([approvedWords('payment_reversal'), approvedWords('loan_charge_off'), approvedWords('other')]).to.deep.equal([
      'The request is approved: the payment is reversed.',
      'The request is approved: the loan is charged off.',
      'The request is approved.',
    ])
  })

  it("marks the signed-in operator's own requests", () => {
    expect([operatorName('op-1', 'op-1'), operatorName('op-1', 'op-2'), operatorName(null, 'op-1'), operatorName('op-1', undefined)]).to.deep.equal(['op-1 (you)', 'op-1', '—', 'op-1'])
  })
})
