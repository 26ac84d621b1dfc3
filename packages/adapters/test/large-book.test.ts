import { authenticateApiKey, getLatestLoanBalanceForParty, getLoanPayoffForParty, listTransactionsForPartyLoan, mintApiKey, type CoreDeps } from '@lendgate/core'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { sql } from 'kysely'
import { postgresCoreDeps } from '../src/postgres-core-deps.js'
import { seedLargeBook, type BookSizes, type BookSubject } from '../src/testing/large-book.js'
import { scratchDatabase, testDatabases, type ScratchDatabase } from '../src/testing/test-databases.js'

/**
 * The large book (issue 40, decision 98): its copies are real records, as the core reads them,
 * its skew is what it says, and seeding again resumes instead of doubling.
 */

const SIZES: BookSizes = {
  historyMonths: 1,
  paymentEveryDays: 9,
  longLedger: 20,
  subjectLoans: 3,
  parties: 5,
  loans: 6,
  bigParties: 1,
  loansPerBigParty: 3,
  openSessions: 4,
}

const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

/**
 * `value` as JSON with every UUID replaced and no `sequence` (a ledger row's place in the whole
 * table): a copy differs from its template by those alone.
 */
const withoutIds = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replace(UUIDS, 'an id'), (key, v: unknown) => (key === 'sequence' ? undefined : v))

const right = async <A>(task: TE.TaskEither<unknown, A>): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) expect.fail(JSON.stringify(result.left))
  return result.right
}

for (const database of testDatabases()) {
  describe(`the large book on ${database.name}`, function () {
    this.timeout(120_000)
    let scratch: ScratchDatabase
    let book: BookSubject
    let deps: CoreDeps

    const count = async (query: string): Promise<number> => {
      const { rows } = await sql<{ n: string }>`${sql.raw(query)}`.execute(scratch.database.db)
      return Number(rows[0]?.n)
    }

    /** The core's view of loan `loanId` of party `partyId`, through a key minted for that party. */
    const readLoan = async (partyId: string, loanId: string) => {
      const minted = await right(mintApiKey(deps)({ party_id: partyId, client_name: 'large-book-test' }))
      const caller = await right(authenticateApiKey(deps)(minted.plaintext))
      const command = { partyId, loanId }
      return {
        payoff: await right(getLoanPayoffForParty(deps)(caller, command)),
        balance: await right(getLatestLoanBalanceForParty(deps)(caller, command)),
        ledger: (await right(listTransactionsForPartyLoan(deps)(caller, { ...command, limit: 100 }))).items,
      }
    }

    before(async () => {
      scratch = await scratchDatabase(database.kind)
      book = await seedLargeBook(scratch.database, SIZES)
      deps = postgresCoreDeps(scratch.database, { sender: { send: () => TE.right(undefined) }, webhookSecretKey: new Uint8Array(32) })
    })

    after(async () => {
      await scratch?.drop()
    })

    it('holds the sizes it was asked for: parties, loans with their skew, sessions', async () => {
      // The subject's party and the partner's sessions beside the others.
      expect(await count('select count(*) as n from parties')).to.equal(1 + SIZES.parties)
      expect(await count('select count(*) as n from loans')).to.equal(SIZES.subjectLoans + 1 + SIZES.loans)
      expect(await count(`select count(*) as n from onboarding_sessions`)).to.equal(2 + SIZES.parties + SIZES.openSessions)
      expect(await count(`select count(*) as n from api_keys k join parties p on p.id = k.party_id`)).to.be.at.least(1 + SIZES.parties)
      // Loans a party: the subject's (its loans and the long-ledger loan), one big party, then one each.
      const { rows } = await sql<{ n: string }>`select count(*)::text as n from loans group by party_id order by count(*) desc, party_id`.execute(scratch.database.db)
      expect(rows.map((r) => Number(r.n))).to.deep.equal([SIZES.subjectLoans + 1, SIZES.loansPerBigParty, 1, 1, 1])
      expect(await count(`select count(*) as n from loan_transactions where loan_id = '${book.longLedgerLoanId}'`)).to.equal(SIZES.longLedger)
    })

    it('makes copies the core reads as it reads the template: the same payoff, balance and ledger', async () => {
      const template = await readLoan(book.partyId, book.seasonedLoanId)
      expect(template.ledger.map((t) => t.type)).to.include.members(['DISBURSEMENT', 'INTEREST_ACCRUAL', 'PAYMENT'])
      const { rows } = await sql<{ id: string; party_id: string }>`select id, party_id from loans where party_id <> ${book.partyId} order by id limit 2`.execute(scratch.database.db)
      expect(rows).to.have.length(2)
      for (const copy of rows) {
        const read = await readLoan(copy.party_id, copy.id)
        expect(withoutIds(read)).to.deep.equal(withoutIds(template))
        // Each copied payment's transaction is a transaction of the copy, and each snapshot's too.
        expect(await count(`select count(*) as n from payments p left join loan_transactions t on t.id = p.transaction_id and t.loan_id = p.loan_id where p.loan_id = '${copy.id}' and t.id is null`)).to.equal(0)
        expect(await count(`select count(*) as n from loan_balances b left join loan_transactions t on t.id = b.transaction_id and t.loan_id = b.loan_id where b.loan_id = '${copy.id}' and t.id is null`)).to.equal(0)
      }
    })

    it('resumes instead of seeding twice, and refuses what it would seed only in part', async () => {
      const counts = async () => [await count('select count(*) as n from loans'), await count('select count(*) as n from loan_transactions'), await count('select count(*) as n from onboarding_sessions')]
      const before = await counts()
      expect(await seedLargeBook(scratch.database, SIZES)).to.deep.equal(book)
      expect(await counts()).to.deep.equal(before)
      const refusal = (sizes: BookSizes) => seedLargeBook(scratch.database, sizes).then(() => 'seeded', (error: unknown) => String(error))
      expect(await refusal({ ...SIZES, historyMonths: 2 })).to.contain('this database holds templates made for')
      expect(await refusal({ ...SIZES, openSessions: SIZES.openSessions + 1 })).to.contain('open sessions was seeded to 4 here, short of 5')
      expect(await counts()).to.deep.equal(before)
    })
  })
}
