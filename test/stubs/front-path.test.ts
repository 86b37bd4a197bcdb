// Plain stub answers on the pipeline's front path: the bytes, headers and journal record of the long way,
// seen by WireMock's verification; delays, scenario states and cached area answers keep their meaning.
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { StubStep } from '../../src/stubs/plugin.js';
import { testApp } from '../helpers/app.js';
import { rawGet } from '../helpers/raw-get.js';
import { addMapping } from '../helpers/stubs.js';

const { app } = await testApp({ journalSize: 1000 });
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as AddressInfo).port;

// What the front path asked the stubs, and whether Fastify's stub step ran for an area request.
const front = vi.spyOn(StubStep.prototype, 'front');
const stubStep = vi.spyOn(StubStep.prototype, 'answer');

const get = (path: string, headers: Record<string, string> = {}) => rawGet(port, path, headers);

/** Headers that differ between any two answers of a server (the clock, the connection). */
const stable = (h: IncomingHttpHeaders) => {
  const { date: _date, connection: _c, 'keep-alive': _k, ...rest } = h;
  return rest;
};

/** `Origin: null` is refused by CORS (only `Vary: Origin` is added), and keeps a request off the front path. */
const LONG_WAY = { origin: 'null' };

/** Whether the last request was answered by a stub on the front path. */
const answeredInFront = () => {
  const last = front.mock.results.at(-1);
  return last?.type === 'return' && last.value !== null && last.value !== undefined;
};

const admin = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
  app.inject({
    method,
    url: `/__admin${url}`,
    payload: payload as object,
    headers: { 'content-type': 'application/json' },
  });

const stub = (mapping: object): Promise<string> => addMapping(app, mapping);

const plain = {
  name: 'order 7',
  request: { method: 'GET', urlPath: '/shop/orders/7', headers: { Accept: { contains: 'json' } } },
  response: {
    status: 200,
    jsonBody: { order: 7, lines: [{ sku: 'S-7' }] },
    headers: { 'Content-Type': 'application/json', 'X-Multi': ['a', 'b'] },
  },
};

beforeEach(async () => {
  await admin('POST', '/reset');
  front.mockClear();
  stubStep.mockClear();
});

describe('a plain stub answer on the front path', () => {
  it('has the status, headers and bytes of the long way', async () => {
    await stub(plain);
    const path = '/shop/orders/7?v=1';
    const fast = await get(path, { accept: 'application/json' });
    expect(answeredInFront()).toBe(true);
    const long = await get(path, { accept: 'application/json', ...LONG_WAY });
    expect(fast.status).toBe(200);
    expect(JSON.parse(fast.body.toString())).toEqual({ order: 7, lines: [{ sku: 'S-7' }] });
    expect(fast.headers['x-multi']).toBe('a, b');
    expect(fast.body.equals(long.body)).toBe(true);
    expect(stable(fast.headers)).toEqual(stable(long.headers));
    for (const response of [{ status: 201, body: 'no type' }, { status: 200 }, { status: 503, body: '' }]) {
      await stub({ request: { method: 'GET', urlPath: '/shop/bare' }, response });
      const bare = await get('/shop/bare');
      expect(answeredInFront()).toBe(true);
      const bareLong = await get('/shop/bare', LONG_WAY);
      expect(bare.status).toBe(response.status);
      expect(bare.body.equals(bareLong.body)).toBe(true);
      expect(stable(bare.headers)).toEqual(stable(bareLong.headers));
    }
  });

  it('is journaled as the long way journals it, with its stub, and counted by WireMock verification', async () => {
    const id = await stub(plain);
    const headers = { accept: 'application/json', authorization: 'Bearer s3cret' };
    await get('/shop/orders/7?v=1', headers);
    expect(answeredInFront()).toBe(true);
    await get('/shop/orders/7?v=1', { ...headers, ...LONG_WAY });
    const journal = (await app.inject('/__mockyard/requests?limit=2')).json<{ requests: Record<string, unknown>[] }>();
    const [long, fast] = journal.requests.map(({ id: _i, timestamp: _t, durationMs: _d, ...rest }) => rest);
    expect(fast!.stub).toEqual({ id, name: 'order 7' });
    expect((fast!.headers as Record<string, string>).authorization).toBe('Bearer ***');
    const { origin: _origin, ...longHeaders } = long!.headers as Record<string, string>;
    expect(fast).toEqual({ ...long, headers: longHeaders });

    const served = (await admin('GET', '/requests')).json<{
      requests: { wasMatched: boolean; stubMapping: { id: string }; request: { url: string; host: string } }[];
    }>();
    expect(served.requests).toHaveLength(2);
    for (const event of served.requests) {
      expect(event.wasMatched).toBe(true);
      expect(event.stubMapping.id).toBe(id);
      expect(event.request.url).toBe('/shop/orders/7?v=1');
      expect(event.request.host).toBe('127.0.0.1');
    }
    const pattern = { method: 'GET', urlPath: '/shop/orders/7', headers: { Accept: { contains: 'json' } } };
    expect((await admin('POST', '/requests/count', pattern)).json()).toMatchObject({ count: 2 });
    expect((await admin('POST', '/requests/find', pattern)).json<{ requests: unknown[] }>().requests).toHaveLength(2);
  });

  it('leaves a delayed stub to the stub step, which keeps its delay', async () => {
    const delay = 60;
    await stub({
      request: { method: 'GET', urlPath: '/shop/slow' },
      response: { status: 200, body: 'late', fixedDelayMilliseconds: delay },
    });
    const started = performance.now();
    const res = await get('/shop/slow');
    // A lower bound only: a timer never fires much before its time.
    expect(performance.now() - started).toBeGreaterThanOrEqual(delay - 5);
    expect(front.mock.results.at(-1)?.value).toBeUndefined();
    expect(res.body.toString()).toBe('late');
  });

  it('leaves a stub with a scenario state to the stub step, which moves the state on', async () => {
    const base = { scenarioName: 'cart', request: { method: 'GET', urlPath: '/shop/cart' } };
    await stub({
      ...base,
      requiredScenarioState: 'Started',
      newScenarioState: 'full',
      response: { status: 200, body: 'empty' },
    });
    await stub({ ...base, requiredScenarioState: 'full', response: { status: 200, body: 'one item' } });
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push((await get('/shop/cart')).body.toString());
    expect(seen).toEqual(['empty', 'one item', 'one item']);
    expect(answeredInFront()).toBe(false);
    const scenarios = (await admin('GET', '/scenarios')).json<{ scenarios: { name: string; state: string }[] }>();
    expect(scenarios.scenarios).toContainEqual(expect.objectContaining({ name: 'cart', state: 'full' }));
  });
});

