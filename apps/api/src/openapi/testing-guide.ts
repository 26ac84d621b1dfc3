import { SANDBOX_AMOUNT_TRIGGERS, SANDBOX_BANK_RULES, SANDBOX_TEST_ACCOUNTS, type SandboxBankOutcome } from '@lendgate/adapters'
import { RETURN_CODES } from '@lendgate/core'

const code = (value: string | null): string => (value === null ? '—' : `\`${value}\``)
const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`
const HEADER = ['Outcome', '`failure_code`', 'NACHA return it stands for']

/**
 * The sandbox's magic values as markdown (docs/testing.md "Magic values"): the test bank account
 * numbers, then the amounts that fail a charge whatever the method, built from the sandbox rails'
 * own tables so the reference says what the rails do.
 */
export const magicValuesTable = (): string =>
  [
    row(['Bank account number (any valid routing number)', ...HEADER]),
    row(['---', '---', '---', '---']),
    ...SANDBOX_TEST_ACCOUNTS.map((account) =>
      row([code(account.accountNumber), account.outcome === 'SUCCEEDED' ? 'settles' : 'fails', code(account.failureCode), account.nachaReturn ?? '—']),
    ),
    '',
    row(['Amount (minor units), any method', ...HEADER]),
    row(['---', '---', '---', '---']),
    ...SANDBOX_AMOUNT_TRIGGERS.map((trigger) => row([`\`${trigger.amount}\` (USD ${(trigger.amount / 100).toFixed(2)})`, 'fails', code(trigger.failureCode), trigger.nachaReturn])),
  ].join('\n') + '\n'

/** What the sandbox bank does with a debit, in words: settles, or its return or notice of change and when. */
const bankOutcome = (outcome: SandboxBankOutcome): readonly string[] => {
  switch (outcome.kind) {
    case 'settle':
      return ['settles: `SETTLED`', '2']
    case 'return': {
      const meaning = (RETURN_CODES as Readonly<Record<string, string>>)[outcome.returnCode]
      return [`returned ${outcome.returnCode}${meaning === undefined ? '' : ` (${meaning})`}: \`RETURNED\``, String(outcome.afterBankingDays)]
    }
    case 'notice': {
      const c = outcome.correction
      const corrected = 'accountNumber' in c ? `account number ${code(c.accountNumber)}` : 'accountType' in c ? `account type \`${c.accountType}\`` : 'routing number'
      return [`notice of change ${c.changeCode}: ${corrected}`, String(outcome.afterBankingDays)]
    }
  }
}

/**
 * The sandbox bank's accounts and amounts as markdown (docs/testing.md "The sandbox bank"): what
 * it does with a test-mode debit and how many banking days after the file's effective date,
 * built from its own rules (`SANDBOX_BANK_RULES`) so the reference says what the bank does.
 */
export const sandboxBankTable = (): string =>
  [
    row(['Bank account number (any valid routing number)', 'What the sandbox bank does', 'Banking days after the effective date']),
    row(['---', '---', '---']),
    ...SANDBOX_BANK_RULES.flatMap((rule) => ('accountNumber' in rule ? [row([code(rule.accountNumber), ...bankOutcome(rule.outcome)])] : [])),
    '',
    row(['Amount (minor units), from any of these accounts', 'What the sandbox bank does', 'Banking days after the effective date']),
    row(['---', '---', '---']),
    ...SANDBOX_BANK_RULES.flatMap((rule) => ('amount' in rule ? [row([`\`${rule.amount}\` (USD ${(rule.amount / 100).toFixed(2)})`, ...bankOutcome(rule.outcome)])] : [])),
  ].join('\n') + '\n'
