import {
  ApiKeyId,
  apiKeyView,
  ClientId,
  PartyId,
  SessionId,
  approveLoanApplication,
  approveOnboardingSession,
  declineLoanApplication,
  envelope,
  listApiKeys,
  listLoanApplicationsForReview,
  listOnboardingSessionsForReview,
  listOnboardingSessionWebhookDeliveries,
  loanApplicationView,
  loanView,
  mintApiKey,
  mintedKeyView,
  notFound,
  partyView,
  rejectOnboardingSession,
  retryWebhookDelivery,
  reviewView,
  revokeApiKey,
  webhookDeliveryView,
  webhookEventView,
  type ApiKeyMaterial,
  type ApiKeyRepository,
  type Caller,
  type Clock,
  type IdGenerator,
  type LoanApplicationRepository,
  type LoanProductRepository,
  type OnboardingSessionRepository,
  type WebhookEventRepository,
} from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'

/**
 * The operator commands (issue 7): each calls a use case of core directly, on the configured
 * database, with the operator's authority (no HTTP, no key). Every command answers JSON.
 */

export type CliDeps = {
  readonly apiKeys: ApiKeyRepository
  readonly keyMaterial: ApiKeyMaterial
  readonly sessions: OnboardingSessionRepository
  readonly events: WebhookEventRepository
  readonly applications: LoanApplicationRepository
  readonly products: Pick<LoanProductRepository, 'findById'>
  readonly ids: IdGenerator
  readonly clock: Clock
}

export type Options = Readonly<Record<string, string | undefined>>

export type Command = {
  readonly usage: string
  readonly summary: string
  /** Option names it takes (`--name value`). */
  readonly options: readonly string[]
  readonly run: (deps: CliDeps, args: readonly string[], options: Options) => TE.TaskEither<unknown, unknown>
}

const required = (value: string | undefined, name: string): TE.TaskEither<unknown, string> =>
  value === undefined || value === '' ? TE.left({ _tag: 'Usage', detail: `${name} is required` }) : TE.right(value)

/** A codec of ids (`SessionId`, `ClientId`, …), as far as the CLI uses it. */
type IdCodec<I> = { readonly decode: (given: unknown) => E.Either<unknown, I> }

/** The id an option or argument gives, decoded by its codec: a usage error naming it when missing or malformed. */
const idFrom = <I>(codec: IdCodec<I>, value: string | undefined, name: string): TE.TaskEither<unknown, I> =>
  pipe(
    required(value, name),
    TE.chainEitherKW((given) => pipe(codec.decode(given), E.mapLeft(() => ({ _tag: 'Usage', detail: `${name} must be a UUID` })))),
  )

/** The nil UUID as an id of `codec`'s kind: what the operator has in place of a key and a party. */
const nil = <I>(codec: IdCodec<I>): I =>
  pipe(
    codec.decode('00000000-0000-0000-0000-000000000000'),
    E.getOrElseW(() => {
      throw new Error('the nil UUID is a UUID')
    }),
  )

/**
 * The operator acting for an API client: every scope, the client's own records only. It holds
 * no key and acts for no party (the nil UUID stands for both), which the client-scoped use
 * cases it calls never read.
 */
const operatorFor = (clientId: ClientId): Caller => ({ keyId: nil(ApiKeyId), clientId, partyId: nil(PartyId), environment: 'live', scopes: ['*'] })

/**
 * The fields of a use case's command from the options given, each under its wire name
 * (`fields` maps wire names to option names); options not given are left out.
 */
const fieldsFrom = (options: Options, fields: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(fields).flatMap(([field, option]) => (options[option] === undefined ? [] : [[field, options[option]]])))

const PAGE = { limit: 'limit', cursor: 'cursor' } as const
const pageQuery = (options: Options) => fieldsFrom(options, PAGE)
const filteredPage = (options: Options) => fieldsFrom(options, { ...PAGE, status: 'status' })

/** The client of a session, to act on its client-scoped records (webhook deliveries). */
const sessionClient = (deps: CliDeps, sessionId: string | undefined) =>
  pipe(
    idFrom(SessionId, sessionId, '<sessionId>'),
    TE.chainW((id) => deps.sessions.findById(id)),
    TE.chainW(TE.fromOption(() => notFound('onboarding_session'))),
    TE.map((session) => operatorFor(session.clientId)),
  )

