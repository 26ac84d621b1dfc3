import { hkdfSync } from 'node:crypto'
import type { AccountSeal, BankAccountNumbers } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import { pipe } from 'fp-ts/lib/function.js'
import { openAesGcm, sealAesGcm } from './aes-gcm.js'

/**
 * A routing number and an account number as sealed: digits only, so a `/` cannot be part of
 * either, padded with spaces to one length (9 + 1 + 17) so the ciphertext's length does not tell
 * the account number's.
 */
const NUMBERS = /^(\d{9})\/(\d{4,17}) *$/
const SEALED_LENGTH = 27

/**
 * Bank account numbers sealed with AES-256-GCM (`sealAesGcm`) under a key derived (HKDF-SHA-256,
 * its own label) from `secret` (WEBHOOK_SECRET_KEY), bound to the payment method's id as
 * authenticated data: a sealed value copied to another method's row does not open.
 */
export const aesGcmAccountSeal = (secret: Uint8Array): AccountSeal => {
  if (secret.length !== 32) throw new Error('the sealing key must be 32 bytes')
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'lendgate bank accounts v1', 32))
  return {
    seal: (methodId, account) => sealAesGcm(key, `${account.routingNumber}/${account.accountNumber}`.padEnd(SEALED_LENGTH, ' '), methodId),
    open: (methodId, sealed) =>
      pipe(
        openAesGcm(key, sealed, methodId),
        O.chain((text) => O.fromNullable(NUMBERS.exec(text))),
        O.map(([, routingNumber, accountNumber]): BankAccountNumbers => ({ routingNumber: routingNumber!, accountNumber: accountNumber! })),
      ),
  }
}
