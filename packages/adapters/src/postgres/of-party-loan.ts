import type { PageRequest, LoanId, PartyId } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import type { Kysely, Selectable } from 'kysely'
import { inPage } from './paging.js'
import type { Database } from './schema.js'

/**
 * A read of one of a party's loans (`OfPartyLoan`) in one statement: the loan, by its id and
 * party, joined to the records read (left-joined, laterally where they are a page, so that the
 * page's order and limit apply to the records alone). No row: no such loan of the party. One
 * row whose records' side is null: the loan, without records.
 */
export const ofPartyLoan = (db: Kysely<Database>, partyId: PartyId, loanId: LoanId) =>
  db.selectFrom('loans as l').where('l.id', '=', loanId).where('l.party_id', '=', partyId)

/** An `ofPartyLoan` read's rows as the records they hold, `Row`s once `key` (never null in a record) is not null. */
export const recordsOf = <Row, A>(rows: readonly { readonly [K in keyof Row]: Row[K] | null }[], key: keyof Row, to: (row: Row) => A): O.Option<readonly A[]> => {
  const [first] = rows
  if (first === undefined) return O.none
  return O.some(first[key] === null ? [] : (rows as readonly Row[]).map(to))
}

/** The tables of a loan's records that are listed by `(created_at, id)` pages. */
type PagedLoanRecords = 'collateral_items' | 'loan_documents' | 'payment_methods' | 'payments'

/**
 * One page of a party's loan's records in `table` (`inPage`'s order), read with the loan in one
 * statement: none when the loan is not the party's, an empty page when it has no records.
 */
export const pageOfPartyLoan = async <T extends PagedLoanRecords, A>(
  db: Kysely<Database>,
  partyId: PartyId,
  loanId: LoanId,
  table: T,
  page: PageRequest,
  to: (row: Selectable<Database[T]>) => A,
): Promise<O.Option<readonly A[]>> => {
  // Kysely cannot type a select from a table named by a type parameter: the query is typed on
  // one table of the union, every one of which has the columns it uses.
  const records = table as PagedLoanRecords as 'payment_methods'
  const rows = await ofPartyLoan(db, partyId, loanId)
    .leftJoinLateral((eb) => inPage(eb.selectFrom(records).selectAll(records).whereRef(`${records}.loan_id`, '=', 'l.id'), page).as('r'), (join) => join.onTrue())
    .selectAll('r')
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute()
  return recordsOf(rows, 'id', to as unknown as (row: Selectable<Database[typeof records]>) => A)
}
