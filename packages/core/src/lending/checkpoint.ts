/** An installment while the replay works on it (and as a checkpoint keeps it). */
export type Working = {
  number: number
  dueDate: string
  principalDue: number
  /** Interest accrued to it so far (stretches closed). */
  interest: number
  feesDue: number
  principalPaid: number
  interestPaid: number
  feesPaid: number
  /** Its interest is final: its due date came, or it was paid in full before. */
  closed: boolean
  /** Its due date has been reached by the replay. */
  reached: boolean
  /** Its late fee date has been passed by the replay. */
  feeChecked: boolean
}

/**
 * Where a replay stood at the end of a date: every event up to that date applied, interest cut at
 * the last event (`cursor`). Stored as JSON on the loan; the next change resumes from it.
 */
export type ServicingCheckpoint = {
  /** The date the replay was advanced to: later payments (dated on or after it) resume from here. */
  readonly date: string
  readonly principal: number
  readonly cursor: string
  readonly open: number
  readonly level: number
  readonly installments: readonly Working[]
}
