import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { OP, expectedRanking, median, popular, type Car, type Where } from './helpers.js';

const { app, store } = await testApp();
const db = store.db;

async function ranking(query: Record<string, string>): Promise<Car[]> {
  const res = await popular(app, { api_key: 'k', ...query });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expectContract(OP, res);
  return res.json() as Car[];
}

function matchesListings(cars: Car[], w: Where): void {
  const expected = expectedRanking(db, w);
  expect(expected.length).toBeGreaterThan(0);
  expect(cars.map((c) => [c.make, c.model, c.count])).toEqual(expected.map((e) => [e.make, e.model, e.count]));
  cars.forEach((car, i) => {
    const e = expected[i]!;
    expect(car).toMatchObject({ country: w.country, inventory_type: w.carType });
    expect(car.state).toBe(w.state);
    expect(car.city).toBe(w.city);
    expect([car.price_stats.min, car.price_stats.max, car.price_stats.mean]).toEqual([
      e.minPrice,
      e.maxPrice,
      Math.round(e.meanPrice),
    ]);
    expect([car.miles_stats.min, car.miles_stats.max]).toEqual([e.minMiles, e.maxMiles]);
    expect([car.dom_stats.min, car.dom_stats.max, car.dom_stats.mean]).toEqual([
      e.minDom,
      e.maxDom,
      Math.round(e.meanDom),
    ]);
    for (const s of [car.price_stats, car.miles_stats, car.dom_stats]) {
      expect(s.min).toBeLessThanOrEqual(s.median);
      expect(s.median).toBeLessThanOrEqual(s.max);
      expect(s.iqr).toBeGreaterThanOrEqual(0);
      expect(s.iqr).toBeLessThanOrEqual(s.max - s.min);
    }
  });
}

describe('popular cars rankings', () => {
  it('national ranking: top 50 by listings for each country and inventory type, most popular first', async () => {
    for (const country of ['us', 'ca'] as const) {
      for (const carType of ['new', 'used'] as const) {
        const cars = await ranking({ car_type: carType, country });
        expect(cars.length).toBe(50);
        matchesListings(cars, { carType, country });
      }
    }
  });

  it('state ranking counts only that state; city ranking only that city', async () => {
    matchesListings(await ranking({ car_type: 'used', state: 'TX' }), { carType: 'used', country: 'us', state: 'TX' });
    matchesListings(await ranking({ car_type: 'new', country: 'ca', state: 'QC' }), {
      carType: 'new',
      country: 'ca',
      state: 'QC',
    });
    matchesListings(await ranking({ car_type: 'used', city_state: 'Jacksonville|FL' }), {
      carType: 'used',
      country: 'us',
      state: 'FL',
      city: 'Jacksonville',
    });
    matchesListings(await ranking({ car_type: 'new', country: 'ca', city_state: 'Whitehorse|YT' }), {
      carType: 'new',
      country: 'ca',
      state: 'YT',
      city: 'Whitehorse',
    });
  });

  it('median of each entry is the median of its listings', async () => {
    const cars = await ranking({ car_type: 'used', city_state: 'Denver|CO' });
    for (const car of cars.slice(0, 10)) {
      const rows = db
        .prepare(
          "SELECT price, miles, dom FROM marketcheck_listings WHERE car_type = 'used' AND state = 'CO' AND city = 'Denver' AND make = ? AND model = ?",
        )
        .all(car.make, car.model) as { price: number; miles: number; dom: number }[];
      expect(rows.length).toBe(car.count);
      expect(car.price_stats.median).toBe(Math.round(median(rows.map((r) => r.price))));
      expect(car.miles_stats.median).toBe(Math.round(median(rows.map((r) => r.miles))));
      expect(car.dom_stats.median).toBe(Math.round(median(rows.map((r) => r.dom))));
    }
  });

  it('ties are broken by make, then model', async () => {
    // Small places have many tied counts; check the order holds in all of them.
    const places = db
      .prepare("SELECT DISTINCT state, city FROM marketcheck_listings WHERE country = 'us' LIMIT 40")
      .all() as { state: string; city: string }[];
    let ties = 0;
    for (const p of places) {
      const cars = await ranking({ car_type: 'new', city_state: `${p.city}|${p.state}` });
      for (let i = 1; i < cars.length; i++) {
        const a = cars[i - 1]!;
        const b = cars[i]!;
        expect(a.count).toBeGreaterThanOrEqual(b.count);
        if (a.count === b.count) {
          ties++;
          expect(a.make < b.make || (a.make === b.make && a.model < b.model)).toBe(true);
        }
      }
    }
    expect(ties).toBeGreaterThan(0);
  });

  it('national, state and city counts come from the same listings', async () => {
    let exactChecks = 0;
    const national = new Map((await ranking({ car_type: 'used' })).map((c) => [`${c.make}|${c.model}`, c.count]));
    for (const state of ['CA', 'FL', 'VT', 'DC']) {
      const stateCars = await ranking({ car_type: 'used', state });
      const stateCounts = new Map(stateCars.map((c) => [`${c.make}|${c.model}`, c.count]));
      for (const car of stateCars) {
        const n = national.get(`${car.make}|${car.model}`);
        if (n !== undefined) expect(car.count).toBeLessThanOrEqual(n);
      }
      const cities = db
        .prepare("SELECT DISTINCT city FROM marketcheck_listings WHERE country = 'us' AND state = ?")
        .all(state) as { city: string }[];
      const summed = new Map<string, number>();
      let cut = false;
      for (const { city } of cities) {
        const cityCars = await ranking({ car_type: 'used', city_state: `${city}|${state}` });
        if (cityCars.length === 50) cut = true;
        for (const car of cityCars) {
          const key = `${car.make}|${car.model}`;
          const s = stateCounts.get(key);
          if (s !== undefined) expect(car.count).toBeLessThanOrEqual(s);
          summed.set(key, (summed.get(key) ?? 0) + car.count);
        }
      }
      // Where no city list was cut at 50, the city counts add up exactly to the state's.
      for (const [key, count] of stateCounts) {
        if (cut) expect(summed.get(key) ?? 0).toBeLessThanOrEqual(count);
        else expect(summed.get(key)).toBe(count);
      }
      if (!cut) exactChecks++;
    }
    expect(exactChecks).toBeGreaterThan(0);
    // And the state counts of a model add up to its national count.
    const [make, model] = ['Ford', 'F-150'];
    const perState = db.prepare("SELECT state FROM marketcheck_listings WHERE country = 'us' GROUP BY state").all() as {
      state: string;
    }[];
    let total = 0;
    for (const { state } of perState) {
      const car = (await ranking({ car_type: 'used', state })).find((c) => c.make === make && c.model === model);
      total += car?.count ?? 0;
    }
    expect(total).toBe(national.get(`${make}|${model}`));
  });

  it('answers the same bytes for the same request (served from the precomputed text)', async () => {
    const a = await popular(app, { api_key: 'k', car_type: 'new', state: 'OH' });
    const b = await popular(app, { api_key: 'other', car_type: 'new', state: 'oh' });
    expect(b.body).toBe(a.body);
    const stored = db
      .prepare(
        "SELECT body FROM marketcheck_rankings WHERE car_type = 'new' AND country = 'us' AND level = 'state' AND place = 'OH'",
      )
      .get() as { body: string };
    expect(a.body).toBe(stored.body);
  });
});
