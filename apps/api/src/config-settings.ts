import { CalendarDate } from '@lendgate/core'
import * as t from 'io-ts'
import { OPERATION_IDS } from './routes/operations.js'

/** How a setting is declared (`setting`), parsed and documented; config.ts lists the settings. */

export type Env = Readonly<Record<string, string | undefined>>

/**
 * What people are told about a setting. `.env.example` is generated from it
 * (`environmentExample`, `npx -y pnpm@10.34.8 env:example`), so it lists every setting there is.
 */
export type SettingDoc = {
  /** The default as people read it, such as `3000` or `unset: the embedded database under DATA_DIR`. */
  readonly shown: string
  /** The default as a value of the setting, when there is one to write: `.env.example` shows `# NAME=value`. */
  readonly value?: string
  /** What it does, in a sentence or two. */
  readonly meaning: string
  /** For a secret: a command that makes a value (`.env.example` shows none). */
  readonly make?: string
}

/** A setting: decodes the raw environment string (or its absence) to a typed value. */
type Setting<A> = t.Type<A, unknown, unknown>

/** A setting people may set: its rule in words (`expected`) and its documentation. */
type DocumentedSetting<A> = Setting<A> & { readonly expected: string; readonly doc: SettingDoc }

const decoder = <A>(name: string, expected: string, parse: (raw: string) => A | undefined, fallback: () => A): Setting<A> =>
  new t.Type<A, unknown, unknown>(
    name,
    (u): u is A => false,
    (u, c) => {
      const raw = typeof u === 'string' ? u.trim() : ''
      if (raw === '') return t.success(fallback())
      const value = parse(raw)
      return value === undefined ? t.failure(u, c, expected) : t.success(value)
    },
    (a) => a,
  )

export const setting = <A>(name: string, expected: string, parse: (raw: string) => A | undefined, fallback: () => A, doc: SettingDoc): DocumentedSetting<A> =>
  Object.assign(decoder(name, expected, parse, fallback), { expected, doc })

/** A default that is a value of the setting. */
export const byDefault = (value: string, meaning: string): SettingDoc => ({ shown: value, value, meaning })
/** A default that is no value one could write: absent, or worked out from other settings. */
export const otherwise = (shown: string, meaning: string): SettingDoc => ({ shown, meaning })
/** A secret: generated outside production (docs/configuration.md), made with `make` for production. */
export const secret = (meaning: string, make: string): SettingDoc => ({ shown: 'unset: generated outside production, none in production', meaning, make })

export const integer = (min: number, max: number) => (raw: string): number | undefined =>
  /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max ? Number(raw) : undefined

export const text = (raw: string): string => raw
export const none = (): undefined => undefined

export const boolean = (raw: string): boolean | undefined => (raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : undefined)

export const list = (raw: string): string[] => raw.split(',').map((s) => s.trim()).filter((s) => s !== '')

export const base64Key = (raw: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(raw)) return undefined
  const bytes = Buffer.from(raw, 'base64')
  return bytes.length === 32 ? new Uint8Array(bytes) : undefined
}

export const schedule = (raw: string): number[] | undefined => {
  const delays = raw.split(',').map((s) => s.trim())
  return delays.every((d) => /^\d+$/.test(d)) ? delays.map(Number) : undefined
}

export const operationIds = (raw: string): ReadonlySet<string> | undefined => {
  const ids = list(raw)
  return ids.every((id) => OPERATION_IDS.has(id)) ? new Set(ids) : undefined
}

/** A postgres:// or postgresql:// URL. */
export const serverUrl = (raw: string): string | undefined => (/^postgres(ql)?:\/\/.+/.test(raw) && URL.canParse(raw) ? raw : undefined)

/** `HH:MM`, 24-hour: minutes after midnight. */
export const timeOfDay = (raw: string): number | undefined => {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(raw)
  return match === null ? undefined : Number(match[1]) * 60 + Number(match[2])
}

/** `HH:MM` times of day, comma-separated, at least one: kept as written, sorted, each once. */
export const timesOfDay = (raw: string): string[] | undefined => {
  const times = list(raw)
  return times.length > 0 && times.every((time) => timeOfDay(time) !== undefined) ? [...new Set(times)].sort() : undefined
}

/** `YYYY-MM-DD` dates that exist, comma-separated. */
export const dates = (raw: string): string[] | undefined => {
  const values = list(raw)
  return values.every((d) => CalendarDate.is(d)) ? values : undefined
}

/** Text a NACHA field holds: printable ASCII, 1 to `max` characters. */
export const nachaText = (max: number) => (raw: string): string | undefined => (raw.length <= max && /^[\x20-\x7e]+$/.test(raw) ? raw : undefined)

/** A setting that was renamed: any value is refused with the new name, so nobody runs on a setting that is ignored. */
export const renamed = (name: string, to: string): Setting<undefined> =>
  decoder(name, `was renamed ${to}`, () => undefined, none)

/**
 * An http(s) URL with no credentials, query or fragment, normalised by the URL parser, without
 * its trailing slash; a path (a gateway's prefix) may follow the host, but not `/public`, which
 * every partner path already starts with.
 */
export const baseUrl = (raw: string): string | undefined => {
  if (!URL.canParse(raw)) return undefined
  const url = new URL(raw)
  const clean = /^https?:$/.test(url.protocol) && url.username === '' && url.password === '' && url.search === '' && url.hash === '' && !raw.includes('#') && !raw.includes('?')
  const href = url.href.replace(/\/+$/, '')
  return clean && !/\/public(\/v1)?$/.test(url.pathname.replace(/\/+$/, '')) ? href : undefined
}

export const origins = (raw: string): string[] | undefined => {
  const values = list(raw)
  return values.every((o) => o === '*' || /^https?:\/\/[^/\s]+$/.test(o)) ? values : undefined
}

export const OPENSSL_KEY = 'openssl rand -base64 32'
export const integerRule = (min: number, max: number) => `must be an integer from ${min} to ${max}`
/** An integer setting from `min` to `max`, `fallback` when unset. */
export const bounded = (name: string, min: number, max: number, fallback: number, meaning: string) =>
  setting(name, integerRule(min, max), integer(min, max), () => fallback, byDefault(String(fallback), meaning))
/** A rate limit: 1 to 1,000,000,000 (there is no "off"). */
export const limit = (name: string, fallback: number, meaning: string) => bounded(name, 1, 1_000_000_000, fallback, meaning)
