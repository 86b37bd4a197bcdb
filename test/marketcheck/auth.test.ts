import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { OP, popular } from './helpers.js';

function expectUnauthorized(res: Awaited<ReturnType<typeof popular>>): void {
  expect(res.statusCode).toBe(401);
  expectContract(OP, res);
  const body = res.json() as { code: number; message: string };
  expect(body.code).toBe(401);
  expect(body.message).toMatch(/api_key/);
}

describe('api_key by default', async () => {
  const { app } = await testApp();

  it("a missing or empty key is a 401 in MarketCheck's error body", async () => {
    expectUnauthorized(await popular(app, { car_type: 'new' }));
    expectUnauthorized(await popular(app, { car_type: 'new', api_key: '' }));
  });

  it('any non-empty key is accepted', async () => {
    for (const key of ['abc', 'x', 'some-long-key-1234567890']) {
      const res = await popular(app, { car_type: 'new', api_key: key });
      expect(res.statusCode).toBe(200);
      expectContract(OP, res);
    }
  });

  it('the key is checked before the parameters', async () => {
    expectUnauthorized(await popular(app, { car_type: 'bogus' }));
  });
});

describe('api_key with a configured key list', async () => {
  const { app } = await testApp({ marketcheckApiKeys: 'alpha, beta' });

  it('only the listed keys are accepted; others are a 401', async () => {
    for (const key of ['alpha', 'beta']) {
      const res = await popular(app, { car_type: 'used', api_key: key });
      expect(res.statusCode).toBe(200);
      expectContract(OP, res);
    }
    expectUnauthorized(await popular(app, { car_type: 'used', api_key: 'gamma' }));
    expectUnauthorized(await popular(app, { car_type: 'used', api_key: 'ALPHA' }));
    expectUnauthorized(await popular(app, { car_type: 'used' }));
  });

  it('the catalog lists the configured keys', async () => {
    const res = await app.inject('/__mockyard/fixtures');
    expect((res.json() as { marketcheck: { apiKeys: string[] } }).marketcheck.apiKeys).toEqual(['alpha', 'beta']);
  });
});
