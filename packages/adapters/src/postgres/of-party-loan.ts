import * as O from 'fp-ts/lib/Option.js'
import type { Kysely } from 'kysely'
import type { Database } from './schema.js'

/**
 * A read of one of a party's loans (`OfPartyLoan`) in one statement: the loan, by its id and
 * party, joined to the records read (left-joined, laterally where they are a page, so that the
 * page's order and limit apply to the records alone). No row: no such loan of the party. One
 * row whose records' side is null: the loan, without records.
 */
export const ofPartyLoan = (db: Kysely<Database>, partyId: string, loanId: string) =>
  db.selectFrom('loans as l').where('l.id', '=', loanId).where('l.party_id', '=', partyId)

/** An `ofPartyLoan` read's rows as the records they hold, `Row`s once `key` (never null in a record) is not null. */
export const recordsOf = <Row, A>(rows: readonly { readonly [K in keyof Row]: Row[K] | null }[], key: keyof Row, to: (row: Row) => A): O.Option<readonly A[]> => {
  const [first] = rows
  if (first === undefined) return O.none
  return O.some(first[key] === null ? [] : (rows as readonly Row[]).map(to))
}
