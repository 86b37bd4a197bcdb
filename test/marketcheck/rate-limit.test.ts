import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/areas/marketcheck/rate-limit.js';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { OP, popular } from './helpers.js';

const T0 = Date.parse('2026-03-01T10:00:00.250Z');

beforeEach(() => {
  // Only the clock is faked: inject() still needs real timers.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
});
afterEach(() => vi.useRealTimers());

function expect429(res: Awaited<ReturnType<typeof popular>>, limit: number): void {
  expect(res.statusCode).toBe(429);
  expectContract(OP, res);
  expect(res.json()).toEqual({ message: 'API rate limit exceeded' });
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-remaining']).toBe('0');
  expect(res.headers['ratelimit-reset-time']).toBe('2026-03-01T10:00:01Z');
  expect(res.headers['retry-after']).toBe('1');
}

describe('rate-limit emulation', async () => {
  const { app } = await testApp({ marketcheckRateLimit: 3 });

  it('allows N requests per second per key with RateLimit-* headers, then answers 429', async () => {
    for (const remaining of ['2', '1', '0']) {
      const res = await popular(app, { api_key: 'rl-a', car_type: 'new' });
      expect(res.statusCode).toBe(200);
      expectContract(OP, res);
      expect(res.headers['ratelimit-limit']).toBe('3');
      expect(res.headers['ratelimit-remaining']).toBe(remaining);
      expect(res.headers['ratelimit-reset-time']).toBe('2026-03-01T10:00:01Z');
      expect(res.headers['retry-after']).toBeUndefined();
    }
    expect429(await popular(app, { api_key: 'rl-a', car_type: 'new' }), 3);
    // Another key has its own budget.
    expect((await popular(app, { api_key: 'rl-b', car_type: 'new' })).statusCode).toBe(200);
    // Bad parameters still count against the key, and carry the headers.
    const bad = await popular(app, { api_key: 'rl-b', car_type: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['ratelimit-remaining']).toBe('1');
  });

  it('the next second starts a fresh window', async () => {
    for (let i = 0; i < 4; i++) await popular(app, { api_key: 'rl-c', car_type: 'used' });
    expect429(await popular(app, { api_key: 'rl-c', car_type: 'used' }), 3);
    vi.setSystemTime(T0 + 800);
    const res = await popular(app, { api_key: 'rl-c', car_type: 'used' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-remaining']).toBe('2');
    expect(res.headers['ratelimit-reset-time']).toBe('2026-03-01T10:00:02Z');
  });

  it('POST /__mockyard/reset forgets the counts', async () => {
    for (let i = 0; i < 3; i++) await popular(app, { api_key: 'rl-d', car_type: 'new' });
    expect429(await popular(app, { api_key: 'rl-d', car_type: 'new' }), 3);
    expect(
      (await app.inject({ method: 'POST', url: '/__mockyard/reset', headers: { 'x-mockyard-admin': '1' } })).statusCode,
    ).toBeLessThan(300);
    expect((await popular(app, { api_key: 'rl-d', car_type: 'new' })).statusCode).toBe(200);
  });

  it('a missing key is a 401, not counted', async () => {
    const res = await popular(app, { car_type: 'new' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  });
});

describe('without rate-limit emulation', async () => {
  const { app } = await testApp();

  it('never answers 429 and sends no RateLimit headers', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await popular(app, { api_key: 'busy', car_type: 'new' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });
});

describe('RateLimiter', () => {
  it('keeps only the keys of the current second', () => {
    const limiter = new RateLimiter(2);
    for (let i = 0; i < 1000; i++) limiter.take(`key-${i}`, T0);
    expect(limiter.size).toBe(1000);
    limiter.take('key-0', T0 + 1000);
    expect(limiter.size).toBe(1);
  });
});
