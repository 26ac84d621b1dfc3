import { expect } from 'chai'
import { cursorDataProvider, type Listing } from '../src/data-provider.js'
import { formatMinor } from '../src/money.js'

/** The console's logic that needs no browser: amounts as text, and paging by cursor. */

describe('formatMinor', () => {
  it('splits the digits where the currency puts its minor unit, exactly, at any size', () => {
    expect([formatMinor(1_200_000, 'USD'), formatMinor(5, 'USD'), formatMinor(-123_456_789, 'USD'), formatMinor(1_500, 'JPY'), formatMinor(0, 'EUR')]).to.deep.equal([
      '12,000.00 USD',
      '0.05 USD',
      '-1,234,567.89 USD',
      '1,500 JPY',
      '0.00 EUR',
    ])
    expect(formatMinor(9_007_199_254_740_991, 'USD')).to.equal('90,071,992,547,409.91 USD')
    // ISO 4217's minor unit, not the browser's display rule (which shows IDR and HUF in whole units).
    expect([formatMinor(100, 'IDR'), formatMinor(100, 'HUF'), formatMinor(1_234, 'KWD')]).to.deep.equal(['1.00 IDR', '1.00 HUF', '1.234 KWD'])
    expect([formatMinor(Number.NaN, 'USD'), formatMinor(1.5, 'USD'), formatMinor(undefined, undefined)]).to.deep.equal(['NaN USD', '1.5 USD', 'undefined'])
  })
})

describe('the cursor data provider', () => {
  /** Seven applications, listed by the fake API three at a time, each page's cursor naming where it starts. */
  const IDS = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']
  const setup = () => {
    const asked: string[] = []
    const provider = cursorDataProvider(async (path) => {
      asked.push(path)
      const url = new URL(path, 'http://console.example/')
      const start = Number(url.searchParams.get('cursor') ?? '0')
      const limit = Number(url.searchParams.get('limit'))
      const next = start + limit < IDS.length ? String(start + limit) : null
      return { data: IDS.slice(start, start + limit).map((application_id) => ({ application_id, status: url.searchParams.get('status') })), next_cursor: next } satisfies Listing
    })
    const page = (n: number) => provider.getList('applications', { pagination: { page: n, perPage: 3 }, filter: { status: 'SUBMITTED' }, sort: { field: 'id', order: 'ASC' } })
    return { asked, page }
  }

  it('answers each page with its records as ids, and whether pages come before and after it, never a total', async () => {
    const { page } = setup()
    const first = await page(1)
    expect(first).to.deep.equal({
      data: ['a1', 'a2', 'a3'].map((id) => ({ application_id: id, status: 'SUBMITTED', id })),
      pageInfo: { hasPreviousPage: false, hasNextPage: true },
    })
    expect((await page(3)).pageInfo).to.deep.equal({ hasPreviousPage: true, hasNextPage: false })
  })

  it('asks for a page it reached before by its cursor, and walks to one it has not from the last it knows', async () => {
    const { page, asked } = setup()
    await page(1)
    await page(2)
    await page(2)
    expect(asked).to.deep.equal([
      'internal/applications?status=SUBMITTED&limit=3',
      'internal/applications?status=SUBMITTED&limit=3&cursor=3',
      'internal/applications?status=SUBMITTED&limit=3&cursor=3',
    ])
    asked.length = 0
    expect((await page(3)).data.map((r) => r.id)).to.deep.equal(['a7'])
    expect(asked).to.deep.equal(['internal/applications?status=SUBMITTED&limit=3&cursor=6'])
    const fresh = setup()
    expect((await fresh.page(3)).data.map((r) => r.id)).to.deep.equal(['a7'])
    expect(fresh.asked).to.have.length(3)
    expect(await fresh.page(4)).to.deep.equal({ data: [], pageInfo: { hasPreviousPage: true, hasNextPage: false } })
  })
})
