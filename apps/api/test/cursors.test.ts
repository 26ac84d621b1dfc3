import { randomUUID } from 'node:crypto'
import { cursorSeal } from '@lendgate/adapters'
import { expect } from 'chai'
import { TERM_LOAN_PRODUCT } from './support/booked-loan.js'
import { bearer, mintKey, request } from './support/client.js'
import { INTERNAL_TOKEN, startInMemoryServer, type TestServer } from './support/test-server.js'

/**
 * Issue 35, finding 5: a cursor answers only for the list, caller and filters it was handed out
 * for. Before, a cursor from another list, or an edited one, answered 200 with an empty page.
 */

describe('cursorSeal', () => {
  const seal = cursorSeal(new Uint8Array(32).fill(1))
  it('opens what it sealed for the same binding, and nothing else', () => {
    const sealed = seal.seal('WyIyMDI2Il0', 'list\n/p\nclient\n')
    expect(seal.open(sealed, 'list\n/p\nclient\n')).to.equal('WyIyMDI2Il0')
    expect(sealed).to.match(/^[A-Za-z0-9_-]+$/)
    expect(seal.open(sealed, 'list\n/p\nother\n')).to.equal(undefined)
    expect(seal.open(`x${sealed.slice(1)}`, 'list\n/p\nclient\n')).to.equal(undefined)
    expect(seal.open(sealed.slice(0, -1), 'list\n/p\nclient\n')).to.equal(undefined)
    expect(seal.open('short', 'list\n/p\nclient\n')).to.equal(undefined)
    expect(cursorSeal(new Uint8Array(32).fill(2)).open(sealed, 'list\n/p\nclient\n'), 'another key').to.equal(undefined)
  })
})

describe('list cursors over HTTP (issue 35)', () => {
  let server: TestServer
  let mine: string
  let theirs: string
  let partyId: string
  let first: { next_cursor: string }
  const keysPage = (key: string, query: string) => request(server.url, `/public/partner/api-keys?${query}`, { headers: bearer(key) })
  const expectRefused = (reply: Awaited<ReturnType<typeof keysPage>>, label: string) => {
    expect(reply.status, `${label}: ${reply.text}`).to.equal(400)
    expect(reply.body, label).to.deep.equal({ error: 'invalid_request', detail: 'cursor is not a cursor returned by this list', param: 'cursor' })
  }

  before(async () => {
    server = await startInMemoryServer()
    partyId = randomUUID()
    const keys = [await mintKey(server.url, { party_id: partyId, client_name: 'pager' }), await mintKey(server.url, { party_id: partyId, client_name: 'pager' })]
    await mintKey(server.url, { party_id: partyId, client_name: 'pager' })
    mine = keys[0]!.api_key
    theirs = (await mintKey(server.url, { party_id: partyId, client_name: 'someone-else' })).api_key
    first = (await keysPage(mine, 'limit=1')).body
    expect(first.next_cursor).to.be.a('string')
  })
  after(() => server.stop())

  it('follows a cursor for the list, caller and filters it came from, under either path prefix', async () => {
    expect((await keysPage(mine, `limit=1&cursor=${first.next_cursor}`)).status).to.equal(200)
    const versioned = await request(server.url, `/public/v1/partner/api-keys?limit=1&cursor=${first.next_cursor}`, { headers: bearer(mine) })
    expect(versioned.status).to.equal(200)
  })

  it('refuses it from another API client, with another filter, or edited', async () => {
    expectRefused(await keysPage(theirs, `limit=1&cursor=${first.next_cursor}`), 'another client')
    const edited = `${first.next_cursor.slice(0, 5)}${first.next_cursor[5] === 'A' ? 'B' : 'A'}${first.next_cursor.slice(6)}`
    expectRefused(await keysPage(mine, `limit=1&cursor=${edited}`), 'edited')
    expectRefused(await keysPage(mine, `limit=1&cursor=${first.next_cursor.slice(0, -22)}`), 'without its seal')
  })

  it("refuses it on another list of the same API client (the party's applications)", async () => {
    const applications = await request(server.url, `/public/parties/${partyId}/applications?limit=1&cursor=${first.next_cursor}`, { headers: bearer(mine) })
    expectRefused(applications, 'another list, same client')
  })

  it('refuses it on another list', async () => {
    const products = await request(server.url, `/internal/loan-products?limit=1&cursor=${first.next_cursor}`, { headers: bearer(INTERNAL_TOKEN) })
    expect(products.status, products.text).to.equal(400)
    expect(products.body.param).to.equal('cursor')
    for (const name of ['Cursor Loan A', 'Cursor Loan B']) {
      const made = await request(server.url, '/internal/loan-products', { method: 'POST', headers: bearer(INTERNAL_TOKEN), json: { ...TERM_LOAN_PRODUCT, name } })
      expect(made.status, made.text).to.equal(201)
    }
    const productsFirst = (await request(server.url, '/internal/loan-products?limit=1', { headers: bearer(INTERNAL_TOKEN) })).body as { next_cursor: string | null }
    if (productsFirst.next_cursor === null) throw new Error('the product catalogue should have more than one page of one')
    const filtered = await request(server.url, `/internal/loan-products?limit=1&active=true&cursor=${productsFirst.next_cursor}`, { headers: bearer(INTERNAL_TOKEN) })
    expect(filtered.status, 'another filter on the same list').to.equal(400)
    expectRefused(await keysPage(mine, `limit=1&cursor=${productsFirst.next_cursor}`), "the products list's cursor on the keys list")
  })
})
