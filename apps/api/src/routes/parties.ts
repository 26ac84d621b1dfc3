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
import type { AppDeps } from '../deps.js'
import { bodyOf } from '../http/body.js'
import { answer } from '../http/respond.js'
import { callerOf, type Routes } from './route.js'

/** The key's party (spec §4.3); the router has already refused any other partyId (party_mismatch). */
export const partyRoutes = (deps: AppDeps): Routes => ({
  getParty: {
    handle: (ctx) => answer(ctx, 200, getParty(deps)(callerOf(ctx)), partyView),
  },
  listPartyAddresses: {
    handle: (ctx) => answer(ctx, 200, listPartyAddresses(deps)(callerOf(ctx), ctx.query), envelope(addressView)),
  },
  createPartyAddress: {
    handle: (ctx) => answer(ctx, 201, createPartyAddress(deps)(callerOf(ctx), bodyOf(ctx)), addressView),
  },
  updatePartyAddress: {
    handle: (ctx) => answer(ctx, 200, updatePartyAddress(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), addressView),
  },
  listPartyApplications: {
    handle: (ctx) => answer(ctx, 200, listPartyApplications(deps)(callerOf(ctx), ctx.query), envelope(loanApplicationView)),
  },
  listAvailableLoanProductsForParty: {
    handle: (ctx) => answer(ctx, 200, listAvailableLoanProductsForParty(deps)(ctx.query), envelope(loanProductView)),
  },
})
