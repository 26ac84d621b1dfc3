import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE, loadConfig } from '../src/config.js'

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    expect(loadConfig({})).to.deep.equal(
      E.right({
        port: 3000,
        host: '127.0.0.1',
        databaseUrl: undefined,
        databaseDirectUrl: undefined,
        databaseReadUrls: [],
        replicaMaxLagMs: 5_000,
        dataDir: './.data',
        partnerMintSecret: undefined,
        internalApiToken: undefined,
        webhookSecretKey: undefined,
        webhookAllowHttp: false,
        webhookAllowPrivateNetworks: false,
        webhookRetrySchedule: [...DEFAULT_WEBHOOK_RETRY_SCHEDULE],
        verificationDeliveryUrl: undefined,
        placeholderOperations: new Set(),
        publicBaseUrl: undefined,
        corsOrigins: [],
        logLevel: 'info',
        production: false,
        keyUsageFlushMs: 5000,
        operatorSessionMinutes: 480,
        runJobs: true,
        workerPort: 3001,
        servicingJobAtMinute: 15,
        rateLimits: { requests: 600, windowSeconds: 60, verificationRequests: 30, mintRequests: 10, keyLookups: 300, keylessRequests: 300, webhookRetries: 5, syncMs: 200, instances: 1 },
        trustedProxyHops: 0,
        connections: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 1_000, maxConnectionsPerAddress: 100 },
        ach: undefined,
      }),
    )
  })

  it('reads every setting', () => {
    const key = Buffer.alloc(32, 1).toString('base64')
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgresql://u@db:5432/lendgate',
      DATABASE_DIRECT_URL: 'postgres://u@db-primary:5432/lendgate',
      DATABASE_READ_URL: 'postgres://u@db-replica-1:5432/lendgate, postgresql://u@db-replica-2:5432/lendgate',
      REPLICA_MAX_LAG_MS: '2500',
      DATA_DIR: '/var/lib/lendgate',
      PARTNER_MINT_SECRET: 'mint-secret-of-16+',
      INTERNAL_API_TOKEN: 'internal-token-16+',
      WEBHOOK_SECRET_KEY: key,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
      WEBHOOK_RETRY_SCHEDULE: '0, 10,60',
      VERIFICATION_DELIVERY_URL: 'https://sms.example.com/send',
      PLACEHOLDER_OPERATIONS: 'getParty, createOnboardingSession',
      PUBLIC_BASE_URL: 'https://api.lendgate.example/lending/',
      CORS_ORIGINS: 'https://app.example.com,http://localhost:5173',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      KEY_USAGE_FLUSH_MS: '250',
      OPERATOR_SESSION_MINUTES: '60',
      RUN_JOBS: 'false',
      WORKER_PORT: '9464',
      SERVICING_JOB_AT: '05:30',
      RATE_LIMIT_REQUESTS: '1200',
      RATE_LIMIT_WINDOW_SECONDS: '10',
      RATE_LIMIT_VERIFICATION_REQUESTS: '5',
      RATE_LIMIT_MINT_REQUESTS: '2',
      RATE_LIMIT_KEY_LOOKUPS: '40',
      RATE_LIMIT_KEYLESS_REQUESTS: '30',
      RATE_LIMIT_WEBHOOK_RETRIES: '3',
      RATE_LIMIT_SYNC_MS: '50',
      RATE_LIMIT_INSTANCES: '3',
      TRUSTED_PROXY_HOPS: '2',
      HTTP_HEADERS_TIMEOUT_MS: '4000',
      HTTP_REQUEST_TIMEOUT_MS: '20000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '7000',
      HTTP_MAX_CONNECTIONS: '500',
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '50',
    })
    expect(config).to.deep.equal(
      E.right({
        port: 8080,
        host: '0.0.0.0',
        databaseUrl: 'postgresql://u@db:5432/lendgate',
        databaseDirectUrl: 'postgres://u@db-primary:5432/lendgate',
        databaseReadUrls: ['postgres://u@db-replica-1:5432/lendgate', 'postgresql://u@db-replica-2:5432/lendgate'],
        replicaMaxLagMs: 2_500,
        dataDir: '/var/lib/lendgate',
        partnerMintSecret: 'mint-secret-of-16+',
        internalApiToken: 'internal-token-16+',
        webhookSecretKey: new Uint8Array(Buffer.alloc(32, 1)),
        webhookAllowHttp: true,
        webhookAllowPrivateNetworks: true,
        webhookRetrySchedule: [0, 10, 60],
        verificationDeliveryUrl: 'https://sms.example.com/send',
        placeholderOperations: new Set(['getParty', 'createOnboardingSession']),
        publicBaseUrl: 'https://api.lendgate.example/lending',
        corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
        logLevel: 'warn',
        production: true,
        keyUsageFlushMs: 250,
        operatorSessionMinutes: 60,
        runJobs: false,
        workerPort: 9464,
        servicingJobAtMinute: 330,
        rateLimits: { requests: 1200, windowSeconds: 10, verificationRequests: 5, mintRequests: 2, keyLookups: 40, keylessRequests: 30, webhookRetries: 3, syncMs: 50, instances: 3 },
        trustedProxyHops: 2,
        connections: { headersTimeoutMs: 4_000, requestTimeoutMs: 20_000, keepAliveTimeoutMs: 7_000, maxConnections: 500, maxConnectionsPerAddress: 50 },
        ach: undefined,
      }),
    )
  })

  it('gives one peer address a tenth of the connections, at most 100, unless the peers are trusted proxies, which may use them all', () => {
    const perAddress = (env: Record<string, string>) => E.map((c: { connections: { maxConnectionsPerAddress: number } }) => c.connections.maxConnectionsPerAddress)(loadConfig(env))
    expect(perAddress({})).to.deep.equal(E.right(100))
    expect(perAddress({ HTTP_MAX_CONNECTIONS: '200' })).to.deep.equal(E.right(20))
    expect(perAddress({ HTTP_MAX_CONNECTIONS: '5' })).to.deep.equal(E.right(1))
    expect(perAddress({ HTTP_MAX_CONNECTIONS: '5000' })).to.deep.equal(E.right(100))
    expect(perAddress({ TRUSTED_PROXY_HOPS: '1' })).to.deep.equal(E.right(1_000))
    expect(perAddress({ TRUSTED_PROXY_HOPS: '1', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '30' })).to.deep.equal(E.right(30))
    expect(E.isLeft(loadConfig({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0' }))).to.equal(true)
  })

  it('accepts pglite://memory as the database', () => {
    const config = loadConfig({ DATABASE_URL: 'pglite://memory' })
    expect(E.isRight(config) && config.right.databaseUrl).to.equal('pglite://memory')
  })

  it('takes a public base URL with a path, normalised, and refuses credentials, a query, a fragment, /public, or plain http or none in production', () => {
    const base = (PUBLIC_BASE_URL: string, NODE_ENV = 'development') => E.map((c: { publicBaseUrl: string | undefined }) => c.publicBaseUrl)(loadConfig({ PUBLIC_BASE_URL, NODE_ENV }))
    expect(base('HTTPS://API.Lendgate.example:443/lending/')).to.deep.equal(E.right('https://api.lendgate.example/lending'))
    expect(base('http://127.0.0.1:3000')).to.deep.equal(E.right('http://127.0.0.1:3000'))
    for (const refused of ['https://user:pw@api.example.com', 'https://api.example.com/?env=prod', 'https://api.example.com/#top', 'https://api.example.com/public', 'ftp://api.example.com', 'api.example.com']) {
      expect(E.isLeft(base(refused)), refused).to.equal(true)
    }
    const refusedInProduction = E.left(['PUBLIC_BASE_URL must be set to an https URL in production: partners send their keys to it, and the partner OpenAPI document names it as its server'])
    expect(base('http://api.example.com', 'production')).to.deep.equal(refusedInProduction)
    expect(E.map((c: { publicBaseUrl: string | undefined }) => c.publicBaseUrl)(loadConfig({ NODE_ENV: 'production' })), 'unset in production').to.deep.equal(refusedInProduction)
    expect(base('https://api.example.com', 'production')).to.deep.equal(E.right('https://api.example.com'))
  })

  it('reports every invalid setting at once', () => {
    expect(
      loadConfig({
        PORT: '70000',
        DATABASE_URL: 'mysql://db',
        PARTNER_MINT_SECRET: 'short',
        WEBHOOK_SECRET_KEY: Buffer.alloc(16).toString('base64'),
        WEBHOOK_ALLOW_HTTP: 'yes',
        WEBHOOK_RETRY_SCHEDULE: '0,-5',
        VERIFICATION_DELIVERY_URL: 'ftp://x',
        PLACEHOLDER_OPERATIONS: 'getParty,noSuchOperation',
        PUBLIC_BASE_URL: 'https://api.lendgate.example/?env=prod',
        CORS_ORIGINS: 'app.example.com',
        LOG_LEVEL: 'loud',
        KEY_USAGE_FLUSH_MS: '5',
        RATE_LIMIT_REQUESTS: '0',
        RATE_LIMIT_WINDOW_SECONDS: '1.5',
        RATE_LIMIT_VERIFICATION_REQUESTS: 'many',
        RATE_LIMIT_MINT_REQUESTS: '-1',
        RATE_LIMIT_KEY_LOOKUPS: '0',
        RATE_LIMIT_SYNC_MS: '5',
        RATE_LIMIT_INSTANCES: '0',
        TRUSTED_PROXY_HOPS: '11',
        DATABASE_DIRECT_URL: 'pgbouncer://db',
        DATABASE_READ_URL: 'postgres://db-replica:5432/lendgate,db-replica-2',
        REPLICA_MAX_LAG_MS: '1000',
        WORKER_PORT: '-1',
        SERVICING_JOB_AT: '24:00',
        WEBHOOK_WORKER: 'false',
      }),
    ).to.deep.equal(
      E.left([
        'PORT must be an integer from 0 to 65535',
        'DATABASE_URL must be a postgres:// or postgresql:// URL, or pglite://memory',
        'DATABASE_DIRECT_URL must be a postgres:// or postgresql:// URL',
        'DATABASE_READ_URL must be postgres:// or postgresql:// URLs, comma-separated',
        'REPLICA_MAX_LAG_MS must be an integer from 2000 to 600000',
        'PARTNER_MINT_SECRET must be at least 16 characters',
        'WEBHOOK_SECRET_KEY must be 32 bytes, base64-encoded',
        'WEBHOOK_ALLOW_HTTP must be true or false',
        'WEBHOOK_RETRY_SCHEDULE must be comma-separated whole seconds, such as 0,5,300',
        'VERIFICATION_DELIVERY_URL must be an http(s) URL',
        'PLACEHOLDER_OPERATIONS must list known operationIds, comma-separated',
        'PUBLIC_BASE_URL must be an http(s) URL without credentials, query or fragment, not ending in /public, such as https://api.example.com',
        'CORS_ORIGINS must be * or origins such as https://app.example.com, comma-separated',
        'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
        'WEBHOOK_WORKER was renamed RUN_JOBS',
        'WORKER_PORT must be an integer from 0 to 65535',
        'SERVICING_JOB_AT must be a time of day in UTC, HH:MM',
        'KEY_USAGE_FLUSH_MS must be an integer from 100 to 3600000',
        'RATE_LIMIT_REQUESTS must be an integer from 1 to 1000000000',
        'RATE_LIMIT_WINDOW_SECONDS must be an integer from 1 to 86400',
        'RATE_LIMIT_VERIFICATION_REQUESTS must be an integer from 1 to 1000000000',
        'RATE_LIMIT_MINT_REQUESTS must be an integer from 1 to 1000000000',
        'RATE_LIMIT_KEY_LOOKUPS must be an integer from 1 to 1000000000',
        'RATE_LIMIT_SYNC_MS must be an integer from 10 to 60000',
        'RATE_LIMIT_INSTANCES must be an integer from 1 to 1000',
        'TRUSTED_PROXY_HOPS must be an integer from 0 to 10',
      ]),
    )
  })
  describe('ACH (docs/configuration.md "ACH")', () => {
    const ACH = { ACH_ENABLED: 'true', ACH_ODFI_ROUTING_NUMBER: '121042882', ACH_ODFI_NAME: 'Wells Fargo', ACH_COMPANY_ID: '1234567890', ACH_COMPANY_NAME: 'Lendgate Capital' }
    const achOf = (env: Record<string, string>) => {
      const loaded = loadConfig(env)
      return E.isRight(loaded) ? E.right(loaded.right.ach) : loaded
    }

    it('is off by default, and off with settings but without ACH_ENABLED', () => {
      expect(achOf({})).to.deep.equal(E.right(undefined))
      expect(achOf({ ...ACH, ACH_ENABLED: 'false' })).to.deep.equal(E.right(undefined))
    })

    it('reads the originator, the destination (the ODFI by default), the cut-offs sorted, the closures and the outbox (under DATA_DIR by default)', () => {
      expect(achOf({ ...ACH, DATA_DIR: '/srv/lendgate/' })).to.deep.equal(
        E.right({
          odfiRoutingNumber: '121042882',
          odfiName: 'Wells Fargo',
          companyIdentification: '1234567890',
          companyName: 'Lendgate Capital',
          destinationRoutingNumber: '121042882',
          destinationName: 'Wells Fargo',
          cutoffs: ['15:30'],
          settlementAt: '21:00',
          extraClosures: [],
          outboxDir: '/srv/lendgate/ach-outbox',
        }),
      )
      expect(
        achOf({ ...ACH, ACH_DESTINATION_ROUTING_NUMBER: '011000015', ACH_DESTINATION_NAME: 'Federal Reserve', ACH_CUTOFFS: '16:45, 09:00,16:45', ACH_SETTLEMENT_AT: '20:15', ACH_EXTRA_CLOSURES: '2026-12-24,2027-01-02', ACH_OUTBOX_DIR: '/mnt/bank' }),
      ).to.deep.include({ right: { ...(achOf(ACH) as E.Right<object>).right, destinationRoutingNumber: '011000015', destinationName: 'Federal Reserve', cutoffs: ['09:00', '16:45'], settlementAt: '20:15', extraClosures: ['2026-12-24', '2027-01-02'], outboxDir: '/mnt/bank' } })
    })

    it('names each required setting missing, and refuses values a NACHA file cannot hold', () => {
      expect(achOf({ ACH_ENABLED: 'true', ACH_ODFI_NAME: 'Wells Fargo' })).to.deep.equal(
        E.left(['ACH_ODFI_ROUTING_NUMBER must be set when ACH_ENABLED is true', 'ACH_COMPANY_ID must be set when ACH_ENABLED is true', 'ACH_COMPANY_NAME must be set when ACH_ENABLED is true']),
      )
      expect(
        achOf({ ...ACH, ACH_ODFI_ROUTING_NUMBER: '121042883', ACH_COMPANY_NAME: 'Lendgate Capital Partners', ACH_ODFI_NAME: 'Banque Générale', ACH_CUTOFFS: '15:30,25:00', ACH_EXTRA_CLOSURES: '2026-02-30' }),
      ).to.deep.equal(
        E.left([
          'ACH_ODFI_ROUTING_NUMBER must be a 9-digit ABA routing number with a valid checksum',
          'ACH_ODFI_NAME must be 1 to 23 printable ASCII characters',
          'ACH_COMPANY_NAME must be 1 to 16 printable ASCII characters',
          'ACH_CUTOFFS must be times of day, HH:MM, comma-separated',
          'ACH_EXTRA_CLOSURES must be dates, YYYY-MM-DD, comma-separated',
        ]),
      )
    })

    it('needs WEBHOOK_SECRET_KEY in production: it seals the account numbers the files debit', () => {
      const production = { ...ACH, NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.com' }
      expect(achOf(production)).to.deep.equal(E.left(['ACH_ENABLED needs WEBHOOK_SECRET_KEY in production: it seals the bank account numbers the files debit']))
      expect(E.isRight(achOf({ ...production, WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') }))).to.equal(true)
    })
  })

  it('refuses a direct URL without a server to go around (issue 38)', () => {
    const message = 'DATABASE_DIRECT_URL needs DATABASE_URL to name a PostgreSQL server (the embedded database has no pooler to go around)'
    expect(loadConfig({ DATABASE_DIRECT_URL: 'postgres://db:5432/lendgate' })).to.deep.equal(E.left([message]))
    expect(loadConfig({ DATABASE_URL: 'pglite://memory', DATABASE_DIRECT_URL: 'postgres://db:5432/lendgate' })).to.deep.equal(E.left([message]))
    const replicas = 'DATABASE_READ_URL needs DATABASE_URL to name a PostgreSQL server: its replicas stream from that server'
    expect(loadConfig({ DATABASE_READ_URL: 'postgres://replica:5432/lendgate' })).to.deep.equal(E.left([replicas]))
    expect(loadConfig({ DATABASE_URL: 'pglite://memory', DATABASE_READ_URL: 'postgres://replica:5432/lendgate' })).to.deep.equal(E.left([replicas]))
  })

  it('reads the daily job time as minutes after midnight UTC, from 00:00 to 23:59', () => {
    const minute = (at: string) => {
      const config = loadConfig({ SERVICING_JOB_AT: at })
      return E.isRight(config) ? config.right.servicingJobAtMinute : config.left
    }
    expect([minute('00:00'), minute('23:59'), minute('07:05')]).to.deep.equal([0, 1439, 425])
    expect(minute('7:05')).to.deep.equal(['SERVICING_JOB_AT must be a time of day in UTC, HH:MM'])
  })
})
