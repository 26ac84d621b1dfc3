import type { PartyId } from '../foundations/ids.js'

/** A party whose time is not the service's: in the test world, a party on a test clock lives at the clock's `now` (decision 131). */
export type PartyTime = { readonly partyId: PartyId; readonly now: Date }

/**
 * The instant each loan of the whole book is judged at, for reads across parties (the operators'
 * queue and portfolio): `now`, except for the parties in `partyTimes`, each at its own time.
 * The live world has no party times.
 */
export type BookTime = { readonly now: Date; readonly partyTimes: readonly PartyTime[] }

/** The instant the loans of `partyId` are judged at. */
export const timeOf = (book: BookTime, partyId: PartyId): Date => book.partyTimes.find((t) => t.partyId === partyId)?.now ?? book.now

/** The latest instant any loan is judged at: no loan's today is later than this instant's. */
export const latestOf = (book: BookTime): Date => new Date(book.partyTimes.reduce((latest, t) => Math.max(latest, t.now.getTime()), book.now.getTime()))
