import { expect } from 'chai'
import { loanChangeContract } from './loan-servicing-change-contract.js'
import type { LoanServicingFixtures } from './loan-servicing-fixtures.js'
import { loanLedgerContract } from './loan-servicing-ledger-contract.js'
import { loanReadsContract } from './loan-servicing-reads-contract.js'
import { servicingSuite } from './loan-servicing-suite.js'
import type { Implementation } from './run.js'

export { BOOKED_AT, bankAccountOf, bookingThrough, type LoanBorrower, type LoanServicingFixtures, type LoanToBook } from './loan-servicing-fixtures.js'

/**
 * The behaviour every `LoanRepository` must have in servicing: reads of loans, schedules,
 * ledgers and snapshots; `change` (locked, all or nothing, serialised per loan); payments,
 * collateral and documents. States are built by the domain's own servicing functions.
 */
export const loanServicingContract = (impl: Implementation<LoanServicingFixtures>): void => {
  describe(`LoanRepository servicing contract: ${impl.name}`, () => {
    let fixtures: LoanServicingFixtures | undefined
    before(async () => {
      fixtures = await impl.make()
    })
    const suite = servicingSuite(() => fixtures ?? expect.fail('the fixtures are made in `before`'))

    loanReadsContract(suite)
    loanLedgerContract(suite)
    loanChangeContract(suite)
  })
}
