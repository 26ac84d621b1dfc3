import {
  addressView,
  createPartyAddress,
  envelope,
  getParty,
  listAvailableLoanProductsForParty,
  listPartyAddresses,
  listPartyApplications,
  loanApplicationView,
  loanProductView,
  partyView,
  updatePartyAddress,
} from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { callerOf, routes } from './route.js'

/** The key's party (spec §4.3); the router has already refused any other partyId (party_mismatch). */
export const partyRoutes = (deps: AppDeps) =>
  routes({
  getParty: {
    run: (ctx, command) => pipe(getParty(deps)(callerOf(ctx), command), TE.map(partyView)),
  },
  listPartyAddresses: {
    run: (ctx, command) => pipe(listPartyAddresses(deps)(callerOf(ctx), command), TE.map(envelope(addressView))),
  },
  createPartyAddress: {
    run: (ctx, command) => pipe(createPartyAddress(deps)(callerOf(ctx), command), TE.map(addressView)),
  },
  updatePartyAddress: {
    run: (ctx, command) => pipe(updatePartyAddress(deps)(callerOf(ctx), command), TE.map(addressView)),
  },
  listPartyApplications: {
    run: (ctx, command) => pipe(listPartyApplications(deps)(callerOf(ctx), command), TE.map(envelope(loanApplicationView))),
  },
  listAvailableLoanProductsForParty: {
    run: (ctx, command) => pipe(listAvailableLoanProductsForParty(deps)(callerOf(ctx), command), TE.map(envelope(loanProductView))),
  },
})
