import { documentedSettings } from './config.js'
import type { SettingDoc } from './config-settings.js'

/** The command that writes `.env.example` from `environmentExample`. */
export const ENV_EXAMPLE_COMMAND = 'npx -y pnpm@10.34.8 env:example'

const WIDTH = 100

/** `text` as comment lines of at most `WIDTH` characters, broken between words. */
const comment = (text: string): string[] =>
  text.split(' ').reduce<string[]>((lines, word) => {
    const last = lines[lines.length - 1]
    if (last !== undefined && `${last} ${word}`.length <= WIDTH) return [...lines.slice(0, -1), `${last} ${word}`]
    return [...lines, `# ${word}`]
  }, [])

const sentence = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}${text.endsWith('.') ? '' : '.'}`

const entry = (name: string, expected: string, doc: SettingDoc): string[] => [
  ...comment(doc.meaning),
  ...comment(sentence(expected)),
  ...(doc.value === undefined ? comment(`Default: ${doc.shown}.`) : []),
  ...(doc.make === undefined ? [] : comment(`Set it in production; make one with: ${doc.make}`)),
  `# ${name}=${doc.make === undefined ? (doc.value ?? '') : ''}`,
]

/**
 * The text of `.env.example`: every setting `loadConfig` reads, each with its meaning, its rule
 * and its default, as a commented-out `NAME=default` line (empty when the default is no value
 * one could write, and for a secret, which comes with the command that makes one), so a copy
 * of the file changes nothing until a line is uncommented.
 */
export const environmentExample = (): string =>
  [
    "# Lendgate's settings, read from the environment once at start (docs/configuration.md).",
    `# Generated from apps/api/src/config.ts (\`${ENV_EXAMPLE_COMMAND}\`): do not edit it by hand.`,
    '# Every setting is commented out and shows its default, so a copy of this file changes nothing:',
    '# uncomment a line to set it. The process refuses to start on an invalid value.',
    '#',
    '# Not read by Lendgate but part of running it: MALLOC_MMAP_THRESHOLD_=131072 in the environment',
    '# of every API and worker process (docs/configuration.md, "Memory"); the start scripts and the',
    '# systemd units in deploy/systemd set it.',
    ...documentedSettings().flatMap(({ name, expected, doc }) => ['', ...entry(name, expected, doc)]),
    '',
  ].join('\n')
