import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import {
  decodeCursor,
  decodePageRequest,
  encodeCursor,
  isAfter,
  pageOf,
  type Position,
} from '../src/domain/foundations/pagination.js'
import type { LoanSummary } from '../src/domain/loans/loan.js'
import { decodeLoanPage, LOAN_SORTS, loanPageOf, type LoanPage } from '../src/domain/loans/loan-order.js'

const position: Position = { createdAt: new Date('2026-01-15T10:00:00.123Z'), id: '00000000-0000-4000-8000-000000000001' }

const BAD_LIMIT = { _tag: 'InvalidRequest', detail: 'limit must be an integer from 1 to 100', param: 'limit' } as const
const BAD_CURSOR = { _tag: 'InvalidRequest', detail: 'cursor is not a cursor returned by this list', param: 'cursor' } as const

/** The base64url text a forged cursor would carry. */
const forge = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('decodePageRequest', () => {
  it('defaults to 20 items from the start of the list', () => {
    expect(decodePageRequest({})).to.deep.equal(E.right({ limit: 20, after: O.none }))
  })

  it('accepts the bounds 1 and 100', () => {
    expect(decodePageRequest({ limit: '1' })).to.deep.equal(E.right({ limit: 1, after: O.none }))
    expect(decodePageRequest({ limit: '100' })).to.deep.equal(E.right({ limit: 100, after: O.none }))
  })

  it('takes the limit as an integer too, as a service embedding the core passes it', () => {
    expect(decodePageRequest({ limit: 5 })).to.deep.equal(E.right({ limit: 5, after: O.none }))
    expect(decodePageRequest({ limit: 101 })).to.deep.equal(E.left(BAD_LIMIT))
  })

  describe('when the limit is out of range, not an integer or repeated', () => {
    it("refuses it with param 'limit'", () => {
      for (const limit of ['0', '101', 'abc', ['1', '2'], '', '-1', '1.5', '01', ' 5', 5.5, 0]) {
        expect(decodePageRequest({ limit }), JSON.stringify(limit)).to.deep.equal(E.left(BAD_LIMIT))
      }
    })
  })

  it('resumes after the position a cursor names', () => {
    expect(decodePageRequest({ limit: '5', cursor: encodeCursor(position) })).to.deep.equal(
      E.right({ limit: 5, after: O.some(position) }),
    )
  })

  describe('when the cursor is garbage', () => {
    it("refuses it with param 'cursor'", () => {
      for (const cursor of ['garbage', 'not a cursor!', '', 'a'.repeat(513), ['x', 'y']]) {
        expect(decodePageRequest({ cursor }), JSON.stringify(cursor)).to.deep.equal(E.left(BAD_CURSOR))
      }
    })
  })

  describe('when a query parameter is not known', () => {
    it('refuses it, naming the parameter', () => {
      expect(decodePageRequest({ limit: '10', page: '2' })).to.deep.equal(
        E.left({ _tag: 'InvalidRequest', detail: 'page is not a known field', param: 'page' }),
      )
    })
  })
})

describe('encodeCursor and decodeCursor', () => {
  it('round-trip a position through an opaque, URL-safe string', () => {
    const cursor = encodeCursor(position)
    expect(cursor).to.match(/^[A-Za-z0-9_-]+$/)
    expect(decodeCursor(cursor)).to.deep.equal(E.right(position))
  })

  it('round-trip a timestamp with whole seconds', () => {
    const onTheSecond = { createdAt: new Date('2026-01-15T10:00:00.000Z'), id: 'ffffffff-ffff-4fff-bfff-ffffffffffff' }
    expect(decodeCursor(encodeCursor(onTheSecond))).to.deep.equal(E.right(onTheSecond))
  })

  describe('when the cursor was forged', () => {
    it('refuses it whatever it carries', () => {
      for (const cursor of [
        forge([position.createdAt.toISOString(), "1' OR '1'='1"]),
        forge(['2026-01-15T10:00:00Z', position.id]),
        forge(['yesterday', position.id]),
        forge([position.createdAt.toISOString()]),
        forge([position.createdAt.toISOString(), position.id, 'extra']),
        forge({ createdAt: position.createdAt.toISOString(), id: position.id }),
        forge([1, position.id]),
        // Instants that round-trip through Date but that PostgreSQL cannot read.
        forge(['+010000-01-01T00:00:00.000Z', position.id]),
        forge(['-000001-01-01T00:00:00.000Z', position.id]),
        forge(['0000-01-01T00:00:00.000Z', position.id]),
        'garbage',
        '%%%',
      ]) {
        expect(decodeCursor(cursor), cursor).to.deep.equal(E.left(BAD_CURSOR))
      }
    })
  })
})

