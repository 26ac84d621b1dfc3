import {
  OPERATOR_CONTEXT,
  addOperator,
  disableOperator,
  enableOperator,
  listOperators,
  resetOperatorPassword,
  setOperatorRole,
  operatorView,
  revokeOperatorSessions,
  type OperatorRepository,
  type OperatorSecrets,
  achInboundFileView,
  ingestAchFile,
  type IngestionDeps,
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
  type World,
} from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { inspectAchFile, readFileBytes } from './ach-inspect.js'

/**
 * The operator commands (issue 7): each calls a use case of core directly, on the configured
 * database, with the operator's authority (no HTTP, no key). Every command answers JSON.
 */

/**
 * Backups of the configured database (decision 114): `backup` writes the file `file`, `restore`
 * loads one into an empty database. Each answers what it did, or a refusal with a `_tag`.
 */
export type Backups = {
  readonly backup: (file: string) => TE.TaskEither<unknown, unknown>
  readonly restore: (file: string) => TE.TaskEither<unknown, unknown>
}

export type CliDeps = {
  readonly backups: Backups
  readonly apiKeys: ApiKeyRepository
  readonly keyMaterial: ApiKeyMaterial
  readonly sessions: OnboardingSessionRepository
  readonly events: WebhookEventRepository
  readonly applications: LoanApplicationRepository
  readonly products: Pick<LoanProductRepository, 'findById'>
  /**
   * What `ach ingest` applies returns with: the live world's stores, the NACHA reader and the banks'
   * calendar; a usage error when the calendar's settings (`ACH_EXTRA_CLOSURES`) are malformed.
   */
  readonly ingestion: E.Either<{ readonly _tag: 'Usage'; readonly detail: string }, IngestionDeps>
  /** Named operators (decision 149): the console's people, added and disabled here only. */
  readonly operators: OperatorRepository
  readonly operatorSecrets: OperatorSecrets
  /** Standard input, whole: where `operators add --password-from stdin` reads the password. */
  readonly readStdin: () => Promise<string>
  readonly ids: IdGenerator
  readonly clock: Clock
  /** The world the operator's commands act on: the live world (decision 128). */
  readonly world: World
}

export type Options = Readonly<Record<string, string | undefined>>

/** An option (`--name value`): its value as the usage shows it, and whether the command needs it. */
export type OptionSpec = { readonly value: string; readonly required?: true }

/**
 * One command: what it does, what it takes and how it runs. The usage `--help` prints and the
 * parsing of a command line are both made from `args` and `options` (`usageOf`, `parseCommandLine`),
 * so the help cannot promise what the parser refuses.
 */
export type Command = {
  readonly summary: string
  /** Its arguments, in order, every one required (`sessionId` is shown `<sessionId>`). */
  readonly args: readonly string[]
  /** Its options by name (`party-id` is `--party-id`), in the order the usage shows them. */
  readonly options: Readonly<Record<string, OptionSpec>>
  readonly run: (deps: CliDeps, args: readonly string[], options: Options) => TE.TaskEither<unknown, unknown>
  /**
   * The command works on the schema as it finds it: the database is not migrated to this build's
   * latest first, as it is for every other command (a backup changes nothing; a restore migrates
   * as its backup needs).
   */
  readonly schemaAsFound?: true
  /** The command works on files alone: no database is opened, and `run` must not read its dependencies. */
  readonly opensNoDatabase?: true
}

/** `keys revoke <apiKeyId> --client-id <uuid>`: a command's name, arguments and options; optional ones in brackets. */
export const usageOf = (name: string, command: Command): string =>
  [
    name,
    ...command.args.map((arg) => `<${arg}>`),
    ...Object.entries(command.options).map(([option, spec]) => (spec.required ? `--${option} ${spec.value}` : `[--${option} ${spec.value}]`)),
  ].join(' ')

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
const PAGE_OPTIONS = { limit: { value: 'n' }, cursor: { value: 'c' } } as const
const pageQuery = (options: Options) => fieldsFrom(options, PAGE)
const filteredPage = (options: Options) => fieldsFrom(options, { ...PAGE, status: 'status' })

/**
 * The password `operators add` is given: with `--password-from stdin`, standard input's first line
 * (never an argument, which other users can see in the process list); without, none, so that one
 * is generated and printed once.
 */
const givenPassword = (deps: CliDeps, from: string | undefined): TE.TaskEither<unknown, { readonly password?: string }> => {
  if (from === undefined) return TE.right({})
  if (from !== 'stdin') return TE.left({ _tag: 'Usage', detail: '--password-from takes stdin only' })
  return TE.fromTask(async () => ({ password: (await deps.readStdin()).split(/\r?\n/)[0] ?? '' }))
}

