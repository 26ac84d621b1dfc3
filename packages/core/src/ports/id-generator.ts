/** Random (version 4) UUIDs in lower case. */
export type IdGenerator = {
  /** Never returned before. */
  readonly next: () => string
}
