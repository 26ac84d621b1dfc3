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
import { bodyOf } from '../http/body.js'
import { callerOf, routes } from './route.js'

/** The key's party (spec §4.3); the router has already refused any other partyId (party_mismatch). */
export const partyRoutes = (deps: AppDeps) =>
  routes({
  getParty: {
    run: (ctx) => pipe(getParty(deps)(callerOf(ctx)), TE.map(partyView)),
  },
  listPartyAddresses: {
    run: (ctx) => pipe(listPartyAddresses(deps)(callerOf(ctx), ctx.query), TE.map(envelope(addressView))),
  },
  createPartyAddress: {
    run: (ctx) => pipe(createPartyAddress(deps)(callerOf(ctx), bodyOf(ctx)), TE.map(addressView)),
  },
  updatePartyAddress: {
    run: (ctx) => pipe(updatePartyAddress(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(addressView)),
  },
  listPartyApplications: {
    run: (ctx) => pipe(listPartyApplications(deps)(callerOf(ctx), ctx.query), TE.map(envelope(loanApplicationView))),
  },
  listAvailableLoanProductsForParty: {
    run: (ctx) => pipe(listAvailableLoanProductsForParty(deps)(ctx.query), TE.map(envelope(loanProductView))),
  },
})
