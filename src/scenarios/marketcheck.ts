// A scenario's MarketCheck listings as the records the ranking loader takes.
import { cityKey, stateKey, type Country } from '../../fixtures/marketcheck/keys.js';
import type { City, Listings, MarketcheckRecords, ModelName, State } from '../../fixtures/marketcheck/load.js';
import type { ScenarioBody } from './schema.js';

type Body = NonNullable<ScenarioBody['marketcheck']>;

const byName = (a: ModelName, b: ModelName) =>
  a.make < b.make ? -1 : a.make > b.make ? 1 : a.model < b.model ? -1 : a.model > b.model ? 1 : 0;

export function marketcheckRecords(body: Body): { records: MarketcheckRecords; counts: Record<string, number> } {
  const input = body.listings ?? [];
  // Models in (make, model) order, as for generated data: ties in count are ordered by make, then model.
  const modelKeys = new Map<string, ModelName>();
  for (const l of input) modelKeys.set(`${l.make}\0${l.model}`, { make: l.make, model: l.model });
  const models = [...modelKeys.values()].sort(byName);
  const modelIndex = new Map(models.map((m, i) => [`${m.make}\0${m.model}`, i]));

  const states: State[] = [];
  const stateIndex = new Map<string, number>();
  const cities: City[] = [];
  const cityIndex = new Map<string, number>();
  const n = input.length;
  const listings: Listings = {
    n,
    used: new Uint8Array(n),
    city: new Int32Array(n),
    model: new Int32Array(n),
    price: new Float64Array(n),
    miles: new Float64Array(n),
    dom: new Float64Array(n),
  };
  input.forEach((l, i) => {
    const country = (l.country ?? 'us').toLowerCase() as Country;
    const code = stateKey(l.state);
    const sKey = `${country}|${code}`;
    let s = stateIndex.get(sKey);
    if (s === undefined) {
      s = states.push({ country, code, weight: 0 }) - 1;
      stateIndex.set(sKey, s);
    }
    const cKey = `${country}|${cityKey(l.city, code)}`;
    let c = cityIndex.get(cKey);
    if (c === undefined) {
      c = cities.push({ state: s, name: l.city.trim().replace(/\s+/g, ' '), weight: 0 }) - 1;
      cityIndex.set(cKey, c);
    }
    listings.used[i] = l.car_type === 'used' ? 1 : 0;
    listings.city[i] = c;
    listings.model[i] = modelIndex.get(`${l.make}\0${l.model}`)!;
    listings.price[i] = l.price;
    listings.miles[i] = l.miles;
    listings.dom[i] = l.dom;
  });
  // Cities of one state next to each other, as the catalog lists them by state.
  const order = cities.map((_, i) => i).sort((a, b) => cities[a]!.state - cities[b]!.state || a - b);
  const renumber = new Int32Array(cities.length);
  order.forEach((old, i) => (renumber[old] = i));
  for (let i = 0; i < n; i++) listings.city[i] = renumber[listings.city[i]!]!;
  const grouped = order.map((i) => cities[i]!);
  return { records: { models, states, cities: grouped, listings }, counts: { listings: n } };
}
