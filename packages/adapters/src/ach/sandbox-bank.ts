import type { BankingCalendar } from '@lendgate/core'
import { buildResponseFile, parseNachaFile, type Correction, type EntryResponse, type NachaError, type NachaFile } from '@lendgate/nacha'
import * as E from 'fp-ts/lib/Either.js'
import type { AchOriginator } from './nacha-format.js'

/**
 * The sandbox bank (docs/ach.md "The sandbox bank"): it plays every receiving bank of our debit
 * files, offline. It reads a file we sent, decides each debit by rules on its amount and account
 * number, and writes the return and notification-of-change files a bank would send back, each
 * once its banking day has come. It keeps nothing: what it answers follows from the file and the
 * day, so asking again answers the same files, byte for byte.
 */

/** What the bank does with a debit: nothing (it settles), or an answer after some banking days from the debit's effective entry date. */
export type SandboxBankOutcome =
  | { readonly kind: 'settle' }
  | { readonly kind: 'return'; readonly returnCode: string; readonly afterBankingDays: number }
  | { readonly kind: 'notice'; readonly correction: Correction; readonly afterBankingDays: number }

/** A rule: debits of `amount` (cents), or from `accountNumber`, meet `outcome`. */
export type SandboxBankRule = ({ readonly amount: number } | { readonly accountNumber: string }) & { readonly outcome: SandboxBankOutcome }

/**
 * The rules of the sandbox bank (docs/testing.md "Magic values"): the amounts first, the same
 * amounts and R-codes as the sandbox processor's (`SANDBOX_AMOUNT_TRIGGERS`), so a partner's
 * rehearsal means the same on both rails; then the account numbers. A debit no rule names settles.
 */
export const SANDBOX_BANK_RULES: readonly SandboxBankRule[] = [
  { amount: 5501, outcome: { kind: 'return', returnCode: 'R01', afterBankingDays: 2 } },
  { amount: 5502, outcome: { kind: 'return', returnCode: 'R02', afterBankingDays: 2 } },
  { amount: 5503, outcome: { kind: 'return', returnCode: 'R03', afterBankingDays: 1 } },
  { amount: 5529, outcome: { kind: 'return', returnCode: 'R10', afterBankingDays: 10 } },
  { accountNumber: '000000590000', outcome: { kind: 'settle' } },
  { accountNumber: '000000590001', outcome: { kind: 'return', returnCode: 'R01', afterBankingDays: 2 } },
  { accountNumber: '000000590002', outcome: { kind: 'return', returnCode: 'R02', afterBankingDays: 2 } },
  { accountNumber: '000000590003', outcome: { kind: 'return', returnCode: 'R03', afterBankingDays: 1 } },
  { accountNumber: '000000590010', outcome: { kind: 'return', returnCode: 'R10', afterBankingDays: 10 } },
  { accountNumber: '000000590029', outcome: { kind: 'return', returnCode: 'R29', afterBankingDays: 2 } },
  { accountNumber: '000000590101', outcome: { kind: 'notice', correction: { changeCode: 'C01', accountNumber: '000000590000' }, afterBankingDays: 2 } },
  { accountNumber: '000000590105', outcome: { kind: 'notice', correction: { changeCode: 'C05', transactionCode: 37, accountType: 'savings' }, afterBankingDays: 2 } },
]

/**
 * The test world's originator (decision 146): its files go to the sandbox bank only, so they name
 * an ODFI of their own, never the live world's, and no real bank's: 999999992 passes the ABA
 * checksum, and no routing number begins with 99.
 */
export const SANDBOX_ORIGINATOR: AchOriginator = {
  odfiRoutingNumber: '999999992',
  odfiName: 'LENDGATE SANDBOX ODFI',
  companyIdentification: '9000000001',
  companyName: 'LENDGATE SANDBOX',
  destinationRoutingNumber: '999999992',
  destinationName: 'LENDGATE SANDBOX ODFI',
}

/** The account numbers the sandbox bank's rules name: a test-world bank account made from one goes on the ACH rails. */
export const SANDBOX_BANK_ACCOUNTS: ReadonlySet<string> = new Set(SANDBOX_BANK_RULES.flatMap((rule) => ('accountNumber' in rule ? [rule.accountNumber] : [])))

/** A file we sent the bank, as the outbox holds it. */
export type SentFile = { readonly name: string; readonly text: string }

/** A file the bank sends back: its name, text, and the banking day it is sent (`YYYY-MM-DD`). */
export type BankFile = { readonly name: string; readonly text: string; readonly sentOn: string }

