// The one answer cache: a repeated request gets the same bytes and headers, through Fastify or the front path.
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { rawGet } from '../helpers/raw-get.js';

const { app } = await testApp();
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as AddressInfo).port;

const get = (path: string, headers: Record<string, string> = {}) => rawGet(port, path, headers);

const catalog = (await app.inject('/__mockyard/fixtures')).json() as {
  archive: { items: { identifier: string; status: string }[] };
  marketcheck: { apiKeys: string[] };
  appcenter: { tokens: { token: string }[]; apps: { owner: string; app: string }[] };
  agco: { tokens: string[] };
};
const token = catalog.appcenter.tokens[0]!.token;
const owned = catalog.appcenter.apps[0]!;
const agco = { authorization: `Bearer ${catalog.agco.tokens[0]}` };
const archiveItem = catalog.archive.items.find((i) => i.status === 'ok')!.identifier;

const cases: [string, string, Record<string, string>][] = [
  ['archive', `/archive/metadata/${archiveItem}`, {}],
  ['marketcheck', `/marketcheck/popular/cars?api_key=${catalog.marketcheck.apiKeys[0]}&car_type=used`, {}],
  ['appcenter', `/appcenter/v0.1/apps/${owned.owner}/${owned.app}/releases?top=3`, { 'x-api-token': token }],
  ['agco', '/agco/api/v2/StringDefinitions?limit=3', { ...agco, accept: 'application/xml' }],
  ['dkan', '/dkan/datastore/query/schema', {}],
];

/** Headers that differ between any two answers of a server (the clock, the connection). */
const stable = (h: IncomingHttpHeaders) => {
  const { date: _date, connection: _c, 'keep-alive': _k, ...rest } = h;
  return rest;
};

