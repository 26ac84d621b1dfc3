import { execFileSync, spawnSync } from 'node:child_process'

/** A local user's ids. */
export type LocalUser = { readonly uid: number; readonly gid: number }

const idOf = (flag: '-u' | '-g', name: string): number => Number(execFileSync('id', [flag, name]).toString().trim())

/**
 * The local user `name`, made with `useradd` (its group of the same name, no home, the options
 * `useradd` is given) when missing. Only root can make one.
 */
export const localUser = (name: string, useradd: readonly string[]): LocalUser => {
  if (spawnSync('id', ['-u', name]).status !== 0) execFileSync('useradd', ['--user-group', '--no-create-home', '--home-dir', '/nonexistent', ...useradd, name])
  return { uid: idOf('-u', name), gid: idOf('-g', name) }
}
