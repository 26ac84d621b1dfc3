/**
 * The domain of Lendgate with no I/O: entities and their codecs, the ports an embedding service
 * implements (or takes from `@lendgate/adapters`), and the use cases, each returning an fp-ts
 * `TaskEither` whose Left is a closed union of plain `_tag`ged errors.
 *
 * A use case takes its dependencies first, then one `unknown` command that its own io-ts codec
 * decodes, so an embedder gets the same validation as the HTTP API: partner use cases take the
 * authenticated `Caller` before the command, operator use cases an optional `AuditContext` after
 * it. In-memory adapters for tests are in `@lendgate/core/testing`.
 *
 * @module @lendgate/core
 */

// Foundations: errors, codecs, command identifiers, pagination, clock and ids, idempotency keys, health
export {
  type InvalidRequest, invalidRequest, type NotFound, notFound, type StoreUnavailable, storeUnavailable,
  type AlreadyExists, alreadyExists, type MissingApiKey, missingApiKey, type InvalidApiKey, invalidApiKey,
  type InsufficientScope, type PartyMismatch, type ConcurrentUpdate, concurrentUpdate, type InvalidState, invalidState,
  type Overpayment, type IdempotencyKeyRequired, idempotencyKeyRequired, type IdempotencyKeyReused,
} from './domain/foundations/errors.js'
export { type JsonSchema, jsonSchemaOf, CalendarDate, EmptyInput, decode, isUuid } from './domain/foundations/codecs.js'
export { PATH_PARAMETERS } from './domain/foundations/path-parameters.js'
export {
  type Id, type AnyId, SessionId, PartyId, ClientId, ApiKeyId, AddressId, DocumentId, ProductId, ApplicationId,
  LoanId, PaymentMethodId, PaymentId, EventId, TestClockId, EndpointId, InboundFileId, OperatorId, OperatorSessionId, OperatorRequestId, isWebhookEventId,
} from './domain/foundations/ids.js'
export { type CoreDeps, type World, type WorldDeps, WORLDS, WORLD_MEMBERS } from './core-deps.js'
export { TEST_VERIFICATION_CODE, testModeVerification } from './test-mode.js'
export {
  type TestClock, type TestClockStatus, MAX_ADVANCE_DAYS, CreateTestClockInput, AdvanceTestClockInput, newTestClock, advanceTo, nextStep,
} from './domain/testing/test-clock.js'
export { type TestClockRepository } from './ports/test-clock-repository.js'
export { type TestData, type WipedTestData } from './ports/test-data.js'
export { type WipedTestDataView, wipedTestDataView } from './views/test-data.js'
export { type WipeTestDataDeps, wipeTestData } from './use-cases/testing/wipe-test-data.js'
export { type TestClockView, testClockView } from './views/test-clocks.js'
export {
  type AchFileView, type AchInboundFileView, type AchNoticeView, type AchOriginationRunView, type AchReturnView, type AchRunOutcome, type CategoryRateView, type ReturnRateReportView,
  achFileView, achInboundFileView, achOriginationRunView, returnRateReportView,
} from './views/ach.js'
export {
  type CreateTestClockDeps, type AdvanceClockDeps, type ClockRails, createTestClock, getTestClock, advanceTestClock, advanceClaimedClock,
} from './use-cases/testing/test-clocks.js'
export {
  RETURN_CODES, type ReturnCode, ReturnPaymentInput, type SimulatedReturnDeps, simulateApplicationApproval, simulateApplicationDecline, simulateOnboardingApproval, simulateOnboardingRejection, simulatePaymentReturn,
} from './use-cases/testing/simulations.js'
export {
  type Position, type PageRequest, type Page, type ListEnvelope, envelope, PageQuery,
} from './domain/foundations/pagination.js'
export { type Clock } from './ports/clock.js'
export { type IdGenerator } from './ports/id-generator.js'
export {
  type StoredResponse, type IdempotencyClaim, type IdempotencyKeyRef, type IdempotencyStore,
  IDEMPOTENCY_RETENTION_MS, IDEMPOTENCY_LEASE_MS,
} from './ports/idempotency-store.js'
export { type HealthCheck } from './ports/health-check.js'

