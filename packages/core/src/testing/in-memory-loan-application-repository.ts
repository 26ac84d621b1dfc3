import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { alreadyExists, concurrentUpdate } from '../domain/foundations/errors.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { LoanApplication } from '../domain/loans/loan-application.js'
import type { ApplicationId, ClientId, LoanId, PartyId } from '../domain/foundations/ids.js'
import type { LoanApplicationRepository } from '../ports/loan-application-repository.js'
import { inMemoryLoanRepository, type InMemoryLoanRepository } from './in-memory-loan-repository.js'
import { inMemoryAuditLog, type InMemoryAuditLog } from './in-memory-audit-log.js'
import { inMemoryEventLog, type InMemoryEventLog } from './in-memory-event-log.js'
import type { EventDraft } from '../domain/events/event.js'
import { inMemoryPage } from './in-memory-paging.js'

/** Applications in memory and the loans approval books (`loans`; `onTestClock` as `inMemoryLoanRepository` takes it); the PostgreSQL repositories' semantics. */
export const inMemoryLoanApplicationRepository = (
  audit: InMemoryAuditLog = inMemoryAuditLog(),
  onTestClock: (partyId: PartyId) => boolean = () => false,
  eventLog: InMemoryEventLog = inMemoryEventLog(),
): LoanApplicationRepository & {
  /** Every application, as stored. */
  readonly all: () => readonly LoanApplication[]
  readonly loans: InMemoryLoanRepository
  readonly audit: InMemoryAuditLog
  /** Deletes the applications of client `clientId` or of parties `partyIds`, and their parties' loans (a wipe of the test world); what went. */
  readonly forget: (clientId: ClientId, partyIds: ReadonlySet<PartyId>) => { readonly applications: number; readonly applicationIds: ReadonlySet<ApplicationId>; readonly loanIds: ReadonlySet<LoanId>; readonly payments: number }
} => {
  const applications = new Map<string, LoanApplication>()
  const loans = inMemoryLoanRepository(audit, onTestClock, eventLog)
  const save = (a: LoanApplication, event: AuditEvent | null, events: readonly EventDraft[]) => {
    const stored = applications.get(a.id)
    if (stored === undefined || stored.version !== a.version) return TE.left(concurrentUpdate('loan_application'))
    const saved = { ...a, version: a.version + 1 }
    applications.set(a.id, saved)
    if (event !== null) audit.append(event)
    eventLog.append(events)
    return TE.right(saved)
  }
  return {
    all: () => [...applications.values()],
    forget: (clientId, partyIds) => {
      const gone = new Set<ApplicationId>([...applications.values()].filter((a) => a.clientId === clientId || partyIds.has(a.partyId)).map((a) => a.id))
      const { loanIds, payments } = loans.forget(partyIds, gone)
      for (const id of gone) applications.delete(id)
      return { applications: gone.size, applicationIds: gone, loanIds, payments }
    },
    loans,
    audit,
    insert: (a) => {
      if (applications.has(a.id)) return TE.left(alreadyExists('loan_application'))
      applications.set(a.id, a)
      return TE.right(undefined)
    },
    findById: (id) => TE.right(O.fromNullable(applications.get(id))),
    findForParty: (partyId, id) => TE.right(O.filter((a: LoanApplication) => a.partyId === partyId)(O.fromNullable(applications.get(id)))),
    save,
    saveApproved: (a, booked, event, events) =>
      TE.map((saved: LoanApplication) => {
        loans.book(booked)
        eventLog.append(events)
        return saved
      })(save(a, event, [])),
    list: (filter, page) =>
      TE.right(
        inMemoryPage(
          [...applications.values()]
            .filter((a) => filter.of === 'book' || a.partyId === filter.partyId)
            .filter((a) => filter.status === undefined || a.status === filter.status),
          page,
        ),
      ),
  }
}
