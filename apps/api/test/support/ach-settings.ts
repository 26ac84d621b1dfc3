import type { AchSettings } from '../../src/config.js'

/** The ACH settings of the HTTP tests: one ODFI (121042882), a 15:30 cut-off, files written to `outboxDir`. */
export const achSettings = (outboxDir: string): AchSettings => ({
  odfiRoutingNumber: '121042882',
  odfiName: 'WELLS FARGO BANK',
  companyIdentification: '1234567890',
  companyName: 'LENDGATE CAPITAL',
  destinationRoutingNumber: '121042882',
  destinationName: 'WELLS FARGO BANK',
  cutoffs: ['15:30'],
  settlementAt: '21:00',
  extraClosures: [],
  outboxDir,
})
