import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from '../../fixtures/lib/sqlite.js';
import { Faker, base, en } from '@faker-js/faker';
import { describe, expect, it } from 'vitest';
import { REFERENCE_DATE } from '../../fixtures/build.js';
import { marketcheckFixtures } from '../../fixtures/marketcheck/build.js';
import { fixturesRoot } from '../../src/paths.js';
import { testApp } from '../helpers/app.js';

const sourceDir = path.join(fixturesRoot(), 'marketcheck');
const models = (
  JSON.parse(readFileSync(path.join(sourceDir, 'models.json'), 'utf8')) as {
    models: { make: string; model: string; weight: number }[];
  }
).models;
const places = JSON.parse(readFileSync(path.join(sourceDir, 'places.json'), 'utf8')) as Record<
  'us' | 'ca',
  { code: string; cities: string[] }[]
>;

/** Builds this area alone into a fresh in-memory database, as the fixture build does. */
async function buildAlone(seed: number, scale: number): Promise<Database.Database> {
  const db = new Database(':memory:');
  const faker = new Faker({ locale: [en, base] });
  faker.seed(seed);
  faker.setDefaultRefDate(REFERENCE_DATE);
  await marketcheckFixtures.build({
    db,
    seed,
    scale,
    refDate: REFERENCE_DATE,
    filesDir: '/nonexistent',
    sourceDir,
    faker,
    dkanCsvDir: null,
    log: () => {},
    background: () => {},
  });
  return db;
}

const { store } = await testApp();
const db = store.db;

describe('marketcheck fixtures', () => {
  it('every US state (50 + DC) and every province/territory has new and used listings in every listed city', () => {
    expect(places.us).toHaveLength(51);
    expect(places.ca).toHaveLength(13);
    const rows = db
      .prepare('SELECT country, state, city, car_type, COUNT(*) AS n FROM marketcheck_listings GROUP BY 1, 2, 3, 4')
      .all() as {
      country: string;
      state: string;
      city: string;
      car_type: string;
    }[];
    const seen = new Set(rows.map((r) => `${r.country}|${r.state}|${r.city}|${r.car_type}`));
    for (const country of ['us', 'ca'] as const) {
      for (const s of places[country]) {
        for (const city of s.cities) {
          expect(seen.has(`${country}|${s.code}|${city}|new`), `${city}, ${s.code} new`).toBe(true);
          expect(seen.has(`${country}|${s.code}|${city}|used`), `${city}, ${s.code} used`).toBe(true);
        }
      }
    }
    expect(seen.size).toBe(2 * [...places.us, ...places.ca].reduce((a, s) => a + s.cities.length, 0));
  });

  it('listings use the hand-written makes and models, with the popularity skew of their weights', () => {
    const known = new Set(models.map((m) => `${m.make}|${m.model}`));
    const counts = db
      .prepare('SELECT make, model, COUNT(*) AS n FROM marketcheck_listings GROUP BY make, model')
      .all() as { make: string; model: string; n: number }[];
    for (const c of counts) expect(known.has(`${c.make}|${c.model}`)).toBe(true);
    const n = new Map(counts.map((c) => [`${c.make}|${c.model}`, c.n]));
    const heaviest = [...models].sort((a, b) => b.weight - a.weight)[0]!;
    const lightest = [...models].sort((a, b) => a.weight - b.weight)[0]!;
    expect(n.get(`${heaviest.make}|${heaviest.model}`)!).toBeGreaterThan(
      10 * (n.get(`${lightest.make}|${lightest.model}`) ?? 0),
    );
  });

  it('prices, miles and days on market are plausible for new and used cars', () => {
    const s = db
      .prepare(
        'SELECT car_type, MIN(price) AS minP, MAX(price) AS maxP, MAX(miles) AS maxM, AVG(miles) AS avgM, MIN(dom) AS minD, MAX(dom) AS maxD FROM marketcheck_listings GROUP BY car_type',
      )
      .all() as {
      car_type: string;
      minP: number;
      maxP: number;
      maxM: number;
      avgM: number;
      minD: number;
      maxD: number;
    }[];
    const byType = new Map(s.map((r) => [r.car_type, r]));
    expect(byType.get('new')!.maxM).toBeLessThan(100);
    expect(byType.get('used')!.avgM).toBeGreaterThan(10_000);
    for (const r of s) {
      expect(r.minP).toBeGreaterThan(1_000);
      expect(r.maxP).toBeLessThan(300_000);
      expect(r.minD).toBeGreaterThanOrEqual(1);
      expect(r.maxD).toBeLessThan(1_000);
    }
  });

  it('the same seed gives identical rankings; another seed other listings; scale multiplies the listings', async () => {
    const dump = (d: Database.Database) =>
      d
        .prepare(
          'SELECT car_type, country, level, place, body FROM marketcheck_rankings ORDER BY car_type, country, level, place',
        )
        .all();
    const a = await buildAlone(42, 1);
    const b = await buildAlone(42, 1);
    const c = await buildAlone(43, 1);
    const big = await buildAlone(42, 2);
    expect(dump(b)).toEqual(dump(a));
    expect(dump(c)).not.toEqual(dump(a));
    const count = (d: Database.Database) =>
      (d.prepare('SELECT COUNT(*) AS n FROM marketcheck_listings').get() as { n: number }).n;
    expect(count(big)).toBeGreaterThanOrEqual(2 * count(a) - 10);
    expect(count(big)).toBeLessThanOrEqual(2 * count(a) + 10);
    for (const d of [a, b, c, big]) d.close();
  });

  it('stores one ranking per inventory type and place, each at most 50 entries', () => {
    const rows = db
      .prepare(
        'SELECT level, COUNT(*) AS n, MAX(json_array_length(body)) AS longest FROM marketcheck_rankings GROUP BY level',
      )
      .all() as {
      level: string;
      n: number;
      longest: number;
    }[];
    const byLevel = new Map(rows.map((r) => [r.level, r]));
    const cities = [...places.us, ...places.ca].reduce((a, s) => a + s.cities.length, 0);
    expect(byLevel.get('national')!.n).toBe(2 * 2);
    expect(byLevel.get('state')!.n).toBe(2 * 64);
    expect(byLevel.get('city')!.n).toBe(2 * cities);
    for (const r of rows) expect(r.longest).toBeLessThanOrEqual(50);
  });
});
