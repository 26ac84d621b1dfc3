import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { folderSink } from '../src/ach/folder-sink.js'

const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text))

describe('folderSink', () => {
  let dir = ''
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lendgate-outbox-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('puts the file whole under its name, owner-only, and leaves nothing else in the folder', async () => {
    const file = bytes('101 091000019 0910000191611281200A094101\n')
    expect(await folderSink(dir).put('091000019-261128-A.ach', file)()).to.deep.equal(E.right(undefined))
    expect(readdirSync(dir)).to.deep.equal(['091000019-261128-A.ach'])
    expect(readFileSync(join(dir, '091000019-261128-A.ach'))).to.deep.equal(Buffer.from(file))
    expect(statSync(join(dir, '091000019-261128-A.ach')).mode & 0o777).to.equal(0o600)
  })

  it('takes the same bytes again as a no-op, and refuses other bytes under a taken name, leaving the file as it was', async () => {
    const sink = folderSink(dir)
    await sink.put('f.ach', bytes('first'))()
    expect(await sink.put('f.ach', bytes('first'))()).to.deep.equal(E.right(undefined))
    expect(await sink.put('f.ach', bytes('second'))()).to.deep.equal(E.left({ _tag: 'FileNameTaken', name: 'f.ach' }))
    expect(readFileSync(join(dir, 'f.ach'), 'utf8')).to.equal('first')
    expect(readdirSync(dir)).to.deep.equal(['f.ach'])
  })

  it('never replaces a file someone else put there first', async () => {
    writeFileSync(join(dir, 'g.ach'), 'an operator made this')
    expect(await folderSink(dir).put('g.ach', bytes('ours'))()).to.deep.equal(E.left({ _tag: 'FileNameTaken', name: 'g.ach' }))
    expect(readFileSync(join(dir, 'g.ach'), 'utf8')).to.equal('an operator made this')
  })

  it('leaves one file when writers race for a name: the same bytes all succeed, different bytes all but one are refused', async () => {
    const sink = folderSink(dir)
    const same = await Promise.all(Array.from({ length: 10 }, () => sink.put('same.ach', bytes('identical'))()))
    expect(same.every(E.isRight)).to.equal(true)
    const different = await Promise.all(Array.from({ length: 10 }, (_, k) => sink.put('race.ach', bytes(`writer ${k}`))()))
    expect(different.filter(E.isRight)).to.have.length(1)
    expect(different.filter(E.isLeft).map((r) => E.isLeft(r) && r.left._tag)).to.deep.equal(Array(9).fill('FileNameTaken'))
    expect(readFileSync(join(dir, 'race.ach'), 'utf8')).to.match(/^writer \d$/)
    expect(readdirSync(dir).sort()).to.deep.equal(['race.ach', 'same.ach'])
  })

  it('refuses a name that is not a plain file name, and a folder that is not there, writing nothing', async () => {
    const sink = folderSink(dir)
    for (const name of ['../escape.ach', '.hidden', '', 'a/b.ach', 'x'.repeat(101)]) {
      const put = await sink.put(name, bytes('x'))()
      expect(E.isLeft(put) && put.left._tag, JSON.stringify(name)).to.equal('SinkUnavailable')
    }
    expect(readdirSync(dir)).to.deep.equal([])
    const missing = await folderSink(join(dir, 'no-such-folder')).put('f.ach', bytes('x'))()
    expect(E.isLeft(missing) && missing.left._tag).to.equal('SinkUnavailable')
  })
})