// API keys: keys, scopes, authentication, authorization, the key cache
export {
  KEY_ENVIRONMENTS, type KeyEnvironment, type KeyStatus, KEY_PREFIX, KEY_ID_LENGTH, KEY_CHECKSUM_LENGTH,
  KEY_RANDOM_LENGTH, type ApiClient, type ApiKey, type Caller, type PartyScope, type PresentedKey, parsePresentedKey,
  keyPrefixOf,
} from './domain/keys/api-key.js'
export { type ApiKeyView, apiKeyView, type MintedKeyView, mintedKeyView } from './views/keys.js'
export { KNOWN_SCOPES, type KnownScope } from './domain/keys/scopes.js'
export { type GeneratedKey, type ApiKeyMaterial } from './ports/api-key-material.js'
export { type MintRecord, type ApiKeyRepository, type KeyOwner } from './ports/api-key-repository.js'
export { type KeyUsageRecorder } from './ports/key-usage-recorder.js'
export {
  MintApiKeyInput, type MintApiKeyDeps, type MintApiKeyError, type MintedKey, mintApiKey,
} from './use-cases/api-keys/mint-api-key.js'
export { type ListApiKeysDeps, type ListApiKeysError, listApiKeys } from './use-cases/api-keys/list-api-keys.js'
export { type RevokeApiKeyDeps, type RevokeApiKeyError, revokeApiKey } from './use-cases/api-keys/revoke-api-key.js'
export {
  type AuthenticateApiKeyDeps, type AuthenticateApiKeyError, idSegmentToLookUp, authenticateApiKey,
} from './use-cases/api-keys/authenticate-api-key.js'
export { requireScope, requireOwnParty } from './use-cases/api-keys/authorize.js'
export { type BatchedKeyUsageDeps, batchedKeyUsage } from './stateful/batched-key-usage.js'
export { type KeyRevocationEvent, type KeyRevocations } from './ports/key-revocations.js'
export { type KeyCacheOptions, type CachedApiKeys, cachedApiKeys } from './stateful/cached-api-keys.js'

// Onboarding: sessions
export {
  SESSION_TYPES, ENTRY_CHANNELS, type Review, type Contact, type OnboardingSession, CreateOnboardingSessionInput,
  newOnboardingSession,
} from './domain/onboarding/onboarding-session.js'
export { type OnboardingSessionView, onboardingSessionView } from './views/onboarding.js'
export {
  ONBOARDING_STATUSES, type OnboardingStatus, ONBOARDING_STEPS, type OnboardingStep, type RequirementCode, type Requirement,
} from './domain/onboarding/onboarding-state.js'
export { type OnboardingSessionRepository } from './ports/onboarding-session-repository.js'
export {
  type CreateOnboardingSessionDeps, type CreateOnboardingSessionError, createOnboardingSession,
} from './use-cases/onboarding/create-onboarding-session.js'
export { type GetOnboardingSessionDeps, getOnboardingSession } from './use-cases/onboarding/get-onboarding-session.js'
export { type LoadOwnSessionError } from './use-cases/onboarding/load-own-session.js'
export { listPendingOnboardingRequirements } from './use-cases/onboarding/list-pending-onboarding-requirements.js'

// Onboarding: the applicant profile
export { LEGAL_FORMS, ApplicantProfileInput, type ApplicantProfile } from './domain/onboarding/applicant-profile.js'
export { type ApplicantProfileView, applicantProfileView } from './views/onboarding.js'
export {
  type UpsertApplicantProfileDeps, type UpsertApplicantProfileError, upsertApplicantProfile,
} from './use-cases/onboarding/upsert-applicant-profile.js'

// Onboarding: addresses
export {
  ADDRESS_TYPES, type AddressType, AddressInput, AddressPatch, type Address,
} from './domain/onboarding/address.js'
export { type AddressView, addressView } from './views/onboarding.js'
export {
  type OnboardingAddressDeps, type ChangeOnboardingAddressError, createOnboardingAddress,
  updateOnboardingAddress, listOnboardingAddresses,
} from './use-cases/onboarding/onboarding-addresses.js'

// Onboarding: contacts and their verification
export {
  CODE_LENGTH, CONTACT_CHANNELS, type ContactChannel, PhoneInput, EmailInput, CodeInput,
  type VerificationChallenge, type RateLimited, type InvalidCode, type CodeExpired, type TooManyAttempts,
  type NoPendingVerification,
} from './domain/onboarding/verification.js'
export { type VerificationChallengeRepository } from './ports/verification-challenge-repository.js'
export { type OneTimeCodes } from './ports/one-time-codes.js'
export {
  type VerificationMessage, type VerificationDeliveryFailed, verificationDeliveryFailed,
  type VerificationCodeSender,
} from './ports/verification-code-sender.js'
export {
  type ContactVerificationDeps, type ContactVerification, type IssueCodeError, type VerifyContactError,
  submitContact, retryContactVerification, verifyContact, type ContactVerificationView,
  contactVerificationView,
} from './use-cases/onboarding/contact-verification.js'

