import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { resolveConfig } from '../../src/config.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { Stores } from '../../src/platform/data/stores.js';
import { Journal, type JournalEntry } from '../../src/platform/controls/journal.js';
import { Runtime } from '../../src/platform/controls/runtime.js';
import { controlsApp } from './controls-helpers.js';
import { FAKE_AREAS, fakeArchive } from './fake-areas.js';

interface ListBody {
  total: number;
  count: number;
  requests: JournalEntry[];
}

describe('request journal', () => {
  it('records area requests newest first with method, area, operation, path, query, status, duration and time', async () => {
    const { app } = await controlsApp();
    const before = new Date().toISOString();
    await app.inject({ url: '/archive/items/abc?size=3&tag=a&tag=b' });
    await app.inject({ url: '/archive/items/missing' });
    await app.inject({ url: '/dkan/query?limit=ten' });
    await app.inject({ url: '/archive/no/such/path' });
    await app.inject({ url: '/__mockyard/health' });
    await app.inject({ url: '/openapi.json' });
    const res = await app.inject({ url: '/__mockyard/requests' });
    expect(res.statusCode).toBe(200);
    const body = res.json<ListBody>();
    // mockyard's own routes (health, docs, the journal itself) are not journaled.
    expect(body.total).toBe(4);
    expect(body.requests.map((r) => [r.method, r.area, r.operationId, r.path, r.status])).toEqual([
      ['GET', 'archive', null, '/archive/no/such/path', 404],
      ['GET', 'dkan', 'fake_query', '/dkan/query', 400],
      ['GET', 'archive', 'fake_item', '/archive/items/missing', 404],
      ['GET', 'archive', 'fake_item', '/archive/items/abc', 200],
    ]);
    const first = body.requests[3]!;
    expect(first.query).toEqual({ size: '3', tag: ['a', 'b'] });
    expect(first.durationMs).toBeGreaterThanOrEqual(0);
    expect(first.timestamp >= before).toBe(true);
    expect(first.forced).toBe(false);
    const ids = body.requests.map((r) => r.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
  });

  it('filters by area, operation, status, class, time and limit; count agrees with the list', async () => {
    const { app } = await controlsApp();
    // The journal's clock is the test's: "before" and "after" cannot depend on how fast requests run.
    let now = Date.UTC(2026, 0, 1);
    app.runtime.now = () => now;
    await app.inject({ url: '/archive/items/a' });
    await app.inject({ url: '/archive/items/missing' });
    const middle = new Date(now + 5).toISOString();
    now += 10;
    await app.inject({ url: '/dkan/query' });
    await app.inject({ url: '/dkan/query?limit=x' });
    await app.inject({ url: '/archive/items/b', headers: { prefer: 'code=503' } });

    const list = async (q: string) => (await app.inject({ url: `/__mockyard/requests?${q}` })).json<ListBody>();
    const count = async (q: string) =>
      (await app.inject({ url: `/__mockyard/requests/count?${q}` })).json<{ count: number }>().count;

    const cases: [string, (r: JournalEntry) => boolean][] = [
      ['area=dkan', (r) => r.area === 'dkan'],
      ['operation=fake_item', (r) => r.operationId === 'fake_item'],
      ['status=404', (r) => r.status === 404],
      ['status=5xx', (r) => r.status !== null && r.status >= 500],
      ['status=4xx&area=archive', (r) => r.status === 404 && r.area === 'archive'],
      [`since=${middle}`, (r) => r.timestamp >= middle],
      [`until=${middle}`, (r) => r.timestamp <= middle],
    ];
    const all = (await list('')).requests;
    expect(all).toHaveLength(5);
    for (const [q, pred] of cases) {
      const got = await list(q);
      const expected = all.filter(pred);
      expect(
        got.requests.map((r) => r.id),
        q,
      ).toEqual(expected.map((r) => r.id));
      expect(got.total, q).toBe(expected.length);
      expect(await count(q), q).toBe(expected.length);
    }
    expect((await list(`since=${middle}`)).total).toBe(3);
    const forced = all.find((r) => r.path === '/archive/items/b');
    expect(forced?.forced).toBe(true);
    expect(forced?.status).toBe(503);

    const limited = await list('limit=2');
    expect(limited.requests.map((r) => r.id)).toEqual(all.slice(0, 2).map((r) => r.id));
    expect(limited).toMatchObject({ total: 5, count: 2 });

    for (const bad of ['status=abc', 'since=yesterday', 'limit=0', 'area=nowhere']) {
      expect((await app.inject({ url: `/__mockyard/requests?${bad}` })).statusCode, bad).toBe(400);
    }
  });

  it('writes a long listing in chunks that read back as the whole list, in the schema the docs give', async () => {
    const { app } = await controlsApp();
    // Each entry about 20 KB: the listing is many of the stream's 64 KiB chunks.
    const big = 'x'.repeat(20_000);
    for (let i = 0; i < 60; i++) await app.inject({ url: `/archive/items/n${i}`, headers: { 'x-big': big } });
    const res = await app.inject({ url: '/__mockyard/requests?limit=50' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json<ListBody>();
    expect(body.total).toBe(60);
    expect(body.count).toBe(50);
    expect(body.requests).toHaveLength(50);
    expect(body.requests[0]!.path).toBe('/archive/items/n59');
    expect(body.requests[49]!.headers['x-big']).toBe(big);
    expect(body).toEqual(JSON.parse(JSON.stringify({ ...app.runtime.journal.list({ limit: 50 }), count: 50 })));
  });

  it('never holds more than --journal-size entries, keeping the newest', async () => {
    const { app } = await controlsApp({ journalSize: '5' });
    for (let i = 0; i < 12; i++) await app.inject({ url: `/archive/items/n${i}` });
    const body = (await app.inject({ url: '/__mockyard/requests' })).json<ListBody>();
    expect(body.total).toBe(5);
    expect(body.requests.map((r) => r.path)).toEqual([11, 10, 9, 8, 7].map((i) => `/archive/items/n${i}`));
  });

  it('ring buffer property: after any sequence of adds and clears it holds min(added since clear, capacity), newest first', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.array(fc.oneof(fc.constant(-1), fc.nat(30)), { maxLength: 40 }),
        (capacity, ops) => {
          const journal = new Journal(capacity);
          let since: number[] = [];
          for (const op of ops) {
            if (op === -1) {
              journal.clear();
              since = [];
              continue;
            }
            const id = journal.nextId();
            journal.add({
              id,
              method: 'GET',
              area: 'dkan',
              operationId: null,
              url: '/',
              headers: {},
              status: 200,
              started: 0,
              time: 0,
              fault: null,
              forced: false,
            });
            since.push(id);
          }
          const got = journal.list().requests.map((r) => r.id);
          expect(journal.size).toBeLessThanOrEqual(capacity);
          expect(got).toEqual(since.slice(Math.max(0, since.length - capacity)).reverse());
        },
      ),
    );
  });

  it('--journal-size 0 keeps nothing', async () => {
    const { app } = await controlsApp({ journalSize: '0' });
    await app.inject({ url: '/archive/items/a' });
    expect((await app.inject({ url: '/__mockyard/requests/count' })).json()).toEqual({ count: 0 });
  });

  it('masks secrets in headers and the query', async () => {
    const { app } = await controlsApp({ adminToken: 's3cret-admin' });
    await app.inject({
      url: '/archive/items/a?api_key=KEY123&q=1&other=s3cret-admin',
      headers: {
        authorization: 'Bearer tok-987',
        'x-api-token': 'appcenter-token',
        cookie: 'session=abc',
        'x-trace': 'has s3cret-admin inside',
      },
    });
    const res = await app.inject({ url: '/__mockyard/requests', headers: { authorization: 'Bearer s3cret-admin' } });
    const [entry] = res.json<ListBody>().requests;
    expect(entry?.headers).toMatchObject({
      authorization: 'Bearer ***',
      'x-api-token': '***',
      cookie: '***',
      'x-trace': 'has *** inside',
    });
    expect(entry?.query).toEqual({ api_key: '***', q: '1', other: '***' });
    for (const secret of ['KEY123', 'tok-987', 'appcenter-token', 'session=abc', 's3cret-admin'])
      expect(res.body).not.toContain(secret);
  });

  it('records faults, with no status when nothing was sent', async () => {
    const { app, url } = await controlsApp({}, true);
    // The entry is written when the server sees the connection close, which may come after the client's error.
    const recorded = new Promise<void>((resolve) => {
      const stop = app.runtime.journal.subscribe(() => {
        stop();
        resolve();
      });
    });
    await fetch(`${url}/archive/items/a`, { headers: { prefer: 'fault=reset' } }).catch(() => undefined);
    await recorded;
    const [entry] = (await app.inject({ url: '/__mockyard/requests' })).json<ListBody>().requests;
    expect(entry).toMatchObject({ path: '/archive/items/a', status: null, fault: 'reset' });
  });

  it('DELETE /__mockyard/requests empties it; POST /__mockyard/reset clears it and calls registered resets', async () => {
    const { app } = await controlsApp();
    let areaResets = 0;
    app.runtime.onReset(() => {
      areaResets += 1;
    });
    await app.inject({ url: '/archive/items/a' });
    await app.inject({ url: '/archive/items/b' });
    expect(
      (
        await app.inject({ method: 'DELETE', url: '/__mockyard/requests', headers: { 'x-mockyard-admin': '1' } })
      ).json(),
    ).toEqual({ cleared: 2 });
    expect((await app.inject({ url: '/__mockyard/requests/count' })).json()).toEqual({ count: 0 });
    await app.inject({ url: '/archive/items/c' });
    const reset = await app.inject({ method: 'POST', url: '/__mockyard/reset', headers: { 'x-mockyard-admin': '1' } });
    expect(reset.json()).toEqual({ status: 'reset', journalCleared: 1 });
    expect(areaResets).toBe(1);
    expect((await app.inject({ url: '/__mockyard/requests/count' })).json()).toEqual({ count: 0 });
  });
});

