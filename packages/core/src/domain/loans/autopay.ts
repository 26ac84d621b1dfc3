import { addDays } from '../../lending/day-count.js'
import type { BankingCalendar } from '../ach/banking-days.js'
import { Bool, strictObject } from '../foundations/codecs.js'
import type { ClientId, LoanId, PartyId } from '../foundations/ids.js'

/** A loan's autopay (docs/ach.md "Scheduled (autopay) debits"): each installment debited from the loan's default method. */

/** A loan's autopay while it is on: who turned it on (the client of the debits it makes) and since when. */
export type LoanAutopay = { readonly loanId: LoanId; readonly clientId: ClientId; readonly enabledAt: Date }

/** The body of `PUT …/autopay`: on or off. */
export const AutopayInput = strictObject('AutopayInput', { enabled: Bool }, {})

/** An installment an autopay debit is owed for: the loan's, due on `dueDate`, debited for `clientId` (whose setting it is). */
export type AutopayDue = { readonly loanId: LoanId; readonly partyId: PartyId; readonly clientId: ClientId; readonly dueDate: string }

/**
 * The installments a cut-off's file debits: those due after `after` and on or before `through`;
 * of party `partyId`'s loans (its test clock's cut-off), or with null of every loan that follows
 * the calendar.
 */
export type AutopayWindow = { readonly after: string; readonly through: string; readonly partyId: PartyId | null }

/**
 * The window of a cut-off on `cutoffDate` (D): the installments due on or before its file's
 * effective entry date (E, the next banking day: a Saturday's or a Sunday's installment goes with
 * Friday's file), after the banking day before D. The day before's window was (that day, D], so an
 * installment its runs could not take (a run that died, a day with no run) is taken by D's, late
 * rather than never; one taken already is not taken again (`autopayKey`).
 */
export const autopayWindow = (calendar: Pick<BankingCalendar, 'isBankingDay' | 'nextBankingDay'>, cutoffDate: string, partyId: PartyId | null): AutopayWindow => {
  let after = addDays(cutoffDate, -1)
  while (!calendar.isBankingDay(after)) after = addDays(after, -1)
  return { after, through: calendar.nextBankingDay(cutoffDate), partyId }
}

/**
 * The idempotency key, under its setting's client, of the autopay debit of loan `loanId`'s
 * installment due on `dueDate`: one debit per installment, whichever run makes it. It holds
 * blanks, which a partner's key cannot (`IdempotencyKey`), so no payment of a partner's is ever
 * taken for it.
 */
export const autopayKey = (loanId: LoanId, dueDate: string): string => `autopay ${loanId} ${dueDate}`