// Onboarding: documents
export {
  DOCUMENT_TYPES, type DocumentType, DocumentInput, type DocumentMetadata,
} from './domain/onboarding/document.js'
export { type DocumentView, documentView } from './views/onboarding.js'
export { type DocumentRepository } from './ports/document-repository.js'
export {
  type OnboardingDocumentDeps, createOnboardingDocumentMetadata, listDocumentsForOnboardingSession,
} from './use-cases/onboarding/onboarding-documents.js'

// Review of onboarding sessions
export {
  type RequirementsOutstanding, type SubmitDeps, submitOnboardingForReview, ApproveSessionInput,
  RejectSessionInput, type ReviewDeps, type ReviewError, approveOnboardingSession, rejectOnboardingSession,
  SessionStatusFilter, listOnboardingSessionsForReview, getPartyBySessionId, reviewView,
  getOnboardingSessionForReview, listOnboardingDocumentsForReview, reviewDetailView,
} from './use-cases/onboarding/review.js'

// Webhooks: endpoints, events, deliveries
export { RegisterWebhookInput, type WebhookEndpoint } from './domain/webhooks/webhook.js'
export {
  type WebhookEndpointView, webhookEndpointView, type WebhookEventView, webhookEventView, type WebhookDeliveryView,
  webhookDeliveryView,
} from './views/webhooks.js'
export { type WebhookEndpointRepository } from './ports/webhook-endpoint-repository.js'
export { type WebhookSecrets } from './ports/webhook-secrets.js'
export { type WebhookUrlGuard } from './ports/webhook-url-guard.js'
export {
  type RegisterWebhookDeps, type RegisteredWebhook, registerOnboardingSessionWebhook,
} from './use-cases/onboarding/register-webhook.js'
export {
  type WebhookEvent, type PartyReady, type WebhookAttempt, type WebhookDelivery,
} from './domain/webhooks/webhook-event.js'
export { partyReady } from './views/events.js'
export { type WebhookEventRepository } from './ports/webhook-event-repository.js'
export { type AttemptResult, type AttemptOutcome } from './domain/webhooks/webhook-delivery.js'
export {
  type DueDelivery, type DeliveryAttempt, type WebhookDeliveryQueue, type WebhookRequest,
  type WebhookSender, type WebhookSigner, type WebhookBacklog,
} from './ports/webhook-delivery-queue.js'
export {
  type DeliverDueWebhooksDeps, INTERRUPTED_ATTEMPT, deliverDueWebhooks,
} from './use-cases/webhooks/deliver-due-webhooks.js'
export {
  type WebhookDeliveriesDeps, listOnboardingSessionWebhookDeliveries, retryWebhookDelivery,
} from './use-cases/webhooks/webhook-deliveries.js'

// Events
export { EVENT_TYPES, type EventType, type EventDraft, type LoggedEvent, type EventView, type EventSubject, eventView, eventDraft } from './domain/events/event.js'
export { type EventLog, type EventAudience, type EventFilter, type PruneStep } from './ports/event-log.js'
export { EventFilters, listEvents } from './use-cases/events/list-events.js'
export { EVENT_DAYS_READIED_AHEAD, EVENT_RETENTION_DAYS, eventRetentionJob, eventRetentionJobName } from './use-cases/events/prune-events.js'
export {
  ENDPOINT_STATUSES, type EndpointStatus, type EventEndpoint, type EndpointDelivery, CreateEndpointInput, UpdateEndpointInput,
  RotateSecretInput, RecoverInput, DEFAULT_SECRET_GRACE_SECONDS, enables, signingSecrets, DELIVERY_STATUSES, type DeliveryRecord,
  type DeliveryWithAttempts, type DeliveryFilter, isDeliveryRowId,
} from './domain/webhooks/event-endpoint.js'
export { type EventEndpointRepository } from './ports/event-endpoint-repository.js'
export {
  type EventEndpointDeps, type EndpointWithSecret, type EndpointError, MAX_ENDPOINTS_PER_CLIENT, createWebhookEndpoint, listWebhookEndpoints, getWebhookEndpoint,
  updateWebhookEndpoint, deleteWebhookEndpoint, rotateWebhookEndpointSecret, resendWebhookEvent, recoverWebhookEvents,
} from './use-cases/webhooks/event-endpoints.js'
export {
  type EventEndpointView, eventEndpointView, type EndpointDeliveryView, endpointDeliveryView, type DeliveryRecordView, deliveryRecordView,
  type DeliveryWithAttemptsView, deliveryWithAttemptsView,
} from './views/event-endpoints.js'
export {
  type OperatorDeliveryDeps, DeliveryFilters, listWebhookDeliveries, getWebhookDelivery, retryWebhookDeliveryForOperator,
} from './use-cases/webhooks/operator-deliveries.js'

