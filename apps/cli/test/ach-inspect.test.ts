import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { runCli } from '../src/cli.js'

/**
 * `lendgate ach inspect <file>` (issue 59): the real program (`pnpm lendgate`, as cli.test.ts runs
 * it) on moov-io's fixtures, plain and gzipped, valid and refused; it opens no database.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url))
const FIXTURES = fileURLToPath(new URL('../../../packages/nacha/test/fixtures/moov-io/', import.meta.url))

/** Runs the CLI as a program, with no database configured (a DATA_DIR that does not exist). */
const lendgate = (...argv: string[]) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lendgate-ach-'))
  try {
    const result = spawnSync(`${root}node_modules/.bin/tsx`, ['--conditions=@lendgate/source', 'apps/cli/src/main.ts', ...argv], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '', DATA_DIR: join(dataDir, 'never-made') },
      encoding: 'utf8',
    })
    return { status: result.status, stdout: result.stdout, stderr: result.stderr }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

describe('lendgate ach inspect', function () {
  this.timeout(60_000)

  it('prints the batches, counts and totals of a valid file as JSON, and exits 0', () => {
    const r = lendgate('ach', 'inspect', `${FIXTURES}web-debit.ach`)
    expect(r.status, r.stderr).to.equal(0)
    expect(JSON.parse(r.stdout)).to.deep.equal({
      batches: [
        { batch_number: 1, sec_code: 'WEB', company_name: 'Your Company Inc', entries: 4, total_debit: 0, total_credit: 9320 },
        { batch_number: 2, sec_code: 'WEB', company_name: 'Your Company Inc', entries: 1, total_debit: 0, total_credit: 17500 },
        { batch_number: 3, sec_code: 'PPD', company_name: 'Your Company Inc', entries: 1, total_debit: 15000, total_credit: 0 },
      ],
      entry_count: 6,
      addenda_count: 0,
      total_debit: 15000,
      total_credit: 26820,
      entry_hash: 50_600_106,
    })
  })

  it('reads a gzipped file (by its magic bytes, whatever its name)', () => {
    const r = lendgate('ach', 'inspect', `${FIXTURES}CCD+addenda05-200-batches-100000-entries.ach.gz`)
    expect(r.status, r.stderr).to.equal(0)
    const summary = JSON.parse(r.stdout)
    expect(summary).to.deep.include({ entry_count: 100_000, addenda_count: 100_000, total_debit: 123_400_000, total_credit: 0, entry_hash: 3_801_000_000 })
    expect(summary.batches).to.have.length(200)
    expect(summary.batches[0]).to.deep.equal({ batch_number: 1, sec_code: 'CCD', company_name: 'Your Company, in', entries: 500, total_debit: 617_000, total_credit: 0 })
  })

  it('refuses an invalid file with one line naming the record and field, and exits 1', () => {
    const r = lendgate('ach', 'inspect', `${FIXTURES}ppd-debit-invalid-entryDetail-checkDigit.ach`)
    expect(r.status).to.equal(1)
    expect(r.stdout).to.equal('')
    const lines = r.stderr.split('\n')
    expect(lines).to.have.length(2)
    expect(lines[1]).to.equal('')
    expect(JSON.parse(lines[0] ?? '')).to.deep.equal({
      error: 'nacha_refused',
      file: `${FIXTURES}ppd-debit-invalid-entryDetail-checkDigit.ach`,
      record: 3,
      record_type: '6',
      field: 'check digit',
      reason: '5 is not the check digit of 23138010 (4)',
    })
  })

  it('refuses a file it cannot read, and a missing argument as a usage error (2), without opening a database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lendgate-ach-'))
    try {
      const notGzip = join(dir, 'broken.ach.gz')
      writeFileSync(notGzip, Buffer.from([0x1f, 0x8b, 0x00, 0x01]))
      const io = () => {
        const seen = { out: '', err: '' }
        return { seen, io: { out: (t: string) => void (seen.out += t), err: (t: string) => void (seen.err += t) } }
      }
      const noDatabase = () => Promise.reject(new Error('ach inspect opened a database'))
      for (const file of [join(dir, 'missing.ach'), notGzip]) {
        const { seen, io: sink } = io()
        expect(await runCli(['ach', 'inspect', file], noDatabase, sink)).to.equal(1)
        expect(JSON.parse(seen.err)).to.deep.include({ error: 'file_unreadable', file })
      }
      const { seen, io: sink } = io()
      expect(await runCli(['ach', 'inspect'], noDatabase, sink)).to.equal(2)
      expect(seen.err).to.include('<file> is required').and.include('Usage: pnpm lendgate ach inspect <file>')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
