/** Random (version 4) UUIDs in lower case. */
export type IdGenerator = { readonly next: () => string }