// Parties
export { type Party, partyFromSession } from './domain/onboarding/party.js'
export { type PartyView, partyView } from './views/onboarding.js'
export { type PartyRepository } from './ports/party-repository.js'
export {
  type PartyError, getParty, listPartyAddresses, type PartyAddressDeps, createPartyAddress,
  updatePartyAddress,
} from './use-cases/parties/parties.js'

// Loan products
export { REPAYMENT_FREQUENCIES, type RepaymentFrequency, MAX_TERM_MONTHS, type LoanProduct, LoanProductInput, LoanProductPatch, newLoanProduct } from './domain/loans/loan-product.js'
export { type LoanProductRepository } from './ports/loan-product-repository.js'
export {
  type ProductsDeps, listAvailableLoanProductsForParty, ProductActiveFilter, listLoanProducts,
  type ManageProductsDeps, createLoanProduct, updateLoanProduct,
} from './use-cases/loan-products/loan-products.js'

// Loan applications and their decisioning
export { APPLICATION_STATUSES, type ApplicationStatus, type ApplicationDecision, type LoanApplication, LoanApplicationInput, LoanApplicationPatch, newLoanApplication } from './domain/loans/loan-application.js'
export { type ApplicationFilter, type LoanApplicationRepository } from './ports/loan-application-repository.js'
export {
  type LoadApplicationError, type CreateApplicationDeps, createLoanApplication, getLoanApplication,
  type ChangeApplicationDeps, type ChangeApplicationError, updateLoanApplication, submitLoanApplication,
  withdrawLoanApplication, SchedulePreviewQuery, previewLoanApplicationSchedule, ApplicationStatusFilter,
  listPartyApplications, getLoanApplicationForReview, previewLoanApplicationScheduleForReview, type SchedulePreviewDeps,
} from './use-cases/applications/applications.js'
export {
  ApproveApplicationInput, DeclineApplicationInput, type DecisionDeps, type DecisionError,
  approveLoanApplication, declineLoanApplication, listLoanApplicationsForReview,
} from './use-cases/applications/decisioning.js'

