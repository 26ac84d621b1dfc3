/** Generates identifiers for new records: random (version 4) UUIDs in lower case. */
export type IdGenerator = { readonly next: () => string }
