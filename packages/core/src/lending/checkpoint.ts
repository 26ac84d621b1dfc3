/** An installment while the replay works on it (and as a checkpoint keeps it). */
export type Working = {
  number: number
  dueDate: string
  principalDue: number
  interest: number
  feesDue: number
  principalPaid: number
  interestPaid: number
  feesPaid: number
  /** Its interest is final. */
  closed: boolean
  reached: boolean
  feeChecked: boolean
}

/** Where a replay stood at the end of `date`, interest cut at `cursor`; stored as JSON on the loan. */
export type ServicingCheckpoint = {
  readonly date: string
  readonly principal: number
  readonly cursor: string
  readonly open: number
  readonly level: number
  readonly installments: readonly Working[]
}
