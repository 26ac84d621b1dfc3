import { expect } from 'chai'
import { BOOK, cursorDataProvider, fillPath, idParams, type Listing } from '../src/data-provider.js'
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

describe("the data provider's routes", () => {
  it("fills a route's path from the filter and leaves the rest for the query; a missing id is an error, never a shorter path", () => {
    expect(fillPath('internal/loans/:loan_id/schedule', { loan_id: 'l 1/2', status: 'LATE' })).to.deep.equal({ path: 'internal/loans/l%201%2F2/schedule', rest: { status: 'LATE' } })
    expect(() => fillPath('internal/loans/:loan_id/schedule', { loan_id: '' })).to.throw('internal/loans/:loan_id/schedule needs loan_id')
  })

  it("lists a record's records on its own route, and reads one record by id with the API's id as react-admin's", async () => {
    const asked: string[] = []
    const provider = cursorDataProvider(
      async (path) => (asked.push(path), { data: [{ installment_number: 1 }], next_cursor: null }),
      async (path) => (asked.push(path), { application_id: 'a1', currency: 'USD' }),
    )
    const schedule = await provider.getList('loan-schedule', { pagination: { page: 1, perPage: 12 }, filter: { loan_id: 'l1' }, sort: { field: 'id', order: 'ASC' } })
    const preview = await provider.getOne('schedule-previews', { id: 'a1' })
    expect([schedule.data, preview.data]).to.deep.equal([[{ installment_number: 1, id: 1 }], { application_id: 'a1', currency: 'USD', id: 'a1' }])
    expect(asked).to.deep.equal(['internal/loans/l1/schedule?limit=12', 'internal/applications/a1/schedule-preview'])
    await provider.getOne('loans', { id: 'l1' })
    expect(asked[2]).to.equal('internal/loans/l1')
    let refused: unknown
    await provider.getOne('parties', { id: 'p1' }).catch((error: unknown) => (refused = error))
    expect(String(refused)).to.equal('Error: the console has no page of parties')
  })

  it("reads the book's delinquency at its own path, which names no id, as the one record it asks for", async () => {
    const asked: string[] = []
    const book = { as_of: '2026-11-30T12:00:00.000Z', livemode: false, currencies: [] }
    const provider = cursorDataProvider(
      async () => ({ data: [], next_cursor: null }),
      async (path) => (asked.push(path), book),
    )
    expect((await provider.getOne('portfolio-delinquency', { id: BOOK })).data).to.deep.equal({ ...book, id: 'book' })
    expect(asked).to.deep.equal(['internal/portfolio/delinquency'])
  })

  it('lists the Approvals inbox by state and reads one request by its operator_request_id', async () => {
    const asked: string[] = []
    const provider = cursorDataProvider(
      async (path) => (asked.push(path), { data: [{ operator_request_id: 'r1', state: 'PENDING' }], next_cursor: null }),
      async (path) => (asked.push(path), { operator_request_id: 'r1', state: 'PENDING' }),
    )
    const inbox = await provider.getList('operator-requests', { pagination: { page: 1, perPage: 25 }, filter: { state: 'PENDING' }, sort: { field: 'id', order: 'ASC' } })
    const request = await provider.getOne('operator-requests', { id: 'r1' })
    expect([inbox.data, request.data]).to.deep.equal([[{ operator_request_id: 'r1', state: 'PENDING', id: 'r1' }], { operator_request_id: 'r1', state: 'PENDING', id: 'r1' }])
    expect(asked).to.deep.equal(['internal/operator-requests?state=PENDING&limit=25', 'internal/operator-requests/r1'])
  })

  it('names a webhook delivery by its endpoint and its event, and reads it on the route of both', async () => {
    const asked: string[] = []
    const endpoint = '0f4c2b1e-8d3a-4c5b-9e6f-7a8b9c0d1e2f'
    const event = `evt_${'a'.repeat(32)}`
    const provider = cursorDataProvider(
      async (path) => (asked.push(path), { data: [{ webhook_endpoint_id: endpoint, event_id: event, status: 'failed' }], next_cursor: null }),
      async (path) => (asked.push(path), { webhook_endpoint_id: endpoint, event_id: event, status: 'failed', attempt_log: [] }),
    )
    const failed = await provider.getList('webhook-deliveries', { pagination: { page: 1, perPage: 25 }, filter: { status: 'failed' }, sort: { field: 'id', order: 'ASC' } })
    const id = `${endpoint}~${event}`
    expect(failed.data.map((d) => d.id)).to.deep.equal([id])
    expect((await provider.getOne('webhook-deliveries', { id })).data).to.deep.equal({ webhook_endpoint_id: endpoint, event_id: event, status: 'failed', attempt_log: [], id })
    expect(asked).to.deep.equal(['internal/webhook-deliveries?status=failed&limit=25', `internal/webhook-endpoints/${endpoint}/deliveries/${event}`])
    expect(() => idParams(['webhook_endpoint_id', 'event_id'], event)).to.throw(`${event} is not an id of webhook_endpoint_id~event_id`)
  })
})
