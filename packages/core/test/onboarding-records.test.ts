import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { AddressInput, AddressPatch, newAddress, patchAddress } from '../src/domain/onboarding/address.js'
import { ApplicantProfileInput, applicantProfileOf, maskTaxId } from '../src/domain/onboarding/applicant-profile.js'
import { decode } from '../src/domain/foundations/codecs.js'
import { DocumentInput, newDocument } from '../src/domain/onboarding/document.js'
import { addressView, applicantProfileView, documentView } from '../src/views/onboarding.js'
import { invalidRequest } from '../src/domain/foundations/errors.js'
import { testId } from '../src/testing/test-ids.js'

const now = new Date('2026-06-01T12:00:00.000Z')
const later = new Date('2026-06-02T08:00:00.000Z')

describe('onboarding records', () => {
  describe('addresses', () => {
    const input = { type: 'registered', line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' }

    it('builds an address and its view from valid input', () => {
      const decoded = decode(AddressInput)(input)
      if (E.isLeft(decoded)) throw new Error('expected valid input')
      expect(addressView(newAddress(decoded.right, [], testId('a1'), now))).to.deep.equal({
        address_id: 'a1',
        type: 'registered',
        line1: '1 Main St',
        line2: null,
        city: 'Springfield',
        region: null,
        postal_code: '12345',
        country: 'US',
        created_at: '2026-06-01T12:00:00.000Z',
        updated_at: '2026-06-01T12:00:00.000Z',
      })
    })

    it('refuses a bad country, an unknown type and a missing line1, naming the field', () => {
      expect(decode(AddressInput)({ ...input, country: 'XX' })).to.deep.equal(
        E.left(invalidRequest('country must be an ISO 3166-1 alpha-2 country code in upper case, such as US', 'country')),
      )
      expect(decode(AddressInput)({ ...input, type: 'home' })).to.deep.equal(
        E.left(invalidRequest('type must be one of: registered, operating, mailing', 'type')),
      )
      const { line1: _omit, ...noLine1 } = input
      expect(decode(AddressInput)(noLine1)).to.deep.equal(E.left(invalidRequest('line1 is required', 'line1')))
    })

    it('patches only the given fields and moves updated_at', () => {
      const decoded = decode(AddressInput)(input)
      if (E.isLeft(decoded)) throw new Error('expected valid input')
      const address = newAddress(decoded.right, [], testId('a1'), now)
      const patch = decode(AddressPatch)({ city: 'Shelbyville', line2: 'Suite 5' })
      if (E.isLeft(patch)) throw new Error('expected valid patch')
      expect(patchAddress(address, patch.right, later)).to.deep.equal({ ...address, city: 'Shelbyville', line2: 'Suite 5', updatedAt: later })
    })

    describe('without a type', () => {
      const { type: _type, ...untyped } = input
      const decoded = decode(AddressInput)(untyped)
      if (E.isLeft(decoded)) throw new Error('expected valid input')
      const first = newAddress(decoded.right, [], testId('a1'), now)

      it("makes a holder's first address registered and any later one operating", () => {
        expect(first.type).to.equal('registered')
        expect(newAddress(decoded.right, [first], testId('a2'), later).type).to.equal('operating')
        const mailing = newAddress({ ...decoded.right, type: 'mailing' }, [], testId('a3'), now)
        expect(newAddress(decoded.right, [mailing], testId('a4'), later).type).to.equal('operating')
      })

      it('keeps an explicit type whatever the holder already has', () => {
        expect(newAddress({ ...decoded.right, type: 'mailing' }, [], testId('a5'), now).type).to.equal('mailing')
        expect(newAddress({ ...decoded.right, type: 'registered' }, [first], testId('a6'), later).type).to.equal('registered')
      })
    })

    describe('as a merge patch (RFC 7396)', () => {
      const decoded = decode(AddressInput)({ ...input, line2: 'Suite 5', region: 'IL' })
      if (E.isLeft(decoded)) throw new Error('expected valid input')
      const address = newAddress(decoded.right, [], testId('a1'), now)
      const patched = (body: unknown) => E.map((patch: AddressPatch) => patchAddress(address, patch, later))(decode(AddressPatch)(body))

      it('clears line2 and region with null, alone or beside other fields', () => {
        expect(patched({ line2: null })).to.deep.equal(E.right({ ...address, line2: null, updatedAt: later }))
        expect(patched({ line2: null, region: null, city: 'X' })).to.deep.equal(E.right({ ...address, line2: null, region: null, city: 'X', updatedAt: later }))
      })

      it('refuses null on a field that cannot be empty, naming it', () => {
        for (const field of ['type', 'line1', 'city', 'postal_code', 'country']) {
          expect(patched({ [field]: null }), field).to.deep.equal(
            E.left(invalidRequest(`${field} cannot be cleared: send a value, or leave the field out to keep it`, field)),
          )
        }
      })

      it('refuses an empty patch and an unknown field', () => {
        expect(patched({})).to.deep.equal(E.left(invalidRequest('Send at least one field to update.')))
        expect(patched({ line3: null })).to.deep.equal(E.left(invalidRequest('line3 is not a known field', 'line3')))
      })
    })
  })

  describe('applicant profile', () => {
    it('masks the tax id in its view and keeps everything else', () => {
      const decoded = decode(ApplicantProfileInput)({
        legal_name: 'Acme Widgets LLC',
        legal_form: 'llc',
        incorporation_date: '2019-04-30',
        industry_code: '332510',
        website: 'https://acme.example',
        tax_id: '12-3456789',
      })
      if (E.isLeft(decoded)) throw new Error('expected valid input')
      const profile = applicantProfileOf(decoded.right, now)
      expect(E.map(applicantProfileView)(profile)).to.deep.equal(
        E.right({
          legal_name: 'Acme Widgets LLC',
          trading_name: null,
          legal_form: 'llc',
          registration_number: null,
          incorporation_date: '2019-04-30',
          industry_code: '332510',
          website: 'https://acme.example',
          tax_id_masked: '******6789',
          updated_at: '2026-06-01T12:00:00.000Z',
        }),
      )
    })

    it('refuses impossible and future incorporation dates', () => {
      expect(applicantProfileOf({ legal_name: 'A', incorporation_date: '2021-02-30' }, now)).to.deep.equal(
        E.left(invalidRequest('incorporation_date is not a real calendar date', 'incorporation_date')),
      )
      expect(applicantProfileOf({ legal_name: 'A', incorporation_date: '2027-01-01' }, now)).to.deep.equal(
        E.left(invalidRequest('incorporation_date must not be in the future', 'incorporation_date')),
      )
    })

    it('requires a legal name', () => {
      expect(decode(ApplicantProfileInput)({ legal_name: '   ' })).to.deep.equal(
        E.left(invalidRequest('legal_name must be between 1 and 200 characters', 'legal_name')),
      )
    })

    it('masks short tax ids entirely', () => {
      expect(maskTaxId('1234')).to.equal('****')
      expect(maskTaxId('DE123456789')).to.equal('*******6789')
    })
  })

  describe('document metadata', () => {
    it('builds a document view from valid input', () => {
      const decoded = decode(DocumentInput)({ type: 'bank_statement', storage_ref: 's3://bucket/acme/2026-05.pdf', content_type: 'application/pdf' })
      if (E.isLeft(decoded)) throw new Error('expected valid input')
      expect(documentView(newDocument(decoded.right, testId('d1'), now))).to.deep.equal({
        document_id: 'd1',
        type: 'bank_statement',
        storage_ref: 's3://bucket/acme/2026-05.pdf',
        file_name: null,
        content_type: 'application/pdf',
        description: null,
        created_at: '2026-06-01T12:00:00.000Z',
      })
    })

    it('refuses an unknown type and a storage reference with spaces', () => {
      expect(E.isLeft(decode(DocumentInput)({ type: 'selfie', storage_ref: 'x' }))).to.equal(true)
      expect(decode(DocumentInput)({ type: 'other', storage_ref: 'my file.pdf' })).to.deep.equal(
        E.left(invalidRequest('storage_ref must be 1 to 1024 characters without spaces (a URI or object key)', 'storage_ref')),
      )
    })
  })
})
