// Requests that work with this store's places and keys: the dashboard offers them to copy.
import type { AreaDocs, AreaExample } from '../../platform/area.js';
import type { Config } from '../../config.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { storeCredentials } from '../../scenarios/credentials.js';
import { placeCatalog } from './queries.js';

export function marketcheckExamples(store: FixtureStore, config: Config, demoKey: string): AreaExample[] {
  const key = [...(storeCredentials(store, 'marketcheck') ?? [])][0] ?? config.marketcheckApiKeys[0] ?? demoKey;
  const places = placeCatalog(store);
  const q = (extra: string) => `/popular/cars?api_key=${encodeURIComponent(key)}&${extra}`;
  const out: AreaExample[] = [{ title: 'Most popular new cars, US', method: 'GET', path: q('car_type=new') }];
  const state = places.states.us[0];
  if (state)
    out.push({ title: `Most popular used cars in ${state}`, method: 'GET', path: q(`car_type=used&state=${state}`) });
  const city = places.cities[0];
  if (city) {
    out.push({
      title: `Most popular new cars in ${city.replace('|', ', ')}`,
      method: 'GET',
      path: q(`car_type=new&city_state=${encodeURIComponent(city)}`),
    });
  }
  return out;
}

/** What /docs prefills: a key that works and a state and city from the fixtures. */
export function marketcheckDocs(store: FixtureStore, config: Config, demoKey: string): AreaDocs {
  const key = [...(storeCredentials(store, 'marketcheck') ?? [])][0] ?? config.marketcheckApiKeys[0] ?? demoKey;
  const places = placeCatalog(store);
  const parameters: Record<string, unknown> = { car_type: 'used', country: 'us' };
  if (places.states.us[0]) parameters.state = places.states.us[0];
  return { operations: { getPopularCars: { parameters } }, credentials: { api_key: key } };
}