describe('cached area answers while stubs exist', () => {
  const path = '/dkan/datastore/query/schema';

  it('come from the front path when no stub matches, and never hide a stub that does', async () => {
    await stub(plain);
    const first = await get(path);
    expect(first.status).toBe(200);
    expect(stubStep).toHaveBeenCalledTimes(1);
    const again = await get(path);
    expect(front.mock.results.at(-1)?.value).toBeNull();
    // Answered before Fastify: its stub step did not run again.
    expect(stubStep).toHaveBeenCalledTimes(1);
    expect(again.body.equals(first.body)).toBe(true);
    expect(stable(again.headers)).toEqual(stable(first.headers));

    // The stub world sees the DKAN request as data.medicaid.gov gets it.
    const id = await stub({
      request: { method: 'GET', urlPath: '/api/1/datastore/query/schema' },
      response: { body: 's' },
    });
    const stubbed = await get(path);
    expect(stubbed.headers['matched-stub-id']).toBe(id);
    expect(stubbed.body.toString()).toBe('s');
  });
});

describe("a mapping's framing headers", () => {
  // WireMock 3.13 (Jetty) answers a chunked Transfer-Encoding or a Trailer in chunks; a Content-Length that
  // disagrees with the body is not sent. Node refuses to write a Trailer on an answer with a length.
  it.each([
    ['Trailer on the front path', { Trailer: 'x' }, 0],
    ['Trailer after a delay', { Trailer: 'x' }, 1],
    ['chunked Transfer-Encoding', { 'Transfer-Encoding': 'chunked' }, 0],
    ['Transfer-Encoding with a Content-Type', { 'Transfer-Encoding': 'chunked', 'Content-Type': 'text/plain' }, 1],
  ])('%s: answered in chunks, and the server goes on', async (_name, headers, delay) => {
    await stub({
      request: { urlPath: '/framed' },
      response: { status: 200, headers, body: 'hello', fixedDelayMilliseconds: delay },
    });
    const res = await get('/framed');
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello');
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers.trailer).toBeUndefined();
    expect((await get('/__mockyard/health')).status).toBe(200);
  });

  it("sends the body's own length, not a mapping's Content-Length, and never beside a Transfer-Encoding", async () => {
    await stub({
      request: { urlPath: '/length' },
      response: { status: 200, headers: { 'Content-Length': '3', 'Transfer-Encoding': 'gzip' }, body: 'hello' },
    });
    const res = await get('/length');
    expect(res.body.toString()).toBe('hello');
    expect(res.headers['content-length']).toBe('5');
    expect(res.headers['transfer-encoding']).toBeUndefined();
  });
});