/** What the bank decided for one debit of a sent file: its outcome, its effective entry date, and the banking day the bank answers it (null: it settles, no answer). */
export type BankDecision = { readonly traceNumber: string; readonly outcome: SandboxBankOutcome; readonly effectiveDate: string; readonly answeredOn: string | null }

/** How the bank is set up: its rules (`SANDBOX_BANK_RULES` when left out), the banks' calendar, and the routing number and name its files come from. */
export type SandboxBankOptions = {
  readonly rules?: readonly SandboxBankRule[]
  readonly calendar: BankingCalendar
  readonly bank?: { readonly routingNumber: string; readonly name: string }
}

export type SandboxBank = {
  /** The outcome of each debit of `sent` (the first rule matching it, else settle), in the file's order, or why the file cannot be read. */
  readonly decide: (sent: SentFile) => E.Either<NachaError, readonly BankDecision[]>
  /**
   * The files the bank has sent back for `sent` by the end of `today` (`YYYY-MM-DD`): one per
   * banking day on which answers fell due (the debit's effective entry date moved forward by the
   * outcome's banking days), holding every return and notification due that day, named
   * `{sent name}.{YYYYMMDD}.returns.ach` and dated that day. None for a file whose debits all settle.
   */
  readonly answersBy: (sent: SentFile, today: string) => E.Either<NachaError, readonly BankFile[]>
}

/** The routing number the sandbox bank's files come from: the Federal Reserve Bank of Boston's, as moov-io's fixtures use it. */
const SANDBOX_BANK = { routingNumber: '011000015', name: 'LENDGATE SANDBOX BANK' }

/** `YYMMDD` as `YYYY-MM-DD` (NACHA dates are of this century here). */
const isoDate = (yymmdd: string): string => `20${yymmdd.slice(0, 2)}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`
const yymmdd = (date: string): string => date.slice(2).replaceAll('-', '')

const matches = (rule: SandboxBankRule, amount: number, accountNumber: string): boolean => ('amount' in rule ? rule.amount === amount : rule.accountNumber === accountNumber)

/** The sandbox bank with `options`' rules and calendar. */
export const sandboxBank = (options: SandboxBankOptions): SandboxBank => {
  const rules = options.rules ?? SANDBOX_BANK_RULES
  const bank = options.bank ?? SANDBOX_BANK
  const decisionsOf = (file: NachaFile): readonly BankDecision[] =>
    file.batches.flatMap((batch) =>
      batch.entries.map((entry): BankDecision => {
        const outcome = rules.find((rule) => matches(rule, entry.amount, entry.dfiAccountNumber.trim()))?.outcome ?? { kind: 'settle' }
        const effectiveDate = isoDate(batch.header.effectiveEntryDate)
        return { traceNumber: entry.traceNumber, outcome, effectiveDate, answeredOn: outcome.kind === 'settle' ? null : options.calendar.addBankingDays(effectiveDate, outcome.afterBankingDays) }
      }),
    )
  const parsed = (sent: SentFile): E.Either<NachaError, NachaFile> => {
    const read = parseNachaFile(sent.text)
    return read.ok ? E.right(read.file) : E.left(read.error)
  }
  return {
    decide: (sent) => E.map(decisionsOf)(parsed(sent)),
    answersBy: (sent, today) =>
      E.chain((file: NachaFile) => {
        const due = new Map<string, EntryResponse[]>()
        for (const { traceNumber, outcome, answeredOn: on } of decisionsOf(file)) {
          if (outcome.kind === 'settle' || on === null || on > today) continue
          const response: EntryResponse = outcome.kind === 'return' ? { kind: 'return', originalTraceNumber: traceNumber, returnReasonCode: outcome.returnCode } : { kind: 'notice', originalTraceNumber: traceNumber, correction: outcome.correction }
          due.set(on, [...(due.get(on) ?? []), response])
        }
        const files: BankFile[] = []
        for (const [on, responses] of [...due].sort(([a], [b]) => (a < b ? -1 : 1))) {
          const built = buildResponseFile({ original: file, bank, fileCreationDate: yymmdd(on), fileCreationTime: '0600', effectiveEntryDate: yymmdd(on), responses })
          if (!built.ok) return E.left(built.error)
          files.push({ name: `${sent.name.replace(/\.ach$/, '')}.${on.replaceAll('-', '')}.returns.ach`, text: built.text, sentOn: on })
        }
        return E.right(files)
      })(parsed(sent)),
  }
}
