import { Bool, strictObject } from '../foundations/codecs.js'
import type { ClientId, LoanId, PartyId } from '../foundations/ids.js'

// A loan's autopay (docs/ach.md "Scheduled (autopay) debits"): each installment debited from the loan's default method.

/** A loan's autopay while it is on: who turned it on (the client of the debits it makes) and since when. */
export type LoanAutopay = { readonly loanId: LoanId; readonly clientId: ClientId; readonly enabledAt: Date }

/** The body of `PUT …/autopay`: on or off. */
export const AutopayInput = strictObject('AutopayInput', { enabled: Bool }, {})

/** An installment an autopay debit is owed for: the loan's, due on `dueDate`, debited for `clientId` (whose setting it is). */
export type AutopayDue = { readonly loanId: LoanId; readonly partyId: PartyId; readonly clientId: ClientId; readonly dueDate: string }

/**
 * The installments a cut-off's file debits: those due after its date `after` (D) and on or before
 * its file's effective entry date `through` (E); of party `partyId`'s loans (its test clock's
 * cut-off), or with null of every loan that follows the calendar.
 */
export type AutopayWindow = { readonly after: string; readonly through: string; readonly partyId: PartyId | null }

/**
 * The idempotency key, under its setting's client, of the autopay debit of loan `loanId`'s
 * installment due on `dueDate`: one debit per installment, whichever run makes it.
 */
export const autopayKey = (loanId: LoanId, dueDate: string): string => `autopay:${loanId}:${dueDate}`
