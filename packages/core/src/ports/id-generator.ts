/**
 * Generates identifiers for new records: random (version 4) UUIDs in lower case.
 *
 * @property next - A new identifier, never returned before.
 */
export type IdGenerator = { readonly next: () => string }
