// MarketCheck on scenario listings: national, state and city rankings computed from them.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { inScenario, putScenario } from './helpers.js';

const { app } = await testApp();
const OP = 'getPopularCars';

const car = (make: string, model: string, state: string, city: string, price: number, car_type = 'used') => ({
  make,
  model,
  car_type,
  state,
  city,
  price,
  miles: 1000,
  dom: 10,
});

await putScenario(app, 'cars', {
  marketcheck: {
    apiKeys: ['scenario-key'],
    listings: [
      car('Ford', 'F-150', 'TX', 'Austin', 30000),
      car('Ford', 'F-150', 'TX', 'Austin', 40000),
      car('Ford', 'F-150', 'TX', 'Dallas', 35000),
      car('Honda', 'Civic', 'TX', 'Dallas', 20000),
      car('Honda', 'Civic', 'CA', 'Fresno', 21000),
      car('Honda', 'Civic', 'CA', 'Fresno', 22000),
      car('Honda', 'Civic', 'CA', 'Fresno', 23000),
      car('Tesla', 'Model 3', 'CA', 'Fresno', 45000, 'new'),
    ],
  },
});

async function popular(query: string, key = 'scenario-key') {
  const res = await app.inject({
    url: `/marketcheck/popular/cars?api_key=${key}&${query}`,
    headers: inScenario('cars'),
  });
  expectContract(OP, res);
  return res;
}
type Entry = {
  make: string;
  model: string;
  count: number;
  state?: string;
  city?: string;
  price_stats: { min: number; max: number; median: number };
};

describe('MarketCheck in a scenario', () => {
  it('ranks the nation by count, ties by make then model, with stats from the listings', async () => {
    const list = (await popular('car_type=used')).json() as Entry[];
    expect(list.map((e) => [e.make, e.model, e.count])).toEqual([
      ['Honda', 'Civic', 4],
      ['Ford', 'F-150', 3],
    ]);
    expect(list[1]!.price_stats).toMatchObject({ min: 30000, max: 40000, median: 35000 });
    expect((await popular('car_type=new')).json().map((e: Entry) => e.model)).toEqual(['Model 3']);
  });

  it('ranks a state', async () => {
    const list = (await popular('car_type=used&state=tx')).json() as Entry[];
    expect(list.map((e) => [e.model, e.count, e.state])).toEqual([
      ['F-150', 3, 'TX'],
      ['Civic', 1, 'TX'],
    ]);
  });

  it('ranks a city', async () => {
    const list = (await popular('car_type=used&city_state=austin%7CTX')).json() as Entry[];
    expect(list.map((e) => [e.model, e.count, e.city])).toEqual([['F-150', 2, 'Austin']]);
    expect((await popular('car_type=used&city_state=Houston%7CTX')).json()).toEqual([]);
  });

  it("accepts only the scenario's api keys; generated rankings stay outside the scenario", async () => {
    expect((await popular('car_type=used', 'other')).statusCode).toBe(401);
    const generated = await app.inject({ url: '/marketcheck/popular/cars?api_key=other&car_type=used' });
    expectContract(OP, generated);
    expect(generated.json()).toHaveLength(50);
  });
});
