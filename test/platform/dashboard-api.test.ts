// The admin data behind the dashboard: live stream, one entry, traffic, per-area controls, and the page itself.
import { describe, expect, it } from 'vitest';
import { Traffic } from '../../src/platform/controls/traffic.js';
import { LIVE_LIMITS } from '../../src/platform/dashboard/live.js';
import { controlsApp } from './controls-helpers.js';

/** Reads server-sent events from a fetch body, one at a time. */
function eventReader(body: ReadableStream<Uint8Array>) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return async (): Promise<{ event: string; data: unknown } | null> => {
    for (;;) {
      const cut = buffer.indexOf('\n\n');
      if (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (block.startsWith(':')) continue;
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
        const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
        return { event, data: JSON.parse(data) };
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buffer += value;
    }
  };
}

describe('traffic per area', () => {
  it('counts requests, server errors and client errors per bucket, and forgets buckets older than the window', () => {
    let now = 1_000_000;
    const traffic = new Traffic(10_000, 3, () => now);
    traffic.add('archive', 200);
    traffic.add('archive', 404);
    traffic.add('archive', null);
    traffic.add('dkan', 503);
    now += 10_000;
    traffic.add('archive', 200);
    let snap = traffic.snapshot(['archive', 'dkan', 'agco']);
    expect(snap.areas.archive?.map((b) => [b.requests, b.errors, b.clientErrors])).toEqual([
      [0, 0, 0],
      [3, 1, 1],
      [1, 0, 0],
    ]);
    expect(snap.areas.dkan?.map((b) => b.errors)).toEqual([0, 1, 0]);
    expect(snap.areas.agco?.every((b) => b.requests === 0)).toBe(true);
    now += 30_000;
    snap = traffic.snapshot(['archive']);
    expect(snap.areas.archive?.every((b) => b.requests === 0)).toBe(true);
    // A slot reused for a newer bucket starts from zero.
    traffic.add('archive', 200);
    expect(traffic.snapshot(['archive']).areas.archive?.at(-1)?.requests).toBe(1);
  });
});

