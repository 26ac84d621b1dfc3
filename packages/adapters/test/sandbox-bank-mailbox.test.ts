import { randomUUID } from 'node:crypto'
import { bankingCalendar, type AchDebit, type PaymentId } from '@lendgate/core'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { nachaFileFormat, nachaInboundFormat } from '../src/ach/nacha-format.js'
import { SANDBOX_ORIGINATOR, sandboxBank } from '../src/ach/sandbox-bank.js'
import { postgresSandboxBankMailbox, type SandboxBankMailbox } from '../src/postgres/ach-sandbox-files.js'
import { testWorlds } from '../src/testing/test-databases.js'

/**
 * The sandbox bank's mailbox in PostgreSQL (each world's schema): the test world's origination
 * puts its files there, and the inbox job takes the bank's answers from it as their days come.
 * The database is shared by the run's suites: every file here has a name of its own, and only
 * those are looked at.
 */

const calendar = bankingCalendar()
const format = nachaFileFormat(SANDBOX_ORIGINATOR)

/** A file of debits (account, amount) effective Wednesday 25 November 2026 (Thanksgiving the 26th is closed): its name made unique. */
const sentFile = (debits: readonly (readonly [string, number])[]) => {
  const formatted = format.format({
    effectiveEntryDate: '2026-11-25',
    creationDate: '2026-11-24',
    creationTime: '1530',
    fileIdModifier: 'A',
    debits: debits.map(([accountNumber, amount], i): AchDebit => ({
      paymentId: randomUUID() as PaymentId,
      traceNumber: `${SANDBOX_ORIGINATOR.odfiRoutingNumber.slice(0, 8)}${String(i + 1).padStart(7, '0')}`,
      secCode: 'CCD',
      routingNumber: '011000015',
      accountNumber,
      accountType: 'checking',
      amount,
      name: 'ACME WIDGETS LLC',
    })),
  })
  if (E.isLeft(formatted)) return expect.fail(formatted.left.reason)
  return { name: `${randomUUID()}.ach`, bytes: formatted.right.bytes }
}

const right = async <A>(task: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const result = await task()
  return E.isRight(result) ? result.right : expect.fail(JSON.stringify(result.left))
}

for (const database of testWorlds()) {
  describe(`the sandbox bank's mailbox on ${database.name}`, () => {
    let mailbox: SandboxBankMailbox
    let now = new Date('2026-11-24T20:30:00.000Z')
    before(async () => {
      const { world } = await database.open()
      mailbox = postgresSandboxBankMailbox(world, sandboxBank({ calendar }), { now: () => now })
    })
    /** What arrived by `day` from the files `names`. */
    const arrivedOf = async (day: string, names: readonly string[]) => (await right(mailbox.arrivedBy(day, 1_000))).filter((f) => names.includes(f.receipt))

    it('offers each answer on its banking day, with every return and notice due that day, until it is taken', async () => {
      const file = sentFile([
        ['000000590003', 100],
        ['000000590001', 200],
        ['000000590101', 300],
        ['000000590000', 400],
      ])
      await right(mailbox.put(file.name, file.bytes))
      expect(await arrivedOf('2026-11-25', [file.name])).to.deep.equal([])

      const friday = await arrivedOf('2026-11-27', [file.name])
      expect(friday.map((f) => [f.name, f.arrivedOn, f.receipt])).to.deep.equal([[`${file.name.replace(/\.ach$/, '')}.20261127.returns.ach`, '2026-11-27', file.name]])
      const read = nachaInboundFormat.read(friday[0]!.bytes)
      expect(E.isRight(read) && read.right.returns.map((r) => [r.returnCode, r.amount])).to.deep.equal([['R03', 100]])

      // Asked on Monday before Friday's was taken: both, oldest first.
      const monday = await arrivedOf('2026-11-30', [file.name])
      expect(monday.map((f) => f.arrivedOn)).to.deep.equal(['2026-11-27', '2026-11-30'])
      const mondayRead = nachaInboundFormat.read(monday[1]!.bytes)
      expect(E.isRight(mondayRead) && [mondayRead.right.returns.map((r) => r.returnCode), mondayRead.right.notices.map((n) => n.changeCode)]).to.deep.equal([['R01'], ['C01']])

      await right(mailbox.take(friday[0]!))
      expect((await arrivedOf('2026-11-30', [file.name])).map((f) => f.arrivedOn)).to.deep.equal(['2026-11-30'])
      await right(mailbox.take(monday[1]!))
      expect(await arrivedOf('2026-11-30', [file.name])).to.deep.equal([])
      // Taking an earlier one again moves nothing back.
      await right(mailbox.take(friday[0]!))
      expect(await arrivedOf('2027-06-01', [file.name])).to.deep.equal([])
    })

    it('keeps a file put again with the same bytes, refuses other bytes under its name, and never offers a file whose debits all settle', async () => {
      const file = sentFile([['000000590000', 100]])
      await right(mailbox.put(file.name, file.bytes))
      await right(mailbox.put(file.name, file.bytes))
      const other = sentFile([['000000590001', 100]])
      expect(await mailbox.put(file.name, other.bytes)()).to.deep.equal(E.left({ _tag: 'FileNameTaken', name: file.name }))
      expect(await arrivedOf('2027-06-01', [file.name])).to.deep.equal([])
    })

    it('answers at most `limit` files, oldest answer first, and the rest once those are taken', async () => {
      // Three files whose answers all come on Monday 30 November, and one answered on Friday the 27th, put last.
      const files = [sentFile([['000000590001', 1]]), sentFile([['000000590002', 2]]), sentFile([['000000590029', 3]]), sentFile([['000000590003', 4]])]
      for (const file of files) {
        now = new Date(now.getTime() + 1_000)
        await right(mailbox.put(file.name, file.bytes))
      }
      const names = files.map((f) => f.name)
      // Other suites' files may wait in the shared database: ask for ours among enough, then for few.
      const all = await arrivedOf('2026-11-30', names)
      expect(all.map((f) => [f.receipt, f.arrivedOn])).to.deep.equal([
        [names[3], '2026-11-27'],
        [names[0], '2026-11-30'],
        [names[1], '2026-11-30'],
        [names[2], '2026-11-30'],
      ])
      const firstTwo = await right(mailbox.arrivedBy('2026-11-30', 2))
      expect(firstTwo).to.have.length(2)
      for (const file of all.slice(0, 2)) await right(mailbox.take(file))
      expect((await arrivedOf('2026-11-30', names)).map((f) => f.receipt)).to.deep.equal(names.slice(1, 3))
      for (const file of all.slice(2)) await right(mailbox.take(file))
      expect(await arrivedOf('2026-11-30', names)).to.deep.equal([])
    })

    it('refuses a file the bank cannot read, keeping nothing', async () => {
      const refused = await mailbox.put(`${randomUUID()}.ach`, new TextEncoder().encode('not a NACHA file'))()
      expect(E.isLeft(refused) && refused.left._tag).to.equal('SinkUnavailable')
    })
  })
}