/** The client of a session, to act on its client-scoped records (webhook deliveries). */
const sessionClient = (deps: CliDeps, sessionId: string | undefined) =>
  pipe(
    idFrom(SessionId, sessionId, '<sessionId>'),
    TE.chainW((id) => deps.sessions.findById(id)),
    TE.chainW(TE.fromOption(() => notFound('onboarding_session'))),
    TE.map((session) => operatorFor(session.clientId)),
  )

export const COMMANDS: Readonly<Record<string, Command>> = {
  backup: {
    summary: 'Write a backup of the database to a file (gzipped when it ends .gz), while the API runs',
    args: [],
    options: { out: { value: '<file>', required: true } },
    schemaAsFound: true,
    run: (deps, _args, o) => pipe(required(o['out'], '--out'), TE.chainW(deps.backups.backup)),
  },
  restore: {
    summary: 'Load a backup into an empty database, then migrate it to this build',
    args: [],
    options: { from: { value: '<file>', required: true } },
    schemaAsFound: true,
    run: (deps, _args, o) => pipe(required(o['from'], '--from'), TE.chainW(deps.backups.restore)),
  },
  'keys mint': {
    summary: 'Mint a partner API key; the key is printed once',
    args: [],
    options: {
      'party-id': { value: '<uuid>', required: true },
      'client-name': { value: '<name>' },
      environment: { value: 'live|test' },
      scopes: { value: 'a,b' },
    },
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
    summary: "List an API client's keys, masked",
    args: [],
    options: { 'client-id': { value: '<uuid>', required: true }, ...PAGE_OPTIONS },
    run: (deps, _args, o) =>
      pipe(
        idFrom(ClientId, o['client-id'], '--client-id'),
        TE.chainW((clientId) => listApiKeys(deps)(operatorFor(clientId), pageQuery(o))),
        TE.map(envelope(apiKeyView)),
      ),
  },
  'keys revoke': {
    summary: 'Revoke a key of an API client',
    args: ['apiKeyId'],
    options: { 'client-id': { value: '<uuid>', required: true } },
    run: (deps, args, o) =>
      pipe(
        idFrom(ClientId, o['client-id'], '--client-id'),
        TE.chainW((clientId) => revokeApiKey(deps)(operatorFor(clientId), { apiKeyId: args[0] })),
        TE.map(apiKeyView),
      ),
  },
  'sessions list': {
    summary: 'List onboarding sessions for review, oldest first',
    args: [],
    options: { status: { value: 'IN_PROGRESS|SUBMITTED|APPROVED|REJECTED' }, ...PAGE_OPTIONS },
    run: (deps, _args, o) => pipe(listOnboardingSessionsForReview(deps)(filteredPage(o)), TE.map(envelope(reviewView))),
  },
  'sessions approve': {
    summary: 'Approve a submitted session: creates the party and queues party.ready',
    args: ['sessionId'],
    options: { 'reviewed-by': { value: '<name>' } },
    run: (deps, args, o) =>
      pipe(
        approveOnboardingSession(deps)({ sessionId: args[0], ...fieldsFrom(o, { reviewed_by: 'reviewed-by' }) }),
        TE.map(({ session, party }) => ({ session: reviewView(session), party: partyView(party) })),
      ),
  },
  'sessions reject': {
    summary: 'Reject a submitted session',
    args: ['sessionId'],
    options: { reason: { value: '<text>', required: true }, 'reviewed-by': { value: '<name>' } },
    run: (deps, args, o) =>
      pipe(
        rejectOnboardingSession(deps)({ sessionId: args[0], ...fieldsFrom(o, { reason: 'reason', reviewed_by: 'reviewed-by' }) }),
        TE.map(reviewView),
      ),
  },
  'applications list': {
    summary: 'List loan applications of every party, oldest first',
    args: [],
    options: { status: { value: 'DRAFT|SUBMITTED|APPROVED|DECLINED|WITHDRAWN' }, ...PAGE_OPTIONS },
    run: (deps, _args, o) => pipe(listLoanApplicationsForReview(deps)(filteredPage(o)), TE.map(envelope(loanApplicationView))),
  },
  'applications approve': {
    summary: 'Approve a submitted application and book its loan',
    args: ['applicationId'],
    options: { 'decided-by': { value: '<name>' } },
    run: (deps, args, o) =>
      pipe(
        approveLoanApplication(deps)({ applicationId: args[0], ...fieldsFrom(o, { decided_by: 'decided-by' }) }),
        TE.map(({ application, loan }) => ({ application: loanApplicationView(application), loan: loanView(loan, deps.clock.now()) })),
      ),
  },
  'applications decline': {
    summary: 'Decline a submitted application',
    args: ['applicationId'],
    options: { reason: { value: '<text>', required: true }, 'decided-by': { value: '<name>' } },
    run: (deps, args, o) =>
      pipe(
        declineLoanApplication(deps)({ applicationId: args[0], ...fieldsFrom(o, { reason: 'reason', decided_by: 'decided-by' }) }),
        TE.map(loanApplicationView),
      ),
  },
  'webhooks deliveries': {
    summary: "List a session's webhook events and their delivery attempts",
    args: ['sessionId'],
    options: { ...PAGE_OPTIONS },
    run: (deps, args, o) =>
      pipe(
        sessionClient(deps, args[0]),
        TE.chainW((caller) => listOnboardingSessionWebhookDeliveries(deps)(caller, { sessionId: args[0], ...pageQuery(o) })),
        TE.map(envelope(webhookDeliveryView)),
      ),
  },
  'webhooks retry': {
    summary: 'Deliver a webhook event again, now',
    args: ['sessionId', 'eventId'],
    options: {},
    run: (deps, args) =>
      pipe(
        sessionClient(deps, args[0]),
        TE.chainW((caller) => retryWebhookDelivery(deps)(caller, { sessionId: args[0], eventId: args[1] })),
        TE.map(webhookEventView),
      ),
  },
  'operators add': {
    summary: 'Add a named operator of the console with a role; without --password-from, a password is generated and printed once',
    args: [],
    options: { email: { value: '<address>', required: true }, role: { value: 'reviewer|credit|servicing|admin', required: true }, 'password-from': { value: 'stdin' } },
    run: (deps, _args, o) =>
      pipe(
        givenPassword(deps, o['password-from']),
        TE.chainW((password) => addOperator(deps)({ ...fieldsFrom(o, { email: 'email', role: 'role' }), ...password })),
        TE.map(({ operator, password }) => ({ operator: operatorView(operator), ...(password === null ? {} : { password }) })),
      ),
  },
  'operators list': {
    summary: 'List the named operators, enabled or not, by e-mail',
    args: [],
    options: {},
    run: (deps) => pipe(listOperators(deps)(), TE.map((operators) => ({ data: operators.map(operatorView) }))),
  },
  'operators disable': {
    summary: "Disable an operator: it can no longer sign in, and its sessions end now",
    args: [],
    options: { email: { value: '<address>', required: true } },
    run: (deps, _args, o) => pipe(disableOperator(deps)(fieldsFrom(o, { email: 'email' })), TE.map(operatorView)),
  },
  'operators enable': {
    summary: 'Let a disabled operator sign in again (its old sessions stay ended)',
    args: [],
    options: { email: { value: '<address>', required: true } },
    run: (deps, _args, o) => pipe(enableOperator(deps)(fieldsFrom(o, { email: 'email' })), TE.map(operatorView)),
  },
  'operators set-role': {
    summary: "Give an operator another role, from its next request on",
    args: [],
    options: { email: { value: '<address>', required: true }, role: { value: 'reviewer|credit|servicing|admin', required: true } },
    run: (deps, _args, o) => pipe(setOperatorRole(deps)(fieldsFrom(o, { email: 'email', role: 'role' })), TE.map(operatorView)),
  },
  'operators reset-password': {
    summary: "Give an operator a new password (generated and printed once, or from stdin) and end its sessions",
    args: [],
    options: { email: { value: '<address>', required: true }, 'password-from': { value: 'stdin' } },
    run: (deps, _args, o) =>
      pipe(
        givenPassword(deps, o['password-from']),
        TE.chainW((password) => resetOperatorPassword(deps)({ ...fieldsFrom(o, { email: 'email' }), ...password })),
        TE.map(({ operator, password, sessionsRevoked }) => ({ operator: operatorView(operator), sessions_revoked: sessionsRevoked, ...(password === null ? {} : { password }) })),
      ),
  },
  'operators revoke-sessions': {
    summary: "End every console session of an operator now (a lost laptop); it may sign in again",
    args: [],
    options: { email: { value: '<address>', required: true } },
    run: (deps, _args, o) =>
      pipe(
        revokeOperatorSessions(deps)(fieldsFrom(o, { email: 'email' })),
        TE.map(({ operator, sessionsRevoked }) => ({ operator: operatorView(operator), sessions_revoked: sessionsRevoked })),
      ),
  },
  'ach ingest': {
    summary: 'Apply a return file from the bank (gzipped or not) and print what became of each return; a file ingested before changes nothing',
    args: ['file'],
    options: {},
    run: (deps, args) =>
      pipe(
        TE.fromEither(deps.ingestion),
        TE.chainW((ingestion) => pipe(readFileBytes(args[0] ?? ''), TE.chainW((bytes) => ingestAchFile(ingestion)(bytes, OPERATOR_CONTEXT)))),
        TE.map(achInboundFileView),
      ),
  },
  'ach inspect': {
    summary: 'Check a NACHA file (gzipped or not) and print its batches, counts and totals; opens no database',
    args: ['file'],
    options: {},
    opensNoDatabase: true,
    run: (_deps, args) => inspectAchFile(args[0] ?? ''),
  },
}
