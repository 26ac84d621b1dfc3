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
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { AppDeps } from '../deps.js'
import { bodyOf } from '../http/body.js'
import { respond } from '../http/respond.js'
import { callerOf, type Routes } from './route.js'

/** The key's party (spec §4.3); the router has already refused any other partyId (party_mismatch). */
export const partyRoutes = (deps: AppDeps): Routes => ({
  getParty: {
    handle: async (ctx) => respond(ctx, 200, await pipe(getParty(deps)(callerOf(ctx)), TE.map(partyView))()),
  },
  listPartyAddresses: {
    handle: async (ctx) => respond(ctx, 200, await pipe(listPartyAddresses(deps)(callerOf(ctx), ctx.query), TE.map(envelope(addressView)))()),
  },
  createPartyAddress: {
    handle: async (ctx) => respond(ctx, 201, await pipe(createPartyAddress(deps)(callerOf(ctx), bodyOf(ctx)), TE.map(addressView))()),
  },
  updatePartyAddress: {
    handle: async (ctx) => respond(ctx, 200, await pipe(updatePartyAddress(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(addressView))()),
  },
  listPartyApplications: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(listPartyApplications(deps)(callerOf(ctx), ctx.query), TE.map(envelope(loanApplicationView)))()),
  },
  listAvailableLoanProductsForParty: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(listAvailableLoanProductsForParty(deps)(ctx.query), TE.map(envelope(loanProductView)))()),
  },
})