// Servicing: loans, payments, payment methods, operations, views
export {
  LOAN_STATUSES, type LoanStatus, type Loan, type LoanSummary, INSTALLMENT_STATUSES, type InstallmentStatus,
  type LoanInstallment, TRANSACTION_TYPES, type TransactionType, type LedgerTransaction, type BalanceSnapshot,
  type BookedLoan, bookLoan, type LoanDisclosure,
} from './domain/loans/loan.js'
export { type Disclosure } from './lending/apr.js'
export { type AppliedPayment } from './lending/apply-payment.js'
export { type AllocationOrder } from './lending/waterfall.js'
export { type Bucket } from './lending/buckets.js'
export { type ServicedLoan } from './lending/loan-records.js'
export {
  type Buckets, type ServicedInstallment, type ScheduledInstallment, type Allocation,
  type InstallmentPayments, type SettledPayment, type ReturnFee, type ReplayInputs, DELINQUENCY_BUCKETS, type DelinquencyBucket,
  type DerivedLoan, deriveLoan, type PayoffQuote, ledgerSums, type PostedPayment, type LoanEvent,
  type LoanChange, postChange, type ServicingCheckpoint, type Working, replay, resumes, DELINQUENCY_DAYS,
} from './lending/loan-servicing.js'
export {
  DAY_COUNTS, type DayCount, PREPAYMENT_MODES, type PrepaymentMode, type LateFee, type ServicingTerms,
  DEFAULT_SERVICING_TERMS, dateIn,
} from './domain/loans/servicing-terms.js'
export { COLLATERAL_TYPES, CollateralInput, type CollateralItem } from './domain/loans/collateral.js'
export { LOAN_DOCUMENT_TYPES, type LoanDocumentType, LoanDocumentInput, type LoanDocument } from './domain/loans/loan-document.js'
export {
  type PostedTransaction, type PostedBalance, type LoanFilter, type DelinquencyCount, type TransactionFilter, type OfPartyLoan,
  type ServicingRecord, type PartyLoanBalances, type PartyLoanLedger, type LockedLoan, type LoanKey, type Posting, type Change, type PaymentReads, type ChangeReads, type RequestFilter,
  type LoanRepository, type AutopaySettings,
} from './ports/loan-repository.js'
export { AutopayInput, autopayKey, type AutopayDue, type AutopayWindow, type LoanAutopay } from './domain/loans/autopay.js'
export { type AutopayDebitDeps, type AutopayDebitError, type AutopayDeps, type AutopayState, getLoanAutopayForParty, setLoanAutopayForParty, takeAutopayDebit } from './use-cases/servicing/autopay.js'
export { type LoanReadError, type Loans, type InCurrency } from './use-cases/servicing/loan-reads.js'
export { LoanFilters, listLoansForParty, getLoanForParty } from './use-cases/servicing/read-loans.js'
export {
  OperatorLoanFilters, type OperatorLoanDeps, type OperatorLoan, listLoansForOperator, getLoanForOperator, asLoansParty,
} from './use-cases/servicing/operator-loan-reads.js'
export { type PartyClockDeps, type BookTimeDeps, partyClock, bookTime } from './use-cases/testing/party-clock.js'
export { type BookTime, type PartyTime, timeOf, latestOf } from './domain/loans/book-time.js'
export {
  LOAN_SORTS, type LoanSort, type LoanPage, type OrderedLoan, type UnpaidPosition, type PrincipalPosition, oldestFirst, decodeLoanPage, loanPageOf, compareLoansIn, isAfterIn,
} from './domain/loans/loan-order.js'
export { type BucketTotals, type CurrencyDelinquency, type DelinquencySummary, delinquencyByBucket, getDelinquencySummary } from './use-cases/servicing/portfolio.js'
export { listLoanBalancesForParty, getLatestLoanBalanceForParty } from './use-cases/servicing/read-balances.js'
export { TransactionFilters, listTransactionsForPartyLoan } from './use-cases/servicing/list-transactions.js'
export { listLoanScheduleForParty } from './use-cases/servicing/list-schedule.js'
export { type PartyPayoffQuote, PayoffQuery, getLoanPayoffForParty } from './use-cases/servicing/quote-payoff.js'
export { listPaymentsForPartyLoan } from './use-cases/servicing/list-payments.js'
export { PaymentInput, IdempotencyKey, PAYMENT_STATUSES, POSTED_PAYMENT_STATUSES, REVERSIBLE_PAYMENT_STATUSES, isPosted, type PaymentStatus, type Payment } from './domain/loans/payment.js'
export { type ProcessorUnavailable, type ChargeOutcome, type PaymentProcessor } from './ports/payment-processor.js'
export { type PaymentDeps, type PaymentError, createPaymentIntentForPartyLoan } from './use-cases/servicing/take-payment.js'
export { type PaymentRefusal } from './use-cases/servicing/plan-payment.js'
export { type AppliedReturn, type ReturnOrder, type ReversalDeps, type ReversalError, type ReversalOrder, ReversePaymentInput, reverseLoanPayment } from './use-cases/servicing/reverse-payment.js'
export { PaymentMethodInput, PaymentMethodPatch, type PaymentMethod, isAbaRoutingNumber } from './domain/loans/payment-method.js'
export { type AccountAsDecided, type PaymentMethodRepository } from './ports/payment-method-repository.js'
export { type PaymentTokenizer } from './ports/payment-tokenizer.js'
export { type AccountSeal, type BankAccountNumbers } from './ports/account-seal.js'
export { type AccountUnreadable, type BankAccountDeps, bankAccountOf } from './use-cases/ach/bank-account.js'
export { type PaymentMethodDeps } from './use-cases/servicing/payment-method-deps.js'
export { listPaymentMethodsForPartyLoan } from './use-cases/servicing/list-payment-methods.js'
export { createPaymentMethodForPartyLoan } from './use-cases/servicing/create-payment-method.js'
export { updatePaymentMethodForPartyLoan } from './use-cases/servicing/update-payment-method.js'
export {
  AccrualQuery, type AccrualDeps, type AccrualRun, runInterestAccrual, type AccrualProgress, servicingJobName, dailyServicingJob,
} from './use-cases/servicing/accrue-loans.js'
export { type ChargeOffDeps, ChargeOffInput, chargeOffLoan } from './use-cases/servicing/charge-off-loan.js'
export { type RecordDeps, addLoanCollateral, attachLoanDocument, listCollateralForPartyLoan, listDocumentsForPartyLoan } from './use-cases/servicing/loan-records.js'
export { type LoanFailure, type LoanFailures } from './ports/loan-failures.js'
export {
  balanceView, transactionView, installmentView, payoffView, servicingTermsView, type ServicingTermsView, disclosureView, type LoanView, loanView, loanViewOn, entryView, collateralView, loanDocumentView, delinquencySummaryView, type DelinquencySummaryView,
} from './views/loans.js'
export { paymentView, type PaymentMethodView, paymentMethodView, autopayView } from './views/loan-payments.js'
export { type LoanApplicationView, loanApplicationView, type LoanProductView, loanProductView, type SchedulePreview } from './views/loan-applications.js'

