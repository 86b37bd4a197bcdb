// Rankings are stored as finished JSON text; a request is one indexed lookup, then a memory hit.
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import type { RankingQuery } from './params.js';

const EMPTY = Buffer.from('[]');
const RANKING_SQL =
  'SELECT body FROM marketcheck_rankings WHERE car_type = ? AND country = ? AND level = ? AND place = ?';

/** The ranking as UTF-8 JSON bytes, ready to send. */
export function ranking(store: FixtureStore, q: RankingQuery): Buffer {
  // Repeats are answered by the platform's answer cache before this runs.
  const row = store.prepare(RANKING_SQL).get(q.carType, q.country, q.level, q.place) as { body: string } | undefined;
  return row ? Buffer.from(row.body) : EMPTY;
}

export interface PlaceCatalog {
  states: { us: string[]; ca: string[] };
  cities: string[];
}

export function placeCatalog(store: FixtureStore): PlaceCatalog {
  const rows = store.prepare('SELECT country, state, city FROM marketcheck_places ORDER BY id').all() as {
    country: 'us' | 'ca';
    state: string;
    city: string;
  }[];
  const value: PlaceCatalog = { states: { us: [], ca: [] }, cities: [] };
  for (const r of rows) {
    const states = value.states[r.country];
    if (states[states.length - 1] !== r.state) states.push(r.state);
    value.cities.push(`${r.city}|${r.state}`);
  }
  return value;
}
