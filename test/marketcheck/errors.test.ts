import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';

const { app } = await testApp();

describe('marketcheck error handling', () => {
  it("unknown paths under the prefix answer 404 in MarketCheck's body", async () => {
    for (const url of [
      '/marketcheck/popular',
      '/marketcheck/popular/trucks?api_key=k',
      '/marketcheck/search/car/active',
    ]) {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = res.json() as { code: number; message: string };
      expect(body.code).toBe(404);
      expect(body.message).toContain(url.split('?')[0]);
    }
  });

  it('a body sent with GET is ignored, as the real API ignores it', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/marketcheck/popular/cars?api_key=k&car_type=new',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(res.statusCode).toBe(200);
  });

  it('other methods answer 404, and a broken body a 400, in the same body, never a 5xx', async () => {
    const post = await app.inject({ method: 'POST', url: '/marketcheck/popular/cars?api_key=k&car_type=new' });
    expect(post.statusCode).toBe(404);
    expect((post.json() as { code: number }).code).toBe(404);
    const res = await app.inject({
      method: 'POST',
      url: '/marketcheck/popular/cars?api_key=k',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json() as { code: number; message: string };
    expect(body.code).toBe(400);
    expect(body.message.length).toBeGreaterThan(0);
  });

  it('a repeated parameter counts with its first value', async () => {
    const res = await app.inject('/marketcheck/popular/cars?api_key=k&car_type=used&car_type=bogus&state=NY&state=CA');
    expect(res.statusCode).toBe(200);
    const cars = res.json() as { state: string; inventory_type: string }[];
    expect(cars.every((c) => c.state === 'NY' && c.inventory_type === 'used')).toBe(true);
  });
});