// Audit
export {
  AUDIT_ACTIONS, type AuditAction, AUDIT_SUBJECT_TYPES, type AuditSubjectType, type AuditActor,
  type AuditJson, type AuditDetails, type AuditEvent, type AuditContext, OPERATOR, NOT_AUDITED,
  OPERATOR_CONTEXT, apiKeyActor, namedOperatorActor, actorId, keyMintedEvent, sessionApprovedEvent, productCreatedEvent, type Concerning, type CorrectedAccount, paymentMethodCorrectedEvent,
  type CheckedRequest, operatorRequestCreatedEvent, operatorRequestRejectedEvent, deliveryRetriedEvent,
} from './domain/audit/audit-event.js'
export { type AuditEventView, auditEventView } from './views/audit.js'
export { type AuditEventFilter, type AuditLog } from './ports/audit-log.js'
export { AuditEventFilters, listAuditEvents } from './use-cases/audit/list-audit-events.js'

// Named operators and their console sessions (decision 149)
export {
  OPERATOR_ROLES, type OperatorRole, OPERATOR_PERMISSIONS, type OperatorPermission, ROLE_PERMISSIONS, roleMay, rolesWith, requirePermission,
  type Operator, type OperatorSession, sessionLive, PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, OperatorEmail, Password, AddOperatorInput, SignInInput,
  type InvalidCredentials, invalidCredentials, type InvalidOperatorSession, invalidOperatorSession, type InsufficientRole, insufficientRole,
} from './domain/operators/operator.js'
export { type OperatorCredentials, type OperatorChange, type ChangedOperator, type StoredOperatorSession, type SessionOperator, type OperatorRepository } from './ports/operator-repository.js'
export { type NewSessionToken, type OperatorSecrets } from './ports/operator-secrets.js'
export {
  type ManageOperatorsDeps, type AddedOperator, addOperator, disableOperator, revokeOperatorSessions, listOperators,
  resetOperatorPassword, setOperatorRole, enableOperator,
} from './use-cases/operators/manage-operators.js'
export {
  type SignInOperatorDeps, type SignedIn, type SignInOptions, type OperatorSessionDeps, type SignInGuard,
  unguarded, openOperatorSession, signInOperator, operatorOfSession, signOutOperator,
} from './use-cases/operators/operator-sessions.js'
export { type OperatorView, operatorView, type OperatorSessionView, operatorSessionView } from './views/operators.js'

// Scheduled jobs
export { type JobLease, type CompletedRun, type JobLeases } from './ports/job-leases.js'
export {
  type JobStep, type SteppedJob, type JobRunRequest, type JobRunOutcome, type LeasedJobDeps, runLeasedJob, runToEnd,
} from './use-cases/jobs/leased-job.js'