describe('admin routes', () => {
  const adminRoutes: [string, string][] = [
    ['GET', '/__mockyard/requests'],
    ['GET', '/__mockyard/requests/count'],
    ['DELETE', '/__mockyard/requests'],
    ['POST', '/__mockyard/reset'],
  ];

  it('--admin off: they do not exist (404), health and catalog stay', async () => {
    const { app } = await controlsApp({ admin: 'off' });
    for (const [method, url] of adminRoutes) {
      expect((await app.inject({ method: method as 'GET', url })).statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await app.inject({ url: '/__mockyard/health' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/__mockyard/fixtures' })).statusCode).toBe(200);
    const doc = (await app.inject({ url: '/openapi.json' })).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths)).not.toContain('/__mockyard/requests');
  });

  it('--admin-token: 401 without the right bearer token, 200 with it', async () => {
    const { app } = await controlsApp({ adminToken: 'tok' });
    for (const [method, url] of adminRoutes) {
      const none = await app.inject({ method: method as 'GET', url });
      expect(none.statusCode, `${method} ${url}`).toBe(401);
      expect(none.headers['www-authenticate']).toContain('Bearer');
      const wrong = await app.inject({ method: method as 'GET', url, headers: { authorization: 'Bearer tok2' } });
      expect(wrong.statusCode).toBe(401);
      const right = await app.inject({ method: method as 'GET', url, headers: { authorization: 'Bearer tok' } });
      expect(right.statusCode, `${method} ${url}`).toBe(200);
    }
    // Area routes do not need it.
    expect((await app.inject({ url: '/archive/items/a' })).statusCode).toBe(200);
  });

  it('are in the OpenAPI document under the mockyard tag', async () => {
    const { app } = await controlsApp({ adminToken: 'tok' });
    const doc = (await app.inject({ url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { operationId: string; tags: string[]; security?: unknown }>>;
      components: { securitySchemes: Record<string, unknown> };
    }>();
    const ops = [
      doc.paths['/__mockyard/requests']?.get,
      doc.paths['/__mockyard/requests/count']?.get,
      doc.paths['/__mockyard/requests']?.delete,
      doc.paths['/__mockyard/reset']?.post,
    ];
    expect(ops.map((o) => o?.operationId)).toEqual([
      'mockyard_requests_list',
      'mockyard_requests_count',
      'mockyard_requests_clear',
      'mockyard_reset',
    ]);
    for (const op of ops) {
      expect(op?.tags).toEqual(['mockyard']);
      expect(op?.security).toEqual([{ mockyardAdmin: [] }]);
    }
    expect(doc.components.securitySchemes).toHaveProperty('mockyardAdmin');
  });
});

describe('--area-ports', () => {
  it('an area on its own port shares the journal and controls with the shared port', async () => {
    const config = resolveConfig({ logLevel: 'silent' });
    const store = new Stores(FixtureStore.open(config.dataDir));
    const runtime = new Runtime(config);
    const shared = await buildApp(config, store, { areas: FAKE_AREAS, runtime });
    const own = await buildApp(config, store, { only: fakeArchive, runtime });
    try {
      const forced = await own.inject({ url: '/items/abc', headers: { prefer: 'code=404' } });
      expect(forced.statusCode).toBe(404);
      expect((await own.inject({ url: '/__mockyard/health' })).statusCode).toBe(200);
      const body = (await shared.inject({ url: '/__mockyard/requests' })).json<ListBody>();
      expect(body.requests.map((r) => [r.area, r.operationId, r.path, r.status, r.forced])).toEqual([
        ['archive', 'fake_item', '/items/abc', 404, true],
      ]);
    } finally {
      await shared.close();
      await own.close();
      store.close();
    }
  });
});
