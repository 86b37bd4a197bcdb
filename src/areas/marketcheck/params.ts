// MarketCheck checks the query itself and names the bad parameter in its own error body.
import { cityKey, stateKey, type CarType, type Country, type Level } from '../../../fixtures/marketcheck/keys.js';

export type RawQuery = Record<string, string | string[] | undefined>;

export interface RankingQuery {
  carType: CarType;
  country: Country;
  level: Level;
  /** '' for national, the state code, or the normalised `city|ST`. */
  place: string;
}

/** A repeated parameter counts with its first value. */
export function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const COUNTRY: Readonly<Record<string, Country>> = { us: 'us', US: 'us', ca: 'ca', CA: 'ca' };

export function parseRankingQuery(q: RawQuery): RankingQuery | { error: string } {
  const carType = single(q.car_type);
  if (carType === undefined || carType === '') {
    return { error: 'Missing required parameter car_type: use car_type=new or car_type=used' };
  }
  if (carType !== 'new' && carType !== 'used') {
    return { error: `Invalid value "${carType}" for parameter car_type: use new or used` };
  }
  const rawCountry = single(q.country);
  // An empty country is the default, as if it were left out.
  // Own keys only: `constructor` or `toString` must not find Object.prototype's members.
  const country =
    rawCountry === undefined || rawCountry === ''
      ? 'us'
      : Object.hasOwn(COUNTRY, rawCountry)
        ? COUNTRY[rawCountry]
        : undefined;
  if (!country) return { error: `Invalid value "${rawCountry}" for parameter country: use us, ca, US or CA` };

  const cityState = single(q.city_state);
  if (cityState !== undefined) {
    const parts = cityState.split('|');
    if (parts.length !== 2 || parts[0]!.trim() === '' || parts[1]!.trim() === '') {
      return {
        error: `Invalid value "${cityState}" for parameter city_state: use <city>|<state_code>, e.g. jacksonville|FL`,
      };
    }
    return { carType, country, level: 'city', place: cityKey(parts[0]!, parts[1]!) };
  }
  const state = single(q.state);
  if (state !== undefined && state.trim() !== '') return { carType, country, level: 'state', place: stateKey(state) };
  return { carType, country, level: 'national', place: '' };
}
