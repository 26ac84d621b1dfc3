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

/**
 * The "Testing" guide of the partner document (docs/testing.md in short): the two worlds, the
 * verification code, the test helpers and clocks, the wipe, and the magic values.
 */
export const testingGuide = (): string =>
  [
    '## Testing',
    '',
    'A key minted with `"environment": "test"` (`lgk_test_…`) acts on the **test world**, a live key on the live world: an id of the other world is `404`, and no list shows it. ' +
      'Every object says which world it is of (`livemode`), and so does the `party.ready` webhook. API clients, keys and loan products are shared; a key lists and revokes its own environment\'s keys only.',
    '',
    '- **Verification codes** in the test world are always `000000`; nothing is sent.',
    '- **Test helpers** (`/public/test-helpers/…`, test keys only, `403 test_mode_only` otherwise) approve or reject your submitted session, approve or decline your party\'s submitted application, ' +
      'and return a payment as the bank would (`return_code` R01, R02, R03, R04, R10, R29).',
    '- **Test clocks**: a key of a test-world party puts it on a clock (`POST /public/test-helpers/clocks`); its requests then read the clock\'s `frozen_time` as now. ' +
      '`…/advance` moves it forward (at most 731 days a call) and answers `advancing`: for each day crossed the party\'s loans are serviced as the daily job would (interest, due dates, late fees, delinquency). ' +
      'Poll the clock until `ready`: a loan 90 days past due takes seconds.',
    "- **Starting afresh**: `DELETE /public/test-helpers/data` (a test key with `keys:manage`) deletes all of your API client's test data at once and counts what went; keys and the live world stay.",
    '',
    '### Magic values',
    '',
    'Bank accounts of the published Stripe US test table, and amounts that fail a charge whatever the method (after Moov\'s sandbox):',
    '',
    magicValuesTable().trimEnd(),
  ].join('\n')
