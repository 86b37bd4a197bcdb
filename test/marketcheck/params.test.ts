import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { OP, popular, type Car } from './helpers.js';

const { app } = await testApp();

async function ok(query: Record<string, string>) {
  const res = await popular(app, { api_key: 'k', ...query });
  expect(res.statusCode, res.body).toBe(200);
  expectContract(OP, res);
  return res;
}

async function badRequest(query: Record<string, string>, param: string) {
  const res = await popular(app, { api_key: 'k', ...query });
  expect(res.statusCode).toBe(400);
  expectContract(OP, res);
  const body = res.json() as { code: number; message: string };
  expect(body.code).toBe(400);
  expect(body.message).toContain(param);
  return body;
}

describe('popular cars parameters', () => {
  it('car_type is required and must be new or used', async () => {
    await badRequest({}, 'car_type');
    await badRequest({ car_type: '' }, 'car_type');
    await badRequest({ car_type: 'certified' }, 'car_type');
    await badRequest({ car_type: 'NEW' }, 'car_type');
    const news = (await ok({ car_type: 'new' })).json() as Car[];
    const used = (await ok({ car_type: 'used' })).json() as Car[];
    expect(news.every((c) => c.inventory_type === 'new')).toBe(true);
    expect(used.every((c) => c.inventory_type === 'used')).toBe(true);
  });

  it('country defaults to us and accepts us, ca, US and CA only', async () => {
    const dflt = await ok({ car_type: 'new' });
    expect((dflt.json() as Car[]).every((c) => c.country === 'us')).toBe(true);
    expect((await ok({ car_type: 'new', country: 'us' })).body).toBe(dflt.body);
    expect((await ok({ car_type: 'new', country: 'US' })).body).toBe(dflt.body);
    const ca = await ok({ car_type: 'new', country: 'ca' });
    expect((ca.json() as Car[]).every((c) => c.country === 'ca')).toBe(true);
    expect((await ok({ car_type: 'new', country: 'CA' })).body).toBe(ca.body);
    expect(ca.body).not.toBe(dflt.body);
    await badRequest({ car_type: 'new', country: 'mx' }, 'country');
    await badRequest({ car_type: 'new', country: 'usa' }, 'country');
  });

  it('state gives the state ranking, in upper or lower case', async () => {
    const upper = await ok({ car_type: 'used', state: 'FL' });
    const cars = upper.json() as Car[];
    expect(cars.length).toBeGreaterThan(0);
    expect(cars.every((c) => c.state === 'FL' && c.city === undefined)).toBe(true);
    expect((await ok({ car_type: 'used', state: 'fl' })).body).toBe(upper.body);
    expect((await ok({ car_type: 'used', state: 'Fl' })).body).toBe(upper.body);
    const on = (await ok({ car_type: 'used', country: 'ca', state: 'on' })).json() as Car[];
    expect(on.length).toBeGreaterThan(0);
    expect(on.every((c) => c.state === 'ON' && c.country === 'ca')).toBe(true);
  });

  it('city_state gives the city ranking and wins over state', async () => {
    const city = await ok({ car_type: 'new', city_state: 'jacksonville|FL' });
    const cars = city.json() as Car[];
    expect(cars.length).toBeGreaterThan(0);
    expect(cars.every((c) => c.city === 'Jacksonville' && c.state === 'FL')).toBe(true);
    expect((await ok({ car_type: 'new', city_state: 'Jacksonville|fl' })).body).toBe(city.body);
    expect((await ok({ car_type: 'new', city_state: 'jacksonville|FL', state: 'TX' })).body).toBe(city.body);
    // A literal pipe in the URL works as well as %7C.
    const raw = await app.inject({
      method: 'GET',
      url: '/marketcheck/popular/cars?api_key=k&car_type=new&city_state=San Antonio|TX'.replace(' ', '%20'),
    });
    expect(raw.statusCode).toBe(200);
    expect((raw.json() as Car[]).every((c) => c.city === 'San Antonio' && c.state === 'TX')).toBe(true);
  });

  it('city_state without a pipe or with an empty part is a 400 naming city_state', async () => {
    for (const value of ['jacksonville', 'jacksonville|', '|FL', ' |FL', '', '|', 'a|b|c']) {
      await badRequest({ car_type: 'new', city_state: value }, 'city_state');
    }
  });

  it('a state or city without listings answers an empty array', async () => {
    for (const query of <Record<string, string>[]>[
      { car_type: 'new', state: 'ZZ' },
      { car_type: 'new', city_state: 'Atlantis|FL' },
      { car_type: 'used', city_state: 'Toronto|FL' },
      // Ontario is a Canadian province: not part of the US market.
      { car_type: 'used', state: 'ON' },
      { car_type: 'used', country: 'ca', state: 'TX' },
    ]) {
      const res = await ok(query);
      expect(res.json()).toEqual([]);
    }
  });

  it('ignores unknown query parameters', async () => {
    const plain = await ok({ car_type: 'used', state: 'GA' });
    expect((await ok({ car_type: 'used', state: 'GA', limit: '5', foo: 'bar', rows: 'x' })).body).toBe(plain.body);
  });

  it('an empty state is the national ranking', async () => {
    expect((await ok({ car_type: 'used', state: '' })).body).toBe((await ok({ car_type: 'used' })).body);
  });
});
