import { afterAll, describe, expect, it } from 'vitest';
import { marketcheckArea } from '../../src/areas/marketcheck/index.js';
import { ranking } from '../../src/areas/marketcheck/queries.js';
import { buildApp } from '../../src/app.js';
import { resolveConfig } from '../../src/config.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { Stores } from '../../src/platform/data/stores.js';
import { expectContract } from '../helpers/contract.js';
import { OP } from './helpers.js';

describe('marketcheck at the root of its own port (--area-ports)', async () => {
  const config = resolveConfig({ logLevel: 'silent' });
  const stores = new Stores(FixtureStore.open(config.dataDir));
  const app = await buildApp(config, stores, { only: marketcheckArea });
  await app.ready();
  afterAll(async () => {
    await app.close();
    stores.close();
  });

  it('serves /popular/cars without the prefix and answers unknown paths in its own 404 body', async () => {
    const res = await app.inject('/popular/cars?api_key=k&car_type=new&state=WA');
    expect(res.statusCode).toBe(200);
    expectContract(OP, res);
    const missing = await app.inject('/v2/popular/cars');
    expect(missing.statusCode).toBe(404);
    expect((missing.json() as { code: number }).code).toBe(404);
  });

  it('keeps answers with the store they came from: a swapped-in database starts with none cached', async () => {
    const url = '/popular/cars?api_key=k&car_type=new&state=WA';
    const q = { carType: 'new', country: 'us', level: 'state', place: 'WA' } as const;
    const first = await app.inject(url);
    expect(app.runtime.answers.size).toBe(1);
    expect((await app.inject(url)).rawPayload.equals(first.rawPayload)).toBe(true);
    stores.swap(FixtureStore.open(config.dataDir, 1));
    expect(app.runtime.answers.size).toBe(0);
    const res = await app.inject(url);
    expect(res.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(res.rawPayload.equals(ranking(stores.current, q))).toBe(true);
    expect(app.runtime.answers.size).toBe(1);
  });
});
