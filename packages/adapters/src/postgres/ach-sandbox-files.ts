import type { AchFileSink, AchInbox, ArrivedAchFile, FileNameTaken, PartyId, SinkUnavailable } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Kysely } from 'kysely'
import type { SandboxBank, SentFile } from '../ach/sandbox-bank.js'
import type { Database } from './schema.js'
import { query } from './store-errors.js'

/**
 * The sandbox bank's mailbox in a world's database (decision 146): the origination job's sink,
 * which keeps each file whole (`ach_sandbox_files`), and the inbox job's inbox, which offers the
 * sandbox bank's answers to those files as their days come. The bank keeps nothing: the answers
 * are made from the file and the day each time (`SandboxBank.answersBy`); the mailbox records the
 * last day taken and the next answer's day, so the inbox reads only files with an answer due.
 */
export type SandboxBankMailbox = AchFileSink &
  AchInbox & {
    /** The inbox of party `partyId`'s own files (its test clock's, `AchFile.partyId`); the mailbox itself is the world's files'. */
    readonly ofParty: (partyId: PartyId) => AchInbox
  }

/** Latin-1, as NACHA files are read. */
const textOf = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1')

/** A file the bank cannot read: one the format should never have written. */
const unreadable = (name: string, error: { readonly record: number; readonly field: string; readonly reason: string }): Error =>
  new Error(`the sandbox bank cannot read ${name}: record ${error.record}, ${error.field}: ${error.reason}`)

/** The mailbox of `db`'s world, answered by `bank`. */
export const postgresSandboxBankMailbox = (db: Kysely<Database>, bank: SandboxBank, clock: { readonly now: () => Date }): SandboxBankMailbox => {
  /** The first day after `after` (any day when null) on which the bank answers a debit of `sent`, as its rules and calendar say now; null when none. */
  const nextAnswerOf = (sent: SentFile, after: string | null): E.Either<Error, string | null> =>
    pipe(
      bank.decide(sent),
      E.mapLeft((error) => unreadable(sent.name, error)),
      E.map((decisions) => decisions.flatMap((d) => (d.answeredOn !== null && (after === null || d.answeredOn > after) ? [d.answeredOn] : [])).reduce<string | null>((a, b) => (a === null || b < a ? b : a), null)),
    )
  /** The inbox of `partyId`'s files (the world's when null): the answers due, and their taking. */
  const inboxOf = (partyId: PartyId | null): AchInbox => ({
    arrivedBy: (day, limit) =>
      query(async () => {
        const due = await db
          .selectFrom('ach_sandbox_files')
          .select(['name', 'bytes', 'answered_through'])
          .where('next_answer_on', '<=', day)
          .where('party_id', partyId === null ? 'is' : '=', partyId)
          .orderBy('next_answer_on')
          .orderBy('put_at')
          .orderBy('name')
          .limit(limit)
          .execute()
        const arrived: ArrivedAchFile[] = []
        for (const file of due) {
          const sent = { name: file.name, text: textOf(file.bytes) }
          const answers = bank.answersBy(sent, day)
          if (E.isLeft(answers)) throw unreadable(file.name, answers.left)
          const fresh = answers.right.filter((answer) => file.answered_through === null || answer.sentOn > file.answered_through)
          if (fresh.length === 0) {
            // Due by its record, answered by none today: the calendar or the rules moved its answer since. Its next day, as they say now.
            const next = nextAnswerOf(sent, file.answered_through)
            if (E.isLeft(next)) throw next.left
            await db.updateTable('ach_sandbox_files').set({ next_answer_on: next.right }).where('name', '=', file.name).execute()
          }
          for (const answer of fresh) arrived.push({ name: answer.name, bytes: Buffer.from(answer.text, 'latin1'), arrivedOn: answer.sentOn, receipt: file.name })
        }
        // Oldest first across files; a file's own answers keep their order, so a day is never taken before an earlier one.
        return arrived.sort((a, b) => (a.arrivedOn < b.arrivedOn ? -1 : a.arrivedOn > b.arrivedOn ? 1 : 0)).slice(0, limit)
      }),

    take: (file) =>
      query(async () => {
        const row = await db.selectFrom('ach_sandbox_files').select(['bytes', 'answered_through']).where('name', '=', file.receipt).executeTakeFirst()
        if (row === undefined || (row.answered_through !== null && row.answered_through >= file.arrivedOn)) return
        const next = nextAnswerOf({ name: file.receipt, text: textOf(row.bytes) }, file.arrivedOn)
        if (E.isLeft(next)) throw next.left
        await db
          .updateTable('ach_sandbox_files')
          .set({ answered_through: file.arrivedOn, next_answer_on: next.right })
          .where('name', '=', file.receipt)
          .where((eb) => eb.or([eb('answered_through', 'is', null), eb('answered_through', '<', file.arrivedOn)]))
          .execute()
      }),
  })
  return {
    put: (name, bytes) => {
      const next = nextAnswerOf({ name, text: textOf(bytes) }, null)
      if (E.isLeft(next)) return TE.left<SinkUnavailable>({ _tag: 'SinkUnavailable', cause: next.left })
      return pipe(
        query(async () => {
          // Filed under the party of the origination file of that name (the world's when none).
          const origin = await db.selectFrom('ach_files').select('party_id').where('name', '=', name).executeTakeFirst()
          const inserted = await db
            .insertInto('ach_sandbox_files')
            .values({ name, bytes: Buffer.from(bytes), put_at: clock.now(), answered_through: null, next_answer_on: next.right, party_id: origin?.party_id ?? null })
            .onConflict((oc) => oc.column('name').doNothing())
            .executeTakeFirst()
          if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return true
          const there = await db.selectFrom('ach_sandbox_files').select('bytes').where('name', '=', name).executeTakeFirstOrThrow()
          return Buffer.compare(there.bytes, Buffer.from(bytes)) === 0
        }),
        TE.mapLeft((failure): SinkUnavailable | FileNameTaken => ({ _tag: 'SinkUnavailable', cause: failure.cause })),
        TE.chain((same) => (same ? TE.right(undefined) : TE.left<SinkUnavailable | FileNameTaken>({ _tag: 'FileNameTaken', name }))),
      )
    },

    ...inboxOf(null),
    ofParty: (partyId) => inboxOf(partyId),
  }
}
