import { describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config.js';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { OP, popular } from './helpers.js';

/** The app as production builds it: the platform answers `Prefer: code=<status>` through the area's formatError. */
async function forcingApp(options: ConfigInput = {}) {
  return (await testApp(options)).app;
}

const forced = (app: Awaited<ReturnType<typeof forcingApp>>, status: number) =>
  app.inject({
    method: 'GET',
    url: '/marketcheck/popular/cars?api_key=k&car_type=new',
    headers: { prefer: `code=${status}` },
  });

describe('forced error responses', async () => {
  const app = await forcingApp();

  it('documents 400, 401 and 429 for getPopularCars', async () => {
    expect((await forced(app, 418)).headers['mockyard-error']).toContain(
      `${OP}; the statuses it can be forced to are: 400, 401, 429`,
    );
  });

  it('400 and 401 have the natural body shape and content type', async () => {
    for (const [status, natural] of [
      [400, await popular(app, { api_key: 'k', car_type: 'bogus' })],
      [401, await popular(app, { car_type: 'new' })],
    ] as const) {
      const res = await forced(app, status);
      expect(res.statusCode).toBe(status);
      expectContract(OP, res);
      expect(natural.statusCode).toBe(status);
      expect(res.headers['content-type']).toBe(natural.headers['content-type']);
      expect(Object.keys(res.json() as object).sort()).toEqual(Object.keys(natural.json() as object).sort());
      expect((res.json() as { code: number }).code).toBe(status);
    }
  });

  it('429 carries the rate-limit body and headers (free-tier limit when emulation is off)', async () => {
    const res = await forced(app, 429);
    expect(res.statusCode).toBe(429);
    expectContract(OP, res);
    expect(res.json()).toEqual({ message: 'API rate limit exceeded' });
    expect(res.headers['ratelimit-limit']).toBe('5');
    expect(res.headers['ratelimit-remaining']).toBe('0');
    expect(String(res.headers['ratelimit-reset-time'])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(res.headers['retry-after']).toBe('1');
  });
});

describe('forced 429 with rate-limit emulation on', async () => {
  const app = await forcingApp({ marketcheckRateLimit: 7 });

  it('uses the configured limit in RateLimit-Limit, like a natural 429', async () => {
    const res = await forced(app, 429);
    expect(res.statusCode).toBe(429);
    expectContract(OP, res);
    expect(res.headers['ratelimit-limit']).toBe('7');
  });
});
