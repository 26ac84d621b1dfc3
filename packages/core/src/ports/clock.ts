/** Use cases never read the system clock, so tests can move time. */
export type Clock = {
  /** The current instant. */
  readonly now: () => Date
}