describe('pageOf', () => {
  const at = (ms: number, n: number) => ({
    createdAt: new Date(Date.UTC(2026, 0, 15, 10, 0, 0, ms)),
    id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
    name: `row ${n}`,
  })
  const rows = [at(0, 1), at(0, 2), at(5, 3)]

  describe('when there are more rows than the limit', () => {
    it('returns the first `limit` rows and a cursor after the last of them', () => {
      expect(pageOf(rows, 2)).to.deep.equal({ items: [rows[0], rows[1]], nextCursor: encodeCursor(rows[1]!) })
    })

    it('gives a cursor that decodes to the last returned row', () => {
      const { nextCursor } = pageOf(rows, 1)
      expect(decodeCursor(nextCursor!)).to.deep.equal(E.right({ createdAt: rows[0]!.createdAt, id: rows[0]!.id }))
    })
  })

  describe('when this is the last page', () => {
    it('returns every row and next_cursor null', () => {
      expect(pageOf(rows, 3)).to.deep.equal({ items: rows, nextCursor: null })
      expect(pageOf(rows, 20)).to.deep.equal({ items: rows, nextCursor: null })
      expect(pageOf([], 20)).to.deep.equal({ items: [], nextCursor: null })
    })
  })
})

describe('isAfter', () => {
  it('orders by created_at, then id', () => {
    const base = { createdAt: new Date('2026-01-15T10:00:00.000Z'), id: '00000000-0000-4000-8000-000000000002' }
    expect(isAfter({ ...base, createdAt: new Date('2026-01-15T10:00:00.001Z'), id: '00000000-0000-4000-8000-000000000001' }, base)).to.equal(true)
    expect(isAfter({ ...base, id: '00000000-0000-4000-8000-000000000003' }, base)).to.equal(true)
    expect(isAfter(base, base)).to.equal(false)
    expect(isAfter({ ...base, id: '00000000-0000-4000-8000-000000000001' }, base)).to.equal(false)
  })
})

describe('decodeLoanPage: the cursors of the sorted loan lists', () => {
  const BAD_SORTED = { _tag: 'InvalidRequest', detail: 'cursor is not a cursor returned by this list in this sort', param: 'cursor' } as const
  const loan = { ...position, oldestUnpaidDueDate: '2026-04-10', principal: 1_200_000 } as LoanSummary

  it("round-trips each order's cursor, and starts a first page without one", () => {
    const afterLoan = {
      created_at: position,
      oldest_unpaid_due_date: { oldestUnpaidDueDate: '2026-04-10', id: position.id },
      '-principal': { principal: 1_200_000, id: position.id },
    } as const
    for (const sort of LOAN_SORTS) {
      expect(decodeLoanPage(sort, 2, undefined)).to.deep.equal(E.right({ sort, limit: 2, after: O.none }))
      const page = loanPageOf([loan, loan, loan], { sort, limit: 2, after: O.none } as LoanPage, (l) => l)
      expect(decodeLoanPage(sort, 2, page.nextCursor!), sort).to.deep.equal(E.right({ sort, limit: 2, after: O.some(afterLoan[sort]) }))
    }
    const owingNothing = loanPageOf([{ ...loan, oldestUnpaidDueDate: null }, loan], { sort: 'oldest_unpaid_due_date', limit: 1, after: O.none }, (l) => l)
    expect(decodeLoanPage('oldest_unpaid_due_date', 1, owingNothing.nextCursor!)).to.deep.equal(E.right({ sort: 'oldest_unpaid_due_date', limit: 1, after: O.some({ oldestUnpaidDueDate: null, id: position.id }) }))
  })

  it("refuses a forged cursor, or one of another order, before it reaches SQL", () => {
    for (const [sort, cursor] of [
      ['oldest_unpaid_due_date', forge(['oldest_unpaid_due_date', '2026-02-30', position.id])],
      ['oldest_unpaid_due_date', forge(['oldest_unpaid_due_date', "2026-01-01' OR 1=1", position.id])],
      ['oldest_unpaid_due_date', forge(['oldest_unpaid_due_date', '2026-04-10', 'not-a-uuid'])],
      ['oldest_unpaid_due_date', forge(['-principal', 100, position.id])],
      ['oldest_unpaid_due_date', encodeCursor(position)],
      ['-principal', forge(['-principal', -1, position.id])],
      ['-principal', forge(['-principal', 1.5, position.id])],
      ['-principal', forge(['-principal', '100', position.id])],
      ['-principal', forge(['-principal', 100, position.id, 'extra'])],
      ['-principal', 'garbage'],
      // Ids as this list writes them: lower case, as PostgreSQL prints a uuid.
      ['-principal', forge(['-principal', 100, 'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF'])],
    ] as const) {
      expect(decodeLoanPage(sort, 1, cursor), cursor).to.deep.equal(E.left(BAD_SORTED))
    }
    expect(decodeLoanPage('created_at', 1, forge(['-principal', 100, position.id]))).to.deep.equal(E.left(BAD_CURSOR))
  })
})