describe('the answer cache', () => {
  it.each(cases)(
    'answers a repeated %s request with the same status, headers and bytes',
    async (_area, path, headers) => {
      app.runtime.answers.clear();
      const first = await get(path, headers);
      expect(first.status).toBe(200);
      const stored = app.runtime.answers.size;
      expect(stored).toBe(1);
      const journaled = app.runtime.journal.count();
      // Through the front path (no Origin, no Prefer) and through Fastify (inject does not use the socket).
      const again = await get(path, headers);
      const injected = await app.inject({ url: path, headers });
      expect(again.status).toBe(200);
      expect(again.body.equals(first.body)).toBe(true);
      expect(stable(again.headers)).toEqual(stable(first.headers));
      expect(injected.rawPayload.equals(first.body)).toBe(true);
      expect(injected.headers['content-type']).toBe(first.headers['content-type']);
      // Served answers are journaled like any other.
      expect(app.runtime.journal.count()).toBe(journaled + 2);
      expect(app.runtime.answers.size).toBe(stored);
    },
  );

  it('keys a request by its target in RFC 3986 normal form: encoded unreserved characters and hex case do not make a new entry', async () => {
    app.runtime.answers.clear();
    const key = catalog.marketcheck.apiKeys[0]!;
    const plain = await get(`/marketcheck/popular/cars?api_key=${key}&car_type=used&state=CA`);
    expect(plain.status).toBe(200);
    expect(app.runtime.answers.size).toBe(1);
    // %43 is C and %5f is _ (unreserved); the path's %70 is p.
    for (const spelling of [
      `/marketcheck/popular/cars?api_key=${key}&car_type=used&state=%43A`,
      `/marketcheck/%70opular/cars?api%5fkey=${key}&car_type=used&state=CA`,
    ]) {
      const res = await get(spelling);
      expect(res.status).toBe(200);
      expect(res.body.equals(plain.body)).toBe(true);
      expect(app.runtime.answers.size).toBe(1);
    }
    // A reserved character's encoding (%26 is &) changes what the query says: another entry, never this one.
    const reserved = await get(`/marketcheck/popular/cars?api_key=${key}&car_type=used&state=C%26A`);
    expect(reserved.status).toBe(200);
    expect(reserved.body.equals(plain.body)).toBe(false);
    expect(app.runtime.answers.size).toBe(2);
    // Order is kept: PHP and ASP.NET binders read it.
    await get(`/marketcheck/popular/cars?car_type=used&api_key=${key}&state=CA`);
    expect(app.runtime.answers.size).toBe(3);
  });

  it('keeps a target with a bad percent-encoding as sent: its parser reads an encoded letter there as it is', async () => {
    app.runtime.answers.clear();
    // The query parser decodes a value only when all of it decodes: with %ZZ in it, %6x stays %6x.
    const search = (id: string) =>
      get(`/archive/advancedsearch.php?q=identifier:${id}+OR+%ZZ&fl[]=identifier&output=json`);
    const found = (res: { body: Buffer }) =>
      (JSON.parse(res.body.toString()) as { response: { numFound: number } }).response.numFound;
    const encoded = `%${archiveItem.charCodeAt(0).toString(16)}${archiveItem.slice(1)}`;
    expect(found(await search(archiveItem))).toBe(1);
    console.log('SIZE', app.runtime.answers.size);
    expect(found(await search(encoded))).toBe(0);
    app.runtime.answers.clear();
    expect(found(await search(encoded))).toBe(0);
    expect(found(await search(archiveItem))).toBe(1);
  });

  it('journals a cached answer with the same cut body as the answer it repeats', async () => {
    app.runtime.answers.clear();
    // Longer than the journal keeps (4096 bytes by default), so the journal shows a cut body.
    const path = '/agco/api/v2/StringDefinitions?includeTranslations=true&limit=20';
    const first = await get(path, agco);
    expect(first.body.length).toBeGreaterThan(app.runtime.journal.bodyBytes);
    const again = await get(path, agco);
    const injected = await app.inject({ url: path, headers: agco });
    expect(again.body.equals(first.body)).toBe(true);
    expect(injected.rawPayload.equals(first.body)).toBe(true);
    const [fromFastify, fromFront, original] = app.runtime.journal.list({ area: 'agco', limit: 3 }).requests;
    expect(original!.responseBody).toContain(first.body.subarray(0, 100).toString());
    expect(original!.responseBody!.length).toBeLessThan(first.body.length);
    expect(fromFront!.responseBody).toBe(original!.responseBody);
    expect(fromFastify!.responseBody).toBe(original!.responseBody);
  });

  it('keeps answers apart by the headers that change them', async () => {
    app.runtime.answers.clear();
    const path = '/agco/api/v2/StringDefinitions?limit=2';
    const json = await get(path, agco);
    const xml = await get(path, { ...agco, accept: 'application/xml' });
    const refused = await get(path, { authorization: 'Basic x' });
    expect(json.headers['content-type']).toMatch(/json/);
    expect(xml.headers['content-type']).toMatch(/xml/);
    expect(refused.status).toBe(401);
    expect((await get(path, { authorization: 'Basic x' })).status).toBe(401);
    expect((await get(path, agco)).body.equals(json.body)).toBe(true);
    expect(app.runtime.answers.size).toBe(2);
  });

  it('leaves controls in charge: a Prefer header is honoured, and its answer is not kept', async () => {
    const [, path, headers] = cases[1]!;
    await get(path, headers);
    const forced = await get(path, { ...headers, prefer: 'code=401' });
    expect(forced.status).toBe(401);
    const ok = await get(path, headers);
    expect(ok.status).toBe(200);
  });

  it('is emptied when a scenario changes and answers from the scenario afterwards', async () => {
    const [, path, headers] = cases[1]!;
    await get(path, headers);
    expect(app.runtime.answers.size).toBeGreaterThan(0);
    app.scenarios.put('cache-test', { marketcheck: { listings: [] } });
    expect(app.runtime.answers.size).toBe(0);
    app.scenarios.remove('cache-test');
  });

  it('adds CORS headers for a page, never serving one origin the headers of another', async () => {
    const [, path, headers] = cases[1]!;
    const plain = await get(path, headers);
    const page = await get(path, { ...headers, origin: 'http://localhost:5173' });
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    expect(page.body.equals(plain.body)).toBe(true);
    expect((await get(path, headers)).headers['access-control-allow-origin']).toBeUndefined();
  });
});
