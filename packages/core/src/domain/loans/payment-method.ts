import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { Bool, boundedString, integerIn, jsonSchemaOf, mergePatch, oneOf, strictObject, stringMatching, withSchema } from '../foundations/codecs.js'
import { invalidRequest, type InvalidRequest } from '../foundations/errors.js'
import type { LoanId, PaymentMethodId } from '../foundations/ids.js'

// Payment methods of a loan (docs/servicing.md "Payment methods"); account numbers become a token and `last4`.

/** The ABA routing number checksum: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10). */
export const isAbaRoutingNumber = (value: string): boolean => {
  if (!/^\d{9}$/.test(value)) return false
  const d = [...value].map(Number)
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!)
  return sum % 10 === 0
}

const RoutingNumber = withSchema(new t.Type<string, string, unknown>(
  'RoutingNumber',
  (u): u is string => typeof u === 'string' && isAbaRoutingNumber(u),
  (u, c) => (typeof u === 'string' && isAbaRoutingNumber(u) ? t.success(u) : t.failure(u, c, 'must be a 9-digit ABA routing number with a valid checksum')),
  t.identity,
), { type: 'string', pattern: '^\\d{9}$', description: 'an ABA routing number; its checksum must be valid' })

const common = { nickname: boundedString('Nickname', 1, 50), is_default: Bool }

const BankAccountInput = strictObject(
  'BankAccountInput',
  {
    type: oneOf('Type', ['bank_account']),
    account_holder_name: boundedString('AccountHolderName', 1, 100),
    routing_number: RoutingNumber,
    account_number: stringMatching('AccountNumber', /^\d{4,17}$/, 'must be 4 to 17 digits'),
  },
  { ...common, account_type: oneOf('AccountType', ['checking', 'savings']) },
)

const CardInput = strictObject(
  'CardInput',
  {
    type: oneOf('Type', ['card']),
    card_token: stringMatching('CardToken', /^[A-Za-z0-9_-]{6,200}$/, 'must be the token your card vault issued (6 to 200 characters: letters, digits, _ or -)'),
    last4: stringMatching('Last4', /^\d{4}$/, 'must be the last four digits of the card'),
    exp_month: integerIn('ExpMonth', 1, 12),
    exp_year: integerIn('ExpYear', 2000, 2100),
  },
  { ...common, brand: oneOf('Brand', ['visa', 'mastercard', 'amex', 'discover', 'other']) },
)

/** A new payment method (docs/servicing.md "Payment methods"), decoded by the codec its `type` picks, so errors name its fields. */
export const PaymentMethodInput = withSchema(new t.Type<t.TypeOf<typeof BankAccountInput> | t.TypeOf<typeof CardInput>, unknown, unknown>(
  'PaymentMethodInput',
  (_u): _u is never => false,
  (u, c) => {
    const type = typeof u === 'object' && u !== null ? (u as { type?: unknown }).type : undefined
    if (type === 'bank_account') return BankAccountInput.validate(u, c)
    if (type === 'card') return CardInput.validate(u, c)
    if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c, 'the request body must be a JSON object')
    return t.failure(type, [...c, { key: 'type', type: t.string, actual: type }], 'must be one of: bank_account, card')
  },
  t.identity,
), { oneOf: [jsonSchemaOf(BankAccountInput), jsonSchemaOf(CardInput)] })
/** A decoded `PaymentMethodInput`. */
export type PaymentMethodInput = t.TypeOf<typeof PaymentMethodInput>

/** A merge patch (RFC 7396): `null` clears the nickname; `is_default` cannot be emptied. */
export const PaymentMethodPatch = mergePatch('PaymentMethodPatch', { is_default: common.is_default }, { nickname: common.nickname })
/** A decoded `PaymentMethodPatch`. */
export type PaymentMethodPatch = t.TypeOf<typeof PaymentMethodPatch>

/** A loan's payment method: a tokenised bank account or a card token; no account or card number is kept, only `last4`. */
export type PaymentMethod = {
  readonly id: PaymentMethodId
  readonly loanId: LoanId
  readonly type: 'bank_account' | 'card'
  readonly nickname: string | null
  /** Exactly one method of a loan is its default. */
  readonly isDefault: boolean
  /** `blocked` once its bank returned a debit with a code that forbids another (`blocksMethod`): no debit of it is taken or sent. */
  readonly status: 'active' | 'blocked'
  /** The tokenizer's token (bank account) or the card vault's token: never shown to anyone. */
  readonly token: string
  readonly last4: string
  readonly accountHolderName: string | null
  readonly accountType: 'checking' | 'savings' | null
  readonly brand: string | null
  readonly expMonth: number | null
  readonly expYear: number | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** A card that expired before the month of `today` is refused. */
export const checkNotExpired = (input: PaymentMethodInput, today: string): E.Either<InvalidRequest, PaymentMethodInput> => {
  if (input.type !== 'card') return E.right(input)
  const [year, month] = today.split('-').map(Number) as [number, number]
  return input.exp_year < year || (input.exp_year === year && input.exp_month < month)
    ? E.left(invalidRequest('The card has expired.', 'exp_year'))
    : E.right(input)
}
