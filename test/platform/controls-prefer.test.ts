import type { FastifyInstance } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { MAX_DELAY_MS, PreferError, parsePrefer } from '../../src/platform/controls/prefer.js';
import { mulberry32 } from '../../fixtures/lib/prng.js';
import { controlsApp } from './controls-helpers.js';
import { NOT_FOUND_PAGE, UNAVAILABLE_PAGE } from './fake-areas.js';

describe('parsePrefer', () => {
  it('reads several preferences from one header or several, first of each kind wins, unknown ones ignored', () => {
    expect(parsePrefer('code=404, delay=100-200, return=minimal, fault=slow')).toEqual({
      code: 404,
      delay: [100, 200],
      fault: 'slow',
    });
    expect(parsePrefer(['code="503"', 'code=404; foo=bar', 'DELAY=5'])).toEqual({ code: 503, delay: [5, 5] });
    expect(parsePrefer('respond-async, wait=10')).toEqual({});
    expect(parsePrefer(undefined)).toEqual({});
  });

  it('caps delays and rejects bad values of known preferences', () => {
    expect(parsePrefer('delay=999999')).toEqual({ delay: [MAX_DELAY_MS, MAX_DELAY_MS] });
    for (const bad of ['code=40', 'code=abc', 'code=700', 'delay=-5', 'delay=200-100', 'delay=soon', 'fault=explode']) {
      expect(() => parsePrefer(bad), bad).toThrow(PreferError);
    }
  });
});

