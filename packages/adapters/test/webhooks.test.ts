import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { Webhook } from 'standardwebhooks'
import { aesGcmWebhookSecrets } from '../src/crypto/webhook-secrets.js'
import { signWebhook } from '../src/webhooks/signature.js'
import { guardedSender } from '../src/webhooks/guarded-sender.js'
import { isPublicAddress, webhookUrlGuard } from '../src/webhooks/url-guard.js'

const key = new Uint8Array(32).fill(9)

describe('aesGcmWebhookSecrets', () => {
  const secrets = aesGcmWebhookSecrets(key)

  it('generates whsec_ secrets of 24 random bytes', () => {
    const a = secrets.generate()
    expect(a).to.match(/^whsec_[A-Za-z0-9+/]{32}$/)
    expect(Buffer.from(a.slice(6), 'base64')).to.have.length(24)
    expect(secrets.generate()).not.to.equal(a)
  })

  it('seals so that the sealed text hides the secret, and opens it again', () => {
    const sealed = secrets.seal('whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0')
    expect(sealed).to.match(/^v1\./)
    expect(sealed).not.to.contain('c2VjcmV0')
    expect(secrets.open(sealed)).to.deep.equal(O.some('whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0'))
    expect(secrets.seal('same')).not.to.equal(secrets.seal('same'))
  })

  it('refuses to open a tampered value or one sealed under another key', () => {
    const sealed = secrets.seal('a plain secret of 16+')
    const parts = sealed.split('.')
    const flipped = [parts[0], parts[1], parts[2], `${parts[3]!.slice(0, -2)}AA`].join('.')
    expect(secrets.open(flipped)).to.deep.equal(O.none)
    expect(aesGcmWebhookSecrets(new Uint8Array(32).fill(1)).open(sealed)).to.deep.equal(O.none)
    expect(secrets.open('garbage')).to.deep.equal(O.none)
  })
})

describe('signWebhook, verified by the standardwebhooks library', () => {
  const body = JSON.stringify({ type: 'party.ready', timestamp: '2026-11-22T10:00:00.000Z', data: { party_id: 'p' } })
  const now = new Date()

  it('signs with a generated whsec_ secret', () => {
    const secret = aesGcmWebhookSecrets(key).generate()
    const headers = signWebhook(secret, 'msg_1', now, body)
    expect(new Webhook(secret).verify(body, { ...headers })).to.deep.equal(JSON.parse(body))
  })

  it('signs with a partner-given whsec_ secret', () => {
    const secret = `whsec_${Buffer.from('a partner chose these 32 bytes!!').toString('base64')}`
    const headers = signWebhook(secret, 'msg_2', now, body)
    expect(new Webhook(secret).verify(body, { ...headers })).to.deep.equal(JSON.parse(body))
  })

  it('signs with a plain-string secret as its UTF-8 bytes', () => {
    const secret = 'plain-partner-secret-123'
    const headers = signWebhook(secret, 'msg_3', now, body)
    expect(new Webhook(new TextEncoder().encode(secret), { format: 'raw' }).verify(body, { ...headers })).to.deep.equal(JSON.parse(body))
  })

  it('produces a signature the library rejects for another body', () => {
    const secret = aesGcmWebhookSecrets(key).generate()
    const headers = signWebhook(secret, 'msg_4', now, body)
    expect(() => new Webhook(secret).verify(`${body} `, { ...headers })).to.throw()
    expect(headers['webhook-timestamp']).to.equal(String(Math.floor(now.getTime() / 1000)))
  })
})

