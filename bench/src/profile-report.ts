import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parseArgs } from 'node:util'
import { PROFILED_FILE, REPO_ROOT, type Profiled } from './processes.js'

/**
 * `pnpm bench:profile <log folder>`: what the servers of a `bench --profile` run spent a request,
 * function by function. For each profiled server (the API and the reference), the sampled time
 * of the seconds it was loaded (every second whose access lines number at least half of its
 * busiest second's, as do the seconds either side of it: the measured rounds, without their
 * edges), divided by the requests its log shows in those seconds. Then, with both servers, the
 * API's time less the reference's, by where the code lives and by function: what the API spends
 * beyond the duties (docs/benchmarks.md, "The reference"). A sampled profile overweights small
 * functions ("Eighteenth pass"): read the figures as where the time goes, not as costs to add up.
 */

type CallFrame = { readonly functionName: string; readonly url: string; readonly lineNumber: number }
type CpuProfile = {
  readonly nodes: readonly { readonly id: number; readonly callFrame: CallFrame }[]
  readonly startTime: number
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

/** Microseconds a request, by function (`name location:line`). */
type PerRequest = ReadonlyMap<string, number>
type ServerReport = {
  readonly name: string
  readonly seconds: number
  readonly requests: number
  readonly perRequest: PerRequest
  /** The group (`groupOf`) of each function of `perRequest`. */
  readonly groups: ReadonlyMap<string, string>
}

const IDLE = '(idle)'

/** Where a frame's code lives, shortened: a package's own path under node_modules, or the path in this repository. */
const locationOf = (url: string): string => {
  const path = url.startsWith('file://') ? new URL(url).pathname : url
  const inModules = path.lastIndexOf('/node_modules/')
  if (inModules >= 0) return path.slice(inModules + '/node_modules/'.length)
  return path.startsWith('/') ? relative(REPO_ROOT, path) : path
}

const keyOf = ({ functionName, url, lineNumber }: CallFrame): string =>
  url === '' ? functionName || '(anonymous)' : `${functionName || '(anonymous)'} ${locationOf(url)}:${lineNumber + 1}`

/** Where a frame's code lives, in groups: V8's own entries, native code, Node's library, a package, or a workspace folder. */
const groupOf = ({ functionName, url }: CallFrame): string => {
  if (url === '') return functionName.startsWith('(') ? functionName : 'native'
  const location = locationOf(url)
  if (location.startsWith('node:')) return 'node'
  const parts = location.split('/')
  if (parts[0] === 'apps' || parts[0] === 'packages' || parts[0] === 'bench') return parts.slice(0, 2).join('/')
  return parts[0]?.startsWith('@') === true ? parts.slice(0, 2).join('/') : (parts[0] ?? location)
}

/** The profile's start, to the second: Node names the file `CPU.<yyyymmdd>.<hhmmss>.<pid>...` in local time. */
const startOf = (file: string): number => {
  const match = /^CPU\.(\d{4})(\d\d)(\d\d)\.(\d\d)(\d\d)(\d\d)\./.exec(file)
  if (match === null) throw new Error(`${file}: not a profile named by node --cpu-prof`)
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[]
  return new Date(year as number, (month as number) - 1, day, hour, minute, second).getTime() / 1000
}

/** Access lines a second, from a server's log (pino's JSON lines, `"msg":"request"`). */
const requestsBySecond = (log: string): Map<number, number> => {
  const counts = new Map<number, number>()
  for (const line of log.split('\n')) {
    if (!line.includes('"msg":"request"')) continue
    const at = /"time":"([^"]+)"/.exec(line)?.[1]
    if (at === undefined) continue
    const second = Math.floor(Date.parse(at) / 1000)
    counts.set(second, (counts.get(second) ?? 0) + 1)
  }
  return counts
}

const loadedSeconds = (counts: ReadonlyMap<number, number>): Set<number> => {
  const busiest = Math.max(0, ...counts.values())
  const loaded = (second: number) => (counts.get(second) ?? 0) >= busiest / 2
  return new Set([...counts.keys()].filter((second) => busiest > 0 && loaded(second) && loaded(second - 1) && loaded(second + 1)))
}

