import type * as TE from 'fp-ts/lib/TaskEither.js'

/** The place bank files are put could not be written: nothing is known to be there. */
export type SinkUnavailable = { readonly _tag: 'SinkUnavailable'; readonly cause: unknown }

/** A different file already has the name: it is left as it is. */
export type FileNameTaken = { readonly _tag: 'FileNameTaken'; readonly name: string }

/**
 * Where bank files are put for the bank (or an operator, or a connector) to collect (docs/ach.md
 * "Origination job", its last step). A file appears whole or not at all, and is never replaced.
 */
export type AchFileSink = {
  /**
   * Puts `bytes` under `name` (letters, digits, `.`, `_` and `-`; not starting with `.`). Putting
   * the same bytes under a name again is a no-op, so a crash between putting a file and recording
   * it is resumed by putting it again; different bytes under a name already taken are
   * `FileNameTaken`.
   */
  readonly put: (name: string, bytes: Uint8Array) => TE.TaskEither<SinkUnavailable | FileNameTaken, void>
}
