/**
 * The current time. Use cases never read the system clock directly, so tests can move time.
 *
 * @property now - The current instant.
 */
export type Clock = { readonly now: () => Date }