export const COMMANDS: Readonly<Record<string, Command>> = {
  'keys mint': {
    usage: 'keys mint --party-id <uuid> [--client-name <name>] [--environment live|test] [--scopes a,b]',
    summary: 'Mint a partner API key; the key is printed once',
    options: ['party-id', 'client-name', 'environment', 'scopes'],
    run: (deps, _args, o) =>
      pipe(
        mintApiKey(deps)({
          ...fieldsFrom(o, { party_id: 'party-id', client_name: 'client-name', environment: 'environment' }),
          ...(o['scopes'] === undefined ? {} : { scopes: o['scopes'].split(',').map((s) => s.trim()) }),
        }),
        TE.map((m) => mintedKeyView(m.client, m.key, m.plaintext)),
      ),
  },
  'keys list': {
    usage: 'keys list --client-id <uuid> [--limit n] [--cursor c]',
    summary: "List an API client's keys, masked",
    options: ['client-id', 'limit', 'cursor'],
    run: (deps, _args, o) =>
      pipe(
        idFrom(ClientId, o['client-id'], '--client-id'),
        TE.chainW((clientId) => listApiKeys(deps)(operatorFor(clientId), pageQuery(o))),
        TE.map(envelope(apiKeyView)),
      ),
  },
  'keys revoke': {
    usage: 'keys revoke <apiKeyId> --client-id <uuid>',
    summary: 'Revoke a key of an API client',
    options: ['client-id'],
    run: (deps, args, o) =>
      pipe(
        idFrom(ClientId, o['client-id'], '--client-id'),
        TE.chainW((clientId) => revokeApiKey(deps)(operatorFor(clientId), { apiKeyId: args[0] })),
        TE.map(apiKeyView),
      ),
  },
  'sessions list': {
    usage: 'sessions list [--status IN_PROGRESS|SUBMITTED|APPROVED|REJECTED] [--limit n] [--cursor c]',
    summary: 'List onboarding sessions for review, oldest first',
    options: ['status', 'limit', 'cursor'],
    run: (deps, _args, o) => pipe(listOnboardingSessionsForReview(deps)(filteredPage(o)), TE.map(envelope(reviewView))),
  },
  'sessions approve': {
    usage: 'sessions approve <sessionId> [--reviewed-by <name>]',
    summary: 'Approve a submitted session: creates the party and queues party.ready',
    options: ['reviewed-by'],
    run: (deps, args, o) =>
      pipe(
        approveOnboardingSession(deps)({ sessionId: args[0], ...fieldsFrom(o, { reviewed_by: 'reviewed-by' }) }),
        TE.map(({ session, party }) => ({ session: reviewView(session), party: partyView(party) })),
      ),
  },
  'sessions reject': {
    usage: 'sessions reject <sessionId> --reason <text> [--reviewed-by <name>]',
    summary: 'Reject a submitted session',
    options: ['reason', 'reviewed-by'],
    run: (deps, args, o) =>
      pipe(
        rejectOnboardingSession(deps)({ sessionId: args[0], ...fieldsFrom(o, { reason: 'reason', reviewed_by: 'reviewed-by' }) }),
        TE.map(reviewView),
      ),
  },
  'applications list': {
    usage: 'applications list [--status DRAFT|SUBMITTED|APPROVED|DECLINED|WITHDRAWN] [--limit n] [--cursor c]',
    summary: 'List loan applications of every party, oldest first',
    options: ['status', 'limit', 'cursor'],
    run: (deps, _args, o) => pipe(listLoanApplicationsForReview(deps)(filteredPage(o)), TE.map(envelope(loanApplicationView))),
  },
  'applications approve': {
    usage: 'applications approve <applicationId> [--decided-by <name>]',
    summary: 'Approve a submitted application and book its loan',
    options: ['decided-by'],
    run: (deps, args, o) =>
      pipe(
        approveLoanApplication(deps)({ applicationId: args[0], ...fieldsFrom(o, { decided_by: 'decided-by' }) }),
        TE.map(({ application, loan }) => ({ application: loanApplicationView(application), loan: loanView(loan, deps.clock.now()) })),
      ),
  },
  'applications decline': {
    usage: 'applications decline <applicationId> --reason <text> [--decided-by <name>]',
    summary: 'Decline a submitted application',
    options: ['reason', 'decided-by'],
    run: (deps, args, o) =>
      pipe(
        declineLoanApplication(deps)({ applicationId: args[0], ...fieldsFrom(o, { reason: 'reason', decided_by: 'decided-by' }) }),
        TE.map(loanApplicationView),
      ),
  },
  'webhooks deliveries': {
    usage: 'webhooks deliveries <sessionId> [--limit n] [--cursor c]',
    summary: "List a session's webhook events and their delivery attempts",
    options: ['limit', 'cursor'],
    run: (deps, args, o) =>
      pipe(
        sessionClient(deps, args[0]),
        TE.chainW((caller) => listOnboardingSessionWebhookDeliveries(deps)(caller, { sessionId: args[0], ...pageQuery(o) })),
        TE.map(envelope(webhookDeliveryView)),
      ),
  },
  'webhooks retry': {
    usage: 'webhooks retry <sessionId> <eventId>',
    summary: 'Deliver a webhook event again, now',
    options: [],
    run: (deps, args) =>
      pipe(
        sessionClient(deps, args[0]),
        TE.chainW((caller) => retryWebhookDelivery(deps)(caller, { sessionId: args[0], eventId: args[1] })),
        TE.map(webhookEventView),
      ),
  },
}