describe('dashboard admin API', () => {
  it("serves one journal entry, masked, and a 404 in mockyard's shape for one it no longer holds", async () => {
    const { app } = await controlsApp();
    await app.inject({ url: '/archive/items/abc?api_key=secret-value' });
    const list = (await app.inject({ url: '/__mockyard/requests' })).json<{ requests: { id: number }[] }>();
    const id = list.requests[0]?.id;
    const one = await app.inject({ url: `/__mockyard/requests/${id}` });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ id, path: '/archive/items/abc', query: { api_key: '***' } });
    expect(one.body).not.toContain('secret-value');
    const gone = await app.inject({ url: '/__mockyard/requests/999999' });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('names the stub that answered a request, and gives the nearest stubs, with what each missed, for one none answered', async () => {
    const { app } = await controlsApp({ adminToken: 'dash-token' });
    const auth = { authorization: 'Bearer dash-token' };
    const created = await app.inject({
      method: 'POST',
      url: '/__admin/mappings',
      headers: auth,
      payload: {
        name: 'one item',
        request: { method: 'GET', urlPath: '/items/stubbed', queryParameters: { kind: { equalTo: 'a' } } },
        response: { status: 200, jsonBody: { stubbed: true } },
      },
    });
    expect(created.statusCode).toBe(201);
    const stubId = created.json<{ id: string }>().id;
    expect((await app.inject({ url: '/archive/items/stubbed?kind=a' })).json()).toEqual({ stubbed: true });
    await app.inject({ url: '/archive/items/stubbed?kind=b' });
    const { requests } = (await app.inject({ url: '/__mockyard/requests', headers: auth })).json<{
      requests: { id: number; query: { kind: string }; stub: unknown }[];
    }>();
    const [missed, answered] = requests;
    expect(answered?.stub).toEqual({ id: stubId, name: 'one item' });
    expect(missed?.stub).toBeNull();
    const one = await app.inject({ url: `/__mockyard/requests/${answered?.id}`, headers: auth });
    expect(one.json<{ stub: unknown }>().stub).toEqual({ id: stubId, name: 'one item' });

    const near = await app.inject({ url: `/__mockyard/requests/${missed?.id}/near-misses`, headers: auth });
    const { nearMisses } = near.json<{
      nearMisses: { stubMapping: { id: string }; matchResult: { distance: number }; misses: string[] }[];
    }>();
    expect(nearMisses).toHaveLength(1);
    expect(nearMisses[0]?.stubMapping.id).toBe(stubId);
    expect(nearMisses[0]?.misses).toEqual(['query kind']);
    expect(nearMisses[0]?.matchResult.distance).toBeGreaterThan(0);
    // Same admin token as every admin route; a request the journal no longer holds is a 404.
    expect((await app.inject({ url: `/__mockyard/requests/${missed?.id}/near-misses` })).statusCode).toBe(401);
    expect((await app.inject({ url: '/__mockyard/requests/999999/near-misses', headers: auth })).statusCode).toBe(404);
  });

  it('sets, shows and clears per-area controls; reset clears them too', async () => {
    const { app } = await controlsApp();
    const bad = await app.inject({
      method: 'PUT',
      url: '/__mockyard/controls/archive',
      payload: { latency: [500, 10], errorRate: 0, fault: null },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ message: string }>().message).toMatch(/low <= high/);
    const unknown = await app.inject({
      method: 'PUT',
      url: '/__mockyard/controls/archive',
      payload: { latency: null, errorRate: 101, fault: null },
    });
    expect(unknown.statusCode).toBe(400);

    const set = await app.inject({
      method: 'PUT',
      url: '/__mockyard/controls/archive',
      payload: { latency: null, errorRate: 100, fault: null },
    });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({
      areas: { archive: { errorRate: 100, overridden: true }, dkan: { overridden: false } },
    });
    // Every archive request now fails with a documented status; dkan is untouched.
    for (let i = 0; i < 5; i++)
      expect((await app.inject({ url: '/archive/items/a' })).statusCode).toBeGreaterThanOrEqual(400);
    expect((await app.inject({ url: '/dkan/query' })).statusCode).toBe(200);
    const entry = (await app.inject({ url: '/__mockyard/requests?area=archive&limit=1' })).json<{
      requests: { forced: boolean }[];
    }>();
    expect(entry.requests[0]?.forced).toBe(true);

    const cleared = await app.inject({ method: 'DELETE', url: '/__mockyard/controls/archive' });
    expect(cleared.json()).toMatchObject({ areas: { archive: { errorRate: 0, overridden: false } } });
    expect((await app.inject({ url: '/archive/items/a' })).statusCode).toBe(200);

    await app.inject({
      method: 'PUT',
      url: '/__mockyard/controls/dkan',
      payload: { latency: [0, 0], errorRate: 0, fault: 'slow' },
    });
    await app.inject({ method: 'POST', url: '/__mockyard/reset', payload: {} });
    const after = (await app.inject({ url: '/__mockyard/controls' })).json<{
      areas: Record<string, { overridden: boolean }>;
    }>();
    expect(Object.values(after.areas).every((a) => !a.overridden)).toBe(true);
  });

  it('reports traffic per area from the journal', async () => {
    const { app } = await controlsApp();
    await app.inject({ url: '/archive/items/a' });
    await app.inject({ url: '/archive/items/missing' });
    const res = await app.inject({ url: '/__mockyard/traffic' });
    const body = res.json<{ bucketMs: number; areas: Record<string, { requests: number; clientErrors: number }[]> }>();
    const archive = body.areas.archive ?? [];
    expect(archive.reduce((n, b) => n + b.requests, 0)).toBe(2);
    expect(archive.reduce((n, b) => n + b.clientErrors, 0)).toBe(1);
    expect(body.areas.dkan?.reduce((n, b) => n + b.requests, 0)).toBe(0);
  });

  it('streams the journal live, masked, and ends the stream when the server closes', async () => {
    const { app, url } = await controlsApp({}, true);
    await app.inject({ url: '/archive/items/before' });
    const res = await fetch(`${url}/__mockyard/live`);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const next = eventReader(res.body as ReadableStream<Uint8Array>);
    const snapshot = await next();
    expect(snapshot?.event).toBe('snapshot');
    expect(JSON.stringify(snapshot?.data)).toContain('/archive/items/before');

    await fetch(`${url}/archive/items/live?api_key=hidden-key`);
    const update = await next();
    expect(update?.event).toBe('requests');
    const data = update?.data as { requests: { path: string; query: Record<string, string> }[]; dropped: number };
    expect(data.requests.map((r) => r.path)).toEqual(['/archive/items/live']);
    expect(data.requests[0]?.query.api_key).toBe('***');
    // Summaries: the headers and bodies stay on the server until someone asks for the entry.
    expect(Object.keys(data.requests[0] ?? {})).not.toContain('headers');
    expect(Object.keys(data.requests[0] ?? {})).not.toContain('responseBody');
    expect(data.dropped).toBe(0);

    await app.close();
    expect(await next()).toBeNull();
  });

  it(`holds at most ${LIVE_LIMITS.maxStreams} live streams and needs the admin token like every admin route`, async () => {
    const { url } = await controlsApp({ adminToken: 'tok' }, true);
    expect((await fetch(`${url}/__mockyard/live`)).status).toBe(401);
    const auth = { authorization: 'Bearer tok' };
    const open = await Promise.all(
      Array.from({ length: LIVE_LIMITS.maxStreams }, () => fetch(`${url}/__mockyard/live`, { headers: auth })),
    );
    expect(open.every((r) => r.status === 200)).toBe(true);
    const refused = await fetch(`${url}/__mockyard/live`, { headers: auth });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    for (const r of open) await r.body?.cancel();
  });
});

describe('dashboard page', () => {
  it('serves the page with a strict CSP, its two assets, and nothing else from the asset folder', async () => {
    const { app } = await controlsApp();
    const page = await app.inject({ url: '/__mockyard/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('/__mockyard/assets/dashboard.js');
    for (const asset of ['dashboard.js', 'dashboard.css']) {
      const res = await app.inject({ url: `/__mockyard/assets/${asset}` });
      expect(res.statusCode, asset).toBe(200);
    }
    for (const probe of ['..%2Fpackage.json', '%2e%2e%2f%2e%2e%2fpackage.json', 'index.js', 'cli.js']) {
      expect((await app.inject({ url: `/__mockyard/assets/${probe}` })).statusCode, probe).toBe(404);
    }
  });
});
