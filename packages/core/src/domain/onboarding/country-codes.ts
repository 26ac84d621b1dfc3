import * as t from 'io-ts'
import { withSchema } from '../foundations/codecs.js'

/** ISO 3166-1 alpha-2 codes officially assigned as of 2024 (249 entries). */
const ASSIGNED =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
  'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
  'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
  'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
  'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'

export const ISO_COUNTRY_CODES: ReadonlySet<string> = new Set(ASSIGNED.split(' '))

/** An assigned ISO 3166-1 alpha-2 code, upper case. */
export const CountryCode = withSchema(new t.Type<string, string, unknown>(
  'CountryCode',
  (u): u is string => typeof u === 'string' && ISO_COUNTRY_CODES.has(u),
  (u, c) =>
    typeof u === 'string' && ISO_COUNTRY_CODES.has(u)
      ? t.success(u)
      : t.failure(u, c, 'must be an ISO 3166-1 alpha-2 country code in upper case, such as US'),
  t.identity,
), { type: 'string', pattern: '^[A-Z]{2}$', description: 'an assigned ISO 3166-1 alpha-2 code' })
