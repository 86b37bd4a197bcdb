import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturesRoot } from '../../src/paths.js';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { OP, popular, type Car } from './helpers.js';

const { app } = await testApp();
const places = JSON.parse(readFileSync(path.join(fixturesRoot(), 'marketcheck', 'places.json'), 'utf8')) as Record<
  'us' | 'ca',
  { code: string; cities: string[] }[]
>;

interface Catalog {
  apiKeys: string[];
  states: { us: string[]; ca: string[] };
  cities: string[];
}

describe('marketcheck catalog', async () => {
  const catalog = ((await app.inject('/__mockyard/fixtures')).json() as { marketcheck: Catalog }).marketcheck;

  it('lists a key to try, every state (50 + DC) and province/territory (13), and their cities', () => {
    expect(catalog.apiKeys.length).toBeGreaterThan(0);
    expect(catalog.states.us).toHaveLength(51);
    expect(catalog.states.ca).toHaveLength(13);
    expect(catalog.states.us).toEqual(places.us.map((s) => s.code));
    expect(catalog.states.ca).toEqual(places.ca.map((s) => s.code));
    expect(catalog.cities).toEqual([...places.us, ...places.ca].flatMap((s) => s.cities.map((c) => `${c}|${s.code}`)));
  });

  it('every listed key works, and every listed state and city has a ranking of both inventory types', async () => {
    const key = catalog.apiKeys[0]!;
    for (const [country, states] of Object.entries(catalog.states)) {
      for (const state of states) {
        for (const carType of ['new', 'used']) {
          const res = await popular(app, { api_key: key, car_type: carType, country, state });
          expect(res.statusCode).toBe(200);
          expect((res.json() as Car[]).length, `${carType} ${state}`).toBeGreaterThan(0);
        }
      }
    }
    const caStates = new Set(catalog.states.ca);
    for (const cityState of catalog.cities) {
      const country = caStates.has(cityState.split('|')[1]!) ? 'ca' : 'us';
      for (const carType of ['new', 'used']) {
        const res = await popular(app, { api_key: key, car_type: carType, country, city_state: cityState });
        expectContract(OP, res);
        const cars = res.json() as Car[];
        expect(cars.length, `${carType} ${cityState}`).toBeGreaterThan(0);
        expect(`${cars[0]!.city}|${cars[0]!.state}`).toBe(cityState);
      }
    }
  });
});