const report = (dir: string, server: Profiled): ServerReport => {
  const file = readdirSync(dir).find((name) => name.startsWith('CPU.') && name.includes(`.${server.pid}.`) && name.endsWith('.cpuprofile'))
  if (file === undefined) throw new Error(`no profile of ${server.name} (pid ${server.pid}) in ${dir}: it is written when the process exits`)
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile
  const counts = requestsBySecond(readFileSync(join(dir, server.log), 'utf8'))
  const seconds = loadedSeconds(counts)
  const requests = [...seconds].reduce((sum, second) => sum + (counts.get(second) ?? 0), 0)
  const keys = new Map<number, string>()
  const groups = new Map<string, string>()
  for (const { id, callFrame } of profile.nodes) {
    const key = keyOf(callFrame)
    keys.set(id, key)
    groups.set(key, groupOf(callFrame))
  }
  const start = startOf(file)
  const total = new Map<string, number>()
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0
    if (!seconds.has(start + Math.floor((at - profile.startTime) / 1e6))) continue
    // A sample stands for the time until the next one.
    const key = keys.get(profile.samples[i] as number) ?? '(unknown)'
    total.set(key, (total.get(key) ?? 0) + (profile.timeDeltas[i + 1] ?? 0))
  }
  const perRequest = new Map([...total].map(([key, micros]) => [key, requests === 0 ? 0 : micros / requests]))
  return { name: server.name, seconds: seconds.size, requests, perRequest, groups }
}

const busy = (perRequest: PerRequest): number => [...perRequest].reduce((sum, [key, micros]) => (key === IDLE ? sum : sum + micros), 0)

const grouped = ({ perRequest, groups }: ServerReport): Map<string, number> => {
  const byGroup = new Map<string, number>()
  for (const [key, micros] of perRequest) {
    const group = groups.get(key) ?? key
    byGroup.set(group, (byGroup.get(group) ?? 0) + micros)
  }
  return byGroup
}

const micros = (value: number): string => value.toFixed(2).padStart(8)

const topOf = (entries: Iterable<readonly [string, number]>, top: number, by: (value: number) => number = (value) => value) =>
  [...entries].sort((a, b) => by(b[1]) - by(a[1])).slice(0, top)

/** Each key of `a` or `b` with its value in `a` less its value in `b`, and both values. */
const difference = (a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): [string, number][] =>
  [...new Set([...a.keys(), ...b.keys()])].map((key) => [key, (a.get(key) ?? 0) - (b.get(key) ?? 0)])

const { values: flags, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '30' } } })
const [dir] = positionals
if (dir === undefined) {
  process.stderr.write('usage: bench:profile <log folder of a bench --profile run> [--top 30]\n')
  process.exit(2)
}
const top = Number(flags.top)
if (!existsSync(join(dir, PROFILED_FILE))) {
  process.stderr.write(`bench:profile: no ${PROFILED_FILE} in ${dir}; a run with --profile writes it there\n`)
  process.exit(2)
}
const servers = (JSON.parse(readFileSync(join(dir, PROFILED_FILE), 'utf8')) as Profiled[]).map((server) => report(dir, server))
const out: string[] = []
for (const server of servers) {
  out.push(`${server.name}: ${server.requests} requests in ${server.seconds} loaded seconds; ${busy(server.perRequest).toFixed(1)} µs busy a request`)
  for (const [key, value] of topOf(server.perRequest, top)) out.push(`${micros(value)}  ${key}`)
  out.push('')
}
const [api, reference] = servers
if (api !== undefined && reference !== undefined) {
  const apiGroups = grouped(api)
  const referenceGroups = grouped(reference)
  out.push(`${api.name} less ${reference.name}: ${(busy(api.perRequest) - busy(reference.perRequest)).toFixed(1)} µs busy a request`)
  out.push('by where the code lives (difference, then each):')
  for (const [group, value] of topOf(difference(apiGroups, referenceGroups), top, Math.abs)) {
    out.push(`${micros(value)}  ${micros(apiGroups.get(group) ?? 0)}  ${micros(referenceGroups.get(group) ?? 0)}  ${group}`)
  }
  out.push('by function (difference, then each):')
  for (const [key, value] of topOf(difference(api.perRequest, reference.perRequest), top, Math.abs)) {
    out.push(`${micros(value)}  ${micros(api.perRequest.get(key) ?? 0)}  ${micros(reference.perRequest.get(key) ?? 0)}  ${key}`)
  }
}
process.stdout.write(`${out.join('\n')}\n`)
