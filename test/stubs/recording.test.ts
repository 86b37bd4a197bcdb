// Passthrough and recording against a local upstream; --mappings directories, __files, and scenario stubs.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'mockyard-stubs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A real upstream on loopback that says which path it was asked for. */
async function upstream(): Promise<{ url: string; close: () => Promise<void>; hits: string[] }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, {
      'content-type': 'application/json',
      'set-cookie': 'sid=upstream-session',
      'x-upstream': 'yes',
    });
    res.end(JSON.stringify({ path: req.url, auth: req.headers.authorization ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const recordDir = path.join(tmp, 'recorded');
const { app } = await testApp({ recordTo: recordDir });
const json = { 'content-type': 'application/json' };

describe('passthrough and recording', () => {
  it('a proxyBaseUrl stub passes the request to the upstream', async () => {
    const up = await upstream();
    await app.inject({
      method: 'POST',
      url: '/__admin/mappings',
      headers: json,
      payload: { request: { urlPathPattern: '/up/.*' }, response: { proxyBaseUrl: up.url } },
    });
    const res = await app.inject({ url: '/up/one?x=1', headers: { authorization: 'Bearer abc' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ path: '/up/one?x=1', auth: 'Bearer abc' });
    expect(res.headers['x-upstream']).toBe('yes');
    await up.close();
    // --record-to wrote it down, cookie masked.
    const files = readdirSync(path.join(recordDir, 'mappings'));
    expect(files.length).toBe(1);
    const saved = readFileSync(path.join(recordDir, 'mappings', files[0]!), 'utf8');
    expect(JSON.parse(saved).request).toEqual({ method: 'GET', url: '/up/one?x=1' });
    expect(saved).not.toContain('upstream-session');
    // The recorded set loads with --mappings and answers with the upstream gone.
    const { app: replay } = await testApp({ mappings: recordDir });
    const again = await replay.inject('/up/one?x=1');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ path: '/up/one?x=1', auth: 'Bearer abc' });
  });

  it('records through /__admin/recordings, masks secrets, and replays with the upstream gone', async () => {
    const up = await upstream();
    const start = await app.inject({
      method: 'POST',
      url: '/__admin/recordings/start',
      headers: json,
      payload: { targetBaseUrl: up.url, captureHeaders: { Authorization: {} } },
    });
    expect(start.statusCode).toBe(200);
    expect((await app.inject('/__admin/recordings/status')).json()).toEqual({ status: 'Recording' });
    const live = await app.inject({
      url: '/rec/item?id=5&api_key=very-secret',
      headers: { authorization: 'Bearer tok-1' },
    });
    expect(live.json()).toEqual({ path: '/rec/item?id=5&api_key=very-secret', auth: 'Bearer tok-1' });
    const stop = await app.inject({ method: 'POST', url: '/__admin/recordings/stop', headers: json, payload: {} });
    const mappings = stop.json<{ mappings: { request: Record<string, unknown> }[] }>().mappings;
    expect(mappings).toHaveLength(1);
    const text = JSON.stringify(mappings);
    expect(text).not.toContain('very-secret');
    expect(text).not.toContain('tok-1');
    expect(text).not.toContain('upstream-session');
    expect(mappings[0]!.request).toMatchObject({
      urlPath: '/rec/item',
      queryParameters: { id: { equalTo: '5' }, api_key: { matches: '.+' } },
      headers: { Authorization: { matches: '.+' } },
    });
    await up.close();
    const replay = await app.inject({ url: '/rec/item?id=5&api_key=another', headers: { authorization: 'Bearer t' } });
    expect(replay.statusCode).toBe(200);
    // The upstream echoed the credentials; the recording keeps them masked.
    expect(replay.json()).toEqual({ path: '/rec/item?id=5&api_key=***', auth: 'Bearer ***' });
    expect(up.hits).toHaveLength(1);
  });
});

describe('--mappings DIR in WireMock layout', () => {
  const dir = path.join(tmp, 'wm');
  mkdirSync(path.join(dir, 'mappings', 'nested'), { recursive: true });
  mkdirSync(path.join(dir, '__files'), { recursive: true });
  writeFileSync(path.join(tmp, 'outside.txt'), 'SECRET OUTSIDE');
  writeFileSync(path.join(dir, '__files', 'hello.json'), '{"hello":"file"}');
  symlinkSync(path.join(tmp, 'outside.txt'), path.join(dir, '__files', 'link.txt'));
  symlinkSync(tmp, path.join(dir, '__files', 'dir-link'));
  const file = (name: string, body: unknown) => writeFileSync(path.join(dir, 'mappings', name), JSON.stringify(body));
  file('one.json', {
    request: { urlPath: '/file' },
    response: { bodyFileName: 'hello.json', headers: { 'Content-Type': 'application/json' } },
  });
  file('nested/many.json', {
    mappings: [
      { request: { urlPath: '/escape' }, response: { bodyFileName: '../outside.txt' } },
      { request: { urlPath: '/link' }, response: { bodyFileName: 'link.txt' } },
      { request: { urlPath: '/absolute' }, response: { bodyFileName: path.join(tmp, 'outside.txt') } },
      { request: { urlPath: '/dir-link' }, response: { bodyFileName: 'dir-link/outside.txt' } },
      { request: { urlPath: '/encoded' }, response: { bodyFileName: '%2e%2e/outside.txt' } },
      { request: { urlPath: '/encoded-2' }, response: { bodyFileName: '..%2foutside.txt' } },
      { request: { urlPath: '/backslash' }, response: { bodyFileName: '..\\outside.txt' } },
    ],
  });

  it('loads mappings/ recursively and sends __files bodies, never a file outside __files', async () => {
    const { app: served } = await testApp({ mappings: dir });
    expect((await served.inject('/file')).json()).toEqual({ hello: 'file' });
    for (const url of ['/escape', '/link', '/absolute', '/dir-link']) {
      const res = await served.inject(url);
      expect(res.statusCode, url).toBe(500);
      expect(res.body).not.toContain('SECRET');
      expect(res.headers['mockyard-error'], url).toMatch(/outside __files/);
    }
    // Names are not URL-decoded (nor are backslashes separators): such a name is a file that is not there.
    for (const url of ['/encoded', '/encoded-2', '/backslash']) {
      const res = await served.inject(url);
      expect(res.statusCode, url).toBe(500);
      expect(res.body).not.toContain('SECRET');
      expect(res.headers['mockyard-error'], url).toMatch(/does not exist/);
    }
    // A stub added later is gone after mappings/reset; the directory's come back.
    await served.inject({
      method: 'POST',
      url: '/__admin/mappings',
      headers: json,
      payload: { request: { urlPath: '/extra' } },
    });
    await served.inject({ method: 'POST', url: '/__admin/mappings/reset', headers: json, payload: {} });
    expect((await served.inject('/__admin/mappings')).json().meta.total).toBe(8);
  });
});

describe('stubs of a mockyard scenario', () => {
  it('answer only inside that scenario', async () => {
    const put = await app.inject({
      method: 'PUT',
      url: '/__mockyard/scenarios/pinned',
      headers: json,
      payload: {
        stubs: [
          { request: { urlPath: '/metadata/pinned-item' }, response: { status: 200, body: 'from the scenario' } },
        ],
      },
    });
    expect(put.statusCode, put.body).toBeLessThan(300);
    expect((await app.inject('/scenarios/pinned/archive/metadata/pinned-item')).body).toBe('from the scenario');
    expect((await app.inject('/archive/metadata/pinned-item')).body).not.toBe('from the scenario');
    const bad = await app.inject({
      method: 'PUT',
      url: '/__mockyard/scenarios/bad',
      headers: json,
      payload: { stubs: [{ request: { urlPattern: '(' } }] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('/stubs/0/request/urlPattern');
    expect(existsSync(recordDir)).toBe(true);
  });
});

/** A DKAN-shaped upstream: two pages of one datastore resource, and an archive item record. */
async function dkanUpstream(): Promise<{ url: string; close: () => Promise<void> }> {
  const rows = [
    { record_number: '1', drug: 'Aspirin', price: '2.50' },
    { record_number: '2', drug: 'Naproxen', price: '7.25' },
    { record_number: '3', drug: 'Ibuprofen', price: '12.00' },
  ];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/api/1/datastore/query/rec-ds/0') {
      const offset = Number(url.searchParams.get('offset') ?? 0);
      res.end(JSON.stringify({ results: rows.slice(offset, offset + 2), count: rows.length }));
    } else if (url.pathname === '/metadata/rec-item') {
      res.end(
        JSON.stringify({
          metadata: { identifier: 'rec-item', title: 'Recorded item', subject: ['a', 'b'] },
          files: [{ name: 'notes.txt', size: '12', format: 'Text', source: 'original', mtime: '1700000000' }],
        }),
      );
    } else {
      res.statusCode = 418;
      res.end('{"teapot":true}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('recorded answers of a modelled area as a scenario', () => {
  it('turns DKAN rows and archive records into scenario records, queried with filters, sorting and paging', async () => {
    const up = await dkanUpstream();
    const post = (url: string, payload: object) => app.inject({ method: 'POST', url, headers: json, payload });
    // The upstream is the real service for every area: DKAN under /api/1, the archive at the root.
    expect((await post('/__admin/recordings/start', { targetBaseUrl: up.url })).statusCode).toBe(200);
    for (const url of [
      '/dkan/datastore/query/rec-ds/0?limit=2',
      '/dkan/datastore/query/rec-ds/0?limit=2&offset=2',
      '/archive/metadata/rec-item',
      '/dkan/not-modelled-here',
    ])
      expect((await app.inject(url)).statusCode).not.toBe(404);
    const bad = await post('/__admin/recordings/stop', { mockyardScenario: 'no spaces' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('/mockyardScenario');
    const stop = await post('/__admin/recordings/stop', { mockyardScenario: 'recorded' });
    expect(stop.statusCode, stop.body).toBe(200);
    expect(stop.json().scenario).toMatchObject({
      name: 'recorded',
      converted: { dkan: 2, archive: 1 },
      stubs: 1,
    });
    expect(stop.json().scenario.areas.sort()).toEqual(['archive', 'dkan']);
    await up.close();

    // Outside the scenario the recording added no shared stub: the area answers its own 404.
    expect((await app.inject('/dkan/datastore/query/rec-ds/0')).statusCode).toBe(404);
    const inScenario = (url: string) => app.inject(`/scenarios/recorded${url}`);
    const sorted = await inScenario(
      '/dkan/datastore/query/rec-ds/0?sorts[0][property]=price&sorts[0][order]=desc&limit=2&offset=1',
    );
    expect(sorted.statusCode, sorted.body).toBe(200);
    // Both recorded pages, queried as one table: numbers sort as numbers, paging applies.
    expect(sorted.json().count).toBe(3);
    expect(sorted.json().results.map((r: { drug: string }) => r.drug)).toEqual(['Naproxen', 'Aspirin']);
    const filtered = await inScenario(
      '/dkan/datastore/query/rec-ds/0?conditions[0][property]=drug&conditions[0][value]=Ibuprofen',
    );
    expect(filtered.json().results).toEqual([{ drug: 'Ibuprofen', price: '12.00' }]);
    const item = await inScenario('/archive/metadata/rec-item');
    expect(item.statusCode).toBe(200);
    expect(item.json().metadata).toMatchObject({ title: 'Recorded item', subject: ['a', 'b'] });
    expect(item.json().files.find((f: { name: string }) => f.name === 'notes.txt')).toMatchObject({ size: '12' });
    // What could not become records replays as the scenario's own stub.
    const teapot = await inScenario('/dkan/not-modelled-here');
    expect(teapot.statusCode).toBe(418);
    // --record-to also keeps the scenario body, as --scenarios-dir loads it.
    const saved = JSON.parse(readFileSync(path.join(recordDir, 'scenarios', 'recorded.json'), 'utf8'));
    expect(saved.dkan.datasets[0].resources[0].rows).toHaveLength(3);
    await app.inject({ method: 'DELETE', url: '/__mockyard/scenarios/recorded' });
  });
});