describe('webhookUrlGuard', () => {
  const dns: Record<string, string[]> = {
    'public.example': ['93.184.216.34'],
    'loopback.example': ['127.0.0.1'],
    'mixed.example': ['93.184.216.34', '10.0.0.5'],
  }
  const guard = (allowHttp = false, allowPrivateNetworks = false) =>
    webhookUrlGuard({ allowHttp, allowPrivateNetworks, resolve: async (host) => dns[host] ?? [] })
  const check = async (url: string, g = guard()) => (await g.check(url, 'webhook_url')()) as E.Either<{ detail: string; param: string }, void>

  it('accepts https URLs whose host resolves only to public addresses', async () => {
    expect(await check('https://public.example/hooks/lendgate')).to.deep.equal(E.right(undefined))
    expect(await check('https://93.184.216.34:8443/h')).to.deep.equal(E.right(undefined))
  })

  it('refuses http, credentials, and anything that is not a URL', async () => {
    expect(await check('http://public.example/h')).to.deep.equal(E.left({ _tag: 'InvalidRequest', detail: 'webhook_url must use https', param: 'webhook_url' }))
    expect(E.isLeft(await check('https://user:pw@public.example/h'))).to.equal(true)
    expect(E.isLeft(await check('not a url'))).to.equal(true)
    expect(E.isLeft(await check('ftp://public.example/h'))).to.equal(true)
  })

  it('refuses loopback, private, link-local and mapped addresses, literal or resolved', async () => {
    for (const url of [
      'https://127.0.0.1/h',
      'https://[::1]/h',
      'https://[::ffff:127.0.0.1]/h',
      'https://[::127.0.0.1]/h',
      'https://[::10.1.2.3]/h',
      'https://[::8.8.8.8]/h',
      'https://[64:ff9b::7f00:1]/h',
      'https://[2002:7f00:1::]/h',
      'https://10.1.2.3/h',
      'https://192.168.0.10/h',
      'https://172.16.5.4/h',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/h',
      'https://[fe80::1]/h',
      'https://[fd00::1]/h',
      'https://0.0.0.0/h',
      'https://loopback.example/h',
      'https://mixed.example/h',
    ]) {
      expect(await check(url), url).to.deep.equal(
        E.left({ _tag: 'InvalidRequest', detail: 'webhook_url must not point to a loopback, private, link-local or reserved address', param: 'webhook_url' }),
      )
    }
    // A host that resolves to nothing is said to be so, not blamed on an address it does not have.
    expect(await check('https://nowhere.example/h')).to.deep.equal(E.left({ _tag: 'InvalidRequest', detail: 'webhook_url host could not be resolved', param: 'webhook_url' }))
  })

  it('allows http and private targets only when the settings say so', async () => {
    expect(await check('http://127.0.0.1:9000/h', guard(true, true))).to.deep.equal(E.right(undefined))
    expect(E.isLeft(await check('http://127.0.0.1:9000/h', guard(true, false)))).to.equal(true)
    expect(E.isLeft(await check('http://public.example/h', guard(false, true)))).to.equal(true)
  })

  it('classifies addresses with IPv4-mapped IPv6 judged as IPv4, and refuses IPv4-compatible IPv6', () => {
    expect(isPublicAddress('8.8.8.8')).to.equal(true)
    expect(isPublicAddress('::ffff:8.8.8.8')).to.equal(true)
    expect(isPublicAddress('::ffff:127.0.0.1')).to.equal(false)
    expect(isPublicAddress('2606:2800:220:1:248:1893:25c8:1946')).to.equal(true)
    // IPv4-compatible IPv6 (::/96), whatever IPv4 address it carries (issue 35), in the hex form
    // URLs and resolvers write (WHATWG URL turns [::127.0.0.1] into [::7f00:1]).
    for (const compatible of ['::127.0.0.1', '::7f00:1', '::808:808', '::', '::1', '0:0:0:0:0:0:a01:203']) expect(isPublicAddress(compatible), compatible).to.equal(false)
    expect(isPublicAddress('not-an-ip')).to.equal(false)
  })
})

describe('guardedSender', () => {
  it('refuses, as a failed attempt, a URL whose host now resolves to a private address, and sends otherwise', async () => {
    let resolved = ['93.184.216.34']
    const guard = webhookUrlGuard({ allowHttp: false, allowPrivateNetworks: false, resolve: async () => resolved })
    const sent: string[] = []
    const sender = guardedSender(guard, { send: (r) => async () => (sent.push(r.url), { statusCode: 200, error: null, durationMs: 1 }) })
    expect(await sender.send({ url: 'https://rebind.example/h', headers: {}, body: '{}' })()).to.deep.equal({ statusCode: 200, error: null, durationMs: 1 })
    resolved = ['10.0.0.7']
    expect(await sender.send({ url: 'https://rebind.example/h', headers: {}, body: '{}' })()).to.deep.equal({
      statusCode: null,
      error: 'refused: the URL must not point to a loopback, private, link-local or reserved address',
      durationMs: 0,
    })
    expect(sent).to.deep.equal(['https://rebind.example/h'])
  })
})
