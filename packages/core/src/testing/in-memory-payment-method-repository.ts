import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { PaymentMethod } from '../domain/loans/payment-method.js'
import type { LoanRepository } from '../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../ports/payment-method-repository.js'
import type { LoanId } from '../domain/foundations/ids.js'
import type { AuditLog } from '../ports/audit-log.js'
import { inMemoryAuditLog } from './in-memory-audit-log.js'
import { inMemoryPage } from './in-memory-paging.js'

/** Methods in memory; `loans` says which party's loan a method list belongs to (`listForPartyLoan`); `audit` takes a correction's event. */
export const inMemoryPaymentMethodRepository = (
  loans: Pick<LoanRepository, 'findForParty'>,
  audit: Pick<AuditLog, 'record'> = inMemoryAuditLog(),
): PaymentMethodRepository & {
  /** Every method stored. */
  readonly all: () => readonly PaymentMethod[]
  /** The sealed numbers kept with method `id`, whatever its status: what a bank file holding its debits reads. */
  readonly sealedNumbers: (id: string) => string | undefined
  /** Deletes the methods of loans `loanIds` (a wipe of the test world). */
  readonly forgetLoans: (loanIds: ReadonlySet<LoanId>) => void
} => {
  const methods = new Map<string, PaymentMethod>()
  const sealed = new Map<string, string>()
  const write = (method: PaymentMethod, replace: boolean) =>
    TE.fromIO(() => {
      // Like the database: an update of an unknown method changes nothing.
      if (replace && !methods.has(method.id)) return
      if (method.isDefault) {
        for (const m of methods.values()) if (m.loanId === method.loanId && m.id !== method.id && m.isDefault) methods.set(m.id, { ...m, isDefault: false, updatedAt: method.updatedAt })
      }
      methods.set(method.id, method)
    })
  return {
    all: () => [...methods.values()],
    sealedNumbers: (id) => sealed.get(id),
    forgetLoans: (loanIds) => {
      for (const m of [...methods.values()]) {
        if (!loanIds.has(m.loanId)) continue
        methods.delete(m.id)
        sealed.delete(m.id)
      }
    },
    insert: (method, sealedAccount) =>
      pipe(
        write(method, false),
        TE.map(() => {
          if (sealedAccount !== null) sealed.set(method.id, sealedAccount)
        }),
      ),
    sealedAccount: (id) => TE.right(methods.get(id)?.status === 'blocked' ? O.none : O.fromNullable(sealed.get(id))),
    correct: (method, sealedAccount, event, before) => {
      const stored = methods.get(method.id)
      const asDecided = stored !== undefined && stored.last4 === before.last4 && stored.accountType === before.accountType && (sealed.get(method.id) ?? null) === before.sealed
      if (!asDecided) return TE.right(false)
      return pipe(
        audit.record(event),
        TE.map(() => {
          methods.set(method.id, { ...stored, last4: method.last4, accountType: method.accountType, updatedAt: method.updatedAt })
          if (sealedAccount !== null) sealed.set(method.id, sealedAccount)
          return true
        }),
      )
    },
    block: (id, at) =>
      TE.fromIO(() => {
        const method = methods.get(id)
        if (method === undefined || method.status === 'blocked') return
        methods.set(id, { ...method, status: 'blocked', updatedAt: at })
      }),
    // Nickname and default flag only: a method blocked meanwhile stays blocked.
    update: (method) => write({ ...method, status: methods.get(method.id)?.status ?? method.status }, true),
    defaultForLoan: (loanId) => TE.right(O.fromNullable([...methods.values()].find((m) => m.loanId === loanId && m.isDefault))),
    findForLoan: (loanId, id) => TE.right(O.filter((m: PaymentMethod) => m.loanId === loanId)(O.fromNullable(methods.get(id)))),
    listForPartyLoan: (partyId, loanId, page) =>
      pipe(
        loans.findForParty(partyId, loanId),
        TE.map(
          O.map(() =>
            inMemoryPage(
              [...methods.values()].filter((m) => m.loanId === loanId),
              page,
            ),
          ),
        ),
      ),
    countForLoan: (loanId) => TE.right([...methods.values()].filter((m) => m.loanId === loanId).length),
  }
}