describe('Prefer: code', () => {
  it('answers a documented status with the same body, headers and type as when it happens naturally', async () => {
    const { app } = await controlsApp();
    const natural = await app.inject({ url: '/archive/items/missing' });
    const forced = await app.inject({ url: '/archive/items/missing', headers: { prefer: 'code=404' } });
    expect(natural.statusCode).toBe(404);
    expect(forced.statusCode).toBe(404);
    expect(forced.body).toBe(natural.body);
    expect(forced.headers['content-type']).toBe(natural.headers['content-type']);
    expect(forced.headers['x-fake']).toBe('natural-404');
    expect(forced.headers['preference-applied']).toBe('code=404');

    // An existing item forced to 404 looks exactly like a missing one.
    const existing = await app.inject({ url: '/archive/items/abc', headers: { prefer: 'code=404' } });
    expect(existing.statusCode).toBe(404);
    expect(existing.body).toBe(NOT_FOUND_PAGE('abc'));

    const unavailable = await app.inject({ url: '/archive/items/abc', headers: { prefer: 'code=503' } });
    expect(unavailable.statusCode).toBe(503);
    expect(unavailable.body).toBe(UNAVAILABLE_PAGE);
    expect(unavailable.headers['retry-after']).toBe('120');
  });

  it('lets the natural success through for 2xx, and does not touch paths without an operation', async () => {
    const { app } = await controlsApp();
    const ok = await app.inject({ url: '/archive/items/abc', headers: { prefer: 'code=200' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ id: 'abc', data: 'x'.repeat(10) });
    const unknown = await app.inject({ url: '/archive/nope', headers: { prefer: 'code=503' } });
    expect(unknown.statusCode).toBe(404);
  });

  it('answers 400 whose body says why when asked for a status the operation cannot have', async () => {
    const { app } = await controlsApp();
    // archive.org's 400 page carries no message: mockyard's own JSON error says why.
    const res = await app.inject({ url: '/archive/items/abc', headers: { prefer: 'code=418' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(res.json().message).toContain('fake_item');
    expect(res.json().message).toContain('404, 500, 503');
    expect(res.headers['mockyard-error']).toBe(res.json().message);
    expect(res.headers['mockyard-simulated']).toBe('refused-prefer');

    // An area whose 400 carries a message: its own 400 body, which its clients know how to read, saying why.
    const natural400 = await app.inject({ url: '/dkan/query?limit=ten' });
    const dkan = await app.inject({ url: '/dkan/query', headers: { prefer: 'code=418' } });
    expect(dkan.statusCode).toBe(400);
    expect(Object.keys(dkan.json()).sort()).toEqual(Object.keys(natural400.json()).sort());
    expect(dkan.json().message).toContain('400, 401');
    expect(dkan.headers['mockyard-error']).toContain('400, 401');

    const badValue = await app.inject({ url: '/archive/items/abc', headers: { prefer: 'fault=explode' } });
    expect(badValue.statusCode).toBe(400);
    expect(badValue.json().message).toContain('reset, empty, malformed, slow');
  });

  it('forces 500 and 503 on every operation, documented or not, and names every simulated cause', async () => {
    const { app } = await controlsApp();
    for (const status of [500, 503]) {
      const res = await app.inject({ url: '/dkan/query', headers: { prefer: `code=${status}` } });
      expect(res.statusCode).toBe(status);
      expect(res.headers['mockyard-simulated']).toBe(`code=${status}`);
    }
    const fault = await app.inject({ url: '/archive/items/abc', headers: { prefer: 'fault=slow' } });
    expect(fault.headers['mockyard-simulated']).toBe('fault=slow');
    const delayed = await app.inject({ url: '/archive/items/abc', headers: { prefer: 'delay=1, code=404' } });
    expect(delayed.headers['mockyard-simulated']).toBe('delay=1, code=404');
    const plain = await app.inject({ url: '/archive/items/abc' });
    expect(plain.headers['mockyard-simulated']).toBeUndefined();

    const { app: failing } = await controlsApp({ errorRate: 100 });
    const drawn = await failing.inject({ url: '/archive/items/abc' });
    expect(drawn.statusCode).toBeGreaterThanOrEqual(400);
    expect(drawn.headers['mockyard-simulated']).toBe(`error-rate=${drawn.statusCode}`);
  });
});

/** Replaces the app's timer with one the test releases: no test waits on, or measures, real time. */
function manualClock(app: FastifyInstance) {
  const waits: number[] = [];
  const pending: (() => void)[] = [];
  app.runtime.sleep = (ms) => {
    waits.push(ms);
    return new Promise<void>((resolve) => pending.push(resolve));
  };
  return { waits, releaseAll: () => pending.splice(0).forEach((release) => release()) };
}

describe('delays', () => {
  it('Prefer: delay holds the response back until that much time has passed', async () => {
    const { app } = await controlsApp();
    const clock = manualClock(app);
    let answered = false;
    const reply = app.inject({ url: '/archive/items/abc', headers: { prefer: 'delay=400' } }).then((res) => {
      answered = true;
      return res;
    });
    await vi.waitFor(() => expect(clock.waits).toEqual([400]));
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    clock.releaseAll();
    const res = await reply;
    expect(res.statusCode).toBe(200);
    expect(res.headers['preference-applied']).toBe('delay=400');
    expect(res.headers['mockyard-simulated']).toBe('delay=400');

    await app.inject({ url: '/archive/items/abc' });
    expect(clock.waits).toEqual([400]);
  });

  it('a delay range picks a value inside the range, and combines with a forced code', async () => {
    const { app } = await controlsApp();
    const res = await app.inject({ url: '/archive/items/abc', headers: { prefer: 'delay=100-150, code=503' } });
    expect(res.statusCode).toBe(503);
    const [delayPart, codePart] = String(res.headers['preference-applied']).split(', ');
    const ms = Number(delayPart?.replace('delay=', ''));
    expect(ms).toBeGreaterThanOrEqual(100);
    expect(ms).toBeLessThanOrEqual(150);
    expect(codePart).toBe('code=503');
  });

  it("--latency delays every area request but not mockyard's own routes", async () => {
    const { app } = await controlsApp({ latency: '400-450' });
    const clock = manualClock(app);
    const reply = app.inject({ url: '/dkan/query' });
    await vi.waitFor(() => expect(clock.waits.length).toBe(1));
    expect(clock.waits[0]).toBeGreaterThanOrEqual(400);
    expect(clock.waits[0]).toBeLessThanOrEqual(450);
    clock.releaseAll();
    const res = await reply;
    expect(res.headers['mockyard-simulated']).toBe(`latency=${clock.waits[0]}`);
    await app.inject({ url: '/__mockyard/health' });
    expect(clock.waits.length).toBe(1);
  });
});

describe('--error-rate', () => {
  async function statuses(seed: number, rate: number, n: number, url: string): Promise<number[]> {
    const { app } = await controlsApp({ errorRate: String(rate), faultSeed: String(seed) });
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await app.inject({ url })).statusCode);
    return out;
  }

  it("fails a seeded, reproducible share of requests with the operation's documented status", async () => {
    const a = await statuses(7, 30, 200, '/archive/items/abc');
    const b = await statuses(7, 30, 200, '/archive/items/abc');
    expect(a).toEqual(b);
    expect(new Set(a)).toEqual(new Set([200, 503]));
    // The draws are exactly the seeded sequence: request i fails when draw i < 30 %.
    const random = mulberry32(7);
    expect(a).toEqual(a.map(() => (random() * 100 < 30 ? 503 : 200)));
    const failed = a.filter((s) => s === 503).length;
    expect(failed).toBeGreaterThan(30);
    expect(failed).toBeLessThan(90);

    const other = await statuses(8, 30, 200, '/archive/items/abc');
    expect(other).not.toEqual(a);
  });

  it("uses the area's body for the forced failure and the first documented error when there is no preferred one", async () => {
    const { app } = await controlsApp({ errorRate: '100' });
    const res = await app.inject({ url: '/archive/items/abc' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toBe(UNAVAILABLE_PAGE);
    const dkan = await app.inject({ url: '/dkan/query' });
    expect(dkan.statusCode).toBe(400);
    expect(dkan.json()).toMatchObject({ status: 400 });
    // mockyard's own routes never fail.
    expect((await app.inject({ url: '/__mockyard/health' })).statusCode).toBe(200);
  });

  it('POST /__mockyard/reset restarts the seeded sequence', async () => {
    const { app } = await controlsApp({ errorRate: '50', faultSeed: '3' });
    const run = async () => {
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await app.inject({ url: '/archive/items/abc' })).statusCode);
      return out;
    };
    const first = await run();
    expect(
      (await app.inject({ method: 'POST', url: '/__mockyard/reset', headers: { 'x-mockyard-admin': '1' } })).statusCode,
    ).toBe(200);
    expect(await run()).toEqual(first);
  });
});
