// One mapping for the prefix, the area's own port (--area-ports) and the real host name (proxy), through the
// same journal and controls; and one reset for /__admin and /__mockyard.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { type Answer, readAnswer, startHosted } from '../hosts/helpers.js';

const { server } = await startHosted({ port: 0, areaPorts: 0, logLevel: 'silent', journalSize: 100 });
const port = Number(new URL(server.url).port);
const json = { 'content-type': 'application/json' };

/** A request in absolute form, as a client with HTTP_PROXY=mockyard sends it to the real host. */
function viaProxy(target: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: target, headers: { host: new URL(target).host, ...headers }, agent: false },
      (res) => void readAnswer(res).then(resolve, reject),
    );
    req.on('error', reject);
    req.end();
  });
}

const requests = async () =>
  ((await (await fetch(`${server.url}/__mockyard/requests`)).json()) as { requests: unknown[] }).requests;

const admin = (method: string, url: string, body?: unknown) =>
  fetch(`${server.url}/__admin${url}`, {
    method,
    headers: json,
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('one mapping, every way into an area', () => {
  it('answers at the prefix, on the area port and under the real host name; the host matcher narrows it', async () => {
    const created = await admin('POST', '/mappings', {
      request: { method: 'GET', urlPath: '/api/1/harvest/plans', host: { equalTo: 'data.medicaid.gov' } },
      response: { status: 200, jsonBody: ['plan-a'], headers: { 'Content-Type': 'application/json' } },
    });
    expect(created.status).toBe(201);
    const prefix = await fetch(`${server.url}/dkan/harvest/plans`);
    expect(await prefix.json()).toEqual(['plan-a']);
    const own = await fetch(`${server.areaUrls.dkan}/harvest/plans`);
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual(['plan-a']);
    const real = await viaProxy('http://data.medicaid.gov/api/1/harvest/plans');
    expect(real.statusCode).toBe(200);
    expect(JSON.parse(real.body)).toEqual(['plan-a']);
    // The other DKAN host has its own base path: the mapping's host matcher keeps it out.
    const cms = await viaProxy('http://data.cms.gov/provider-data/api/1/harvest/plans');
    expect(cms.statusCode).not.toBe(200);
    // The same path under another area is not this mapping's.
    expect((await fetch(`${server.areaUrls.archive}/api/1/harvest/plans`)).status).toBe(404);
    // One journal: the three answers are counted together, as the real service's URL.
    const count = await admin('POST', '/requests/count', {
      method: 'GET',
      urlPath: '/api/1/harvest/plans',
      host: { equalTo: 'data.medicaid.gov' },
    });
    expect(await count.json()).toMatchObject({ count: 3 });
  });

  it('goes through the controls like any area answer', async () => {
    // A path the area models (DKAN's metastore item), pinned by a stub.
    const path = '/dkan/metastore/schemas/dataset/items/pinned-by-stub';
    await admin('POST', '/mappings', {
      request: { method: 'GET', urlPath: '/api/1/metastore/schemas/dataset/items/pinned-by-stub' },
      response: { status: 200, body: 'pinned' },
    });
    expect(await (await fetch(`${server.url}${path}`)).text()).toBe('pinned');
    // A forced error is the area's own, in its own shape, stub or not.
    const forced = await fetch(`${server.url}${path}`, { headers: { prefer: 'code=404' } });
    expect(forced.status).toBe(404);
    expect(forced.headers.get('matched-stub-id')).toBeNull();
    expect(forced.headers.get('preference-applied')).toBe('code=404');
    const delayed = await fetch(`${server.url}${path}`, { headers: { prefer: 'delay=10' } });
    expect(await delayed.text()).toBe('pinned');
    expect(delayed.headers.get('preference-applied')).toContain('delay=10');
  });

  it('shares one reset: /__mockyard/reset drops stubs, /__admin/reset drops journal and scenarios', async () => {
    await admin('POST', '/mappings', { request: { urlPath: '/reset-me' }, response: { status: 299 } });
    expect((await fetch(`${server.url}/reset-me`)).status).toBe(299);
    const mockyardReset = await fetch(`${server.url}/__mockyard/reset`, { method: 'POST', headers: json, body: '{}' });
    expect(mockyardReset.status).toBe(200);
    expect((await fetch(`${server.url}/reset-me`)).status).toBe(404);
    expect(await (await admin('GET', '/mappings')).json()).toMatchObject({ meta: { total: 0 } });

    const put = await fetch(`${server.url}/__mockyard/scenarios/kept`, {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ stubs: [{ request: { urlPath: '/in-scenario' }, response: { status: 298 } }] }),
    });
    expect(put.status).toBe(201);
    await fetch(`${server.url}/archive/metadata/x-${Date.now()}`);
    expect((await requests()).length).toBeGreaterThan(0);
    expect((await admin('POST', '/reset', {})).status).toBe(200);
    expect(await requests()).toEqual([]);
    expect((await fetch(`${server.url}/__mockyard/scenarios/kept`)).status).toBe(404);
  });
});