// Rate limits
export { type RatePolicy, type RateDecision, type RateWindow, windowOf } from './domain/keys/rate-limit.js'
export { type AttemptLimiter, type LimitedAttempt, type RateLimiter } from './ports/rate-limiter.js'
export { HEARTBEAT_RETENTION_MS, type CountedAttempt, type Heartbeat, type RateCount, type RateLimitStore, type Synced } from './ports/rate-limit-store.js'
export { type ExactRateLimiterDeps, exactAttemptLimiter, exactRateLimiter } from './stateful/exact-rate-limiter.js'
export {
  type SyncedRateLimiterDeps, type SyncedRateLimiter, syncedRateLimiter,
} from './stateful/synced-rate-limiter.js'
export { type BankClosure, type BankingCalendar, bankingCalendar, federalReserveClosures } from './domain/ach/banking-days.js'
export { SUBMISSION_DAYS_AHEAD, type SubmissionDeps, type SubmissionFailure, failPendingPayment, settleSubmittedPayment, submitPendingPayment } from './use-cases/ach/submission.js'
export {
  ACH_TIME_ZONE, type Cutoff, type CutoffSchedule, cutoffOf, cutoffRunKey, cutoffSchedule, instantIn, isTimeOfDay, timeIn,
} from './domain/ach/cutoffs.js'
export { type AchDebit, type AchFileContents, type AchFileFormat, type AchFileRefused, type FormattedAchFile } from './ports/ach-file-format.js'
export { type AchOriginationRun, type OriginationDeps, achOriginationJob, achOriginationJobName, originateAchFileNow } from './use-cases/ach/origination.js'
export { RETURN_WINDOW_BANKING_DAYS, type SettlementDeps, achSettlementJob, achSettlementJobName } from './use-cases/ach/settlement.js'
export { type AchFileSink, type FileNameTaken, type SinkUnavailable } from './ports/ach-file-sink.js'
export {
  type AchFileStatus, type AchFile, ACH_FILE_ID_MODIFIERS, SENT_ENTRY_STATUSES, type BuiltAchFile, type NewAchFile, type AchEntryStatus, type AchEntry, type AchEntryCursor, type AchDebitRow, type AchOriginations,
} from './ports/ach-originations.js'
export {
  RATE_CATEGORIES, type RateCategory, type ReturnCategory, EXTENDED_RETURN_DAYS, RETURN_RATE_THRESHOLDS, RETURN_RATE_WINDOW_DAYS, blocksMethod, hasExtendedWindow, returnCategoryOf,
} from './domain/ach/return-codes.js'
export { type AchReturnRates, type ClientReturnCounts } from './ports/ach-return-rates.js'
export { type CategoryRate, type ClientReturnRates, type ReturnRateReport, achReturnRates, clientReturnRates } from './use-cases/ach/return-rates.js'
export {
  type AccountCorrection, type AchFileUnreadable, type AchInbound, type AchInboundFileRecord, type AchInboundFormat, type AchIngestReport, type AchNoticeRecord,
  type AchReturnRecord, type InboundAchFile, type InboundNotice, type InboundOther, type InboundReturn, type NoticeOutcome, type ReturnOutcome,
} from './ports/ach-inbound.js'
export { type Ingestion, type ReturnDeps, ingestReturn, isLateReturn, returnBankDebit } from './use-cases/ach/returns.js'
export { type NoticeDeps, ingestNotice } from './use-cases/ach/notices.js'
export { type IngestionDeps, type IngestionError, InboundFileCommand, findAchInboundFile, ingestAchFile } from './use-cases/ach/ingestion.js'
export { type AchInbox, type ArrivedAchFile } from './ports/ach-inbox.js'
export { achInboxJob, achInboxJobName } from './use-cases/ach/inbox.js'

// Maker-checker: operator requests for reversals and charge-offs (decision 152)
export {
  OPERATOR_REQUEST_KINDS, type OperatorRequestKind, OPERATOR_REQUEST_STATES, type OperatorRequestState, type OperatorRequest,
  OperatorRequestInput, type OperatorRequestSubject, requestSubjectOf, RejectRequestInput, actsAlone, type CheckerRequired, checkerRequired,
  type SameOperator, sameOperator, type OperatorRequired, operatorRequired, ApproveRequestInput, previewVersion, type PreviewOutdated, previewOutdated,
} from './domain/operators/operator-request.js'
export {
  type OperatorRequestDeps, type ActingOperator, type OperatorRequestError, type ActionOutcome, type ActionPreview, type ApprovedRequest,
  previewOperatorAction, askOperatorRequest, previewOperatorRequest, approveOperatorRequest, rejectOperatorRequest, getOperatorRequest,
  OperatorRequestFilters, listOperatorRequests,
} from './use-cases/servicing/operator-requests.js'
export { operatorRequestView, actionPreviewView, approvedRequestView } from './views/operator-requests.js'
