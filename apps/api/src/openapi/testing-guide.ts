import { SANDBOX_AMOUNT_TRIGGERS, SANDBOX_TEST_ACCOUNTS } from '@lendgate/adapters'

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
