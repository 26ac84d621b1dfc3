import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { decode } from '../src/domain/foundations/codecs.js'
import { invalidRequest } from '../src/domain/foundations/errors.js'
import { RegisterWebhookInput } from '../src/domain/webhooks/webhook.js'
import { fakePaymentProcessor, fakePaymentTokenizer, fakeWebhookSecrets, fakeWebhookUrlGuard, SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT, testId } from '../src/testing/index.js'

const charge = (amount: number, token = 'btok_1', idempotencyKey = `client-1/${amount}-${token}`) => ({ idempotencyKey, paymentId: testId(`pay-${amount}`), amount, currency: 'USD', token, methodType: token.startsWith('btok_') ? ('bank_account' as const) : ('card' as const) })

describe('fakePaymentProcessor', () => {
  it('answers the sandbox’s test methods, whatever the amount, and records every charge', async () => {
    const processor = fakePaymentProcessor()
    const charges = [charge(50_013), charge(50_000, 'btok_insufficient_funds_2'), charge(50_000, 'tok_card_declined')]
    const outcomes = [await processor.charge(charges[0]!)(), await processor.charge(charges[1]!)(), await processor.charge(charges[2]!)()]

    expect(outcomes).to.deep.equal([
      E.right({ status: 'SUCCEEDED' }),
      E.right({ status: 'FAILED', failureCode: 'insufficient_funds' }),
      E.right({ status: 'FAILED', failureCode: 'card_declined' }),
    ])
    expect(processor.charges()).to.deep.equal(charges)
  })

  it('moves money once per idempotency key: a repeat answers the first outcome and records nothing', async () => {
    const processor = fakePaymentProcessor()
    const first = await processor.charge(charge(50_000, 'btok_1', 'client-1/k1'))()
    const repeat = await processor.charge({ ...charge(50_000, 'tok_card_declined', 'client-1/k1'), paymentId: testId('pay-again') })()
    const other = await processor.charge(charge(50_000, 'tok_card_declined', 'client-1/k2'))()

    expect([first, repeat, other]).to.deep.equal([E.right({ status: 'SUCCEEDED' }), E.right({ status: 'SUCCEEDED' }), E.right({ status: 'FAILED', failureCode: 'card_declined' })])
    expect(processor.charges().map((c) => c.idempotencyKey)).to.deep.equal(['client-1/k1', 'client-1/k2'])
  })

  describe('when it is down', () => {
    it('returns ProcessorUnavailable and records nothing until it is up again', async () => {
      const processor = fakePaymentProcessor()
      processor.down('rails closed')
      const refused = await processor.charge(charge(1_000))()
      processor.up()
      const settled = await processor.charge(charge(2_000))()

      expect([refused, settled]).to.deep.equal([E.left({ _tag: 'ProcessorUnavailable', cause: 'rails closed' }), E.right({ status: 'SUCCEEDED' })])
      expect(processor.charges()).to.deep.equal([charge(2_000)])
    })
  })
})

describe('fakePaymentTokenizer', () => {
  it('numbers its tokens and keeps the last four digits', async () => {
    const tokenizer = fakePaymentTokenizer()
    const first = await tokenizer.tokenizeBankAccount({ routingNumber: '011000015', accountNumber: '000123456789' })()
    const second = await tokenizer.tokenizeBankAccount({ routingNumber: '021000021', accountNumber: '4321' })()

    expect([first, second]).to.deep.equal([E.right({ token: 'btok_1', last4: '6789' }), E.right({ token: 'btok_2', last4: '4321' })])
    expect(tokenizer.seen()).to.deep.equal([
      { routingNumber: '011000015', accountNumber: '000123456789' },
      { routingNumber: '021000021', accountNumber: '4321' },
    ])
  })

  it('marks the token of the sandbox’s failing test account, so its charges fail', async () => {
    const token = await fakePaymentTokenizer().tokenizeBankAccount({ routingNumber: '011000015', accountNumber: SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT })()
    expect(token).to.deep.equal(E.right({ token: 'btok_insufficient_funds_1', last4: '2227' }))
  })
})

describe('fakeWebhookSecrets', () => {
  it('generates distinct secrets a partner could have given (the registration codec accepts them)', () => {
    const secrets = fakeWebhookSecrets()
    const generated = [secrets.generate(), secrets.generate()]

    expect(generated[0]).to.not.equal(generated[1])
    expect(generated.map((secret) => E.isRight(decode(RegisterWebhookInput)({ webhook_url: 'https://hooks.example', webhook_secret: secret })))).to.deep.equal([true, true])
  })

  it('opens what it sealed, never stores the secret as it is, and refuses another key’s seal', () => {
    const secrets = fakeWebhookSecrets('key-a')
    const sealed = secrets.seal('whsec_MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0')

    expect(sealed).to.not.include('whsec_MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0')
    expect(secrets.open(sealed)).to.deep.equal(O.some('whsec_MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0'))
    expect(fakeWebhookSecrets('key-b').open(sealed)).to.deep.equal(O.none)
  })
})

describe('fakeWebhookUrlGuard', () => {
  const refusal = (reason: string) => E.left(invalidRequest(`webhook_url ${reason}`, 'webhook_url'))

  it('accepts https URLs on hosts it is not told are private', async () => {
    expect(await fakeWebhookUrlGuard().check('https://hooks.partner.example/lendgate?x=1', 'webhook_url')()).to.deep.equal(E.right(undefined))
  })

  it('refuses what the adapter refuses on the URL itself, in its words', async () => {
    const guard = fakeWebhookUrlGuard()
    const answers = await Promise.all(['hooks.partner.example/path', 'http://hooks.partner.example', 'https://user:pw@hooks.partner.example'].map((url) => guard.check(url, 'webhook_url')()))

    expect(answers).to.deep.equal([refusal('must be an absolute URL'), refusal('must use https'), refusal('must not contain credentials')])
  })

  it('accepts http when allowed, and refuses the hosts named private (ports and IPv6 brackets aside)', async () => {
    const guard = fakeWebhookUrlGuard({ allowHttp: true, privateHosts: ['internal.partner.example', '::1'] })
    const answers = await Promise.all(
      ['http://hooks.partner.example', 'https://internal.partner.example:8443/x', 'https://[::1]:443/'].map((url) => guard.check(url, 'webhook_url')()),
    )

    expect(answers).to.deep.equal([E.right(undefined), refusal('must not point to a loopback, private, link-local or reserved address'), refusal('must not point to a loopback, private, link-local or reserved address')])
  })
})
