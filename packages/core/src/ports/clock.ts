/** The current time. Use cases never read the system clock directly, so tests can move time. */
export type Clock = { readonly now: () => Date }
